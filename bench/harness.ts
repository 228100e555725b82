/**
 * The benchmark harness shared by every bench section: median of repeated timed runs, in one process, so
 * that engines are compared on the same data under the same machine load. Report ratios, not absolute
 * times: the machines are shared and noisy.
 */

/** One measured engine on one case. */
export interface Measurement {
  readonly engine: string;
  /** Median wall time of one run of the case, in milliseconds. */
  readonly medianMs: number;
  /** The engine's answer size (match count), which must agree across engines of one case. */
  readonly count: number;
  readonly runs: number;
}

/** One case (a query at a size, or a timeline operation) with every engine measured on it. */
export interface BenchCase {
  readonly section: string;
  readonly name: string;
  readonly size: number;
  readonly measurements: readonly Measurement[];
}

/**
 * Times `fn` repeatedly: a warm-up, then runs until both `minRuns` and `minTimeMs` are reached (or
 * `maxRuns`), and returns the median time of one call in milliseconds with the last result.
 */
export function measure<T>(
  fn: () => T,
  { minRuns = 5, maxRuns = 1_000_000, minTimeMs = 300, warmup = 2 } = {},
): { medianMs: number; runs: number; result: T } {
  let result = fn();
  for (let i = 1; i < warmup; i++) result = fn();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < maxRuns && (times.length < minRuns || performance.now() - start < minTimeMs)) {
    const t0 = performance.now();
    result = fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[times.length >> 1]!, runs: times.length, result };
}

/**
 * Measures each engine on a case, checks that every engine's count agrees with the first one's, and
 * throws (failing the benchmark) when they differ.
 * @throws {Error} when two engines disagree on the count
 */
export function benchCase(
  section: string,
  name: string,
  size: number,
  engines: readonly { readonly engine: string; readonly run: () => number }[],
  options?: Parameters<typeof measure>[1],
): BenchCase {
  const measurements: Measurement[] = [];
  for (const { engine, run } of engines) {
    const { medianMs, runs, result } = measure(run, options);
    measurements.push({ engine, medianMs, runs, count: result });
  }
  const expected = measurements[0]?.count;
  const wrong = measurements.filter((m) => m.count !== expected);
  if (wrong.length > 0) {
    throw new Error(
      `${section} / ${name} @${size}: engines disagree: ${measurements.map((m) => `${m.engine}=${m.count}`).join(", ")}`,
    );
  }
  return { section, name, size, measurements };
}

/** The ratio `other / ours` of two measurements' medians (how many times faster ours is), two decimals. */
export function ratio(ours: Measurement, other: Measurement): number {
  return Math.round((other.medianMs / ours.medianMs) * 100) / 100;
}

/** One engine of an interleaved measurement: its name, one run (sync or async) answering a count. */
export interface InterleavedEngine {
  readonly engine: string;
  readonly run: () => number | Promise<number>;
  /** A slow engine is run at most `slowRuns` times (after one warm-up), one call per round. */
  readonly slow?: boolean;
}

/** Repetition bounds of {@link measureInterleaved}. */
export interface InterleaveOptions {
  /** Rounds at least. Default 5. */
  readonly minRuns?: number;
  /** Rounds at most. Default 1,000. */
  readonly maxRuns?: number;
  /** Keep adding rounds until this much wall time (ms) has passed in timed rounds. Default 300. */
  readonly minTimeMs?: number;
  /**
   * The time (ms) one engine's turn in a round should take: a fast engine is called as many times in its
   * turn as fit (calibrated in the warm-up, at most 100,000), and its sample is the mean of those calls.
   * Default 10.
   */
  readonly sliceMs?: number;
  /** Timed runs of a slow engine (at least 1). Default 1. */
  readonly slowRuns?: number;
}

/**
 * Times several engines on one case INTERLEAVED: every round gives each engine one turn, the round's
 * first engine rotating, so that a burst of machine load falls on all engines alike instead of on
 * whichever engine was being measured at the time (timing them one after another swung ratios by ±30% on
 * a loaded machine). In its turn a fast engine runs a batch of calls lasting about `sliceMs` (so that a
 * microsecond operation is timed over many calls and stays JIT-warm beside engines taking 100 ms), and
 * the turn's sample is the batch's mean; each engine's reported time is the median of its samples. The
 * warm-up runs every engine for about two slices (a slow engine once) and calibrates the batch sizes. An
 * async run is awaited inside its timing.
 *
 * Every run's answer is compared with the first engine's first answer.
 * @throws {Error} when two engines (or two runs of one engine) disagree on the count, naming every answer
 */
export async function measureInterleaved(
  section: string,
  name: string,
  size: number,
  engines: readonly InterleavedEngine[],
  { minRuns = 5, maxRuns = 1_000, minTimeMs = 300, sliceMs = 10, slowRuns = 1 }: InterleaveOptions = {},
): Promise<BenchCase> {
  const answers: number[] = [];
  for (const { run } of engines) answers.push(await run());
  const disagree = (found: readonly number[]) =>
    new Error(
      `${section} / ${name} @${size}: engines disagree: ${engines.map((e, i) => `${e.engine}=${found[i]}`).join(", ")}`,
    );
  if (answers.some((a) => a !== answers[0])) throw disagree(answers);
  const check = (i: number, answer: number) => {
    if (answer === answers[0]) return;
    const found = [...answers];
    found[i] = answer;
    throw disagree(found);
  };
  /** Runs engine `i` `calls` times; returns the total wall time in ms. */
  const batch = async (i: number, calls: number): Promise<number> => {
    const { run } = engines[i]!;
    const t0 = performance.now();
    for (let c = 0; c < calls; c++) {
      let answer = run();
      if (typeof answer !== "number") answer = await answer;
      check(i, answer);
    }
    return performance.now() - t0;
  };
  const calls: number[] = [];
  for (let i = 0; i < engines.length; i++) {
    if (engines[i]!.slow) {
      calls.push(1);
      continue;
    }
    let done = 0;
    let spent = 0;
    while (spent < 2 * sliceMs && done < 200_000) {
      const n = Math.max(1, done);
      spent += await batch(i, n);
      done += n;
    }
    calls.push(Math.min(100_000, Math.max(1, Math.round((sliceMs * done) / Math.max(spent, 1e-6)))));
  }
  const samples: number[][] = engines.map(() => []);
  const start = performance.now();
  for (let round = 0; round < maxRuns; round++) {
    if (round >= minRuns && performance.now() - start >= minTimeMs) break;
    for (let k = 0; k < engines.length; k++) {
      const i = (round + k) % engines.length;
      if (engines[i]!.slow && samples[i]!.length >= Math.max(1, slowRuns)) continue;
      samples[i]!.push((await batch(i, calls[i]!)) / calls[i]!);
    }
  }
  const measurements = engines.map(({ engine }, i): Measurement => {
    const sorted = [...samples[i]!].sort((a, b) => a - b);
    return {
      engine,
      medianMs: sorted[sorted.length >> 1]!,
      runs: sorted.length * calls[i]!,
      count: answers[0]!,
    };
  });
  return { section, name, size, measurements };
}

/**
 * One target of the closing lines of `npm run bench`: its name, its goal and the figure reached. `met` is
 * `null` when the run did not measure it (SKIP; `reached` then says why and how to run it): a target not
 * measured is never MET.
 */
export interface Target {
  readonly name: string;
  readonly goal: string;
  readonly reached: string;
  readonly met: boolean | null;
}

/** The target's closing line: `MET`, `MISS` or `SKIP`, its name, the figure reached and the goal. */
export function targetLine(target: Target): string {
  const verdict = target.met === null ? "SKIP" : target.met ? "MET " : "MISS";
  return `  ${verdict} ${target.name}: ${target.reached} (goal ${target.goal})`;
}
