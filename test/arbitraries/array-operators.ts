/**
 * Generators for `$elemMatch`, `$type` and `$mod` (docs/semantics.md 1.3): records with nested arrays and
 * objects, `null`, `-0`, large integers (beyond 2^53, where doubles skip integers, and beyond 2^63, where
 * MongoDB's 64-bit integers end), NaN, infinities and dates; conditions built from the three operators
 * nested in each other, under `$not`, `$or`, dotted paths and array indexes. Shared by the in-process
 * property test (every engine agrees), the PostgreSQL translation attack and the MongoDB differential.
 */
import fc from "fast-check";

/** Numbers at the edges: `-0`, around 2^53, 2^63 and beyond, fractions. */
export const EDGE_NUMBERS: readonly number[] = [
  -0,
  0.5,
  -4.5,
  14.5,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  2 ** 63,
  -(2 ** 63),
  1e19,
];

/** Options of the generators. */
export interface ArrayOperatorArbOptions {
  /**
   * Only values JSON holds (no NaN, no infinities, no JS `Date`; `-0` still, which JSON writes as `0`): for
   * stores that keep records as JSON, such as PostgreSQL's `jsonb`. Default false.
   */
  readonly json?: boolean;
  /** Extra strings among the scalars (labels of an enumerated field, …). */
  readonly strings?: readonly string[];
}

/** A scalar of a record. */
export function scalarArb(options: ArrayOperatorArbOptions = {}): fc.Arbitrary<unknown> {
  const strings = [
    "a",
    "b",
    "2024-01-01T00:00:00Z",
    "2024-06-01T12:00:00.000Z",
    "",
    ...(options.strings ?? []),
  ];
  const parts: fc.Arbitrary<unknown>[] = [
    fc.integer({ min: -20, max: 20 }),
    fc.constantFrom(...EDGE_NUMBERS),
    fc.constantFrom(...strings),
    fc.boolean(),
    fc.constant(null),
  ];
  if (options.json !== true) {
    parts.push(fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY));
    parts.push(fc.constant(new Date(Date.UTC(2024, 0, 1))));
  }
  return fc.oneof(...parts);
}

/** A value: a scalar, or arrays and objects (keys `b`, `c`, `0`) of values, nested. */
export function valueArb(options: ArrayOperatorArbOptions = {}): fc.Arbitrary<unknown> {
  const scalar = scalarArb(options);
  return fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom("b", "c", "0"), tie("value"), { maxKeys: 2 }),
    ),
  })).value;
}

/** A record over the given keys (default `a`, `x`), each missing or a scalar, an array of scalars, or a value. */
export function recordArb(
  keys: readonly string[] = ["a", "x"],
  options: ArrayOperatorArbOptions = {},
): fc.Arbitrary<Record<string, unknown>> {
  const scalar = scalarArb(options);
  return fc.dictionary(
    fc.constantFrom(...keys),
    fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), valueArb(options)),
    { maxKeys: keys.length },
  );
}

/** An operand of a comparison inside the operators. */
export function operandArb(options: ArrayOperatorArbOptions = {}): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer({ min: -5, max: 10 }),
    fc.constantFrom("a", "b", null, true, -0, 2 ** 53, 2 ** 63, ...(options.strings ?? [])),
  );
}

/** Operator objects: the three operators and a few others to combine them with. */
export function operatorsArb(options: ArrayOperatorArbOptions = {}): fc.Arbitrary<Record<string, unknown>> {
  const operand = operandArb(options);
  return fc.letrec((tie) => ({
    ops: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.record({
        $type: fc.oneof(
          fc.constantFrom(
            "number",
            "string",
            "object",
            "array",
            "bool",
            "null",
            "date",
            "int",
            "long",
            4,
            10,
          ),
          fc.uniqueArray(fc.constantFrom("number", "string", "array", "null", "double", 3), {
            minLength: 1,
            maxLength: 3,
          }),
        ),
      }),
      fc.record({
        $mod: fc.tuple(
          fc.constantFrom(1, 2, 3, -4, 5.5, 2 ** 53, -(2 ** 62)),
          fc.constantFrom(0, 1, -1, 2.5, -0, 2 ** 53),
        ),
      }),
      fc.record({ $elemMatch: tie("ops") }),
      fc.record({ $elemMatch: tie("query") }),
      fc.record({ $gte: operand }),
      fc.record({ $eq: operand }),
      fc.record({ $in: fc.array(operand, { minLength: 1, maxLength: 3 }) }),
      fc.record({ $exists: fc.boolean() }),
      fc.record({ $size: fc.nat(2) }),
      fc.record({ $not: tie("ops") }),
      fc.record({ $gt: fc.integer({ min: -5, max: 5 }), $lt: fc.integer({ min: -5, max: 10 }) }),
    ),
    query: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant({}),
      fc.record({ b: tie("ops") }),
      fc.record({ b: operand, c: tie("ops") }),
      fc.record({ "b.c": tie("ops") }),
      fc.record({ "0": tie("ops") }),
      fc.record({ $or: fc.array(tie("query"), { minLength: 1, maxLength: 2 }) }),
    ),
  })).ops as fc.Arbitrary<Record<string, unknown>>;
}

/**
 * A condition: one path (default `a`, `a.b`, `a.0`, `a.b.c`, `a.0.b`) with an operator object, or (with
 * `logical`) `$or` / `$nor` / `$and` of two such.
 */
export function conditionArb(
  paths: readonly string[] = ["a", "a.b", "a.0", "a.b.c", "a.0.b"],
  options: ArrayOperatorArbOptions & { readonly logical?: boolean } = {},
): fc.Arbitrary<Record<string, unknown>> {
  const one = fc
    .record({ path: fc.constantFrom(...paths), ops: operatorsArb(options) })
    .map(({ path, ops }) => ({ [path]: ops }));
  if (options.logical !== true) return one;
  return fc.oneof(
    { arbitrary: one, weight: 3 },
    fc
      .tuple(fc.constantFrom("$or", "$nor", "$and"), fc.array(one, { minLength: 1, maxLength: 2 }))
      .map(([op, parts]) => ({ [op]: parts })),
  );
}
