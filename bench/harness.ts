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
