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
 * past `maxDictionary` in text/index.ts.)
 *
 * Fields are read as the reference interpreter reads them (docs/semantics.md 1.1): own properties, data or
 * accessor, read once when the incident is added; an inherited property, an own `undefined` or a read that
 * throws is missing. Caller objects are never modified.
 */

import { dateFieldMs, isoUtcBytesMs } from "../conditions/dates.js";
import { type Bitset, emptyBitset } from "./bitset.js";
import { NumberKeys, ScalarMap } from "./number-keys.js";

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

/**
 * A typed array of exactly `rows` elements holding `array`'s (`array` itself when it holds as many already):
 * a build's columns sized once for the rows it expects (`IncidentSet`'s `reserveRows`).
 */
export function reserved<T extends Codes | Float64Array | Int32Array>(array: T, rows: number): T {
  if (rows <= array.length) return array;
  const next = new (array.constructor as new (n: number) => T)(rows);
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

/** A hash of the bytes `b[start, end)` (FNV-1a, signed 32 bits): equal for equal bytes, that is all. */
export function hashAscii(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h ^ (h >>> 15);
}

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
  /** Value → code, as a `Map` would give it (a string also by its ASCII bytes: `codeOfAscii`). */
  private readonly index = new ValueIds(this.values, true);
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

  /** Room for `rows` rows' codes (a dropped column keeps none). */
  reserve(rows: number): void {
    if (!this.dropped) this.codes = reserved(this.codes, rows);
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
    this.setCode(row, code, capacity);
  }

  /** The code of a scalar value, or undefined when no row holds it. */
  codeOf(value: unknown): number | undefined {
    return this.index.get(value);
  }

  /**
   * The code of the string whose ASCII bytes are `b[start, end)`, or -1 when no row holds it (then read the
   * string and `set` it): the string is not built.
   */
  codeOfAscii(b: Uint8Array, start: number, end: number): number {
    return this.index.getAscii(b, start, end);
  }

  /** Per row, its code (`codes`): the row's value is `values[ids[row]]` (a `SpliceColumn` of record-shapes.ts). */
  get ids(): Codes {
    return this.codes;
  }

  /** Nothing to write: every row's code is written when it is set (a `SpliceColumn` of record-shapes.ts). */
  flushAscii(): void {}

  /** Stores row `row`'s value by its code (one `codeOfAscii` gave). */
  setCode(row: number, code: number, capacity: number): void {
    if (row >= this.codes.length) this.codes = grow(this.codes, capacity);
    this.codes[row] = code;
    this.counts[code]!++;
    this.postingCache = undefined;
    this.rowPostingCache = undefined;
    this.codeBitsCache = undefined;
  }

  /**
   * Appends rows `base … base + rows - 1` from another column of the same field (a part of a parallel
   * build, ndjson-parts.ts): per row its code `codes[r]` over that column's `values`, with the codes
   * sequential `set`s would have given them (values new to this column get the next codes, in the order of
   * their codes there, which is the order of their first rows).
   * @returns false, appending nothing, when the values new to this column would take it past
   *   `maxDictionary` (sequential `set`s would drop it: the caller decides)
   */
  appendCodes(
    codes: Codes,
    values: readonly unknown[],
    rows: number,
    base: number,
    capacity: number,
  ): boolean {
    const index = this.index;
    let fresh = 0;
    for (let c = FIRST_VALUE_CODE; c < values.length; c++) if (index.get(values[c]) === undefined) fresh++;
    if (index.size + fresh > this.maxDictionary) return false;
    const map = new Int32Array(values.length);
    map[CODE_NULL] = CODE_NULL;
    map[CODE_COMPLEX] = CODE_COMPLEX;
    for (let c = FIRST_VALUE_CODE; c < values.length; c++) {
      const value = values[c];
      let code = index.get(value);
      if (code === undefined) {
        code = this.values.length;
        this.values.push(value);
        this.counts.push(0);
        index.set(value, code);
      }
      map[c] = code;
    }
    const size = this.values.length;
    if (size > 0x100 && this.codes instanceof Uint8Array) this.codes = widen(this.codes, Uint16Array);
    if (size > 0x10000 && this.codes instanceof Uint16Array) this.codes = widen(this.codes, Uint32Array);
    if (base + rows > this.codes.length) this.codes = grow(this.codes, Math.max(capacity, base + rows));
    const out = this.codes;
    const counts = this.counts;
    for (let r = 0; r < rows; r++) {
      const code = map[codes[r]!]!;
      out[base + r] = code;
      counts[code]!++;
    }
    this.postingCache = undefined;
    this.rowPostingCache = undefined;
    this.codeBitsCache = undefined;
    return true;
  }

  /** Drops the column (its field has more distinct values than `maxDictionary`): its arrays are released. */
  drop(): void {
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
    this.postingCache ??= postingsOf(this.codes, this.counts, size, size, order);
    return this.postingCache;
  }

  /**
   * Rows per code in ascending row order (same layout as `postings`): for scans of a few codes' rows, whose
   * memory accesses then run forward through the columns. Built once (O(n)) and kept until the next add.
   */
  rowPostings(size: number): { offsets: Int32Array; rows: Int32Array } {
    this.rowPostingCache ??= postingsOf(this.codes, this.counts, size, size);
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

  /** Bytes held (typed arrays, the table of the values' ids included; the dictionary's strings are shared with the records). */
  bytes(): number {
    return (
      this.codes.byteLength +
      this.index.bytes() +
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
  /**
   * The row `setAscii` read last and the bytes it read it from (`b[asciiStart, asciiEnd)` of the line's
   * buffer); -1 once `set` has written a row since. A shaped line whose value is those bytes, read as a
   * date, is known to be the date's ISO form without writing it again (record-shapes.ts `encode`).
   */
  asciiRow = -1;
  asciiStart = 0;
  asciiEnd = 0;

  constructor(field: string, capacity: number) {
    this.field = field;
    this.ms = new Float64Array(capacity);
    this.states = new Uint8Array(capacity);
  }

  /** Room for `rows` rows' dates. */
  reserve(rows: number): void {
    this.ms = reserved(this.ms, rows);
    this.states = reserved(this.states, rows);
  }

  set(row: number, value: unknown, capacity: number): void {
    this.asciiRow = -1;
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

  /**
   * Stores row `row`'s value, the string of the ASCII bytes `b[start, end)`, as `set` would store that
   * string (`isoUtcBytesMs` reads it without building it).
   */
  setAscii(row: number, b: Uint8Array, start: number, end: number, capacity: number): void {
    if (row >= this.ms.length) {
      this.ms = grow(this.ms, capacity);
      this.states = grow(this.states, capacity);
    }
    const ms = isoUtcBytesMs(b, start, end);
    const state = Number.isNaN(ms) ? DATE_OTHER : DATE_VALUE;
    this.asciiRow = row;
    this.asciiStart = start;
    this.asciiEnd = end;
    this.ms[row] = ms;
    this.states[row] = state;
    this.counts[state]!++;
  }

  /**
   * Appends rows `base … base + rows - 1` from another column of the same field (a part of a parallel
   * build, ndjson-parts.ts): their epoch ms and states, as `set` would have written them.
   */
  appendRows(ms: Float64Array, states: Uint8Array, rows: number, base: number, capacity: number): void {
    this.asciiRow = -1;
    if (base + rows > this.ms.length) {
      this.ms = grow(this.ms, Math.max(capacity, base + rows));
      this.states = grow(this.states, Math.max(capacity, base + rows));
    }
    this.ms.set(ms.subarray(0, rows), base);
    this.states.set(states.subarray(0, rows), base);
    for (let r = 0; r < rows; r++) {
      const state = states[r]!;
      this.counts[state]!++;
      if (state === DATE_COMPLEX) this.complexRows.push(base + r);
    }
  }

  bytes(): number {
    return this.ms.byteLength + this.states.byteLength;
  }
}

/**
 * Rows grouped by key, a counting sort (O(rows + keys)): the rows holding key `k` are
 * `rows[offsets[k]] … rows[offsets[k + 1] - 1]`, in the order they were walked (a dictionary column's
 * codes, a text column's value ids: `postings`).
 * @param keys - per row, its key in `0 … counts.length - 1`, or a negative number (a row under no key)
 * @param counts - per key, how many of the rows walked hold it
 * @param walked - how many rows are walked: rows `0 … walked - 1`, or with `order` rows `order[0 … walked - 1]`
 * @param listed - the length of `rows` (at least the number of rows walked that hold a key); default: the
 *   sum of `counts`
 */
export function postingsOf(
  keys: ArrayLike<number>,
  counts: ArrayLike<number>,
  walked: number,
  listed: number | undefined,
  order?: Int32Array,
): { offsets: Int32Array; rows: Int32Array } {
  const keyCount = counts.length;
  const offsets = new Int32Array(keyCount + 1);
  for (let k = 0; k < keyCount; k++) offsets[k + 1] = offsets[k]! + counts[k]!;
  const cursor = offsets.slice(0, keyCount);
  const rows = new Int32Array(listed ?? offsets[keyCount]!);
  for (let j = 0; j < walked; j++) {
    const row = order === undefined ? j : order[j]!;
    const key = keys[row]!;
    if (key >= 0) rows[cursor[key]!++] = row;
  }
  return { offsets, rows };
}

// ---------------------------------------------------------------------------------------------------------
// Hash index

/**
 * Equality lookup on a selective field: scalar value (string, number, boolean) → rows. Rows holding an
 * array are kept apart (`arrayRows`): an element may equal an operand, so they are always candidates.
 * Values are keys as a `Map`'s (SameValueZero); numbers are kept by a table hashed with a secret of its own
 * (`ScalarMap`), since V8 hashes a number key without one (SECURITY.md, "Tables keyed by numbers are hashed
 * with a secret").
 */
export class HashIndex {
  readonly field: string;
  private readonly map = new ScalarMap<number | number[]>();
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

// ---------------------------------------------------------------------------------------------------------
// Value ids

/**
 * The ids of the distinct scalar values of a column (`values[id]`), as a `Map` from value to id would give
 * them (SameValueZero), with one more way in: a string can be looked up by its ASCII bytes
 * (`getAscii`), so that a reader of JSON bytes decodes only the strings it has not seen. Strings live in an
 * open-addressing table of their hashes (typed arrays, checked against `values`), numbers in a `NumberKeys`
 * (hashed with a secret of its own: V8 hashes a number key of a `Map` without one), booleans in a `Map`.
 */
export class ValueIds {
  private readonly values: readonly unknown[];
  /** Per slot, two words: id + 1 (0 when empty) and the string's hash (one cache line per probe). */
  private table = new Int32Array(128);
  private strings = 0;
  /** The ids of numbers (a seeded table: SECURITY.md, "Tables keyed by numbers are hashed with a secret"). */
  private readonly numbers = new NumberKeys();
  /** The ids of the other values that are not strings (booleans). */
  private readonly others = new Map<unknown, number>();
  /**
   * The strings that found no free slot within `MAX_VALUE_PROBES` of their hash's slot (values crafted to
   * share their hash's low bits: the hash is not seeded), by id: a lookup walks at most that many slots and
   * then asks this map, so such values cost a bounded number of steps each, not one per value kept.
   */
  private readonly overflow = new Map<string, number>();
  /** Slots visited by every lookup so far (tests: `MAX_VALUE_PROBES`). */
  probes = 0;
  /** The hash of the bytes of the last `getAscii` that missed. */
  private missed = 0;
  /**
   * With `pooled`: the bytes of each ASCII string value, packed (`pool[poolAt[id], +poolLength[id])`; -1
   * for an id that is not an ASCII string), so that `getAscii` compares bytes in a few cache lines instead of
   * reading strings scattered over the heap.
   */
  private readonly pooled: boolean;
  private pool = new Uint8Array(0);
  private poolUsed = 0;
  private poolAt = new Int32Array(0);
  private poolLength = new Int32Array(0);

  /**
   * @param values - the column's distinct values, by id (read, never written)
   * @param pooled - keep a copy of the bytes of the ASCII string values (for columns of few values)
   */
  constructor(values: readonly unknown[], pooled = false) {
    this.values = values;
    this.pooled = pooled;
  }

  /** Number of values. */
  get size(): number {
    return this.strings + this.numbers.size + this.others.size;
  }

  /** The id of a value, or undefined. */
  get(value: unknown): number | undefined {
    if (typeof value === "number") {
      const id = this.numbers.get(value);
      return id < 0 ? undefined : id;
    }
    if (typeof value !== "string") return this.others.get(value);
    return this.getHashed(value, hashString(value));
  }

  /** The hash `get` and `idOrSet` look a string up by (`hashString`); 0 for other values. */
  static hashOf(value: unknown): number {
    return typeof value === "string" ? hashString(value) : 0;
  }

  /**
   * The id of `value` (of hash `h`, `hashOf`); when it has none, records `id` as its id and returns `id`:
   * one hash and one walk of the table for both (the append of a parallel build's part, ndjson-parts.ts).
   */
  idOrSet(value: unknown, h: number, id: number): number {
    if (typeof value === "number") return this.numbers.idOrSet(value, id);
    if (typeof value !== "string") {
      const known = this.others.get(value);
      if (known !== undefined) return known;
      this.others.set(value, id);
      return id;
    }
    const known = this.getHashed(value, h);
    if (known !== undefined) return known;
    this.place(h, id, value);
    if (this.pooled) this.keepBytes(value, id);
    return id;
  }

  /** `get` of a string given its hash (`hashString`). */
  private getHashed(value: string, h: number): number | undefined {
    const table = this.table;
    const mask = table.length - 2;
    for (let slot = (h << 1) & mask, k = 1; ; slot = (slot + 2) & mask, k++) {
      const entry = table[slot]!;
      if (entry === 0) {
        this.probes += k;
        return undefined;
      }
      if (table[slot + 1] === h && this.values[entry - 1] === value) {
        this.probes += k;
        return entry - 1;
      }
      if (k === MAX_VALUE_PROBES) {
        this.probes += k;
        return this.overflow.get(value);
      }
    }
  }

  /**
   * The id of the string whose ASCII bytes are `b[start, end)`, or -1 (then `setMissed` records the string
   * without hashing it again).
   */
  getAscii(b: Uint8Array, start: number, end: number): number {
    return this.getAsciiHashed(b, start, end, hashAscii(b, start, end));
  }

  /** `getAscii` given the bytes' hash (`hashAscii`). */
  getAsciiHashed(b: Uint8Array, start: number, end: number, h: number): number {
    const table = this.table;
    const mask = table.length - 2;
    const length = end - start;
    for (let slot = (h << 1) & mask, k = 1; ; slot = (slot + 2) & mask, k++) {
      if (k > MAX_VALUE_PROBES) {
        // Every slot a value of this hash may hold was visited: the value is in `overflow`, or nowhere.
        this.probes += MAX_VALUE_PROBES;
        this.missed = h;
        if (this.overflow.size === 0) return -1;
        let text = "";
        for (let i = start; i < end; i++) text += String.fromCharCode(b[i]!);
        return this.overflow.get(text) ?? -1;
      }
      const entry = table[slot]!;
      if (entry === 0) {
        this.probes += k;
        this.missed = h;
        return -1;
      }
      if (table[slot + 1] !== h) continue;
      const id = entry - 1;
      const at = id < this.poolAt.length ? this.poolAt[id]! : -1;
      let i = 0;
      if (at >= 0) {
        if (this.poolLength[id] !== length) continue;
        const pool = this.pool;
        while (i < length && pool[at + i] === b[start + i]) i++;
      } else {
        const value = this.values[id] as string;
        if (value.length !== length) continue;
        while (i < length && value.charCodeAt(i) === b[start + i]) i++;
      }
      if (i === length) {
        this.probes += k;
        return id;
      }
    }
  }

  /**
   * The first slot's entry of hash `h` (id + 1, or 0): read ahead of `getAsciiHashed` for many hashes at
   * once, so that their cache misses overlap (`TextColumn.queueAscii`).
   */
  entryOf(h: number): number {
    const table = this.table;
    return table[(h << 1) & (table.length - 2)]!;
  }

  /** Records `id` as the id of `value` (not yet recorded). */
  set(value: unknown, id: number): void {
    if (typeof value === "number") {
      this.numbers.idOrSet(value, id);
      return;
    }
    if (typeof value !== "string") {
      this.others.set(value, id);
      return;
    }
    this.place(hashString(value), id, value);
    if (this.pooled) this.keepBytes(value, id);
  }

  /** Records `id` as the id of `value`, the string of the bytes the last `getAscii` missed. */
  setMissed(value: string, id: number): void {
    this.place(this.missed, id, value);
    if (this.pooled) this.keepBytes(value, id);
  }

  /** Copies an ASCII string's bytes into the pool (`pooled`). */
  private keepBytes(value: string, id: number): void {
    if (id >= this.poolAt.length) {
      const size = Math.max(16, id * 2);
      const at = new Int32Array(size).fill(-1);
      at.set(this.poolAt);
      const length = new Int32Array(size);
      length.set(this.poolLength);
      this.poolAt = at;
      this.poolLength = length;
    }
    for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return;
    if (this.poolUsed + value.length > this.pool.length) {
      const wider = new Uint8Array(Math.max(256, (this.poolUsed + value.length) * 2));
      wider.set(this.pool.subarray(0, this.poolUsed));
      this.pool = wider;
    }
    for (let i = 0; i < value.length; i++) this.pool[this.poolUsed + i] = value.charCodeAt(i);
    this.poolAt[id] = this.poolUsed;
    this.poolLength[id] = value.length;
    this.poolUsed += value.length;
  }

  /** Forgets every value. */
  clear(): void {
    this.table = new Int32Array(128);
    this.strings = 0;
    this.pool = new Uint8Array(0);
    this.poolUsed = 0;
    this.poolAt = new Int32Array(0);
    this.poolLength = new Int32Array(0);
    this.numbers.clear();
    this.others.clear();
    this.overflow.clear();
  }

  /** Bytes of the string table (and the pool) and of the number table. */
  bytes(): number {
    return (
      this.table.byteLength +
      this.pool.byteLength +
      this.poolAt.byteLength +
      this.poolLength.byteLength +
      this.numbers.bytes()
    );
  }

  /**
   * Per id below `count`, the hash `hashOf` gives its value (0 for a value that is not a string), read from
   * the table's slots rather than computed again from the strings (a parallel build's part, `packValues`).
   * Pays: the worker's export of a part, on the parallel build's critical path (bench/one-shot.ts, "set
   * build" row): 500,000 titles' hashes in about 8 ms, against 85 ms hashed again (five rounds).
   */
  hashesById(count: number): Int32Array {
    const hashes = new Int32Array(count);
    const table = this.table;
    for (let slot = 0; slot < table.length; slot += 2) {
      const entry = table[slot]!;
      if (entry !== 0 && entry <= count) hashes[entry - 1] = table[slot + 1]!;
    }
    for (const [value, id] of this.overflow) if (id < count) hashes[id] = hashString(value);
    return hashes;
  }

  /**
   * Grows the table, once, to hold `more` strings beyond those it holds without growing again (a part's
   * values about to be appended, `TextColumn.appendIds`).
   */
  reserve(more: number): void {
    const needed = (this.strings + more) * 4;
    if (needed <= this.table.length) return;
    let size = this.table.length;
    while (size < needed) size *= 2;
    this.rehash(size);
  }

  /** Enters a new string's id (the table kept at most half full). */
  private place(h: number, id: number, value: string): void {
    if ((this.strings + 1) * 4 > this.table.length) this.rehash(this.table.length * 2);
    this.strings++;
    this.enter(this.table, h, id, value);
  }

  /**
   * Writes `id` (of `value`, hash `h`) into the first free slot of `table` within `MAX_VALUE_PROBES` of its
   * hash's slot, or into `overflow` when there is none. No slot is ever freed but by a rehash, which enters
   * every id again: so a string a lookup does not meet within that many slots is in `overflow` or nowhere.
   */
  private enter(table: Int32Array, h: number, id: number, value: string): void {
    const mask = table.length - 2;
    let slot = (h << 1) & mask;
    for (let k = 1; table[slot] !== 0; k++) {
      if (k === MAX_VALUE_PROBES) {
        this.overflow.set(value, id);
        return;
      }
      slot = (slot + 2) & mask;
    }
    table[slot] = id + 1;
    table[slot + 1] = h;
  }

  private rehash(size: number): void {
    const old = this.table;
    const table = new Int32Array(size);
    const spilled = [...this.overflow];
    this.overflow.clear();
    for (let from = 0; from < old.length; from += 2) {
      if (old[from] === 0) continue;
      const id = old[from]! - 1;
      this.enter(table, old[from + 1]!, id, this.values[id] as string);
    }
    for (const [value, id] of spilled) this.enter(table, hashString(value), id, value);
    this.table = table;
  }
}

/**
 * Slots a `ValueIds` lookup visits at most before it asks its overflow map (values crafted to collide in
 * their hash's low bits cost that many steps each; SECURITY.md, "Crafted values cost a bounded number of
 * steps each").
 */
export const MAX_VALUE_PROBES = 64;

/** `hashAscii` of a string's UTF-16 code units (the same hash as its bytes, for an ASCII string). */
function hashString(text: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 15);
}
