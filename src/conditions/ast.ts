/**
 * The Search Conditions AST: one discriminated union, plain data (no functions, no class instances), so
 * that two parses of the same input are deeply equal and a condition can be cached by its canonical form.
 *
 * Produced by `parseSearchConditions` (parse.ts); consumed by `evaluate`, `compile`, `IncidentSet`,
 * `toSearchConditions`, `explain` and `toMongoFilter`. Every consumer ends its `switch (node.kind)` with
 * `assertNever` where each kind must be handled, so adding a node kind is a compile error everywhere it
 * must be; the few predicates whose answer for an unnamed kind is always right (`equalityOperands`) do not.
 * The field nodes that hold no condition are derived from the operator table (`FieldNodeOf`): a new
 * operator's node is made by its row and its operand rule's slot (operators.ts, `OperandSlots`), not here.
 *
 * Rules: docs/semantics.md section 1.
 */

import type { Operand } from "./operand-values.js";
import type { FieldOperatorSpec, OperandSlots, RulesOfKind, TableNodeKind } from "./operators.js";

export type { JsonType, Operand, OrderedOperand, RangeBound, RangeBounds } from "./operand-values.js";
export type { BitTest } from "./operators.js";

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

/**
 * The field node kinds whose shape the operator table decides (operators.ts): every field-level kind but
 * `not` and `elemMatch`, which hold conditions and are written below.
 */
export type TableFieldKind = Exclude<FieldOperatorSpec["node"], "not" | "elemMatch">;

/** One rule's slot, boxed, so that the slots of two rules intersect and a union slot (a range's) stays one. */
type SlotBox<R> = R extends keyof OperandSlots ? { readonly slot: OperandSlots[R] } : never;
type Intersection<U> = (U extends unknown ? (box: U) => void : never) extends (box: infer I) => void
  ? I
  : never;

/**
 * The field node of kind `K`, derived from the operator table: its target, its kind, and what the operand
 * rule of each row producing `K` puts on it (`OperandSlots`; `regex`: a `pattern` and a `flags` slot). A
 * new operator whose node holds no condition adds no type here: its row and its rule's slot make it.
 * @example type Bits = FieldNodeOf<"bits"> // { path, fieldKind, kind: "bits", test, positions }
 */
export type FieldNodeOf<K extends TableFieldKind> = FieldTarget & { readonly kind: K } & SlotsOf<K>;

/** The slots of the rules of the rows producing `K`, intersected. */
type SlotsOf<K extends TableFieldKind> =
  Intersection<SlotBox<RulesOfKind<K>>> extends { readonly slot: infer S } ? S : never;

/** What a node carries beyond its rules' slots: the pipe-alternatives origin of an `in` node (print.ts). */
interface NodeExtras {
  readonly in: { readonly fromPipe: boolean };
}

/** A table-derived field node with its extras (`NodeExtras`), if any. */
type TableFieldNode<K extends TableFieldKind> = FieldNodeOf<K> &
  (K extends keyof NodeExtras ? NodeExtras[K] : unknown);

/**
 * Equality (`"x"`, `{"$eq": "x"}`, `null`, `{"$date": …}`). Matches when the value, or any element of an
 * array value, equals the operand. A `null` operand also matches a missing field.
 */
export type EqNode = TableFieldNode<"eq">;

/** `$ne`: matches when neither the value nor any element of an array value equals the operand (missing matches). */
export type NeNode = TableFieldNode<"ne">;

/**
 * `$gt`, `$gte`, `$lt`, `$lte`, merged per field and operand type: `{"$gt": a, "$lt": b}` is one range with
 * two bounds. At least one bound is present (the type says so); both bounds (when present) have the same
 * operand type. Type bracketing: only values of the operands' type match. How the bounds of one operator
 * object group into ranges: `RangeGrouping` (docs/semantics.md 1.3).
 */
export type RangeNode = TableFieldNode<"range">;

/**
 * `$in`, and pipe alternatives on alternative fields (`"Webhook|File"`). `operands` are de-duplicated, in
 * first-seen order. `$in: []` matches nothing. `fromPipe`: true when the node came from a pipe-alternatives
 * string; printing restores that form.
 */
export type InNode = TableFieldNode<"in">;

/** `$nin`: matches when no element equals any operand (missing matches). `$nin: []` matches everything. */
export type NinNode = TableFieldNode<"nin">;

/** `$all`: the array value contains every operand. `$all: []` matches nothing (MongoDB). */
export type AllNode = TableFieldNode<"all">;

/** `$regex` with optional `$options` (flags from `i`, `m`, `s`, sorted, each once). RE2 syntax. */
export type RegexNode = TableFieldNode<"regex">;

/**
 * `$exists` (written `true`/`false` or MongoDB's `1`/`0`): true matches any present value (including
 * `null`); false matches only a missing field.
 */
export type ExistsNode = TableFieldNode<"exists">;

/** `$size`: the value is an array of exactly `size` elements (a non-negative integer). */
export type SizeNode = TableFieldNode<"size">;

/**
 * `$type`: the value, or an element of an array value, is of one of `types` (`array`: the value itself is an
 * array). A missing field matches no type. `types` is never empty, de-duplicated, in first-seen order.
 */
export type TypeNode = TableFieldNode<"type">;

/**
 * `$mod: [divisor, remainder]` (MongoDB's truncation): a number value, or a number element of an array value,
 * truncated towards zero, leaves `remainder` when divided by `divisor` (the remainder has the dividend's
 * sign). `divisor` and `remainder` are the operands truncated towards zero: integers of magnitude below
 * 2^63, `divisor` never 0. NaN, infinities and values of magnitude 2^63 or more never match.
 */
export type ModNode = TableFieldNode<"mod">;

/**
 * `$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear` (docs/semantics.md 1.3, MongoDB's
 * `bittest.js`): a number value, or a number element of an array value, that is an integer representable
 * as a 64-bit signed integer, read in two's complement, has all (any) of the bits at `positions` set
 * (clear). A position of 64 or more reads the sign bit. Any other value (a fraction, NaN, an infinity, a
 * number past 64 bits, a non-number) matches none of the four. `positions` is ascending, without
 * repetition (a mask operand is read as the positions of its set bits); empty, `allSet` and `allClear`
 * match every such integer, `anySet` and `anyClear` none.
 */
export type BitsNode = TableFieldNode<"bits">;

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

/** Every field-level node: one per kind of the operator table (`TableFieldNode`), and `elemMatch`. */
export type FieldNode = { [K in TableFieldKind]: TableFieldNode<K> }[TableFieldKind] | ElemMatchNode;

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
 * Every node kind has a row of the operator table: a kind that no operator produces is a compile error
 * here (the parser could never build it, the printer never print it).
 */
type KindsWithoutOperator = Exclude<ConditionKind, TableNodeKind>;
const EVERY_KIND_HAS_AN_OPERATOR: [KindsWithoutOperator] extends [never] ? true : KindsWithoutOperator = true;
void EVERY_KIND_HAS_AN_OPERATOR;

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
 * one equality). Not exhaustive on purpose: a kind not named here is no equality, the safe answer (its
 * callers then test it row by row), so a new operator need not touch this file.
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
    default:
      return undefined;
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
