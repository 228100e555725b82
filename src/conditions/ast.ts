/**
 * The Search Conditions AST: one discriminated union, plain data (no functions, no class instances), so
 * that two parses of the same input are deeply equal and a condition can be cached by its canonical form.
 *
 * Produced by `parseSearchConditions` (parse.ts); consumed by `evaluate`, `compile`, `IncidentSet`,
 * `toSearchConditions`, `explain` and `toMongoFilter`. Every consumer ends its `switch (node.kind)` with
 * `assertNever`, so adding a node kind is a compile error everywhere it must be handled.
 *
 * Rules: docs/semantics.md section 1.
 */

/**
 * A typed operand. Dates are resolved while parsing: `{"$date": "2024-01-01T00:00:00Z"}` becomes
 * `{ type: "date", value: 1704067200000 }` (epoch milliseconds, UTC).
 */
export type Operand =
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "number"; readonly value: number }
  | { readonly type: "boolean"; readonly value: boolean }
  | { readonly type: "null" }
  | { readonly type: "date"; readonly value: number };

/**
 * An operand of a range bound (`$gt`, `$gte`, `$lt`, `$lte`). Under MongoDB's type bracketing
 * (docs/semantics.md 1.4, 1.5) every scalar kind has an order within its own kind: numbers, strings (UTF-16
 * code units), dates (instants), booleans (`false < true`); `null` is its own bracket with one value, so
 * an inclusive `null` bound is `null` equality and an exclusive one matches nothing. Catalogue text, enum
 * and date fields take only strings (text, enum) or dates (date) here; open fields take any of them.
 */
export type OrderedOperand = Operand;

/**
 * The kind a field has in the field catalogue (docs/semantics.md 1.6): `text` and `enum` fields take string
 * operands, `date` fields take `$date` operands and read ISO-8601 UTC strings in records as dates, `open`
 * fields (not in the catalogue) take any operand.
 */
export type FieldKind = "text" | "enum" | "date" | "open";

/** What every field-level node carries: the field path (dot-separated segments) and the field's kind. */
export interface FieldTarget {
  /** Field path segments, e.g. `["Custom", "Owner"]` for `Custom.Owner`. Never empty, no empty segment. */
  readonly path: readonly string[];
  /** The field's kind in the catalogue the condition was parsed with. */
  readonly fieldKind: FieldKind;
}

/** One bound of a range: the operand and whether the bound itself matches (`$gte`/`$lte`). */
export interface RangeBound {
  readonly operand: OrderedOperand;
  readonly inclusive: boolean;
}

/**
 * Equality (`"x"`, `{"$eq": "x"}`, `null`, `{"$date": …}`). Matches when the value, or any element of an
 * array value, equals the operand. A `null` operand also matches a missing field.
 */
export interface EqNode extends FieldTarget {
  readonly kind: "eq";
  readonly operand: Operand;
}

/** `$ne`: matches when neither the value nor any element of an array value equals the operand (missing matches). */
export interface NeNode extends FieldTarget {
  readonly kind: "ne";
  readonly operand: Operand;
}

/**
 * `$gt`, `$gte`, `$lt`, `$lte`, merged per field and operand type: `{"$gt": a, "$lt": b}` is one range with
 * two bounds. At least one bound is present (the type says so); both bounds (when present) have the same
 * operand type. Type bracketing: only values of the operands' type match. How the bounds of one operator
 * object group into ranges: `RangeGrouping` (docs/semantics.md 1.3).
 */
export type RangeNode = FieldTarget & { readonly kind: "range" } & RangeBounds;

/**
 * The bounds of a range: a lower bound, an upper bound, or both (never neither). Each shape is told apart by
 * `lower === undefined` / `upper === undefined`.
 */
export type RangeBounds =
  | { readonly lower: RangeBound; readonly upper?: undefined }
  | { readonly lower?: undefined; readonly upper: RangeBound }
  | { readonly lower: RangeBound; readonly upper: RangeBound };

/**
 * `$in`, and pipe alternatives on alternative fields (`"Webhook|File"`). `operands` are de-duplicated, in
 * first-seen order. `$in: []` matches nothing.
 */
export interface InNode extends FieldTarget {
  readonly kind: "in";
  readonly operands: readonly Operand[];
  /** True when the node came from a pipe-alternatives string; printing restores that form. */
  readonly fromPipe: boolean;
}

/** `$nin`: matches when no element equals any operand (missing matches). `$nin: []` matches everything. */
export interface NinNode extends FieldTarget {
  readonly kind: "nin";
  readonly operands: readonly Operand[];
}

/** `$all`: the array value contains every operand. `$all: []` matches nothing (MongoDB). */
export interface AllNode extends FieldTarget {
  readonly kind: "all";
  readonly operands: readonly Operand[];
}

/** `$regex` with optional `$options` (flags from `i`, `m`, `s`, sorted, each once). RE2 syntax. */
export interface RegexNode extends FieldTarget {
  readonly kind: "regex";
  readonly source: string;
  readonly flags: string;
}

/**
 * `$exists` (written `true`/`false` or MongoDB's `1`/`0`): true matches any present value (including
 * `null`); false matches only a missing field.
 */
export interface ExistsNode extends FieldTarget {
  readonly kind: "exists";
  readonly exists: boolean;
}

/** `$size`: the value is an array of exactly `size` elements (a non-negative integer). */
export interface SizeNode extends FieldTarget {
  readonly kind: "size";
  readonly size: number;
}

/**
 * The value types `$type` names (docs/semantics.md 1.3), canonical: MongoDB's `double`, `int`, `long`,
 * `decimal` and `number` (codes 1, 16, 18, 19) are all `number`, a JSON number; `string` (2), `object` (3),
 * `array` (4), `bool` (8), `date` (9), `null` (10).
 */
export type JsonType = "number" | "string" | "object" | "array" | "bool" | "null" | "date";

/**
 * `$type`: the value, or an element of an array value, is of one of `types` (`array`: the value itself is an
 * array). A missing field matches no type. `types` is never empty, de-duplicated, in first-seen order.
 */
export interface TypeNode extends FieldTarget {
  readonly kind: "type";
  readonly types: readonly JsonType[];
}

/**
 * `$mod: [divisor, remainder]` (MongoDB's truncation): a number value, or a number element of an array value,
 * truncated towards zero, leaves `remainder` when divided by `divisor` (the remainder has the dividend's
 * sign). `divisor` and `remainder` are the operands truncated towards zero: integers of magnitude below
 * 2^63, `divisor` never 0. NaN, infinities and values of magnitude 2^63 or more never match.
 */
export interface ModNode extends FieldTarget {
  readonly kind: "mod";
  readonly divisor: number;
  readonly remainder: number;
}

/** Which bit test a `BitsNode` makes: `$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear`. */
export type BitTest = "allSet" | "anySet" | "allClear" | "anyClear";

/**
 * `$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear` (docs/semantics.md 1.3, MongoDB's
 * `bittest.js`): a number value, or a number element of an array value, that is an integer representable
 * as a 64-bit signed integer, read in two's complement, has all (any) of the bits at `positions` set
 * (clear). A position of 64 or more reads the sign bit. Any other value (a fraction, NaN, an infinity, a
 * number past 64 bits, a non-number) matches none of the four. `positions` is ascending, without
 * repetition (a mask operand is read as the positions of its set bits); empty, `allSet` and `allClear`
 * match every such integer, `anySet` and `anyClear` none.
 */
export interface BitsNode extends FieldTarget {
  readonly kind: "bits";
  readonly test: BitTest;
  readonly positions: readonly number[];
}

/**
 * The operators of `$elemMatch`'s operator form (`{"$elemMatch": {"$gte": 5, "$lt": 9}}`): each tests one
 * element as a whole (no traversal of an element that is itself an array; a present element is never
 * missing). The nodes carry the path of the `$elemMatch` they stand in.
 */
export type ElementOperators = FieldOperatorNode | FieldAndNode;

/**
 * `$elemMatch` (docs/semantics.md 1.3, MongoDB's two forms): the value is an array (or, through a dotted path,
 * some reached value is) holding at least one element that matches:
 * - `query`: `condition`, whose field paths are relative to the element (`{"$elemMatch": {"b": 1}}`); only
 *   elements that are objects or arrays are tried, an array element read as a document whose keys are its
 *   indexes (MongoDB's BSON arrays);
 * - `operator`: `operators`, applied to the element itself (see `ElementOperators`).
 * An array reached by an array index at the end of the path is tried too; nested arrays are not entered.
 */
export interface ElemMatchNode extends FieldTarget {
  readonly kind: "elemMatch";
  readonly match:
    | { readonly form: "query"; readonly condition: Condition }
    | { readonly form: "operator"; readonly operators: ElementOperators };
}

/** Every field-level node. */
export type FieldNode =
  | EqNode
  | NeNode
  | RangeNode
  | InNode
  | NinNode
  | AllNode
  | RegexNode
  | ExistsNode
  | SizeNode
  | TypeNode
  | ModNode
  | BitsNode
  | ElemMatchNode;

/** `$and` (and a JSON object's entries): every child matches. No children: matches every incident (`{}`). */
export interface AndNode {
  readonly kind: "and";
  readonly children: readonly Condition[];
}

/** `$or` (and a top-level JSON array): at least one child matches. Never empty. */
export interface OrNode {
  readonly kind: "or";
  readonly children: readonly Condition[];
}

/** `$nor`: no child matches. Never empty. */
export interface NorNode {
  readonly kind: "nor";
  readonly children: readonly Condition[];
}

/**
 * One operator of a field's operator object, as a node: a field node, or a `not` (`$not`, which may stand
 * inside `$not`, docs/semantics.md 1.3) on the same field path.
 */
export type FieldOperatorNode = FieldNode | NotNode;

/**
 * The `and` of the two or more operators of one field's operator object, all on that object's field path
 * (`{"Score": {"$gt": 1, "$ne": 3}}`). It is an `AndNode` (consumers of conditions see an ordinary `and`);
 * its type records what the parser guarantees when it stands inside `$not`.
 */
export interface FieldAndNode extends AndNode {
  readonly children: readonly [FieldOperatorNode, FieldOperatorNode, ...FieldOperatorNode[]];
}

/**
 * Field-level `$not` (docs/semantics.md 1.3): the negation of the operator object it wraps, which is on one
 * field path. `child` is that object's single operator (a field node or another `not`) or the `and` of its
 * operators. A missing field matches.
 */
export interface NotNode {
  readonly kind: "not";
  readonly child: FieldOperatorNode | FieldAndNode;
}

/** The logical nodes: `and`, `or`, `nor` over their children, and field-level `not` over its child. */
export type LogicalNode = AndNode | OrNode | NorNode | NotNode;

/** A parsed Search Conditions object: a logical node (`LogicalNode`) or a field node. */
export type Condition = AndNode | OrNode | NorNode | NotNode | FieldNode;

/** Every `kind` of the union, for exhaustive tables. */
export type ConditionKind = Condition["kind"];

/**
 * Ends an exhaustive `switch` over a union: over the AST's node kinds, a new kind that is not handled is a
 * compile-time error at every such switch; the library uses it the same way over operand types, operand
 * rules and issue codes. The one place it is defined: import it from here (or from the package).
 * @param value - the switched-on value, narrowed to `never` by the cases above
 * @throws {Error} `Unexpected value in an exhaustive switch: …` only when called at run time with a value
 *   outside the union (a bug, never user input)
 * @example
 * switch (node.kind) { case "eq": …; default: return assertNever(node); }
 */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value in an exhaustive switch: ${describeUnexpected(value)}`);
}

function describeUnexpected(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The dotted form of a field path: `["Custom", "Owner"]` → `"Custom.Owner"`. */
export function fieldName(target: FieldTarget): string {
  return target.path.join(".");
}

/**
 * True for a field node: every kind but the logical `and`, `or`, `nor` and `not` (`Condition` is the union
 * of the two groups), so that a switch treating every field node alike tests this first and names only the
 * four logical kinds.
 * @example
 * if (isFieldNode(node)) return leaf(node);
 * switch (node.kind) { case "and": …; case "or": …; case "nor": …; case "not": …; default: return assertNever(node); }
 */
export function isFieldNode(node: Condition): node is FieldNode {
  switch (node.kind) {
    case "and":
    case "or":
    case "nor":
    case "not":
      return false;
    default:
      return fieldNodeOnly(node);
  }
}

/** What is left of `Condition` past the logical kinds: field nodes only (a logical kind not named is a compile-time error). */
function fieldNodeOnly(_node: FieldNode): true {
  return true;
}

/**
 * The operands an equality node compares the value with: `$eq`/`$ne`'s one operand, `$in`/`$nin`'s set;
 * `undefined` for every other field node (a range's bounds and `$all`'s operands are not alternatives of
 * one equality).
 * @example equalityOperands(parseSearchConditions({ Status: "Open" })) //=> [{ type: "string", value: "Open" }]
 */
export function equalityOperands(node: FieldNode): readonly Operand[] | undefined {
  switch (node.kind) {
    case "eq":
    case "ne":
      return [node.operand];
    case "in":
    case "nin":
      return node.operands;
    case "range":
    case "all":
    case "regex":
    case "exists":
    case "size":
    case "type":
    case "mod":
    case "bits":
    case "elemMatch":
      return undefined;
    default:
      return assertNever(node);
  }
}

/**
 * The value of an operand: a string, number or boolean as it is, `null` for the null operand, and a date
 * operand (epoch ms) as `date` makes it (`{"$date": …}` when printed, a `Date` for MongoDB).
 */
export function operandValue<D>(
  operand: Operand,
  date: (ms: number) => D,
): string | number | boolean | null | D {
  switch (operand.type) {
    case "string":
    case "number":
    case "boolean":
      return operand.value;
    case "null":
      return null;
    case "date":
      return date(operand.value);
    default:
      return assertNever(operand);
  }
}
