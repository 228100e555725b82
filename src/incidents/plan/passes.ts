/**
 * The planner's word-wide passes over columns (plan/index.ts has the map): each fills a bitset 32 rows a word,
 * skipping the words `within` rules out, ticking the budget once per word (docs/semantics.md 1.7), with no
 * bitset between its inputs. A leaf's pass (`codesPass`, `intervalPass`, …), the fused passes of an AND
 * over up to three columns, the positions of a creation-order segment, the positions of matching rows in
 * creation order, and the row predicate's pass over the undecided rows.
 *
 * Why the passes repeat their loop over words instead of sharing one with a callback: these loops are the
 * hot path of `count` and `findAll`, and a shared loop calling a function per word costs CPU time, measured
 * on a 1M-row pass (`process.cpuUsage`, min of 15): a closure per word 1.3 → 2.3 ms (+70%) for a
 * dictionary pass, 1.7 → 2.5 ms for a date interval; a module-level function per word still 1.3 → 1.65 ms
 * (+26%) for a dictionary pass (V8 does not inline a call whose target varies by caller). So each pass
 * keeps its own loop, all of them in this file.
 */

import { andNot, type Bitset, bitsToRows, emptyBitset, popcount32, setBit } from "../bitset.js";
import { type Codes, DATE_VALUE } from "../columns.js";
import type { CreationOrder, MsInterval } from "../order.js";
import type { BudgetTimer } from "../search-budget.js";
import { TEXT_COMPLEX, TEXT_MISSING } from "../text/text-column.js";
import { type DenseResult, FALSE, TRUE, type Tri, UNBOUNDED } from "./node.js";

/**
 * Sets bit `i` of `t` for each row `i` whose code `accept` takes (`accept[codes[i]]`, 0 or 1): a dictionary
 * leaf deciding every row.
 */
export function codesPass(
  t: Bitset,
  size: number,
  within: Bitset | null,
  codes: Codes,
  accept: Uint8Array,
  timer: BudgetTimer,
): void {
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) bits |= accept[codes[i]!]! << (i - base);
    t[w] = bits;
  }
}

/**
 * `codesPass` of a three-valued accept table (0 false, 1 true, 2 unknown): `t` the true rows, `p` the rows
 * not false.
 */
export function codesPass3(
  t: Bitset,
  p: Bitset,
  size: number,
  within: Bitset | null,
  codes: Codes,
  accept: Uint8Array,
  timer: BudgetTimer,
): void {
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let tb = 0;
    let pb = 0;
    for (let i = base; i < end; i++) {
      const a = accept[codes[i]!]!;
      tb |= (a & 1) << (i - base);
      pb |= (a === 0 ? 0 : 1) << (i - base);
    }
    t[w] = tb;
    p[w] = pb;
  }
}

/**
 * Sets bit `i` of `t` for each row whose value id `ids[i]` the text leaf takes: `accept[id]` (0 or 1) for a
 * value, `missing` / `nul` for a missing field or null, 0 for an array or an object (the caller adds those
 * to P).
 */
export function idsPass(
  t: Bitset,
  size: number,
  within: Bitset | null,
  ids: Int32Array,
  accept: Uint8Array,
  missing: number,
  nul: number,
  timer: BudgetTimer,
): void {
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) {
      const id = ids[i]!;
      const a = id >= 0 ? accept[id]! : id === TEXT_MISSING ? missing : id === TEXT_COMPLEX ? 0 : nul;
      bits |= a << (i - base);
    }
    t[w] = bits;
  }
}

/**
 * Sets bit `i` of `t` for each row whose date `ms[i]` lies in `interval`: branch-free (NaN, not a date,
 * fails every comparison).
 */
export function intervalPass(
  t: Bitset,
  size: number,
  within: Bitset | null,
  ms: Float64Array,
  interval: MsInterval,
  timer: BudgetTimer,
): void {
  const { lo, hi, loInclusive, hiInclusive } = interval;
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) {
      const m = ms[i]!;
      const ok = (loInclusive ? m >= lo : m > lo) && (hiInclusive ? m <= hi : m < hi);
      bits |= (ok ? 1 : 0) << (i - base);
    }
    t[w] = bits;
  }
}

/**
 * Sets bit `i` of `t` for each row a date leaf takes: `test(ms[i])` for a date (`DATE_VALUE`), else the
 * answer for its state (`answers[state] === TRUE`).
 */
export function datesPass(
  t: Bitset,
  size: number,
  within: Bitset | null,
  states: Uint8Array,
  ms: Float64Array,
  test: (ms: number) => boolean,
  answers: Uint8Array,
  timer: BudgetTimer,
): void {
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) {
      const state = states[i]!;
      const ok = state === DATE_VALUE ? test(ms[i]!) : answers[state] === TRUE;
      bits |= (ok ? 1 : 0) << (i - base);
    }
    t[w] = bits;
  }
}

/**
 * The T and P bitsets of a row-at-a-time pass, one answer at a time (`set`): a row not false is possible,
 * a true one also true; `unknown` tells whether any row was set possible but not true.
 */
export class RowAnswers implements AnswerSink {
  readonly t: Bitset;
  readonly p: Bitset;
  unknown = false;

  constructor(size: number) {
    this.t = emptyBitset(size);
    this.p = emptyBitset(size);
  }

  /** Records row `i`'s answer. */
  set(i: number, answer: Tri): void {
    if (answer === FALSE) return;
    const w = i >>> 5;
    const bit = 1 << (i & 31);
    this.p[w]! |= bit;
    if (answer === TRUE) this.t[w]! |= bit;
    else this.unknown = true;
  }
}

/**
 * What a row-at-a-time pass records of each row's answer (`set`): the T and P bitsets (`RowAnswers`), or
 * only how many rows are true and which are unknown (`RowTally`, for `count`).
 */
export interface AnswerSink {
  set(i: number, answer: Tri): void;
}

/**
 * A row-at-a-time pass's answers as a count (`AndPlan.countDense`): the rows surely true counted, the
 * unknown ones listed (ascending when the pass visits rows in ascending order, else in visiting order) for
 * the row predicate. No bitset of every row is allocated or written.
 */
export class RowTally implements AnswerSink {
  sure = 0;
  readonly unknown: number[] = [];

  /** Records row `i`'s answer. */
  set(i: number, answer: Tri): void {
    if (answer === TRUE) this.sure++;
    else if (answer !== FALSE) this.unknown.push(i);
  }
}

/**
 * P of a leaf that decides every row but `rows` (arrays, objects: possible, not true): `t` with their bits
 * set, one `timer` tick each.
 */
export function possibleWith(t: Bitset, rows: readonly number[], timer: BudgetTimer): Bitset {
  const p = t.slice();
  for (const i of rows) setBit(p, i);
  timer.tick(rows.length);
  return p;
}

/**
 * The positions `j` in `[from, to)` of the creation order where every selector holds: for each, the OR of
 * its accepted codes' bitsets over positions (`CreationOrder.codeBitsetsInOrder`), ANDed word by word.
 * `timer` counts each word-wide pass's positions once per pass.
 */
export function segmentPositions(
  from: number,
  to: number,
  selectors: readonly { bits: readonly Uint32Array[]; accepted: readonly number[] }[],
  timer: BudgetTimer,
): Int32Array {
  if (to <= from) return new Int32Array(0);
  const w0 = from >>> 5;
  const w1 = (to - 1) >>> 5;
  const words = w1 - w0 + 1;
  const acc = new Uint32Array(words).fill(0xffffffff);
  // The segment's first and last words hold positions outside it.
  acc[0]! &= 0xffffffff << (from & 31);
  acc[words - 1]! &= 0xffffffff >>> (31 - ((to - 1) & 31));
  const part = new Uint32Array(words);
  for (const { bits, accepted } of selectors) {
    part.fill(0);
    for (const code of accepted) {
      const b = bits[code]!;
      for (let w = 0; w < words; w++) part[w]! |= b[w0 + w]!;
      timer.tick(32 * words); // a word-wide pass
    }
    for (let w = 0; w < words; w++) acc[w]! &= part[w]!;
    timer.tick(32 * words);
  }
  let n = 0;
  for (let w = 0; w < words; w++) n += popcount32(acc[w]!);
  const out = new Int32Array(n);
  let k = 0;
  for (let w = 0; w < words; w++) {
    let x = acc[w]!;
    while (x !== 0) {
      const low = x & -x;
      out[k++] = ((w0 + w) << 5) + 31 - Math.clz32(low);
      x ^= low;
    }
  }
  return out;
}

/** One pass ANDing three dictionary columns' accept tables into `t` (see `AndPlan.fused`). */
export function fusedScan(
  t: Bitset,
  size: number,
  within: Bitset | null,
  codes: readonly Codes[],
  accepts: readonly Uint8Array[],
  timer: BudgetTimer,
): void {
  const c0 = codes[0]!;
  const c1 = codes[1]!;
  const c2 = codes[2]!;
  const a0 = accepts[0]!;
  const a1 = accepts[1]!;
  const a2 = accepts[2]!;
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) bits |= (a0[c0[i]!]! & a1[c1[i]!]! & a2[c2[i]!]!) << (i - base);
    t[w] = bits;
  }
}

/** `fusedScan` with an interval on a date column (NaN, not a date, fails both comparisons). */
export function fusedScanWithDates(
  t: Bitset,
  size: number,
  within: Bitset | null,
  codes: readonly Codes[],
  accepts: readonly Uint8Array[],
  ms: Float64Array,
  interval: MsInterval,
  timer: BudgetTimer,
): void {
  const c0 = codes[0]!;
  const c1 = codes[1]!;
  const c2 = codes[2]!;
  const a0 = accepts[0]!;
  const a1 = accepts[1]!;
  const a2 = accepts[2]!;
  const { lo, hi, loInclusive, hiInclusive } = interval;
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) {
      const m = ms[i]!;
      const inside = (loInclusive ? m >= lo : m > lo) && (hiInclusive ? m <= hi : m < hi) ? 1 : 0;
      bits |= (a0[c0[i]!]! & a1[c1[i]!]! & a2[c2[i]!]! & inside) << (i - base);
    }
    t[w] = bits;
  }
}

/**
 * Finishes a dense evaluation: rows in P \ T are decided by `decide(row)`, one `timer` tick each; returns
 * the matching rows.
 * @throws {SearchTimeoutError} from `timer`
 */
export function resolveUnknown(
  result: DenseResult,
  decide: (row: number) => boolean,
  timer: BudgetTimer = UNBOUNDED,
): Bitset {
  if (result.p === result.t) return result.t;
  const unknown = andNot(result.p, result.t);
  const t = result.t.slice();
  for (const row of bitsToRows(unknown)) {
    timer.tick();
    if (decide(row)) setBit(t, row);
  }
  return t;
}

/**
 * Matching rows as a bitset over the positions of the creation order (bit `j` set when row `order[j]`
 * matches), with their number and the order they index: records are then read position by position, so
 * the answer comes out in creation order without a sort (`RecordStore.getAllInOrder`).
 */
export interface PositionedRows {
  readonly positions: Bitset;
  readonly count: number;
  /** The creation order the positions index (`order[j]`: the row at position `j`) and its inverse. */
  readonly order: Int32Array;
  readonly rank: Int32Array;
}

/** What `findAll`'s access path returns: the rows in creation order, or `PositionedRows`. */
export type FoundRows = Int32Array | number[] | PositionedRows;

/**
 * The rows of a bitset as `PositionedRows`: each set row's rank sets its bit among the positions, in one
 * pass over the row bitset (rows ascending, so ranks are read in row order). O(matches + rows / 32), no
 * sort, no list of rows.
 */
export function positionsInCreationOrder(
  bits: Bitset,
  creation: CreationOrder,
  timer: BudgetTimer,
): PositionedRows {
  const rank = creation.rank;
  const positions = new Uint32Array(bits.length);
  let count = 0;
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w]!;
    while (x !== 0) {
      const low = x & -x;
      const p = rank[(w << 5) + 31 - Math.clz32(low)]!;
      positions[p >>> 5]! |= 1 << (p & 31);
      x ^= low;
      count++;
    }
  }
  timer.tick(count);
  return { positions, count, order: creation.order, rank };
}
