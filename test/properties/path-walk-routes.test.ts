/**
 * The linear walk of a dotted path (each value visited once per segment, docs/semantics.md 1.7, "The walk
 * of a dotted path") changes no answer: a differential test of every engine against a naive reference that
 * follows each ROUTE of the path on its own, as docs/semantics.md 1.5 states the rule
 * (test/support/route-reference.ts; exponential in the path's length, so the records here are small).
 *
 * The records share values: a node may be reached from several places (`const o = {b: 1}; {a: [o, o]}`),
 * by an index on an array and by a field name, as an element and as an array a numeric segment reaches at
 * the end of the path (compared whole) — the cases where "once per value" could differ from "once per
 * route". Three families: random DAGs over a pool of keys that look like indexes or not (`0`, `1`, `01`,
 * `-0`, ` 0`, `00`, …), the same over `0`/`1` only, and records of 1 to 5 levels of `[{0: x}]`-like
 * wrappers around one shared value under `0`/`1` paths about as long as the record is deep. Arrays of
 * arrays, `null`, empty arrays and empty objects everywhere. The conditions end the paths in equality,
 * `null`, `$ne`, `$in`/`$nin` (with and without `null`), `$exists`, `$size`, `$all`, `$elemMatch` (both
 * forms), `$type`, ranges and `$not`, under `$and`/`$or`/`$nor`.
 *
 * Engines: `evaluate`, `compile` (closures and generated code), `IncidentSet.findAll`/`count` (on the
 * shared records themselves), and on the records' JSON lines (the sharing unrolled into a tree, which the
 * reference answers alike): `evaluate`, `IncidentSet.fromNdjson` and the byte reader of `match`
 * (`LineMatcher`). Checked to fail when a walk keeps a value once per WALK instead of once per segment, or
 * keeps an array reached whole by an index and the same array reached by a field as one (each in
 * `evaluate` and in `walkRest`).
 * Replay a failure with `FC_SEED=<seed> npx vitest run test/properties/path-walk-routes.test.ts`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/conditions/compile.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { LINE_EXACT, LINE_MATCH, LineMatcher } from "../../src/incidents/line-matcher.js";
import { fcOptions } from "../support/fc.js";
import {
  build,
  type Cond,
  condArb,
  condJson,
  dagArb,
  layeredArb,
  refMatch,
} from "../support/route-reference.js";
import { switched } from "../support/tiers.js";

// ---------------------------------------------------------------------------------------------------------
// The engines

/** Which records each engine matches (indexes), by name. */
async function engines(input: unknown, records: readonly Record<string, unknown>[]) {
  const condition = parseSearchConditions(input);
  const indexes = (test: (r: Record<string, unknown>) => boolean) =>
    records.flatMap((r, i) => (test(r) ? [i] : []));
  const closure = compile(condition, { codegen: false, cache: false });
  const generated = switched(compile(condition, { cache: false }));
  const set = new IncidentSet(records.map((r) => r));
  const found = new Set(set.findAll(condition));
  const lines = records.map((r) => JSON.stringify(r));
  const compact = await IncidentSet.fromNdjson([`${lines.join("\n")}\n`]);
  const trees = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const compactFound = compact.findAll(condition).map((r) => JSON.stringify(r));
  const matcher = new LineMatcher(condition);
  const encoder = new TextEncoder();
  return {
    evaluate: indexes((r) => evaluate(condition, r)),
    closures: indexes((r) => closure(r)),
    codegen: indexes((r) => generated(r)),
    findAll: indexes((r) => found.has(r)),
    count: set.count(condition),
    evaluateOnTree: trees.flatMap((r, i) => (evaluate(condition, r) ? [i] : [])),
    fromNdjson: lines.flatMap((line, i) => (compactFound.includes(line) ? [i] : [])),
    lineMatcher: lines.flatMap((line, i) => {
      const bytes = encoder.encode(line);
      const answer = matcher.test(bytes, 0, bytes.length);
      const yes = answer === LINE_EXACT ? matcher.predicate(JSON.parse(line)) : answer === LINE_MATCH;
      return yes ? [i] : [];
    }),
  };
}

/** Asserts every engine answers as the route-by-route reference. */
async function agree(cond: Cond, records: readonly Record<string, unknown>[]) {
  const expected = records.flatMap((r, i) => (refMatch(cond, r) ? [i] : []));
  const got = await engines(condJson(cond), records);
  const wanted = {
    ...Object.fromEntries(Object.keys(got).map((k) => [k, expected])),
    count: expected.length,
  };
  expect(got, `${JSON.stringify(condJson(cond))} on ${JSON.stringify(records)}`).toEqual(wanted);
}

// ---------------------------------------------------------------------------------------------------------
// Tests

/** Hand-written shapes where two routes reach the same value with different meanings. */
const shared = { b: 1, 0: 2 };
const inner = [3];
const twice = [shared, shared];
const TABLE: readonly (readonly [name: string, cond: Cond, record: Record<string, unknown>])[] = [
  [
    "one object twice in an array: a.b",
    { kind: "field", path: ["a", "b"], op: { op: "eq", k: 1 } },
    { a: twice },
  ],
  [
    "one object twice: a.0 by index and by field",
    { kind: "field", path: ["a", "0"], op: { op: "eq", k: 2 } },
    { a: twice },
  ],
  [
    "one object twice: a.0 $size 2 is never the array",
    { kind: "field", path: ["a", "0"], op: { op: "size", n: 2 } },
    { a: twice },
  ],
  [
    "an array reached whole by index and by a field at the last segment: a.0 = 3",
    { kind: "field", path: ["a", "0"], op: { op: "eq", k: 3 } },
    { a: [inner, { 0: inner }] },
  ],
  [
    "the same, as $ne: one route says 3 (traversed), the other compares [3] whole",
    { kind: "field", path: ["a", "0"], op: { op: "ne", k: 3 } },
    { a: [inner, { 0: inner }] },
  ],
  [
    "an element that is also the array reached: a.0.0 with a = [[x], …] where x is a.0",
    { kind: "field", path: ["a", "0", "0"], op: { op: "eq", k: 3 } },
    { a: [[inner], { 0: inner }] },
  ],
  [
    "an array reached whole by index in one array, then by a field in another: a.b.0 = 3",
    { kind: "field", path: ["a", "b", "0"], op: { op: "eq", k: 3 } },
    { a: [{ b: [inner] }, { b: [{ 0: inner }] }] },
  ],
  [
    "the same reached the other way round: a.b.0 $ne 3",
    { kind: "field", path: ["a", "b", "0"], op: { op: "ne", k: 3 } },
    { a: [{ b: [{ 0: inner }] }, { b: [inner] }] },
  ],
  [
    "$type array at the end, reached whole and by field",
    { kind: "field", path: ["a", "0"], op: { op: "type", t: "array" } },
    { a: [{ 0: inner }] },
  ],
  [
    "$elemMatch on an array reached twice",
    { kind: "field", path: ["a", "0"], op: { op: "emEq", k: 3 } },
    { a: [inner, { 0: inner }] },
  ],
  [
    "$all over two routes to the same values",
    { kind: "field", path: ["a", "0"], op: { op: "all", ks: [3, 2] } },
    { a: [inner, shared, { 0: inner }] },
  ],
  [
    "null by several missing routes",
    { kind: "field", path: ["a", "b", "0"], op: { op: "eq", k: null } },
    { a: [twice, shared, [], {}] },
  ],
  [
    "$exists false where every route is missing",
    { kind: "field", path: ["a", "01"], op: { op: "exists", b: false } },
    { a: [inner, inner, { 1: 2 }] },
  ],
];

describe("the walk of a dotted path against a route-by-route reference (docs/semantics.md 1.5, 1.7)", () => {
  it.each(TABLE)("%s", async (_name, cond, record) => {
    await agree(cond, [record, structuredClone(record)]);
  });

  it.each(["mixed", "numeric"] as const)(
    "DAG records (shared nodes), %s keys: every engine answers as every route does",
    async (keys) => {
      await fc.assert(
        fc.asyncProperty(
          condArb(keys),
          fc.array(dagArb(keys).map(build), { minLength: 1, maxLength: 4 }),
          agree,
        ),
        fcOptions(300),
      );
    },
  );

  it("records of shared [{0: x}]-like levels under 0/1 paths of their depth: every engine answers as every route does", async () => {
    await fc.assert(
      fc.asyncProperty(layeredArb, ([cond, record]) => agree(cond, [record, structuredClone(record)])),
      fcOptions(1000),
    );
  });
});
