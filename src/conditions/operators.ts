/**
 * The operator table of Search Conditions, as data (docs/semantics.md 1.1 and 1.3). Each operator declares
 * where it may stand and which rule validates its operand; the parser (parse.ts) dispatches on these
 * declarations and refuses an operator in the wrong place. Nothing here executes a condition.
 *
 * Places:
 * - `condition`: a key of a condition object (the root object, an element of a top-level array or of
 *   `$and`/`$or`/`$nor`), beside field paths.
 * - `field`: a key of a field's operator object (`{"Severity": {"$in": [...]}}`).
 * - `not`: a key of the operator object held by `$not`.
 */

/** Where an operator may stand. */
export type OperatorPlace = "condition" | "field" | "not";

/**
 * How an operator's operand is validated (docs/semantics.md 1.3–1.4):
 * - `conditions`: a non-empty array of condition objects (`$and`, `$or`, `$nor`).
 * - `value`: a string, number, boolean, `null` or `$date` operand, checked against the field's kind and
 *   labels (`$eq`, `$ne`).
 * - `ordered`: a string, number, boolean, `null` or `$date` operand (`$gt`, `$gte`, `$lt`, `$lte`), checked
 *   against the field's kind: strings on text and enum fields, `$date` on date fields, any on open fields.
 * - `valueSet`: an array of `value` operands, at most `limits.setSize` of them (`$in`, `$nin`, `$all`).
 * - `pattern`: a string in RE2 syntax, at most `limits.patternLength` characters (`$regex`).
 * - `flags`: a string of the flags `i`, `m`, `s`, each at most once, beside a `$regex` (`$options`).
 * - `boolean`: `true` or `false`, or MongoDB's habitual `1` or `0` (`$exists`).
 * - `size`: a non-negative integer (`$size`).
 * - `operatorObject`: a non-empty operator object of `not`-place operators (`$not`), which may itself hold
 *   `$not`.
 */
export type OperandRule =
  | "conditions"
  | "value"
  | "ordered"
  | "valueSet"
  | "pattern"
  | "flags"
  | "boolean"
  | "size"
  | "operatorObject";

/** One row of the operator table. */
export interface OperatorSpec {
  /** The operator as written, e.g. `"$gte"`. */
  readonly name: OperatorName;
  /** The places where the operator may stand. */
  readonly places: readonly OperatorPlace[];
  /** The rule that validates the operand. */
  readonly operand: OperandRule;
  /** For `$gt`/`$gte`/`$lt`/`$lte`: which bound of a range the operator sets and whether it is inclusive. */
  readonly bound?: { readonly side: "lower" | "upper"; readonly inclusive: boolean };
}

/** Every operator of docs/semantics.md 1.1 (logical) and 1.3 (field level). */
export type OperatorName =
  | "$and"
  | "$or"
  | "$nor"
  | "$eq"
  | "$ne"
  | "$gt"
  | "$gte"
  | "$lt"
  | "$lte"
  | "$in"
  | "$nin"
  | "$all"
  | "$regex"
  | "$options"
  | "$exists"
  | "$size"
  | "$not";

const CONDITION = ["condition"] as const;
const FIELD_AND_NOT = ["field", "not"] as const;

/** The operator table (docs/semantics.md 1.1, 1.3). Frozen; look operators up with `lookupOperator`. */
export const OPERATORS: Readonly<Record<OperatorName, OperatorSpec>> = Object.freeze({
  $and: { name: "$and", places: CONDITION, operand: "conditions" },
  $or: { name: "$or", places: CONDITION, operand: "conditions" },
  $nor: { name: "$nor", places: CONDITION, operand: "conditions" },
  $eq: { name: "$eq", places: FIELD_AND_NOT, operand: "value" },
  $ne: { name: "$ne", places: FIELD_AND_NOT, operand: "value" },
  $gt: { name: "$gt", places: FIELD_AND_NOT, operand: "ordered", bound: { side: "lower", inclusive: false } },
  $gte: {
    name: "$gte",
    places: FIELD_AND_NOT,
    operand: "ordered",
    bound: { side: "lower", inclusive: true },
  },
  $lt: { name: "$lt", places: FIELD_AND_NOT, operand: "ordered", bound: { side: "upper", inclusive: false } },
  $lte: {
    name: "$lte",
    places: FIELD_AND_NOT,
    operand: "ordered",
    bound: { side: "upper", inclusive: true },
  },
  $in: { name: "$in", places: FIELD_AND_NOT, operand: "valueSet" },
  $nin: { name: "$nin", places: FIELD_AND_NOT, operand: "valueSet" },
  $all: { name: "$all", places: FIELD_AND_NOT, operand: "valueSet" },
  $regex: { name: "$regex", places: FIELD_AND_NOT, operand: "pattern" },
  $options: { name: "$options", places: FIELD_AND_NOT, operand: "flags" },
  $exists: { name: "$exists", places: FIELD_AND_NOT, operand: "boolean" },
  $size: { name: "$size", places: FIELD_AND_NOT, operand: "size" },
  // `$not` inside `$not` is valid (MongoDB's jstests not/not2.js; docs/semantics.md 1.3).
  $not: { name: "$not", places: FIELD_AND_NOT, operand: "operatorObject" },
} satisfies Record<OperatorName, OperatorSpec>);

/**
 * MongoDB query operators that Search Conditions know but refuse (docs/semantics.md 1.3): they are reported as
 * `unknown_operator` issues and never executed. Listed for documentation and tests; any other `$`-key is
 * refused the same way.
 */
export const REFUSED_OPERATORS: readonly string[] = Object.freeze([
  "$where",
  "$expr",
  "$function",
  "$accumulator",
  "$text",
  "$search",
  "$elemMatch",
  "$mod",
  "$type",
  "$jsonSchema",
  "$bitsAllSet",
  "$bitsAnySet",
  "$bitsAllClear",
  "$bitsAnyClear",
  "$geoWithin",
  "$geoIntersects",
  "$near",
  "$nearSphere",
  "$comment",
  "$rand",
  "$sampleRate",
]);

/**
 * The operator named `name`, or `undefined` when it is not an operator of the table (own-property lookup:
 * `"constructor"`, `"__proto__"` and `"$where"` are all `undefined`).
 * @param name - a key as written in the Search Conditions, e.g. `"$in"`
 */
export function lookupOperator(name: string): OperatorSpec | undefined {
  return Object.hasOwn(OPERATORS, name) ? OPERATORS[name as OperatorName] : undefined;
}

/** True when the operator may stand at `place`. */
export function operatorAllowedAt(spec: OperatorSpec, place: OperatorPlace): boolean {
  return spec.places.includes(place);
}

/** The names of the operators allowed at `place`, in table order (for `unknown_operator` messages). */
export function operatorsAt(place: OperatorPlace): readonly string[] {
  return ALLOWED_BY_PLACE[place];
}

const ALLOWED_BY_PLACE: Readonly<Record<OperatorPlace, readonly string[]>> = Object.freeze({
  condition: namesAt("condition"),
  field: namesAt("field"),
  not: namesAt("not"),
});

function namesAt(place: OperatorPlace): readonly string[] {
  return Object.freeze(
    Object.values(OPERATORS)
      .filter((spec) => spec.places.includes(place))
      .map((spec) => spec.name),
  );
}
