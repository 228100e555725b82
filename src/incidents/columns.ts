/**
 * The columnar storage of an `IncidentSet`: what the set indexes, normalised once when an incident is
 * added, in typed arrays rather than objects.
 *
 * - `DictionaryColumn`: a field's scalar values (strings, numbers, booleans) dictionary-encoded as small
 *   integer codes (`Uint8Array`, widened to `Uint16Array` past 253 distinct values and to `Uint32Array`
 *   past 65,533, so that no code ever wraps), with a per-code
 *   histogram and, built on demand, per-code postings in creation order and (columns of at most
 *   `MAX_CODE_BITSETS` codes) per-code row bitsets.
 * - `DateColumn`: a catalogue date field as epoch ms (`Float64Array`) and a state per row.
 * - `HashIndex`: equality lookup on a selective field (`Number`, `ExternalKey`, `IncidentId`).
 *
 * (The selection vectors the planner combines are in bitset.ts; the creation order in order.ts; text fields
 * past `maxDictionary` in text-index.ts.)
 *
 * Fields are read as the reference interpreter reads them (docs/semantics.md 1.1): own properties, data or
 * accessor, read once when the incident is added; an inherited property, an own `undefined` or a read that
 * throws is missing. Caller objects are never modified.
 */

import { dateFieldMs } from "../conditions/dates.js";
import { type Bitset, emptyBitset } from "./bitset.js";

/**
 * Reads a record's own property as the reference does (docs/semantics.md 1.1): data or accessor (the getter is
 * called once here); inherited, absent, `undefined` and a throwing read are all `undefined`. Never throws.
 */
export function ownDataValue(record: object, key: string): unknown {
  try {
    return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Growable typed arrays

/** The code array of a dictionary column: 8 bits per row, widened to 16 and 32 as the dictionary grows. */
export type Codes = Uint8Array | Uint16Array | Uint32Array;

/** Copies `codes` into a wider array of the same length. */
function widen(codes: Codes, Wide: typeof Uint16Array | typeof Uint32Array): Codes {
  const wide = new Wide(codes.length);
  wide.set(codes);
  return wide;
}

/** Grows a typed array to at least `needed` elements (×1.5), keeping its contents. */
function grow<T extends Codes | Float64Array | Int32Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(
    Math.max(needed, Math.ceil(array.length * 1.5) + 16),
  );
  next.set(array);
  return next;
}

// ---------------------------------------------------------------------------------------------------------
// Dictionary column

/** Code of a row whose field is missing (no own value). */
export const CODE_MISSING = 0;
/** Code of a row whose field is `null`. */
export const CODE_NULL = 1;
/** Code of a row whose field holds an array or an object: the column cannot answer for it. */
export const CODE_COMPLEX = 2;
/** The first code of a dictionary value. */
export const FIRST_VALUE_CODE = 3;

/** Columns with at most this many codes (special codes included) keep per-code bitsets on demand (1 bit per row and code). */
export const MAX_CODE_BITSETS = 24;

/** The default number of distinct values past which a dictionary column is dropped (not selective enough to encode). */
export const DEFAULT_MAX_DICTIONARY = 4096;

/**
 * One field's scalar values dictionary-encoded. `values[code]` is the value of a code ≥ 3; `counts[code]`
 * the number of rows with that code. Dropped (`dropped`, arrays released) when the field has more than
 * `maxDictionary` distinct values.
 */
export class DictionaryColumn {
  readonly field: string;
  codes: Codes;
  readonly values: unknown[] = [undefined, null, undefined];
  readonly counts: number[] = [0, 0, 0];
  dropped = false;
  private readonly index = new Map<unknown, number>();
  private readonly maxDictionary: number;
  /** Per-code row lists in creation order, built on demand by `postings()`. */
  private postingCache: { offsets: Int32Array; rows: Int32Array } | undefined;
  private rowPostingCache: { offsets: Int32Array; rows: Int32Array } | undefined;
  /** Per-code row bitsets (low-cardinality columns only), built on demand by `codeBitsets()`. */
  private codeBitsCache: Bitset[] | undefined;

  constructor(field: string, capacity: number, maxDictionary: number) {
    this.field = field;
    this.maxDictionary = maxDictionary;
    this.codes = new Uint8Array(capacity);
  }

  /** Stores row `row`'s value (already read as an own value, docs/semantics.md 1.1). */
  set(row: number, value: unknown, capacity: number): void {
    if (this.dropped) return;
    let code: number;
    if (value === undefined) code = CODE_MISSING;
    else if (value === null) code = CODE_NULL;
    else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      const known = this.index.get(value);
      if (known === undefined) {
        if (this.index.size >= this.maxDictionary) {
          this.drop();
          return;
        }
        code = this.values.length;
        this.values.push(value);
        this.counts.push(0);
        this.index.set(value, code);
        // Widen the codes before the first one that does not fit: 8 → 16 → 32 bits.
        if (code === 0x100 && this.codes instanceof Uint8Array) this.codes = widen(this.codes, Uint16Array);
        else if (code === 0x10000 && this.codes instanceof Uint16Array)
          this.codes = widen(this.codes, Uint32Array);
      } else code = known;
    } else code = CODE_COMPLEX;
    if (row >= this.codes.length) this.codes = grow(this.codes, capacity);
    this.codes[row] = code;
    this.counts[code]!++;
    this.postingCache = undefined;
    this.rowPostingCache = undefined;
    this.codeBitsCache = undefined;
  }

  /** The code of a scalar value, or undefined when no row holds it. */
  codeOf(value: unknown): number | undefined {
    return this.index.get(value);
  }

  private drop(): void {
    this.dropped = true;
    this.codes = new Uint8Array(0);
    this.values.length = 0;
    this.counts.length = 0;
    this.index.clear();
  }

  /**
   * Rows per code in the given row order (creation order): rows of code `c` are
   * `rows[offsets[c]] … rows[offsets[c+1]-1]`. Built once (a counting sort, O(n)) and kept until the next add.
   */
  postings(order: Int32Array, size: number): { offsets: Int32Array; rows: Int32Array } {
    if (this.postingCache !== undefined) return this.postingCache;
    const codeCount = this.values.length;
    const offsets = new Int32Array(codeCount + 1);
    for (let c = 0; c < codeCount; c++) offsets[c + 1] = offsets[c]! + this.counts[c]!;
    const cursor = offsets.slice(0, codeCount);
    const rows = new Int32Array(size);
    const codes = this.codes;
    for (let j = 0; j < size; j++) {
      const row = order[j]!;
      rows[cursor[codes[row]!]!++] = row;
    }
    this.postingCache = { offsets, rows };
    return this.postingCache;
  }

  /**
   * Rows per code in ascending row order (same layout as `postings`): for scans of a few codes' rows, whose
   * memory accesses then run forward through the columns. Built once (O(n)) and kept until the next add.
   */
  rowPostings(size: number): { offsets: Int32Array; rows: Int32Array } {
    if (this.rowPostingCache !== undefined) return this.rowPostingCache;
    const codeCount = this.values.length;
    const offsets = new Int32Array(codeCount + 1);
    for (let c = 0; c < codeCount; c++) offsets[c + 1] = offsets[c]! + this.counts[c]!;
    const cursor = offsets.slice(0, codeCount);
    const rows = new Int32Array(size);
    const codes = this.codes;
    for (let row = 0; row < size; row++) rows[cursor[codes[row]!]!++] = row;
    this.rowPostingCache = { offsets, rows };
    return this.rowPostingCache;
  }

  /**
   * One bitset of rows per code (`bits[code]` has row `i` set when `codes[i] === code`), for columns of at
   * most `MAX_CODE_BITSETS` codes (special codes included): AND/OR of whole leaves then run 32 rows per
   * word operation. Built once (O(n)), kept until the next add; undefined for wider columns.
   * @param size - the number of rows
   */
  codeBitsets(size: number): readonly Bitset[] | undefined {
    if (this.codeBitsCache !== undefined) return this.codeBitsCache;
    if (!this.keepsCodeBitsets()) return undefined;
    const codeCount = this.values.length;
    const bits: Bitset[] = [];
    for (let c = 0; c < codeCount; c++) bits.push(emptyBitset(size));
    const codes = this.codes;
    for (let i = 0; i < size; i++) bits[codes[i]!]![i >>> 5]! |= 1 << (i & 31);
    this.codeBitsCache = bits;
    return bits;
  }

  /** True when `codeBitsets` answers (a column of at most `MAX_CODE_BITSETS` codes, not dropped). */
  keepsCodeBitsets(): boolean {
    return !this.dropped && this.values.length <= MAX_CODE_BITSETS;
  }

  /** Bytes held (typed arrays; the dictionary's strings are shared with the records). */
  bytes(): number {
    return (
      this.codes.byteLength +
      (this.codeBitsCache === undefined ? 0 : this.codeBitsCache.length * (this.codes.length >>> 3)) +
      (this.postingCache === undefined ? 0 : this.postingCache.rows.byteLength) +
      (this.rowPostingCache === undefined ? 0 : this.rowPostingCache.rows.byteLength)
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// Date column

/** Row states of a date column. */
export const DATE_MISSING = 0;
/** A valid date (JS `Date` or ISO-8601 UTC string): `ms[row]` holds it. */
export const DATE_VALUE = 1;
export const DATE_NULL = 2;
/** Present, not null, not a date, not an array (an invalid string, a number, an object). */
export const DATE_OTHER = 3;
/** An array (or a value whose reading threw): the column cannot answer for it. */
export const DATE_COMPLEX = 4;

/** A catalogue date field as epoch ms with a state per row (docs/semantics.md 1.5). */
export class DateColumn {
  readonly field: string;
  ms: Float64Array;
  states: Uint8Array;
  readonly counts = [0, 0, 0, 0, 0];
  /** The rows in state `DATE_COMPLEX`, ascending (rows are added in ascending order). */
  readonly complexRows: number[] = [];

  constructor(field: string, capacity: number) {
    this.field = field;
    this.ms = new Float64Array(capacity);
    this.states = new Uint8Array(capacity);
  }

  set(row: number, value: unknown, capacity: number): void {
    if (row >= this.ms.length) {
      this.ms = grow(this.ms, capacity);
      this.states = grow(this.states, capacity);
    }
    let state: number;
    let ms = Number.NaN;
    if (value === undefined) state = DATE_MISSING;
    else if (value === null) state = DATE_NULL;
    else if (Array.isArray(value)) state = DATE_COMPLEX;
    else {
      try {
        ms = dateFieldMs(value);
        state = Number.isNaN(ms) ? DATE_OTHER : DATE_VALUE;
      } catch {
        state = DATE_COMPLEX;
      }
    }
    this.ms[row] = ms;
    this.states[row] = state;
    this.counts[state]!++;
    if (state === DATE_COMPLEX) this.complexRows.push(row);
  }

  bytes(): number {
    return this.ms.byteLength + this.states.byteLength;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Hash index

/**
 * Equality lookup on a selective field: scalar value (string, number, boolean) → rows. Rows holding an
 * array are kept apart (`arrayRows`): an element may equal an operand, so they are always candidates.
 */
export class HashIndex {
  readonly field: string;
  private readonly map = new Map<unknown, number | number[]>();
  readonly arrayRows: number[] = [];

  constructor(field: string) {
    this.field = field;
  }

  set(row: number, value: unknown): void {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      const known = this.map.get(value);
      if (known === undefined) this.map.set(value, row);
      else if (typeof known === "number") this.map.set(value, [known, row]);
      else known.push(row);
    } else if (Array.isArray(value)) this.arrayRows.push(row);
  }

  /** Rows whose value is exactly `value` (a scalar), ascending. */
  rowsOf(value: unknown): readonly number[] {
    const known = this.map.get(value);
    return known === undefined ? [] : typeof known === "number" ? [known] : known;
  }

  get size(): number {
    return this.map.size;
  }
}
