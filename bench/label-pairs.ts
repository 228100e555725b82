/**
 * Paired rounds of the label expressions' generated loop against their blocks (docs/performance.md,
 * "Label expressions"): two sets over the same generated incidents, one with the default options and one
 * with `compile.codegen: false` (which takes the blocks, src/incidents/label-bitsets.ts), timed back to
 * back in alternating order; the figure per row is the median of the rounds' ratios (blocks ÷ generated
 * loop: above 1, the generated loop is faster). Rows whose plan is not a label expression are refused.
 *
 * Usage: `tsx bench/label-pairs.ts [size=1000000] [rounds=41]`
 */
import { IncidentSet } from "../src/index.js";
import { generateIncidents } from "./generate-incidents.js";
import { benchQueries } from "./queries.js";

const [sizeArg, roundsArg] = process.argv.slice(2);
const size = Number(sizeArg ?? 1_000_000);
const rounds = Number(roundsArg ?? 41);
const incidents = generateIncidents(size, 42);
const byName = new Map(benchQueries(incidents).map((q) => [q.name, q.conditions]));
const generated = new IncidentSet(incidents);
const blocks = new IncidentSet(incidents, { compile: { codegen: false } });
type Set = typeof generated;

const rows: { name: string; conditions: unknown }[] = [
  { name: "OR of two objects", conditions: byName.get("OR of two objects") },
  { name: "$ne + $nin + equality", conditions: byName.get("$ne + $nin + equality") },
  {
    name: "NOT of an OR of labels",
    conditions: { $nor: [{ Severity: "Low" }, { Status: "Closed", Type: { $in: ["Phishing", "Malware"] } }] },
  },
];

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const quartile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!;

for (const row of rows) {
  const conditions = row.conditions as Parameters<Set["count"]>[0];
  const plan = JSON.stringify(generated.explain(conditions).count);
  if (!/label bitsets|fused code bitsets/.test(plan))
    throw new Error(`${row.name}: not a label expression: ${plan}`);
  for (const mode of ["count", "findAll"] as const) {
    const run = (set: Set): number => {
      let n = 0;
      for (let i = 0; i < (mode === "count" ? 20 : 4); i++)
        n += mode === "count" ? set.count(conditions) : set.findAll(conditions).length;
      return n;
    };
    const a = run(generated);
    const b = run(blocks);
    if (a !== b) throw new Error(`${row.name} ${mode}: generated ${a} ≠ blocks ${b}`);
    for (let w = 0; w < 5; w++) {
      run(generated);
      run(blocks);
    }
    const time = (set: Set) => {
      const t = performance.now();
      run(set);
      return performance.now() - t;
    };
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let tg: number;
      let tb: number;
      if (r % 2 === 0) {
        tg = time(generated);
        tb = time(blocks);
      } else {
        tb = time(blocks);
        tg = time(generated);
      }
      ratios.push(tb / tg);
    }
    console.log(
      `${median(ratios).toFixed(2)}  (q1 ${quartile(ratios, 0.25).toFixed(2)}, q3 ${quartile(ratios, 0.75).toFixed(2)})  IncidentSet.${mode}: ${row.name}  [blocks ÷ generated loop, ${size.toLocaleString("en-US")} incidents, ${rounds} rounds]`,
    );
  }
}
