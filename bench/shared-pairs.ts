/**
 * `compile` against the hand-written predicate through ONE counting loop per engine shared by every query
 * (a megamorphic call site, as `IncidentSet`'s row check; docs/performance.md, "Tiers"): per query, the
 * median over rounds of compile time ÷ hand-written time, printed in `benchQueries` order. Between rounds
 * every predicate passes through the shared loops again.
 * Usage: `tsx bench/shared-pairs.ts [size=10000] [rounds=61]`
 */
import { compile } from "../src/conditions/compile.js";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { generateIncidents } from "./generate-incidents.js";
import { benchQueries } from "./queries.js";

type Runner = (records: readonly unknown[], predicate: (r: unknown) => boolean) => number;
const mk = (tag: string) =>
  new Function(
    "records",
    "predicate",
    `/* ${tag} */ let c = 0; for (let i = 0; i < records.length; i++) if (predicate(records[i])) c++; return c;`,
  ) as Runner;
const size = Number(process.argv[2] ?? 10000);
const rounds = Number(process.argv[3] ?? 61);
const records = generateIncidents(size);
const qs = benchQueries(records);
const cl = mk("c"),
  hl = mk("h");
const preds = qs.map((q) => compile(parseSearchConditions(q.conditions)) as (r: unknown) => boolean);
const hands = qs.map((q) => q.hand as (r: unknown) => boolean);
for (let w = 0; w < 30; w++)
  for (let k = 0; k < qs.length; k++) {
    if (cl(records, preds[k]!) !== hl(records, hands[k]!)) throw new Error("differ");
  }
const reps = Math.max(1, Math.round(200_000 / size));
const time = (f: () => void) => {
  const t = performance.now();
  for (let i = 0; i < reps; i++) f();
  return performance.now() - t;
};
const out: string[] = [];
for (let k = 0; k < qs.length; k++) {
  const r: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // every predicate passes through the shared loops between rounds, as in a server answering many queries
    for (let j = 0; j < qs.length; j++) {
      cl(records.slice(0, 64), preds[j]!);
      hl(records.slice(0, 64), hands[j]!);
    }
    const c = time(() => cl(records, preds[k]!));
    const h = time(() => hl(records, hands[k]!));
    r.push(c / h);
  }
  r.sort((a, b) => a - b);
  out.push(r[rounds >> 1]!.toFixed(2));
}
console.log(out.join(" "));
