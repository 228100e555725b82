/**
 * The contract of a plan node (plan/index.ts has the map of the planner): a node answers one condition for
 * one row (`row`) or for every row as bitsets (`dense`: T surely true, P possibly true), under
 * three-valued logic (false, true, unknown: the row predicate decides). Row-at-a-time answers combine in
 * one place (`and3`, `allOf`, `anyOf`). `Storage` is what the planner sees of an incident set.
 */

import type { Condition } from "../../conditions/ast.js";
import type { Bitset } from "../bitset.js";
import type { DateColumn, DictionaryColumn, HashIndex } from "../columns.js";
import type { CreationOrder } from "../order.js";
import { type BudgetTimer, startBudget } from "../search-budget.js";
import type { TextColumn } from "../text/text-column.js";

/** The timer of a search without a budget: ticks do nothing. */
export const UNBOUNDED: BudgetTimer = startBudget(undefined);

/** A row's answer: surely false, surely true, or unknown (the row predicate decides). */
export type Tri = 0 | 1 | 2;
export const FALSE: Tri = 0;
export const TRUE: Tri = 1;
export const UNKNOWN: Tri = 2;

/**
 * Three-valued AND (Kleene logic, as the reference reads `$and` over rows a column cannot decide): false
 * wins, then unknown, else true.
 */
export function and3(a: Tri, b: Tri): Tri {
  return a === FALSE || b === FALSE ? FALSE : a === UNKNOWN || b === UNKNOWN ? UNKNOWN : TRUE;
}

/**
 * The three-valued AND of `initial` and each child's answer for row `i` (`and3` folded, stopping at the first
 * false). The one fold of every AND over plan nodes.
 */
export function allOf(children: readonly PlanNode[], i: number, initial: Tri = TRUE): Tri {
  let result = initial;
  for (let k = 0; k < children.length && result !== FALSE; k++) result = and3(result, children[k]!.row(i));
  return result;
}

/** The three-valued OR of the children's answers for row `i`: true wins (stopping there), then unknown. */
export function anyOf(children: readonly PlanNode[], i: number): Tri {
  let result: Tri = FALSE;
  for (let k = 0; k < children.length; k++) {
    const answer = children[k]!.row(i);
    if (answer === TRUE) return TRUE;
    if (answer === UNKNOWN) result = UNKNOWN;
  }
  return result;
}

/** What the planner sees of an incident set. */
export interface Storage {
  readonly size: number;
  /** False when the set's `compile.codegen` is false: label expressions then run without `new Function`. */
  readonly codegen: boolean;
  dictionary(field: string): DictionaryColumn | undefined;
  /** Per-code row lists of a dictionary column, rows ascending (built once per batch of adds). */
  postings(column: DictionaryColumn): { readonly offsets: Int32Array; readonly rows: Int32Array };
  date(field: string): DateColumn | undefined;
  hash(field: string): HashIndex | undefined;
  /** The text column of a field whose dictionary outgrew `maxDictionary` (text/index.ts), if any. */
  text(field: string): TextColumn | undefined;
  /** The date column of `ORDER_FIELD` (always kept: it orders the rows). */
  readonly orderColumn: DateColumn;
  /**
   * The creation order (docs/semantics.md 1.9), brought up to date with the rows added since it was last
   * used (index maintenance: not interrupted, its result is kept), then `timer.check()`.
   * @throws {SearchTimeoutError} from `timer`, once the order is up to date
   */
  creation(timer: BudgetTimer): CreationOrder;
  /**
   * The exact answer for rows of a condition: the compiled row predicate over each row's record, for the
   * rows the columns cannot decide.
   */
  check(condition: Condition): RowCheck;
}

/** Decides one row exactly (`true`: the row's record matches). */
export type RowCheck = (row: number) => boolean;

/** The rows surely matching (`t`) and possibly matching (`p`, a superset of `t`) of a node. */
export interface DenseResult {
  readonly t: Bitset;
  readonly p: Bitset;
}

/** A node of a plan. */
export interface PlanNode {
  /** The condition it answers. */
  readonly condition: Condition;
  /** Expected fraction of rows that are true (unknown rows count half): orders AND children. */
  readonly estimate: number;
  /** The answer for one row. */
  row(i: number): Tri;
  /** The answers for every row (bits outside `within`, when given, are unspecified). */
  dense(within: Bitset | null): DenseResult;
  /** One line for `explain`. */
  describe(): string;
}

/** What an AND plan needs of the creation order for segment scans (`AndPlan.segmentScan`). */
export interface OrderAccess {
  /** The date column of `ORDER_FIELD`. */
  readonly column: DateColumn;
  /** The creation order, up to date. */
  creation(): CreationOrder;
}
