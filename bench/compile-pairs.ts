/**
 * Paired rounds of `compile` against the hand-written predicate (docs/performance.md, "`compile` against
 * the hand-written predicate"): each round times the compiled and the hand-written counting loop back to
 * back, in alternating order, and the reported figure per query is the median of the per-round ratios
 * (compile time ÷ hand-written time). The counting loops are built as bench/run.ts builds them (one
 * `new Function` source per loop, so that V8 call feedback is not shared between engines).
 *
 * Usage: `tsx bench/compile-pairs.ts [size=10000] [rounds=301]`; `--mingo` adds mingo ÷ hand-written
 * (fewer rounds: mingo is slow).
 */
import { Query } from "mingo";
import { compile } from "../src/conditions/compile.js";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { generateIncidents } from "./generate-incidents.js";
import { benchQueries } from "./queries.js";

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

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const size = Number(args[0] ?? 10_000);
const rounds = Number(args[1] ?? 301);
const withMingo = process.argv.includes("--mingo");
const records = generateIncidents(size);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
// Each loop call lasts at least about 2 ms: repeat small sets.
const reps = Math.max(1, Math.round(200_000 / size));

/** Time of `reps` calls of `run`, in ms. */
function time(run: () => number): number {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) run();
  return performance.now() - t0;
}

const only = process.env.ONLY;
for (const q of benchQueries(records)) {
  if (only !== undefined && !q.name.includes(only)) continue;
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
  let mingo = "";
  if (withMingo) {
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
    mingo = `  mingo/hand ${median(mr).toFixed(1)}  mingo/compile ${(median(mr) / median(ratios)).toFixed(1)}`;
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `${q.name.slice(0, 45).padEnd(46)} c/hand ${median(ratios).toFixed(3)}  (q1 ${sorted[rounds >> 2]!.toFixed(3)}, q3 ${sorted[(3 * rounds) >> 2]!.toFixed(3)})${mingo}`,
  );
}
