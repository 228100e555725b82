/**
 * The order of "the first matching incident" (docs/semantics.md 1.9), written once for every engine that
 * needs it: the earliest `CreatedUtcTime` first; incidents without a valid `CreatedUtcTime` come after every
 * dated one; ties, and the undated among themselves, go by `IncidentId` ascending. Incidents whose
 * `IncidentId` is not a finite number come after those with one; what is still tied keeps its insertion
 * order (callers break remaining ties by position).
 *
 * The rule is one pair of sort keys per incident (`orderTimeKey`, `orderIdKey`): the time is epoch ms or
 * +Infinity when undated, the id is the `IncidentId` or +Infinity. Everything below compares those keys:
 * `orderKeyOf`/`compareOrderKeys` over records (the CLI, tests), `CreationOrder` over the rows of an
 * `IncidentSet` (typed arrays, no comparator calls), and `ORDER_FIELD`/`ID_FIELD` name the sort of a
 * database query (`toMongoFind`).
 */

import { ID_FIELD, ORDER_FIELD } from "../conditions/catalog.js";
import { recordDateValue } from "../conditions/dates.js";
import { ownDataValue } from "./columns.js";

export { ID_FIELD, ORDER_FIELD };

/**
 * The first sort key of an incident (docs/semantics.md 1.9).
 * @param ms - epoch ms of a valid `CreatedUtcTime`, or undefined when the incident has none
 * @returns `ms`, or +Infinity when undated (after every dated incident)
 */
export function orderTimeKey(ms: number | undefined): number {
  return ms ?? Number.POSITIVE_INFINITY;
}

/**
 * The second sort key of an incident (docs/semantics.md 1.9).
 * @param id - the value of its `IncidentId` field (any value, or undefined when missing)
 * @returns `id` when a finite number, else +Infinity (after every incident with one)
 */
export function orderIdKey(id: unknown): number {
  return typeof id === "number" && Number.isFinite(id) ? id : Number.POSITIVE_INFINITY;
}

/** The sort key of one incident: `time` is epoch ms or +Infinity when undated; `id` is +Infinity when absent. */
export interface OrderKey {
  readonly time: number;
  readonly id: number;
}

/**
 * Reads the order key of an incident record; never throws. Fields are read as docs/semantics.md 1.1 (revised)
 * reads them: own properties, data or accessor (a getter called once; one that throws, or a record whose
 * properties cannot be read, counts as missing).
 */
export function orderKeyOf(incident: object): OrderKey {
  let created: number | undefined;
  try {
    created = recordDateValue(readField(incident, ORDER_FIELD));
  } catch {
    created = undefined; // a Date-like object whose getTime throws is not a valid date
  }
  return { time: orderTimeKey(created), id: orderIdKey(readField(incident, ID_FIELD)) };
}

function readField(record: object, key: string): unknown {
  try {
    return ownDataValue(record, key);
  } catch {
    return undefined;
  }
}

/** True when key `a` comes strictly before key `b` (equal keys: false, so the earlier position wins). */
export function isBefore(a: OrderKey, b: OrderKey): boolean {
  return a.time < b.time || (a.time === b.time && a.id < b.id);
}

/** A comparator for `Array.prototype.sort` over order keys (stable sort keeps input order on ties). */
export function compareOrderKeys(a: OrderKey, b: OrderKey): number {
  return a.time === b.time ? (a.id === b.id ? 0 : a.id < b.id ? -1 : 1) : a.time < b.time ? -1 : 1;
}

// ---------------------------------------------------------------------------------------------------------
// Rows

/** Lists shorter than this are merge sorted (`mergeSortRows`); longer ones radix sorted by time first. */
const RADIX_MIN_ROWS = 2048;

const keyFloat = new Float64Array(1);
const keyWords = new Uint32Array(keyFloat.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Sorts `rows` by (time, id, row) ascending, where `time` and `id` are per-row keys (`orderTimeKey`,
 * `orderIdKey`): the order of docs/semantics.md 1.9, ties kept in insertion order. May sort `rows` in place;
 * returns the sorted array.
 *
 * A long list is sorted by its time keys alone first, by a least-significant-digit radix sort over their
 * IEEE 754 bits (8 bits a pass, a pass skipped when every key has the same digit there: generated dates
 * vary in about five of the eight), and only each run of equal times is then sorted by (id, row); a short
 * list, a run of equal times, and a list with a NaN key go to the merge sort (`mergeSortRows`), which
 * compares the same keys. The radix sort replaced the merge sort of every row, whose mispredicted
 * comparisons were about 6% of `fromNdjson`'s profile at 1M incidents: the sort alone 0.46x the time, the
 * whole build 0.94x the processor time (medians of 5 and 7 paired runs, 1M generated incidents; the row
 * "IncidentSet.fromNdjson vs DuckDB's single-thread load" of bench/one-shot.ts).
 */
export function sortRows(rows: Int32Array, time: Float64Array, id: Float64Array): Int32Array {
  const n = rows.length;
  if (n < RADIX_MIN_ROWS) return mergeSortRows(rows, time, id);
  // Each time key as two words that compare as unsigned integers in the key's order (-0 as +0).
  let hi = new Uint32Array(n);
  let lo = new Uint32Array(n);
  const h = LITTLE_ENDIAN ? 1 : 0;
  const l = 1 - h;
  for (let i = 0; i < n; i++) {
    const t = time[rows[i]!]!;
    if (Number.isNaN(t)) return mergeSortRows(rows, time, id); // no place in the radix order
    keyFloat[0] = t + 0;
    const high = keyWords[h]!;
    if (high >>> 31 === 1) {
      hi[i] = ~high >>> 0;
      lo[i] = ~keyWords[l]! >>> 0;
    } else {
      hi[i] = (high | 0x80000000) >>> 0;
      lo[i] = keyWords[l]!;
    }
  }
  let src: Int32Array = rows;
  let dst: Int32Array = new Int32Array(n);
  let hiNext = new Uint32Array(n);
  let loNext = new Uint32Array(n);
  // The eight digits' counts in one pass over the keys (then a pass is skipped when one digit holds all).
  const counts = new Int32Array(8 * 256);
  for (let i = 0; i < n; i++) {
    const high = hi[i]!;
    const low = lo[i]!;
    counts[low & 0xff]!++;
    counts[256 + ((low >>> 8) & 0xff)]!++;
    counts[512 + ((low >>> 16) & 0xff)]!++;
    counts[768 + (low >>> 24)]!++;
    counts[1024 + (high & 0xff)]!++;
    counts[1280 + ((high >>> 8) & 0xff)]!++;
    counts[1536 + ((high >>> 16) & 0xff)]!++;
    counts[1792 + (high >>> 24)]!++;
  }
  for (let digit = 0; digit < 8; digit++) {
    const base = digit * 256;
    let constant = false;
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[base + d]!;
      if (c === n) constant = true;
      counts[base + d] = sum;
      sum += c;
    }
    if (constant) continue;
    const words = digit < 4 ? lo : hi;
    const shift = (digit & 3) * 8;
    for (let i = 0; i < n; i++) {
      const to = counts[base + ((words[i]! >>> shift) & 0xff)]!++;
      dst[to] = src[i]!;
      hiNext[to] = hi[i]!;
      loNext[to] = lo[i]!;
    }
    [src, dst] = [dst, src];
    [hi, hiNext] = [hiNext, hi];
    [lo, loNext] = [loNext, lo];
  }
  // Runs of equal times, by (id, row).
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && hi[end] === hi[start] && lo[end] === lo[start]) end++;
    if (end - start > 1) {
      const run = src.subarray(start, end);
      const sorted = mergeSortRows(run, time, id);
      if (sorted !== run) run.set(sorted);
    }
    start = end;
  }
  return src;
}

/**
 * `sortRows` by a bottom-up merge sort over typed arrays (no comparator calls), O(n log n). May sort `rows`
 * in place; returns the sorted array.
 */
export function mergeSortRows(rows: Int32Array, time: Float64Array, id: Float64Array): Int32Array {
  const n = rows.length;
  let src: Int32Array = rows;
  let dst: Int32Array = new Int32Array(n);
  // Insertion-sort runs of 16 first.
  const RUN = 16;
  for (let start = 0; start < n; start += RUN) {
    const end = Math.min(start + RUN, n);
    for (let i = start + 1; i < end; i++) {
      const row = src[i]!;
      let j = i - 1;
      while (j >= start && before(row, src[j]!, time, id)) {
        src[j + 1] = src[j]!;
        j--;
      }
      src[j + 1] = row;
    }
  }
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const mid = Math.min(left + width, n);
      const right = Math.min(left + 2 * width, n);
      let i = left;
      let j = mid;
      let k = left;
      while (i < mid && j < right) {
        // Take from the right run only when strictly before: stable.
        if (before(src[j]!, src[i]!, time, id)) dst[k++] = src[j++]!;
        else dst[k++] = src[i++]!;
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < right) dst[k++] = src[j++]!;
    }
    const swap = src;
    src = dst;
    dst = swap;
  }
  return src;
}

/** True when row `a` comes strictly before row `b` (time, then id, then row number). */
export function before(a: number, b: number, time: Float64Array, id: Float64Array): boolean {
  const ta = time[a]!;
  const tb = time[b]!;
  if (ta !== tb) return ta < tb;
  const ia = id[a]!;
  const ib = id[b]!;
  if (ia !== ib) return ia < ib;
  return a < b;
}

/** Merges two row lists each sorted by `before` into one. */
export function mergeRows(a: Int32Array, b: Int32Array, time: Float64Array, id: Float64Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    if (before(b[j]!, a[i]!, time, id)) out[k++] = b[j++]!;
    else out[k++] = a[i++]!;
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** A typed array with one entry per row (see `CreationOrder.inOrder`). */
export type RowArray = Uint8Array | Uint16Array | Uint32Array | Int32Array;

/** Permuted copies a creation order keeps at most (`inOrder`). */
const MAX_PERMUTED = 8;

/** An interval of epoch ms with its inclusivity (a `CreatedUtcTime` range, or one instant for `$eq`). */
export interface MsInterval {
  readonly lo: number;
  readonly loInclusive: boolean;
  readonly hi: number;
  readonly hiInclusive: boolean;
}

/**
 * The creation order of an `IncidentSet`'s rows (docs/semantics.md 1.9): each row's two sort keys, the rows
 * sorted by them (`order`, ties by row number) and each row's position in that order (`rank`). Rows are
 * added with `set`; `update` sorts the rows added since the last update and merges them in (O(k log k + n)).
 */
export class CreationOrder {
  /** Per row: the first key (`orderTimeKey`). */
  time: Float64Array;
  /** Per row: the second key (`orderIdKey`). */
  id: Float64Array;
  /** The rows in creation order, as of the last `update`. */
  order: Int32Array = new Int32Array(0);
  /** Per row: its position in `order`, as of the last `update`. */
  rank: Int32Array = new Int32Array(0);
  /** Rows with a valid `CreatedUtcTime`: the first `dated` positions of the order, once updated. */
  dated = 0;
  private rows = 0;
  private ordered = 0;
  /** Row-aligned arrays permuted into creation order (`inOrder`), by source array; cleared by `update`. */
  private readonly permuted = new Map<RowArray, RowArray>();
  /** Per-code bitsets over positions of the order (`codeBitsetsInOrder`), by codes array; cleared by `update`. */
  private readonly positionBits = new Map<RowArray, Uint32Array[]>();
  /** Lists of rows as their positions in the order (`ranksOf`), by list; cleared by `update`. */
  private readonly ranked = new Map<Int32Array, Int32Array>();

  /** @param capacity - rows to allocate keys for (the arrays grow as rows are added) */
  constructor(capacity: number) {
    this.time = new Float64Array(capacity);
    this.id = new Float64Array(capacity);
  }

  /** Room for `rows` rows' keys. */
  reserve(rows: number): void {
    if (rows <= this.time.length) return;
    this.time = grow(this.time, rows);
    this.id = grow(this.id, rows);
  }

  /**
   * Records the keys of row `row` (rows are added in ascending order, each once).
   * @param ms - epoch ms of the row's valid `CreatedUtcTime`, or undefined when it has none
   * @param id - the row's `IncidentId` value (undefined when missing or unreadable)
   */
  set(row: number, ms: number | undefined, id: unknown): void {
    if (row >= this.time.length) {
      const capacity = Math.ceil(this.time.length * 1.5) + 16;
      this.time = grow(this.time, capacity);
      this.id = grow(this.id, capacity);
    }
    this.time[row] = orderTimeKey(ms);
    this.id[row] = orderIdKey(id);
    if (ms !== undefined) this.dated++;
    this.rows = Math.max(this.rows, row + 1);
  }

  /**
   * Rows `0 … rows - 1`: their keys, how many are dated, and the rows sorted (a part's export, made in the
   * part's thread).
   */
  exportRows(): { time: Float64Array; id: Float64Array; rows: number; dated: number; sorted: Int32Array } {
    const rows = new Int32Array(this.rows);
    for (let i = 0; i < rows.length; i++) rows[i] = i;
    const sorted = sortRows(rows, this.time, this.id);
    return { time: this.time, id: this.id, rows: this.rows, dated: this.dated, sorted };
  }

  /**
   * Appends rows `base … base + rows - 1` from another order (a part of a parallel build, `exportRows`), as
   * `set` would have written them (`dated` of them with a valid `CreatedUtcTime`). With `sorted` (those
   * rows sorted, numbered from 0) and this order up to date (`update`), they are merged in at once: the
   * order is the one `update` would sort (ties by row number).
   */
  appendRows(
    time: Float64Array,
    id: Float64Array,
    rows: number,
    dated: number,
    base: number,
    sorted?: Int32Array,
  ): void {
    if (base + rows > this.time.length) {
      const capacity = Math.max(base + rows, Math.ceil(this.time.length * 1.5) + 16);
      this.time = grow(this.time, capacity);
      this.id = grow(this.id, capacity);
    }
    this.time.set(time.subarray(0, rows), base);
    this.id.set(id.subarray(0, rows), base);
    this.dated += dated;
    if (rows === 0) return;
    const up = this.ordered === this.rows && this.rows === base;
    this.rows = Math.max(this.rows, base + rows);
    if (sorted === undefined || !up) return;
    const shifted = new Int32Array(rows);
    for (let i = 0; i < rows; i++) shifted[i] = sorted[i]! + base;
    this.order = base === 0 ? shifted : mergeRows(this.order, shifted, this.time, this.id);
    this.ordered = base + rows;
    this.rerank();
  }

  /** Brings `order` and `rank` up to date with the rows added since the last call (sort them, merge). */
  update(): void {
    const size = this.rows;
    if (this.ordered === size) return;
    const pending = new Int32Array(size - this.ordered);
    for (let i = 0; i < pending.length; i++) pending[i] = this.ordered + i;
    const sorted = sortRows(pending, this.time, this.id);
    this.order = this.ordered === 0 ? sorted : mergeRows(this.order, sorted, this.time, this.id);
    this.ordered = size;
    this.rerank();
  }

  /** `rank` of the current `order`, and the views of the old order dropped. */
  private rerank(): void {
    const size = this.ordered;
    const rank = new Int32Array(size);
    for (let j = 0; j < size; j++) rank[this.order[j]!] = j;
    this.rank = rank;
    this.permuted.clear();
    this.positionBits.clear();
    this.ranked.clear();
  }

  /**
   * Per code of a dictionary column (`codes`, one per row, below `codeCount`): a bitset over the positions
   * of the order, bit `j` set when row `order[j]` holds the code, so that a segment of the order is
   * selected by word operations. Built on first use (one pass over the rows), kept until the next `update`
   * that adds rows (at most `MAX_PERMUTED` columns; counted in `bytes`). The order must be up to date.
   */
  codeBitsetsInOrder(codes: RowArray, codeCount: number): readonly Uint32Array[] {
    const known = this.positionBits.get(codes);
    if (known !== undefined && known.length >= codeCount) return known;
    const order = this.order;
    const words = (order.length + 31) >>> 5;
    const bits: Uint32Array[] = [];
    for (let c = 0; c < codeCount; c++) bits.push(new Uint32Array(words));
    for (let j = 0; j < order.length; j++) bits[codes[order[j]!]!]![j >>> 5]! |= 1 << (j & 31);
    remember(this.positionBits, codes, bits);
    return bits;
  }

  /**
   * A row-aligned array (one entry per row: a dictionary column's codes, a text column's value ids) permuted
   * into creation order: entry `j` is `values[order[j]]`, so that a pass over a segment of the order reads
   * it sequentially. Built on first use (one pass over the rows), kept until the next `update` that adds
   * rows (at most `MAX_PERMUTED` arrays, the oldest dropped first; counted in `bytes`). The order must be up
   * to date, and `values` must not change until then (rows are only ever added).
   */
  inOrder<A extends RowArray>(values: A): A {
    const known = this.permuted.get(values);
    if (known !== undefined) return known as A;
    const order = this.order;
    const out = new (values.constructor as new (length: number) => A)(order.length);
    for (let j = 0; j < order.length; j++) out[j] = values[order[j]!]!;
    remember(this.permuted, values, out);
    return out;
  }

  /**
   * A list of rows (a text column's postings, say) as their positions in the order: entry `k` is
   * `rank[rows[k]]`, so that setting the positions of a run of the list reads it sequentially instead of
   * `rank` at each row. Built on first use (one pass over the list), kept until the next `update` that adds
   * rows (at most `MAX_PERMUTED` lists, the oldest dropped first; counted in `bytes`). The order must be up
   * to date, and `rows` must not change until then.
   */
  ranksOf(rows: Int32Array): Int32Array {
    const known = this.ranked.get(rows);
    if (known !== undefined) return known;
    const rank = this.rank;
    const out = new Int32Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = rank[rows[k]!]!;
    remember(this.ranked, rows, out);
    return out;
  }

  /**
   * Positions `[from, to)` of the order whose time lies in `interval` (binary searches over the dated
   * positions; the order must be up to date).
   */
  segment(interval: MsInterval): [number, number] {
    const { order, time, dated } = this;
    const lowerBound = (test: (t: number) => boolean): number => {
      // First position in [0, dated) whose time passes `test` (monotone).
      let lo = 0;
      let hi = dated;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (test(time[order[mid]!]!)) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    const from = interval.loInclusive
      ? lowerBound((t) => t >= interval.lo)
      : lowerBound((t) => t > interval.lo);
    const to = interval.hiInclusive
      ? lowerBound((t) => t > interval.hi)
      : lowerBound((t) => t >= interval.hi);
    return [from, Math.max(from, to)];
  }

  /** Bytes held by the keys, the order and the ranks. */
  bytes(): number {
    let bytes = this.time.byteLength + this.id.byteLength + this.order.byteLength + this.rank.byteLength;
    for (const copy of this.permuted.values()) bytes += copy.byteLength;
    for (const bits of this.positionBits.values()) for (const b of bits) bytes += b.byteLength;
    for (const ranks of this.ranked.values()) bytes += ranks.byteLength;
    return bytes;
  }
}

/** Keeps `value` under `key` in a cache of at most `MAX_PERMUTED` entries, dropping the oldest first. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  if (cache.size >= MAX_PERMUTED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, value);
}

function grow(array: Float64Array, capacity: number): Float64Array {
  const next = new Float64Array(capacity);
  next.set(array);
  return next;
}
