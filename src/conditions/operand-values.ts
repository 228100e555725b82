/**
 * The values an operand rule puts on a node (docs/semantics.md 1.3, 1.4): typed operands, range bounds, the
 * `$type` names. Plain data; ast.ts re-exports every type here, and operators.ts says which rule puts which
 * of them on its node (`OperandSlots`), so that the field nodes of ast.ts are derived from the table.
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

/** One bound of a range: the operand and whether the bound itself matches (`$gte`/`$lte`). */
export interface RangeBound {
  readonly operand: OrderedOperand;
  readonly inclusive: boolean;
}

/**
 * The bounds of a range: a lower bound, an upper bound, or both (never neither). Each shape is told apart by
 * `lower === undefined` / `upper === undefined`.
 */
export type RangeBounds =
  | { readonly lower: RangeBound; readonly upper?: undefined }
  | { readonly lower?: undefined; readonly upper: RangeBound }
  | { readonly lower: RangeBound; readonly upper: RangeBound };

/**
 * The value types `$type` names (docs/semantics.md 1.3), canonical: MongoDB's `double`, `int`, `long`,
 * `decimal` and `number` (codes 1, 16, 18, 19) are all `number`, a JSON number; `string` (2), `object` (3),
 * `array` (4), `bool` (8), `date` (9), `null` (10).
 */
export type JsonType = "number" | "string" | "object" | "array" | "bool" | "null" | "date";
