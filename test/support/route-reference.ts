/**
 * A naive reference for the walk of a dotted path, route by route (docs/semantics.md 1.5), with generators
 * of small DAG records (shared nodes) and of conditions over numeric-looking paths: for the differential
 * test of test/properties/path-walk-routes.test.ts. Exponential in the path's length on purpose: it follows
 * every route on its own, sharing nothing with the engines' walks, which visit each value once per segment.
 */
import fc from "fast-check";

// ---------------------------------------------------------------------------------------------------------
// The reference: every route of the path on its own (docs/semantics.md 1.5)

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What one route ends in: a value (`whole` when an array index reached it at the last segment) or nothing. */
type End = { readonly value: unknown; readonly whole: boolean } | "missing";

const INDEX = /^(?:0|[1-9][0-9]*)$/;
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const own = (holder: object, key: string): unknown =>
  Object.hasOwn(holder, key) ? (holder as Record<string, unknown>)[key] : undefined;

/**
 * Every route of `path` from `doc`, one end per route (no deduplication). `doc` is a record, or an
 * `$elemMatch` element (an array is then a document whose only fields are its indexes).
 */
export function routes(doc: object, path: readonly string[]): End[] {
  const ends: End[] = [];
  const go = (value: unknown, whole: boolean, i: number): void => {
    if (i === path.length) {
      ends.push({ value, whole });
      return;
    }
    const segment = path[i]!;
    const next = (v: unknown, w: boolean) => (v === undefined ? ends.push("missing") : go(v, w, i + 1));
    if (typeof value !== "object" || value === null) {
      ends.push("missing");
      return;
    }
    if (!Array.isArray(value)) {
      next(own(value, segment), false);
      return;
    }
    // An array: each element that is an object gives its field (route 1..n); any other element, and an
    // empty array, is a missing place; a numeric segment also takes the element at its index (one more
    // route, compared whole when it is the last segment).
    if (value.length === 0) ends.push("missing");
    for (const element of value) {
      if (isPlainObject(element)) next(own(element, segment), false);
      else ends.push("missing");
    }
    if (INDEX.test(segment)) {
      const indexed = own(value, segment);
      if (indexed !== undefined) go(indexed, i + 1 === path.length, i + 1);
    }
  };
  const first = path[0]!;
  const top = Array.isArray(doc) && !INDEX.test(first) ? undefined : own(doc, first);
  if (top === undefined) ends.push("missing");
  else go(top, false, 1);
  return ends;
}

/** A field's operator, as the generator builds it (the reference's own form; `json` is the condition). */
export type Op =
  | { readonly op: "eq"; readonly k: Json }
  | { readonly op: "ne"; readonly k: Json }
  | { readonly op: "in"; readonly ks: readonly Json[] }
  | { readonly op: "nin"; readonly ks: readonly Json[] }
  | { readonly op: "exists"; readonly b: boolean }
  | { readonly op: "size"; readonly n: number }
  | { readonly op: "all"; readonly ks: readonly Json[] }
  | { readonly op: "emEq"; readonly k: Json }
  | { readonly op: "emGt"; readonly n: number }
  | { readonly op: "emQuery"; readonly sub: Cond }
  | { readonly op: "type"; readonly t: "array" | "null" | "object" | "number" | "string" }
  | { readonly op: "gt"; readonly n: number }
  | { readonly op: "lte"; readonly n: number }
  | { readonly op: "not"; readonly inner: Op };

export type Cond =
  | { readonly kind: "field"; readonly path: readonly string[]; readonly op: Op }
  | { readonly kind: "and" | "or" | "nor"; readonly children: readonly Cond[] };

function typeOf(t: string, v: unknown): boolean {
  switch (t) {
    case "array":
      return Array.isArray(v);
    case "null":
      return v === null;
    case "object":
      return isPlainObject(v);
    case "number":
      return typeof v === "number";
    default:
      return typeof v === "string";
  }
}

/** Some route ends in a value passing `test`, itself or (not `whole`) one of its elements. */
function some(ends: readonly End[], test: (v: unknown) => boolean): boolean {
  return ends.some(
    (end) =>
      end !== "missing" &&
      (test(end.value) || (!end.whole && Array.isArray(end.value) && end.value.some(test))),
  );
}

function refOp(op: Op, ends: readonly End[]): boolean {
  const missing = ends.includes("missing");
  const values = ends.filter((end): end is Exclude<End, "missing"> => end !== "missing");
  const equals = (k: Json) =>
    k === null ? missing || some(ends, (v) => v === null) : some(ends, (v) => v === k);
  switch (op.op) {
    case "eq":
      return equals(op.k);
    case "ne":
      return !equals(op.k);
    case "in":
      return op.ks.some(equals);
    case "nin":
      return !op.ks.some(equals);
    case "exists":
      return values.length > 0 === op.b;
    case "size":
      return values.some(({ value }) => Array.isArray(value) && value.length === op.n);
    case "all":
      return op.ks.length > 0 && op.ks.every(equals);
    case "emEq":
      return values.some(({ value }) => Array.isArray(value) && value.some((e) => e === op.k));
    case "emGt":
      return values.some(
        ({ value }) => Array.isArray(value) && value.some((e) => typeof e === "number" && e > op.n),
      );
    case "emQuery":
      return values.some(
        ({ value }) =>
          Array.isArray(value) &&
          value.some((e) => typeof e === "object" && e !== null && refMatch(op.sub, e)),
      );
    case "type":
      return some(ends, (v) => typeOf(op.t, v));
    case "gt":
      return some(ends, (v) => typeof v === "number" && v > op.n);
    case "lte":
      return some(ends, (v) => typeof v === "number" && v <= op.n);
    case "not":
      return !refOp(op.inner, ends);
  }
}

/** The reference's answer for a condition on a record (or an `$elemMatch` element). */
export function refMatch(cond: Cond, doc: object): boolean {
  switch (cond.kind) {
    case "field":
      return refOp(cond.op, routes(doc, cond.path));
    case "and":
      return cond.children.every((c) => refMatch(c, doc));
    case "or":
      return cond.children.some((c) => refMatch(c, doc));
    case "nor":
      return !cond.children.some((c) => refMatch(c, doc));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Conditions as Search Conditions

/** `bare`: equality as the plain operand (not possible under `$not`, which takes an operator object). */
function opJson(op: Op, bare = true): unknown {
  switch (op.op) {
    case "eq":
      return bare ? op.k : { $eq: op.k };
    case "ne":
      return { $ne: op.k };
    case "in":
      return { $in: op.ks };
    case "nin":
      return { $nin: op.ks };
    case "exists":
      return { $exists: op.b };
    case "size":
      return { $size: op.n };
    case "all":
      return { $all: op.ks };
    case "emEq":
      return { $elemMatch: { $eq: op.k } };
    case "emGt":
      return { $elemMatch: { $gt: op.n } };
    case "emQuery":
      return { $elemMatch: condJson(op.sub) };
    case "type":
      return { $type: op.t };
    case "gt":
      return { $gt: op.n };
    case "lte":
      return { $lte: op.n };
    case "not":
      return { $not: opJson(op.inner, false) };
  }
}

export function condJson(cond: Cond): Record<string, unknown> {
  if (cond.kind === "field") return { [cond.path.join(".")]: opJson(cond.op) };
  return { [`$${cond.kind}`]: cond.children.map(condJson) };
}

// ---------------------------------------------------------------------------------------------------------
// Generators

/**
 * Keys of records and segments of paths: field names, indexes, and strings that only look like indexes;
 * `0` and `b` most often, so that paths meet the records' keys.
 */
const KEYS = ["a", "b", "0", "1", "2", "01", "-0", " 0", "00"] as const;
const keyArb = fc.oneof(
  { weight: 10, arbitrary: fc.constant("0") },
  { weight: 3, arbitrary: fc.constant("b") },
  { weight: 2, arbitrary: fc.constant("1") },
  { weight: 3, arbitrary: fc.constantFrom(...KEYS) },
);
const scalarArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Json>(1, 2) },
  { weight: 2, arbitrary: fc.constant<Json>(null) },
  { weight: 1, arbitrary: fc.constantFrom<Json>("x", true, 0) },
);
const operandArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Json>(1, 2) },
  { weight: 1, arbitrary: fc.constantFrom<Json>("x", true, 0) },
);

/**
 * The keys of one family of records and paths: `mixed` (the pool above), or `numeric` (only `0` and `1`
 * below the top-level `a`: every segment both indexes and reads a field, the shape of the records).
 */
export type Keys = "mixed" | "numeric";
const keysOf = (keys: Keys): fc.Arbitrary<string> =>
  keys === "mixed"
    ? keyArb
    : fc.oneof({ weight: 4, arbitrary: fc.constant("0") }, { weight: 1, arbitrary: fc.constant("1") });
const rootKeysOf = (keys: Keys): fc.Arbitrary<string> =>
  keys === "mixed" ? fc.constantFrom("a", "b", "0") : fc.constant("a");

/** How many segments follow the first: at most 4 by default. */
export interface Lengths {
  readonly minLength: number;
  readonly maxLength: number;
}
const pathArb = (keys: Keys, lengths: Lengths) =>
  fc.tuple(rootKeysOf(keys), fc.array(keysOf(keys), lengths)).map(([first, rest]) => [first, ...rest]);

const baseOpArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: operandArb.map((k): Op => ({ op: "eq", k })) },
  { weight: 3, arbitrary: fc.constant<Op>({ op: "eq", k: null }) },
  { weight: 2, arbitrary: scalarArb.map((k): Op => ({ op: "ne", k })) },
  {
    weight: 2,
    arbitrary: fc.array(scalarArb, { minLength: 1, maxLength: 3 }).map((ks): Op => ({ op: "in", ks })),
  },
  {
    weight: 2,
    arbitrary: fc.array(scalarArb, { minLength: 1, maxLength: 3 }).map((ks): Op => ({ op: "nin", ks })),
  },
  { weight: 2, arbitrary: fc.boolean().map((b): Op => ({ op: "exists", b })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 }).map((n): Op => ({ op: "size", n })) },
  {
    weight: 2,
    arbitrary: fc.array(operandArb, { minLength: 1, maxLength: 3 }).map((ks): Op => ({ op: "all", ks })),
  },
  { weight: 2, arbitrary: operandArb.map((k): Op => ({ op: "emEq", k })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 1 }).map((n): Op => ({ op: "emGt", n })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("array", "null", "object", "number", "string")
      .map((t): Op => ({ op: "type", t })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 1 }).map((n): Op => ({ op: "gt", n })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 1 }).map((n): Op => ({ op: "lte", n })) },
);

/** A field condition; `$elemMatch`'s query form holds field conditions of its own (one level). */
const fieldArb = (inner: boolean, keys: Keys, lengths: Lengths): fc.Arbitrary<Cond> => {
  const ops: fc.Arbitrary<Op> = inner
    ? fc.oneof(
        { weight: 5, arbitrary: baseOpArb },
        { weight: 1, arbitrary: baseOpArb.map((o): Op => ({ op: "not", inner: o })) },
      )
    : fc.oneof(
        { weight: 8, arbitrary: baseOpArb },
        { weight: 2, arbitrary: baseOpArb.map((o): Op => ({ op: "not", inner: o })) },
        {
          weight: 2,
          arbitrary: fc
            .array(fieldArb(true, keys, { minLength: 0, maxLength: 3 }), { minLength: 1, maxLength: 2 })
            .map(
              (children): Op => ({
                op: "emQuery",
                sub: children.length === 1 ? children[0]! : { kind: "and", children },
              }),
            ),
        },
      );
  return fc.tuple(pathArb(keys, lengths), ops).map(([path, op]): Cond => ({ kind: "field", path, op }));
};

/** A condition: a field condition, or `$and`/`$or`/`$nor` of a few. */
export const condArb = (keys: Keys, lengths: Lengths = { minLength: 0, maxLength: 4 }): fc.Arbitrary<Cond> =>
  fc.oneof(
    { weight: 4, arbitrary: fieldArb(false, keys, lengths) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom("and", "or", "nor") as fc.Arbitrary<"and" | "or" | "nor">,
          fc.array(fieldArb(false, keys, lengths), { minLength: 1, maxLength: 3 }),
        )
        .map(([kind, children]): Cond => ({ kind, children })),
    },
  );

/**
 * A node of a DAG: a scalar, or an object/array whose entries are scalars or earlier nodes (`ref`), so a
 * node can sit in several places. The record is an object over the pool's nodes.
 */
type Slot = { readonly back: number } | { readonly scalar: Json };
type NodeSpec =
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, Slot])[] }
  | { readonly kind: "array"; readonly items: readonly Slot[] };

/** A DAG spec of `keys`: the nodes, and the record's own entries. */
export const dagArb = (keys: Keys) => {
  // Mostly the nearest nodes (deep records), any of the earlier ones too (sharing across levels).
  const refArb: fc.Arbitrary<Slot> = fc.oneof(
    { weight: 3, arbitrary: fc.nat({ max: 1 }).map((back): Slot => ({ back })) },
    { weight: 2, arbitrary: fc.nat({ max: 7 }).map((back): Slot => ({ back })) },
  );
  const slotArb: fc.Arbitrary<Slot> = fc.oneof(
    { weight: 5, arbitrary: refArb },
    { weight: 2, arbitrary: scalarArb.map((scalar): Slot => ({ scalar })) },
  );
  const nodeArb: fc.Arbitrary<NodeSpec> = fc.oneof(
    {
      weight: 1,
      arbitrary: fc
        .uniqueArray(fc.tuple(keysOf(keys), slotArb), { maxLength: 3, size: "max", selector: ([k]) => k })
        .map((entries): NodeSpec => ({ kind: "object", entries })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(slotArb, { maxLength: 3, size: "max" })
        .map((items): NodeSpec => ({ kind: "array", items })),
    },
  );
  return fc.record({
    nodes: fc.array(nodeArb, { minLength: 2, maxLength: 8, size: "max" }),
    root: fc.uniqueArray(fc.tuple(rootKeysOf(keys), fc.oneof({ weight: 4, arbitrary: refArb }, slotArb)), {
      minLength: 1,
      maxLength: 3,
      selector: ([k]) => k,
    }),
  });
};

/**
 * Builds the record: node i holds, for `{back}`, one of the nodes before it (`back` counted back from it,
 * modulo i; node 0 holds the scalar 1 instead); the record holds any node.
 */
export function build({
  nodes,
  root,
}: {
  nodes: readonly NodeSpec[];
  root: readonly (readonly [string, Slot])[];
}) {
  const built: unknown[] = [];
  const value = (slot: Slot, below: number): unknown =>
    "scalar" in slot ? slot.scalar : below === 0 ? 1 : built[below - 1 - (slot.back % below)];
  nodes.forEach((node, i) => {
    if (node.kind === "array") built.push(node.items.map((slot) => value(slot, i)));
    else {
      const o: Record<string, unknown> = {};
      for (const [k, slot] of node.entries) o[k] = value(slot, i);
      built.push(o);
    }
  });
  const record: Record<string, unknown> = {};
  for (const [k, slot] of root) record[k] = value(slot, nodes.length);
  return record;
}

/**
 * One level around a shared inner value `x`: each wrapper reaches `x` by several routes of different
 * meanings (an index on an array, the field `0` of an element, an element that is itself an array, the
 * same object twice), so that a walk that keeps each value once per segment meets the same value again.
 */
const WRAPPERS: readonly ((x: unknown) => unknown)[] = [
  (x) => [{ 0: x }],
  (x) => ({ 0: [x] }),
  (x) => [x, { 0: x }],
  (x) => [{ 0: x }, x],
  (x) => [[x], { 0: x }],
  (x) => [{ 0: [x] }, [x]],
  (x) => [{ 0: x }, { 0: x }],
  (x) => [x, x],
  (x) => ({ 0: x, 1: [x] }),
  (x) => [{ 1: x }, [{ 0: x }]],
  (x) => [[], { 0: null }, x],
  // One holder reaches x whole (by index, at the last segment), a later one by a field.
  (x) => [{ 0: [x] }, { 0: [{ 0: x }] }],
  (x) => [{ 0: [x] }, { 0: { 0: x } }],
];
/** The innermost values: arrays of scalars (traversed or compared whole), scalars, `null`, empties. */
const LEAVES: readonly (() => unknown)[] = [
  () => [1],
  () => [[1]],
  () => 1,
  () => null,
  () => [],
  () => ({}),
  () => ({ 0: 1 }),
  () => [1, 2],
  () => [null, { 0: 2 }],
];

/**
 * A record `{a: …}` of 1 to 5 levels of wrappers around a leaf, each level's value shared by its routes,
 * and a condition on `0`/`1` paths about as long as the record is deep (a wrapper is one or two levels).
 */
export const layeredArb: fc.Arbitrary<readonly [Cond, Record<string, unknown>]> = fc
  .tuple(
    fc.nat({ max: LEAVES.length - 1 }),
    fc.array(fc.nat({ max: WRAPPERS.length - 1 }), { minLength: 1, maxLength: 5 }),
  )
  .chain(([leaf, levels]) => {
    let value = LEAVES[leaf]!();
    for (const level of levels) value = WRAPPERS[level]!(value);
    const record = { a: value };
    const lengths = { minLength: levels.length, maxLength: 2 * levels.length + 1 };
    return condArb("numeric", lengths).map((cond) => [cond, record] as const);
  });
