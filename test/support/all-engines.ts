import {
  compile,
  evaluate,
  IncidentSet,
  type ParseOptions,
  parseSearchConditions,
  safeParseSearchConditions,
} from "../../src/index.js";
import { untyped } from "./conditions-input.js";

/** Issues of an input, or [] when it parses. */
export function issuesOf(input: unknown, options?: ParseOptions) {
  const r = safeParseSearchConditions(input, options);
  return r.success ? [] : r.issues;
}

/**
 * Which records (by index) match, by each engine: evaluate, compile (closures), compile (codegen, warmed),
 * IncidentSet.findAll and IncidentSet.count. Throws when they disagree.
 */
export function matching(input: unknown, records: readonly object[], options?: ParseOptions): number[] {
  const condition = parseSearchConditions(input, options);
  const byEvaluate = records.flatMap((r, i) => (evaluate(condition, r) ? [i] : []));
  const closure = compile(condition, { codegen: false, cache: false });
  const byClosure = records.flatMap((r, i) => (closure(r) ? [i] : []));
  const generated = compile(condition, { cache: false });
  for (let k = 0; k < 2_100; k++) generated(records[k % records.length] ?? {});
  const byCodegen = records.flatMap((r, i) => (generated(r) ? [i] : []));
  const tagged = records.map((r, i) => ({ r, i }));
  const set = new IncidentSet(records as object[]);
  const found = set.findAll(condition);
  const bySet = found.map((r) => records.indexOf(r)).sort((a, b) => a - b);
  const bySetRaw = new IncidentSet(
    records as object[],
    options?.catalog ? ({ catalog: options.catalog } as never) : {},
  )
    .findAll(untyped(input))
    .map((r) => records.indexOf(r))
    .sort((a, b) => a - b);
  void tagged;
  const all = { byEvaluate, byClosure, byCodegen, bySet, bySetRaw, count: [set.count(condition)] };
  const key = JSON.stringify(byEvaluate);
  for (const [name, value] of Object.entries(all)) {
    if (name === "count") {
      if (value[0] !== byEvaluate.length) throw new Error(`count disagrees: ${JSON.stringify(all)}`);
    } else if (JSON.stringify(value) !== key) throw new Error(`${name} disagrees: ${JSON.stringify(all)}`);
  }
  return byEvaluate;
}
