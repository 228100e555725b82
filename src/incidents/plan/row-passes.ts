/**
 * The row-at-a-time passes of a conjunction (plan/index.ts has the map): a selection vector of rows (a seed's
 * rows, a creation-order segment's positions, the rows still possible), each row's answer folded over the
 * children under three-valued logic (`and3`, `allOf`), collected as T/P bitsets (`RowAnswers`). Dictionary
 * children are read straight from their columns (their codes and accept tables: no virtual call per row);
 * every other child answers by `row(i)`. Each pass ticks the budget once per row it examines
 * (docs/semantics.md 1.7).
 */

import { type Bitset, bitsToRows, hasBit } from "../bitset.js";
import type { Codes } from "../columns.js";
import type { BudgetTimer } from "../search-budget.js";
import { allOf, and3, type DenseResult, FALSE, type PlanNode, TRUE, type Tri, UNKNOWN } from "./node.js";
import { type AnswerSink, RowAnswers } from "./passes.js";

/** Dictionary children read from their columns: per child its codes (by row or position) and accept table. */
export interface CodeReads {
  readonly codes: readonly Codes[];
  readonly accepts: readonly Uint8Array[];
}

/** The three-valued AND of `answer` and each code read's answer at index `at` (stopping at false). */
function andCodes(answer: Tri, reads: CodeReads, at: number): Tri {
  const { codes, accepts } = reads;
  for (let c = 0; c < codes.length && answer !== FALSE; c++)
    answer = and3(answer, accepts[c]![codes[c]![at]!] as Tri);
  return answer;
}

/** True when `within` is given and lacks row `i`. */
function outside(within: Bitset | null, i: number): boolean {
  return within !== null && (within[i >>> 5]! & (1 << (i & 31))) === 0;
}

/**
 * A seeded AND (`AndPlan.seeded`): each row of `rows` (within `within`), true for the first `sure` of them
 * and unknown for the rest (the seed's word), ANDed with the dictionary reads and the `others`.
 * @throws {SearchTimeoutError} from `timer`
 */
export function seededPass(
  rows: ArrayLike<number>,
  sure: number,
  within: Bitset | null,
  reads: CodeReads,
  others: readonly PlanNode[],
  size: number,
  timer: BudgetTimer,
): DenseResult {
  const out = new RowAnswers(size);
  for (let k = 0; k < rows.length; k++) {
    timer.tick();
    const i = rows[k]!;
    if (outside(within, i)) continue;
    let answer = andCodes(k < sure ? TRUE : UNKNOWN, reads, i);
    if (answer !== FALSE) answer = allOf(others, i, answer);
    out.set(i, answer);
  }
  return { t: out.t, p: out.p };
}

/** A leaf answering a row by the value id it holds (a deferred text leaf: `TextLeaf.answerOfId`). */
export interface IdAnswers {
  answerOfId(id: number): Tri;
}

/**
 * A segment scan's rows (`AndPlan.segmentScan`): for each position `j` of `positions` (ascending), row
 * `order[j]` (within `within`) ANDs the dictionary reads (codes permuted into creation order, read at `j`),
 * the `others` by row, and last the `texts` by their value ids (`textIds[n][j]`, also in creation order);
 * each row's answer but false goes to `out`.
 * @throws {SearchTimeoutError} from `timer`
 */
export function segmentPass(
  positions: Int32Array,
  order: Int32Array,
  within: Bitset | null,
  reads: CodeReads,
  others: readonly PlanNode[],
  texts: readonly IdAnswers[],
  textIds: readonly Int32Array[],
  out: AnswerSink,
  timer: BudgetTimer,
): void {
  const single =
    texts.length === 1 && others.length === 0 && reads.codes.length === 0 ? texts[0]! : undefined;
  const singleIds = textIds[0];
  for (let k = 0; k < positions.length; k++) {
    timer.tick();
    const j = positions[k]!;
    const i = order[j]!;
    if (outside(within, i)) continue;
    let answer: Tri;
    if (single !== undefined) answer = single.answerOfId(singleIds![j]!);
    else {
      answer = andCodes(TRUE, reads, j);
      if (answer === FALSE) continue;
      if (others.length > 0) answer = allOf(others, i, answer);
      for (let n = 0; n < texts.length && answer !== FALSE; n++) {
        answer = and3(answer, texts[n]!.answerOfId(textIds[n]![j]!));
      }
    }
    if (answer !== FALSE) out.set(i, answer);
  }
}

/**
 * Finishes `leaves` row by row over the rows `result` leaves possible (`AndPlan.thenRows`): a row stays true
 * when `result` says true and every leaf says true, possible unless one says false.
 * @throws {SearchTimeoutError} from `timer`
 */
export function thenRowsPass(
  result: DenseResult,
  rows: Int32Array,
  leaves: readonly PlanNode[],
  size: number,
  timer: BudgetTimer,
): DenseResult {
  const out = new RowAnswers(size);
  const { t } = result;
  for (let k = 0; k < rows.length; k++) {
    timer.tick();
    const i = rows[k]!;
    out.set(i, allOf(leaves, i, (t[i >>> 5]! & (1 << (i & 31))) !== 0 ? TRUE : UNKNOWN));
  }
  return { t: out.t, p: out.p };
}

/**
 * Finishes the children `rest` row by row over the possible rows `p` (`AndPlan.rowMode`), `t` the rows
 * surely true so far (null: all of `p`); `residual`, some child is unknown everywhere (folded in once, as
 * the initial answer).
 * @throws {SearchTimeoutError} from `timer`
 */
export function rowModePass(
  t: Bitset | null,
  p: Bitset,
  rest: readonly PlanNode[],
  residual: boolean,
  size: number,
  timer: BudgetTimer,
): DenseResult {
  const out = new RowAnswers(size);
  for (const i of bitsToRows(p)) {
    timer.tick();
    out.set(i, allOf(rest, i, (t === null || hasBit(t, i)) && !residual ? TRUE : UNKNOWN));
  }
  return { t: out.t, p: out.p };
}
