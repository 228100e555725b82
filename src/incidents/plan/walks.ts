/**
 * The ordered walks of `findFirst` (plan/index.ts has the map): the first row in creation order
 * (docs/semantics.md 1.9) that a check accepts, over a segment of the creation order, over a candidate
 * list by rank, or over a dictionary leaf's postings merged in creation order. Each row walked is checked
 * once; the checks tick the budget.
 */

import type { CreationOrder } from "../order.js";
import type { BudgetTimer } from "../search-budget.js";
import type { DictionaryLeaf } from "./leaves.js";
import { type PlanNode, type RowCheck, type Storage, TRUE, UNKNOWN } from "./node.js";

/**
 * The check of a row by a plan (one `timer` tick each): true when the plan says true, or says unknown and
 * `check` (the row predicate) accepts the row.
 */
export function verifier(plan: PlanNode, check: RowCheck, timer: BudgetTimer): RowCheck {
  return (row: number): boolean => {
    timer.tick();
    const answer = plan.row(row);
    return answer === TRUE || (answer === UNKNOWN && check(row));
  };
}

/** The earliest (by rank) of `rows` that `check` accepts, or -1; one `timer` tick per row checked. */
export function firstChecked(
  rows: ArrayLike<number>,
  rank: Int32Array,
  check: RowCheck,
  timer: BudgetTimer,
): number {
  let best = -1;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    if (best >= 0 && rank[row]! >= rank[best]!) continue;
    timer.tick();
    if (check(row)) best = row;
  }
  return best;
}

/** The first row of the creation order in positions [from, to) that `verify` accepts, or -1. */
export function scanFirst(order: Int32Array, from: number, to: number, verify: RowCheck): number {
  for (let j = from; j < to; j++) {
    const row = order[j]!;
    if (verify(row)) return row;
  }
  return -1;
}

/** The earliest (by rank) of `rows` that `verify` accepts, or -1 (rows of a lower rank are not verified). */
export function firstOf(rows: ArrayLike<number>, rank: Int32Array, verify: RowCheck): number {
  let best = -1;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    if ((best < 0 || rank[row]! < rank[best]!) && verify(row)) best = row;
  }
  return best;
}

/**
 * Walks the postings of the leaf's accepted codes merged in creation order, from position `from` up to `to`
 * of the order; the first verified row, or -1.
 */
export function postingsFirst(
  leaf: DictionaryLeaf,
  storage: Storage,
  creation: CreationOrder,
  verify: RowCheck,
  from: number,
  to: number,
): number {
  const { offsets, rows } = leaf.column.postings(creation.order, storage.size);
  const rank = creation.rank;
  const codes = leaf.acceptedCodes();
  const heads: number[] = [];
  const ends: number[] = [];
  for (const code of codes) {
    // Postings are in creation order: binary-search the first entry at or after `from`.
    let lo = offsets[code]!;
    let hi = offsets[code + 1]!;
    ends.push(hi);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rank[rows[mid]!]! < from) lo = mid + 1;
      else hi = mid;
    }
    heads.push(lo);
  }
  for (;;) {
    let pick = -1;
    let pickRank = to;
    for (let k = 0; k < codes.length; k++) {
      if (heads[k]! < ends[k]!) {
        const r = rank[rows[heads[k]!]!]!;
        if (r < pickRank) {
          pickRank = r;
          pick = k;
        }
      }
    }
    if (pick < 0) return -1;
    const row = rows[heads[pick]!]!;
    heads[pick]!++;
    if (verify(row)) return row; // verify ticks the budget
  }
}
