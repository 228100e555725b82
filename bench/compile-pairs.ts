/**
 * Paired rounds of `compile` against the hand-written predicate (docs/performance.md, "`compile` against
 * the hand-written predicate"): each round times the compiled and the hand-written counting loop back to
 * back, in alternating order, and the reported figure per query is the median of the per-round ratios
 * (compile time ÷ hand-written time). The counting loops are built as bench/run.ts builds them (one
 * `new Function` source per loop, so that V8 call feedback is not shared between engines). `npm run bench`
 * uses `pairedCompileRatios` for its "compile vs hand-written" target (medians of one engine at a time move
 * with the machine by ±0.15 at 1M; a ratio taken within each round does not).
 *
 * Usage: `tsx bench/compile-pairs.ts [size=10000] [rounds=301]`; `--mingo` adds mingo ÷ hand-written
 * (fewer rounds: mingo is slow).
 */
import { fileURLToPath } from "node:url";
import { Query } from "mingo";
import { compile } from "../src/conditions/compile.js";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { type GeneratedIncident, generateIncidents } from "./generate-incidents.js";
import { type BenchQuery, benchQueries } from "./queries.js";

type Runner = (records: readonly unknown[], predicate: (r: unknown) => boolean) => number;
let loops = 0;
/** A counting loop with a source of its own (see bench/run.ts `makeCounter`). */
function makeCounter(): Runner {
  return new Function(
    "records",
    "predicate",
    `/* pair loop ${++loops} */ let c = 0; for (let i = 0; i < records.length; i++) if (predicate(records[i])) c++; return c;`,
  ) as Runner;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** One query's paired figures. */
export interface PairedRatio {
  readonly name: string;
  /** Median over rounds of compile time ÷ hand-written time. */
  readonly ratio: number;
  readonly q1: number;
  readonly q3: number;
  /** mingo time ÷ hand-written time (median of 9 pairs), with `mingo`. */
  readonly mingoOverHand?: number;
}

/**
 * Paired rounds per query (see the file comment).
 * @param records - the incidents scanned
 * @param queries - the queries (their `conditions`, `hand` and, with `mingo`, `mongo`)
 * @param rounds - rounds per query (odd, so that the median is a round's ratio)
 * @param options - `mingo`: also time mingo against the hand-written loop
 * @throws {Error} when the compiled and hand-written counts differ
 */
export function pairedCompileRatios(
  records: readonly GeneratedIncident[],
  queries: readonly BenchQuery[],
  rounds: number,
  options: { readonly mingo?: boolean } = {},
): PairedRatio[] {
  // Each loop call lasts at least about 2 ms: repeat small sets.
  const reps = Math.max(1, Math.round(200_000 / records.length));
  const time = (run: () => number): number => {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) run();
    return performance.now() - t0;
  };
  const out: PairedRatio[] = [];
  for (const q of queries) {
    const predicate = compile(parseSearchConditions(q.conditions)) as (r: unknown) => boolean;
    const hand = q.hand as (r: unknown) => boolean;
    const cLoop = makeCounter();
    const hLoop = makeCounter();
    const runC = () => cLoop(records, predicate);
    const runH = () => hLoop(records, hand);
    if (runC() !== runH()) throw new Error(`${q.name}: counts differ`);
    for (let i = 0; i < 20; i++) {
      runC();
      runH();
    }
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let c: number;
      let h: number;
      if (round % 2 === 0) {
        c = time(runC);
        h = time(runH);
      } else {
        h = time(runH);
        c = time(runC);
      }
      ratios.push(c / h);
    }
    let mingoOverHand: number | undefined;
    if (options.mingo === true) {
      const query = new Query(q.mongo);
      const mLoop = makeCounter();
      const mPred = (r: unknown) => query.test(r as Record<string, unknown>);
      const mr: number[] = [];
      for (let round = 0; round < 9; round++) {
        const t0 = performance.now();
        mLoop(records, mPred);
        const m = performance.now() - t0;
        const t1 = performance.now();
        runH();
        mr.push(m / (performance.now() - t1));
      }
      mingoOverHand = median(mr);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    out.push({
      name: q.name,
      ratio: median(ratios),
      q1: sorted[rounds >> 2]!,
      q3: sorted[(3 * rounds) >> 2]!,
      ...(mingoOverHand === undefined ? {} : { mingoOverHand }),
    });
  }
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const size = Number(args[0] ?? 10_000);
  const rounds = Number(args[1] ?? 301);
  const records = generateIncidents(size);
  const only = process.env.ONLY;
  const queries = benchQueries(records).filter((q) => only === undefined || q.name.includes(only));
  for (const p of pairedCompileRatios(records, queries, rounds, {
    mingo: process.argv.includes("--mingo"),
  })) {
    const mingo =
      p.mingoOverHand === undefined
        ? ""
        : `  mingo/hand ${p.mingoOverHand.toFixed(1)}  mingo/compile ${(p.mingoOverHand / p.ratio).toFixed(1)}`;
    console.log(
      `${p.name.slice(0, 45).padEnd(46)} c/hand ${p.ratio.toFixed(3)}  (q1 ${p.q1.toFixed(3)}, q3 ${p.q3.toFixed(3)})${mingo}`,
    );
  }
}
