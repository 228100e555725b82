/**
 * The operator table of Search Conditions, as data (docs/semantics.md 1.1 and 1.3): the one place that says,
 * for each operator, where it may stand, which rule validates its operand, which AST node kind it produces,
 * which bound of a range it sets (side, inclusiveness, comparison) and which operator negates it. The parser
 * (parse-operators.ts) dispatches on these rows and refuses an operator in the wrong place, reading each operand
 * through its rule's object (operand-rules.ts, `OPERAND_RULES`: `parse`, `print`, `schema`); the printer (print.ts)
 * names each node's operators through `operatorOf` and `boundOperator`; both group range bounds with
 * `RangeGrouping`. Nothing here executes a condition.
 *
 * Places:
 * - `condition`: a key of a condition object (the root object, an element of a top-level array or of
 *   `$and`/`$or`/`$nor`), beside field paths.
 * - `field`: a key of a field's operator object (`{"Severity": {"$in": [...]}}`).
 * - `not`: a key of the operator object held by `$not`.
 */
import type { JsonType, Operand, RangeBound, RangeBounds } from "./operand-values.js";

/** Where an operator may stand. */
export type OperatorPlace = "condition" | "field" | "not";

/**
 * How an operator's operand is validated (docs/semantics.md 1.3–1.4). Each rule but `conditions` is an object
 * of `OPERAND_RULES` (operand-rules.ts) carrying how it is read (`parse`), written back (`print`) and its
 * JSON Schema (`schema`):
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
 * - `typeSet`: a type name or number of `TYPE_NAMES`, or a non-empty array of them (`$type`).
 * - `modulus`: `[divisor, remainder]`, two finite numbers truncated towards zero to integers of magnitude
 *   below 2^63, the divisor not 0 (`$mod`, MongoDB's rules).
 * - `bitMask`: a non-negative integer below 2^63 (a mask), or an array of non-negative integers (bit
 *   positions), as MongoDB (`$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear`).
 * - `elemMatch`: an object: a condition object (field paths relative to the element, `$and`/`$or`/`$nor`) or
 *   an operator object of `field`-place operators (`$elemMatch`); it counts towards the depth and node
 *   limits like any nested object.
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
  | "operatorObject"
  | "typeSet"
  | "modulus"
  | "bitMask"
  | "elemMatch";

/**
 * What each operand rule puts on the node its rows produce, beside the node's `kind`, `path` and
 * `fieldKind` (ast.ts derives each field node from these: `FieldNodeOf`). A node kind produced by rows of
 * two rules carries both slots (`regex`: `pattern` and `flags`). `operatorObject` (`$not`) and `elemMatch`
 * hold conditions, so their nodes are written in ast.ts, where `Condition` is.
 */
export interface OperandSlots {
  readonly value: { readonly operand: Operand };
  readonly ordered: RangeBounds;
  readonly valueSet: { readonly operands: readonly Operand[] };
  readonly pattern: { readonly source: string };
  readonly flags: { readonly flags: string };
  readonly boolean: { readonly exists: boolean };
  readonly size: { readonly size: number };
  readonly typeSet: { readonly types: readonly JsonType[] };
  readonly modulus: { readonly divisor: number; readonly remainder: number };
  readonly bitMask: { readonly test: BitTest; readonly positions: readonly number[] };
}

/** Which bit test a bit-test node makes: `$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear`. */
export type BitTest = "allSet" | "anySet" | "allClear" | "anyClear";

/** Which bound of a range an ordered operator sets. */
export type BoundSide = "lower" | "upper";

/**
 * The bound an ordered operator (`$gt`, `$gte`, `$lt`, `$lte`) sets: its side, whether the operand itself
 * matches, and the JavaScript comparison `value <op> operand` it stands for (docs/semantics.md 1.4).
 */
export interface BoundSpec {
  readonly side: BoundSide;
  readonly inclusive: boolean;
  readonly comparison: ">" | ">=" | "<" | "<=";
}

/** The node kinds a logical operator produces (`$and` → `and`, …). */
export type LogicalNodeKind = "and" | "or" | "nor";

/** What every row of the operator table says. */
interface Row<Name extends OperatorName, Place extends OperatorPlace, Rule extends OperandRule, Kind> {
  /** The operator as written, e.g. `"$gte"`. */
  readonly name: Name;
  /** The places where the operator may stand. */
  readonly places: readonly Place[];
  /** The rule that validates the operand. */
  readonly operand: Rule;
  /**
   * The AST node kind the operator produces (docs/semantics.md 1.1, 1.3): `$gt` … `$lte` each set one bound
   * of a `range` node, `$options` sets the flags of the `regex` node of its `$regex`.
   */
  readonly node: Kind;
}

/** A row for `$and`, `$or`, `$nor`: condition level only, a non-empty array of condition objects. */
export type LogicalOperatorSpec = Row<"$and" | "$or" | "$nor", "condition", "conditions", LogicalNodeKind>;

/**
 * A row for a field-level operator (a key of a field's operator object, or of the object held by `$not`).
 * The operand rule decides the node kind; ordered operators also declare their bound, and `$eq`/`$ne`,
 * `$in`/`$nin` name their negation: the operator that matches exactly the incidents the other one does not
 * (missing fields and arrays included, docs/semantics.md 1.3, 1.5).
 */
export type FieldOperatorSpec =
  | (Row<"$eq" | "$ne", "field" | "not", "value", "eq" | "ne"> & { readonly negation: "$eq" | "$ne" })
  | (Row<"$gt" | "$gte" | "$lt" | "$lte", "field" | "not", "ordered", "range"> & {
      readonly bound: BoundSpec;
    })
  | (Row<"$in" | "$nin", "field" | "not", "valueSet", "in" | "nin"> & { readonly negation: "$in" | "$nin" })
  | Row<"$all", "field" | "not", "valueSet", "all">
  | Row<"$regex", "field" | "not", "pattern", "regex">
  | Row<"$options", "field" | "not", "flags", "regex">
  | Row<"$exists", "field" | "not", "boolean", "exists">
  | Row<"$size", "field" | "not", "size", "size">
  | Row<"$not", "field" | "not", "operatorObject", "not">
  | Row<"$type", "field" | "not", "typeSet", "type">
  | Row<"$mod", "field" | "not", "modulus", "mod">
  | (Row<BitsOperatorName, "field" | "not", "bitMask", "bits"> & { readonly test: BitTest })
  | Row<"$elemMatch", "field" | "not", "elemMatch", "elemMatch">;

/** One row of the operator table. */
export type OperatorSpec = LogicalOperatorSpec | FieldOperatorSpec;

/** The operand rules of field-level operators (every rule but `conditions`). */
export type FieldOperandRule = FieldOperatorSpec["operand"];

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
  | "$not"
  | "$type"
  | "$mod"
  | BitsOperatorName
  | "$elemMatch";

/** The bit-test operators (docs/semantics.md 1.3). */
export type BitsOperatorName = "$bitsAllSet" | "$bitsAnySet" | "$bitsAllClear" | "$bitsAnyClear";

const CONDITION = ["condition"] as const;
const FIELD_AND_NOT = ["field", "not"] as const;

/**
 * The operator table (docs/semantics.md 1.1, 1.3): one row per operator, in the order of the
 * `unknown_operator` messages. Frozen; look operators up with `lookupOperator`, `logicalOperator` or
 * `fieldOperator`. Adding an operator is one row here (a new operand rule: one entry of `OPERAND_RULES`) plus
 * one entry per consumer of its node kind (the compiler names each one missing: the tables keyed by node
 * kind are mapped types, every switch over the AST ends in `assertNever`).
 */
export const OPERATORS = Object.freeze({
  $and: { name: "$and", places: CONDITION, operand: "conditions", node: "and" },
  $or: { name: "$or", places: CONDITION, operand: "conditions", node: "or" },
  $nor: { name: "$nor", places: CONDITION, operand: "conditions", node: "nor" },
  $eq: { name: "$eq", places: FIELD_AND_NOT, operand: "value", node: "eq", negation: "$ne" },
  $ne: { name: "$ne", places: FIELD_AND_NOT, operand: "value", node: "ne", negation: "$eq" },
  $gt: bound("$gt", "lower", false, ">"),
  $gte: bound("$gte", "lower", true, ">="),
  $lt: bound("$lt", "upper", false, "<"),
  $lte: bound("$lte", "upper", true, "<="),
  $in: { name: "$in", places: FIELD_AND_NOT, operand: "valueSet", node: "in", negation: "$nin" },
  $nin: { name: "$nin", places: FIELD_AND_NOT, operand: "valueSet", node: "nin", negation: "$in" },
  $all: { name: "$all", places: FIELD_AND_NOT, operand: "valueSet", node: "all" },
  $regex: { name: "$regex", places: FIELD_AND_NOT, operand: "pattern", node: "regex" },
  $options: { name: "$options", places: FIELD_AND_NOT, operand: "flags", node: "regex" },
  $exists: { name: "$exists", places: FIELD_AND_NOT, operand: "boolean", node: "exists" },
  $size: { name: "$size", places: FIELD_AND_NOT, operand: "size", node: "size" },
  // `$not` inside `$not` is valid (MongoDB's jstests not/not2.js; docs/semantics.md 1.3).
  $not: { name: "$not", places: FIELD_AND_NOT, operand: "operatorObject", node: "not" },
  $type: { name: "$type", places: FIELD_AND_NOT, operand: "typeSet", node: "type" },
  $mod: { name: "$mod", places: FIELD_AND_NOT, operand: "modulus", node: "mod" },
  $bitsAllSet: bits("$bitsAllSet", "allSet"),
  $bitsAnySet: bits("$bitsAnySet", "anySet"),
  $bitsAllClear: bits("$bitsAllClear", "allClear"),
  $bitsAnyClear: bits("$bitsAnyClear", "anyClear"),
  $elemMatch: { name: "$elemMatch", places: FIELD_AND_NOT, operand: "elemMatch", node: "elemMatch" },
} as const satisfies { readonly [N in OperatorName]: OperatorSpec & { readonly name: N } });

function bound<N extends "$gt" | "$gte" | "$lt" | "$lte">(
  name: N,
  side: BoundSide,
  inclusive: boolean,
  comparison: BoundSpec["comparison"],
) {
  return {
    name,
    places: FIELD_AND_NOT,
    operand: "ordered",
    node: "range",
    bound: Object.freeze({ side, inclusive, comparison }),
  } as const;
}

function bits<N extends BitsOperatorName>(name: N, test: BitTest) {
  return { name, places: FIELD_AND_NOT, operand: "bitMask", node: "bits", test } as const;
}

/**
 * The operator of a bit test (the inverse of the `test` of its row).
 * @example bitsOperator("anyClear") //=> "$bitsAnyClear"
 */
export function bitsOperator(test: BitTest): BitsOperatorName {
  return BITS_OPERATORS[test];
}

const BITS_OPERATORS: Readonly<Record<BitTest, BitsOperatorName>> = Object.freeze({
  allSet: "$bitsAllSet",
  anySet: "$bitsAnySet",
  allClear: "$bitsAllClear",
  anyClear: "$bitsAnyClear",
});

/**
 * The node kinds the table's rows produce. Every kind of the AST is one (ast.ts checks it: a kind no
 * operator produces could never be parsed nor printed).
 */
export type TableNodeKind = (typeof OPERATORS)[OperatorName]["node"];

/** The operand rules of the rows producing node kind `K` (`regex`: `pattern` and `flags`). */
export type RulesOfKind<K extends FieldOperatorSpec["node"]> = RuleOfRow<FieldOperatorSpec, K>;

/** The operand rule of row type `S` (each member of a union of rows in turn) when it may produce kind `K`. */
type RuleOfRow<S extends FieldOperatorSpec, K> = S extends FieldOperatorSpec
  ? K extends S["node"]
    ? S["operand"]
    : never
  : never;

/**
 * The `$type` operands (docs/semantics.md 1.3): MongoDB's type names and numbers for what a JSON record (and a
 * JS `Date`) can hold, each with the canonical type it means. `double`, `int`, `long`, `decimal` and `number`
 * all mean a JSON number (a JS number is any of them). Own-property lookups only.
 */
export const TYPE_NAMES: Readonly<Record<string, JsonType>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, JsonType>, {
    double: "number",
    int: "number",
    long: "number",
    decimal: "number",
    number: "number",
    string: "string",
    object: "object",
    array: "array",
    bool: "bool",
    date: "date",
    null: "null",
  }),
);

/** MongoDB's numeric type codes of `TYPE_NAMES` (1 double, 2 string, …, 19 decimal). */
export const TYPE_CODES: ReadonlyMap<number, JsonType> = new Map<number, JsonType>([
  [1, "number"],
  [2, "string"],
  [3, "object"],
  [4, "array"],
  [8, "bool"],
  [9, "date"],
  [10, "null"],
  [16, "number"],
  [18, "number"],
  [19, "number"],
]);

/**
 * MongoDB's other BSON type names and codes (binary data, ObjectId, regex, timestamp, MinKey, …): valid in
 * MongoDB, but no JSON record holds such a value, so `$type` refuses them (`unknown_type`, reason
 * `not_json`) rather than match nothing silently (docs/semantics.md 1.3).
 */
export const NON_JSON_TYPES: ReadonlyMap<string | number, string> = new Map<string | number, string>([
  ["binData", "binData"],
  ["undefined", "undefined"],
  ["objectId", "objectId"],
  ["regex", "regex"],
  ["dbPointer", "dbPointer"],
  ["javascript", "javascript"],
  ["symbol", "symbol"],
  ["javascriptWithScope", "javascriptWithScope"],
  ["timestamp", "timestamp"],
  ["minKey", "minKey"],
  ["maxKey", "maxKey"],
  [5, "binData"],
  [6, "undefined"],
  [7, "objectId"],
  [11, "regex"],
  [12, "dbPointer"],
  [13, "javascript"],
  [14, "symbol"],
  [15, "javascriptWithScope"],
  [17, "timestamp"],
  [-1, "minKey"],
  [127, "maxKey"],
]);

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
  "$jsonSchema",
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
  return (spec.places as readonly OperatorPlace[]).includes(place);
}

/**
 * An operator looked up at a place: its row, or why it may not stand there (`unknown`: not in the table,
 * reported as `unknown_operator`; `misplaced`: in the table but not allowed at that place, reported as
 * `misplaced_operator`; docs/semantics.md 1.1, 1.3).
 */
export type OperatorAt<Spec extends OperatorSpec> =
  | { readonly ok: true; readonly spec: Spec }
  | { readonly ok: false; readonly problem: "unknown" | "misplaced" };

/**
 * The logical operator (`$and`, `$or`, `$nor`) named `name`, looked up at condition level.
 * @param name - a `$`-key of a condition object
 * @returns its row, or `unknown` / `misplaced` (a field-level operator such as `$in` at condition level)
 */
export function logicalOperator(name: string): OperatorAt<LogicalOperatorSpec> {
  const spec = lookupOperator(name);
  if (spec === undefined) return UNKNOWN;
  return operatorAllowedAt(spec, "condition") && spec.operand === "conditions"
    ? { ok: true, spec }
    : MISPLACED;
}

/**
 * The field-level operator named `name`, looked up in a field's operator object (`field`) or in the object
 * held by `$not` (`not`).
 * @param name - a `$`-key of an operator object
 * @param place - where the operator object stands
 * @returns its row, or `unknown` / `misplaced` (a logical operator such as `$or` inside a field)
 */
export function fieldOperator(name: string, place: "field" | "not"): OperatorAt<FieldOperatorSpec> {
  const spec = lookupOperator(name);
  if (spec === undefined) return UNKNOWN;
  return operatorAllowedAt(spec, place) && spec.operand !== "conditions" ? { ok: true, spec } : MISPLACED;
}

const UNKNOWN = Object.freeze({ ok: false, problem: "unknown" } as const);
const MISPLACED = Object.freeze({ ok: false, problem: "misplaced" } as const);

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
      .filter((spec) => operatorAllowedAt(spec, place))
      .map((spec) => spec.name),
  );
}

// ---------------------------------------------------------------------------------------------------
// Node kind ↔ operator, bounds, negation

/** The ordered operators: each sets one bound of a range. */
export type BoundOperatorName = "$gt" | "$gte" | "$lt" | "$lte";

/** The node kinds written with one operator (every kind but `range`, whose operator depends on its bound). */
export type SingleOperatorKind = Exclude<TableNodeKind, "range">;

const OPERATOR_OF_KIND = Object.freeze(operatorsOfKinds());

function operatorsOfKinds(): Record<SingleOperatorKind, OperatorName> {
  const map: Partial<Record<SingleOperatorKind, OperatorName>> = {};
  for (const spec of Object.values(OPERATORS)) {
    if (spec.node !== "range") map[spec.node] ??= spec.name;
  }
  return map as Record<SingleOperatorKind, OperatorName>;
}

/**
 * The operator that writes a node kind: the first row of the table producing it (`eq` → `$eq`, `regex` →
 * `$regex` whose `$options` follows, `not` → `$not`, `and` → `$and`). Ranges are written by `boundOperator`.
 * @param kind - a node kind other than `range`
 * @example operatorOf("nin") //=> "$nin"
 */
export function operatorOf(kind: SingleOperatorKind): OperatorName {
  return OPERATOR_OF_KIND[kind];
}

const BOUND_OPERATORS: readonly BoundOperatorName[] = ["$gt", "$gte", "$lt", "$lte"];

/**
 * The operator of a range bound (docs/semantics.md 1.4): `lower` → `$gt` / `$gte` (inclusive), `upper` →
 * `$lt` / `$lte` (inclusive). The inverse of `boundOf`.
 * @param side - which bound
 * @param inclusive - whether the operand itself matches
 * @example boundOperator("upper", true) //=> "$lte"
 */
export function boundOperator(side: BoundSide, inclusive: boolean): BoundOperatorName {
  // Table order: $gt, $gte (lower), $lt, $lte (upper).
  return BOUND_OPERATORS[(side === "lower" ? 0 : 2) + (inclusive ? 1 : 0)] as BoundOperatorName;
}

/**
 * The bound an ordered operator sets: its side, inclusiveness and JavaScript comparison.
 * @param name - `$gt`, `$gte`, `$lt` or `$lte`
 * @example boundOf("$gt") //=> { side: "lower", inclusive: false, comparison: ">" }
 */
export function boundOf(name: BoundOperatorName): BoundSpec {
  return OPERATORS[name].bound;
}

/**
 * The JavaScript comparison `value <op> operand` of a range bound (docs/semantics.md 1.4): `lower` → `>` /
 * `>=` (inclusive), `upper` → `<` / `<=` (inclusive), for code generators.
 * @example boundComparison("lower", true) //=> ">="
 */
export function boundComparison(side: BoundSide, inclusive: boolean): BoundSpec["comparison"] {
  return boundOf(boundOperator(side, inclusive)).comparison;
}

/**
 * The operator matching exactly the incidents that `name` does not (docs/semantics.md 1.3, 1.5): `$eq` ↔
 * `$ne`, `$in` ↔ `$nin`; `undefined` for the others (a range's complement is not a range under type
 * bracketing, `$all` and `$regex` have no negated operator, `$exists` negates by its operand).
 * @example negationOf("$in") //=> "$nin"
 */
export function negationOf(name: OperatorName): OperatorName | undefined {
  const spec: OperatorSpec = OPERATORS[name];
  return "negation" in spec ? spec.negation : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Range grouping

/** A range being built by `RangeGrouping`: its bounds so far (replaced, never mutated, when one joins). */
export interface GroupedRange {
  bounds: RangeBounds;
}

/**
 * How the ordered operators of ONE operator object become range nodes (docs/semantics.md 1.3), the single
 * statement of the rule that parse-operators.ts builds with and print.ts checks with: bounds are taken in the
 * object's key order; per operand type, the first range takes the first lower and the first upper bound; a
 * further bound of a side the first range already holds starts a range of its own (`{"$gt": 1, "$gte": 2}`
 * is two ranges, ANDed, which is exact whatever the comparison of the operands).
 */
export class RangeGrouping {
  private readonly first = new Map<Operand["type"], GroupedRange>();

  /**
   * Adds the next bound of the object.
   * @returns the range the bound starts (later bounds may join it), or `undefined` when the bound joined the
   *   first range of its operand type
   */
  add(side: BoundSide, bound: RangeBound): GroupedRange | undefined {
    const first = this.first.get(bound.operand.type);
    if (first !== undefined) {
      const { bounds } = first;
      if (side === "lower" && bounds.lower === undefined) {
        first.bounds = { lower: bound, upper: bounds.upper };
        return undefined;
      }
      if (side === "upper" && bounds.upper === undefined) {
        first.bounds = { lower: bounds.lower, upper: bound };
        return undefined;
      }
    }
    const started: GroupedRange = { bounds: side === "lower" ? { lower: bound } : { upper: bound } };
    if (first === undefined) this.first.set(bound.operand.type, started);
    return started;
  }
}
