/**
 * The shape encoding of a compact set's lines (`CompactRecords` with `shapes`): a line kept without what
 * other lines already hold, and rebuilt byte for byte when its record is read.
 *
 * A line `{"A":1,"B":"x",…}` is cut at its top-level values into separators (the bytes from the end of one
 * value to the start of the next: `{"A":`, `,"B":`, and the tail `}`, blanks included) and values. The line
 * is then kept as a marker byte (`SHAPED`), the id of its shape (the sequence of its separators' ids; each
 * distinct separator and shape is kept once for the whole set), and per value one of:
 * - its bytes, inline (a varint `3 × length`, then the bytes);
 * - the id of the value in its separator's dictionary of short values seen before (`3 × id + 1`): labels;
 * - `2`: the row's value of a text column, read back from it (a string of ASCII characters written without
 *   an escape is kept whole by the column: `"` + the column's value + `"` are its bytes).
 * A line that starts otherwise than with `{` (a byte order mark), is longer than `MAX_SHAPED_LINE`, holds
 * more than `MAX_MEMBERS` values, or
 * whose encoding saves less than a quarter of its bytes is kept as it is: its first byte is never the
 * marker (a JSON line starts with `{` or a byte order mark). Rebuilt lines are the original bytes, so their
 * records are `JSON.parse`'s of the original line, key order, escapes and numbers included.
 *
 * Pays: 447-byte lines of the one-shot export (1M incidents, distinct titles) kept in about 70 bytes
 * (bench/memory-parts.ts, "records: line bytes"; docs/performance.md, "Compact sets").
 */

import { hashAscii } from "./columns.js";

/** The first byte of a shaped line (never the first byte of a JSON line). */
export const SHAPED = 1;

/**
 * Lines longer than this are kept as they are: their keys and labels are a small part of them, and shaping
 * would copy their bytes twice more (SECURITY.md: a long line's bytes are copied a bounded number of times).
 */
const MAX_SHAPED_LINE = 64 * 1024;
/** Lines with more top-level values than this are kept as they are. */
const MAX_MEMBERS = 4096;
/** Values longer than this are never looked up in a separator's dictionary. */
const MAX_DICTIONARY_VALUE = 48;
/** Values a separator's dictionary keeps at most (ids below it take at most two varint bytes). */
const MAX_DICTIONARY_VALUES = 1024;
/** Lookups in a full dictionary after which it is dropped when fewer than a quarter of them hit. */
const FULL_PROBES = 4096;
/** Distinct separators and shapes kept at most; past them, new lines are kept as they are. */
const MAX_SEPARATORS = 1 << 16;
const MAX_SHAPES = 1 << 14;

/** A column whose row values a shaped line may leave out (a text column: values by id, an id per row). */
export interface SpliceColumn {
  readonly values: readonly unknown[];
  readonly ids: Int32Array;
  /** Writes the rows queued by the build (ids of rows not yet written are not read before). */
  flushAscii(): void;
}

/** Distinct byte strings by id, looked up by their bytes (an open-addressing table of their hashes). */
export class ByteDictionary {
  pool: Uint8Array = new Uint8Array(256);
  private used = 0;
  at: Int32Array = new Int32Array(16);
  len: Int32Array = new Int32Array(16);
  private hashes: Int32Array = new Int32Array(16);
  count = 0;
  private table = new Int32Array(32);

  constructor(readonly max: number) {}

  /** The id of the bytes `b[s, e)` (hash `h`, `hashAscii`), or -1. */
  find(b: Uint8Array, s: number, e: number, h: number): number {
    const table = this.table;
    const mask = table.length - 1;
    const n = e - s;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const id = entry - 1;
      if (this.hashes[id] !== h || this.len[id] !== n) continue;
      const pool = this.pool;
      const at = this.at[id]!;
      let i = 0;
      while (i < n && pool[at + i] === b[s + i]) i++;
      if (i === n) return id;
    }
  }

  /** Keeps the bytes `b[s, e)` (not kept yet; hash `h`) and returns their id, or -1 when full. */
  add(b: Uint8Array, s: number, e: number, h: number): number {
    if (this.count >= this.max) return -1;
    const id = this.count++;
    const n = e - s;
    if (id >= this.at.length) {
      this.at = widen(this.at, id * 2);
      this.len = widen(this.len, id * 2);
      this.hashes = widen(this.hashes, id * 2);
    }
    if (this.used + n > this.pool.length) {
      const pool = new Uint8Array(Math.max(2 * this.pool.length, this.used + n));
      pool.set(this.pool.subarray(0, this.used));
      this.pool = pool;
    }
    this.pool.set(b.subarray(s, e), this.used);
    this.at[id] = this.used;
    this.len[id] = n;
    this.hashes[id] = h;
    this.used += n;
    if (this.count * 2 > this.table.length) this.rehash(this.table.length * 2);
    else this.place(id);
    return id;
  }

  bytes(): number {
    return (
      this.pool.byteLength +
      this.at.byteLength +
      this.len.byteLength +
      this.hashes.byteLength +
      this.table.byteLength
    );
  }

  private place(id: number): void {
    const table = this.table;
    const mask = table.length - 1;
    let slot = this.hashes[id]! & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = id + 1;
  }

  private rehash(size: number): void {
    this.table = new Int32Array(size);
    for (let id = 0; id < this.count; id++) this.place(id);
  }
}

function widen(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

/** A separator's dictionary of short values, and whether it is still worth a lookup. */
interface ValueDictionary {
  readonly values: ByteDictionary;
  /** Lookups since it filled, and how many of them hit. */
  probes: number;
  hits: number;
  off: boolean;
}

/** Encodes lines into shaped lines and back (see the file comment). */
export class LineShapes {
  private readonly separators = new ByteDictionary(MAX_SEPARATORS);
  /** Per separator id: the key it names (undefined when it names none that can be read), its dictionary, its column. */
  private readonly keyOf: (string | undefined)[] = [];
  private readonly dictionaries: (ValueDictionary | undefined)[] = [];
  private readonly columnOf: (SpliceColumn | undefined)[] = [];
  private readonly shapes = new ByteDictionary(MAX_SHAPES);
  /** Per shape id: its separator ids (the last is the tail). */
  private readonly shapeSeparators: Int32Array[] = [];
  /** Text columns by field (`spliceFrom`). */
  private readonly columns = new Map<string, SpliceColumn>();
  /** Scratch: per value, separator start, value start and end. */
  private cuts = new Int32Array(3 * 64);
  private shapeScratch = new Int32Array(64);
  /** The separators of the last line's shape, and its id (`encode`). */
  private lastShape: Int32Array | undefined;
  private lastShapeId = -1;
  /** The shape before the last one, and its id (`encode`). */
  private otherShape: Int32Array | undefined;
  private otherShapeId = -1;
  /** The encoded line (`encode`) or the rebuilt one (`decode`). */
  out: Uint8Array = new Uint8Array(1024);
  private readonly decoder = new TextDecoder();

  /** Rows of `column` leave out the values of top-level key `field` it holds (see the file comment). */
  spliceFrom(field: string, column: SpliceColumn): void {
    this.columns.set(field, column);
    for (let id = 0; id < this.keyOf.length; id++) if (this.keyOf[id] === field) this.columnOf[id] = column;
  }

  /** Bytes of the separators, shapes and dictionaries. */
  bytes(): number {
    let total = this.separators.bytes() + this.shapes.bytes();
    for (const d of this.dictionaries) if (d !== undefined) total += d.values.bytes();
    for (const s of this.shapeSeparators) total += s.byteLength;
    return total;
  }

  /**
   * Encodes the JSON object line `b[s, e)` (valid JSON) into `out` from `at` (by default this object's own
   * `out`, from 0), which must have room for `e - s + 16` bytes there: returns the encoded length, or -1
   * when the line is better kept as it is (then `out` from `at` holds scratch). `known`, when 0 or more, is
   * how many top-level values the line holds, and `knownCuts` where each starts and ends (pairs of indexes
   * into `b`), as the line scanner found them.
   */
  encode(
    b: Uint8Array,
    s: number,
    e: number,
    out?: Uint8Array,
    at = 0,
    known = -1,
    knownCuts?: Int32Array,
  ): number {
    if (b[s] !== 0x7b || e - s > MAX_SHAPED_LINE) return -1;
    // Most lines repeat the last line's shape: the line is first matched against it, separator by separator
    // (their bytes compared where they are expected, each value's end found), and the separators and the
    // shape are then not looked up. Pays, with the encoding written straight into the records' chunk
    // (record-store.ts `pushShaped`) and short values copied without a view: a 1M build (bench/one-shot.ts,
    // "set build" row) 0.87x the processor time (median of five pairs, 0.85-0.91x) with the separators
    // compared after the cut; matched in one pass instead (`cutAsLast`), 0.94x of that (five pairs,
    // 0.92-0.98x).
    let last = this.lastShape;
    let members = -1;
    if (last !== undefined) {
      if (known >= 0 && knownCuts !== undefined) {
        members = this.cutAsKnown(b, s, e, last, known, knownCuts);
        // Two shapes often alternate (a field some lines leave out): the one before the last is tried
        // too, and becomes the last when it is this line's: in the 1M export 9% of lines change shape,
        // and the build (bench/one-shot.ts, "set build" row) took 0.94x the processor time (median of
        // seven pairs, twice: 0.91-1.01x).
        const other = this.otherShape;
        if (members < 0 && other !== undefined) {
          members = this.cutAsKnown(b, s, e, other, known, knownCuts);
          if (members >= 0) {
            this.otherShape = last;
            this.lastShape = last = other;
            const id = this.otherShapeId;
            this.otherShapeId = this.lastShapeId;
            this.lastShapeId = id;
          }
        }
      }
      if (members < 0) members = this.cutAsLast(b, s, e, last);
    }
    let shape: Int32Array;
    let shapeId: number;
    if (members >= 0) {
      shape = last!;
      shapeId = this.lastShapeId;
    } else {
      members = this.cut(b, s, e);
      if (members < 0) return -1;
      const cuts = this.cuts;
      if (this.shapeScratch.length < members + 1) this.shapeScratch = new Int32Array(2 * (members + 1));
      shape = this.shapeScratch;
      for (let m = 0; m < members; m++) {
        const id = this.separatorId(b, cuts[3 * m]!, cuts[3 * m + 1]!);
        if (id < 0) return -1;
        shape[m] = id;
      }
      const tail = this.separatorId(b, members === 0 ? s : cuts[3 * members - 1]!, e);
      if (tail < 0) return -1;
      shape[members] = tail;
      const shapeBytes = new Uint8Array(shape.buffer, 0, 4 * (members + 1));
      const hs = hashAscii(shapeBytes, 0, shapeBytes.length);
      shapeId = this.shapes.find(shapeBytes, 0, shapeBytes.length, hs);
      if (shapeId < 0) {
        shapeId = this.shapes.add(shapeBytes, 0, shapeBytes.length, hs);
        if (shapeId < 0) return -1;
        this.shapeSeparators.push(shape.slice(0, members + 1));
      }
      if (shapeId !== this.lastShapeId) {
        this.otherShape = this.lastShape;
        this.otherShapeId = this.lastShapeId;
      }
      this.lastShape = this.shapeSeparators[shapeId];
      this.lastShapeId = shapeId;
    }
    const cuts = this.cuts;
    const limit = at + e - s - ((e - s) >>> 2);
    if (out === undefined) {
      if (this.out.length < e - s + 16) this.out = new Uint8Array(2 * (e - s) + 16);
      out = this.out;
    }
    out[at] = SHAPED;
    let p = writeVarint(out, at + 1, shapeId);
    for (let m = 0; m < members; m++) {
      if (p > limit) return -1;
      const from = cuts[3 * m + 1]!;
      const to = cuts[3 * m + 2]!;
      const sep = shape[m]!;
      if (this.columnOf[sep] !== undefined && plainString(b, from, to)) {
        out[p++] = 2;
        continue;
      }
      const n = to - from;
      if (n <= MAX_DICTIONARY_VALUE) {
        const id = this.dictionaryId(sep, b, from, to);
        if (id >= 0) {
          p = writeVarint(out, p, 3 * id + 1);
          continue;
        }
      }
      p = writeVarint(out, p, 3 * n);
      if (p + n > out.length) return -1;
      // Short values copied byte by byte: a view per value (`subarray`) costs more than the copy.
      if (n <= 64) for (let i = 0; i < n; i++) out[p + i] = b[from + i]!;
      else out.set(b.subarray(from, to), p);
      p += n;
    }
    return p > limit ? -1 : p - at;
  }

  /**
   * Rebuilds the line of the shaped bytes `b[s, e)` (row `row`) into `out` and returns its length.
   */
  decode(b: Uint8Array, s: number, e: number, row: number): number {
    let p = s + 1;
    let shapeId = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[p++]!;
      shapeId |= (x & 0x7f) << shift;
      if (x < 0x80) break;
    }
    const shape = this.shapeSeparators[shapeId]!;
    const separators = this.separators;
    let out = this.out;
    let q = 0;
    const members = shape.length - 1;
    for (let m = 0; m <= members; m++) {
      const sep = shape[m]!;
      const sepAt = separators.at[sep]!;
      const sepLength = separators.len[sep]!;
      if (q + sepLength > out.length) out = this.grow(q + sepLength);
      const pool = separators.pool;
      for (let i = 0; i < sepLength; i++) out[q + i] = pool[sepAt + i]!;
      q += sepLength;
      if (m === members) break;
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        const x = b[p++]!;
        v += (x & 0x7f) * 2 ** shift;
        if (x < 0x80) break;
      }
      const kind = v % 3;
      if (kind === 0) {
        const n = v / 3;
        if (q + n > out.length) out = this.grow(q + n);
        out.set(b.subarray(p, p + n), q);
        p += n;
        q += n;
      } else if (kind === 1) {
        const values = this.dictionaries[sep]!.values;
        const id = (v - 1) / 3;
        const at = values.at[id]!;
        const n = values.len[id]!;
        if (q + n > out.length) out = this.grow(q + n);
        const vp = values.pool;
        for (let i = 0; i < n; i++) out[q + i] = vp[at + i]!;
        q += n;
      } else {
        const column = this.columnOf[sep]!;
        column.flushAscii();
        const text = column.values[column.ids[row]!] as string;
        if (q + text.length + 2 > out.length) out = this.grow(q + text.length + 2);
        out[q++] = 0x22;
        for (let i = 0; i < text.length; i++) out[q + i] = text.charCodeAt(i);
        q += text.length;
        out[q++] = 0x22;
      }
    }
    if (p !== e) throw new Error(`CompactRecords: row ${row} is corrupt (read ${p - s} of ${e - s} bytes).`);
    return q;
  }

  /** The text of a rebuilt line (`decode`'s `out[0, n)`). */
  text(n: number): string {
    return this.decoder.decode(this.out.subarray(0, n));
  }

  private grow(needed: number): Uint8Array {
    const out = new Uint8Array(Math.max(needed, 2 * this.out.length));
    out.set(this.out);
    this.out = out;
    return out;
  }

  /** The id of the separator `b[s, e)`, kept on first sight; -1 when no more can be kept. */
  private separatorId(b: Uint8Array, s: number, e: number): number {
    const h = hashAscii(b, s, e);
    let id = this.separators.find(b, s, e, h);
    if (id >= 0) return id;
    id = this.separators.add(b, s, e, h);
    if (id < 0) return -1;
    const key = keyOfSeparator(b, s, e, this.decoder);
    this.keyOf.push(key);
    this.dictionaries.push(undefined);
    this.columnOf.push(key === undefined ? undefined : this.columns.get(key));
    return id;
  }

  /** The id of the value `b[s, e)` in separator `sep`'s dictionary (kept on first sight), or -1. */
  private dictionaryId(sep: number, b: Uint8Array, s: number, e: number): number {
    let d = this.dictionaries[sep];
    if (d === undefined) {
      d = { values: new ByteDictionary(MAX_DICTIONARY_VALUES), probes: 0, hits: 0, off: false };
      this.dictionaries[sep] = d;
    }
    if (d.off) return -1;
    const h = hashAscii(b, s, e);
    const id = d.values.find(b, s, e, h);
    if (d.values.count >= MAX_DICTIONARY_VALUES) {
      d.probes++;
      if (id >= 0) d.hits++;
      // A full dictionary that rarely hits (a key of distinct values) is no longer looked up.
      if (d.probes >= FULL_PROBES) {
        if (d.hits * 4 < d.probes) d.off = true;
        d.probes = d.hits = 0;
      }
      return id;
    }
    return id >= 0 ? id : d.values.add(b, s, e, h);
  }

  /**
   * `cutAsLast` with the values' starts and ends given (`known` values, `knownCuts`: pairs of indexes into
   * `b`, as the line scanner found them): only the separators between them are compared with `shape`'s.
   * Returns `known`, or -1 when the separators are not those. Pays: the values are not scanned twice; a
   * 1M build (bench/one-shot.ts, "set build" row) 0.95x the processor time of `cutAsLast` alone (median of
   * five pairs, 0.88-0.96x).
   */
  private cutAsKnown(
    b: Uint8Array,
    s: number,
    e: number,
    shape: Int32Array,
    known: number,
    knownCuts: Int32Array,
  ): number {
    if (shape.length !== known + 1) return -1;
    const { pool, at, len } = this.separators;
    const cuts = this.cuts;
    let i = s;
    for (let m = 0; m <= known; m++) {
      const id = shape[m]!;
      const n = len[id]!;
      const to = m === known ? e : knownCuts[2 * m]!;
      if (to - i !== n) return -1;
      const from = at[id]!;
      for (let k = 0; k < n; k++) if (b[i + k] !== pool[from + k]) return -1;
      if (m === known) break;
      const end = knownCuts[2 * m + 1]!;
      cuts[3 * m] = i;
      cuts[3 * m + 1] = to;
      cuts[3 * m + 2] = end;
      i = end;
    }
    return known;
  }

  /**
   * Cuts the object line `b[s, e)` as `cut` would when it has the separators `shape` (the last line's shape):
   * each separator's bytes are compared where it is expected, then its value's end found. Returns how many
   * values, or -1 when the line's separators are not those. The cuts are `cut`'s: a separator matched is
   * followed by a byte that is not a blank (else `cut` would take the blank into the separator), and the
   * tail must be the rest of the line exactly.
   */
  private cutAsLast(b: Uint8Array, s: number, e: number, shape: Int32Array): number {
    const members = shape.length - 1;
    const { pool, at, len } = this.separators;
    const cuts = this.cuts;
    let i = s;
    for (let m = 0; m < members; m++) {
      const id = shape[m]!;
      const n = len[id]!;
      const from = at[id]!;
      if (i + n >= e) return -1;
      for (let k = 0; k < n; k++) if (b[i + k] !== pool[from + k]) return -1;
      const valueStart = i + n;
      const c = b[valueStart]!;
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) return -1;
      const end = valueEnd(b, valueStart, e);
      if (end < 0) return -1;
      cuts[3 * m] = i;
      cuts[3 * m + 1] = valueStart;
      cuts[3 * m + 2] = end;
      i = end;
    }
    const tail = shape[members]!;
    const n = len[tail]!;
    if (n !== e - i) return -1;
    const from = at[tail]!;
    for (let k = 0; k < n; k++) if (b[i + k] !== pool[from + k]) return -1;
    return members;
  }

  /**
   * Cuts the object line `b[s, e)` at its top-level values into `cuts` (per value: where its separator
   * starts, where it starts and ends); returns how many, or -1 (too many, or bytes not as expected).
   */
  private cut(b: Uint8Array, s: number, e: number): number {
    let i = skipBlanks(b, s + 1, e);
    let members = 0;
    let sepFrom = s;
    if (b[i] === 0x7d) return 0;
    for (;;) {
      if (b[i] !== 0x22) return -1;
      i = stringEnd(b, i, e);
      i = skipBlanks(b, i, e);
      if (b[i] !== 0x3a) return -1;
      i = skipBlanks(b, i + 1, e);
      const valueStart = i;
      i = valueEnd(b, i, e);
      if (i < 0 || members >= MAX_MEMBERS) return -1;
      if (3 * members + 3 > this.cuts.length) {
        const cuts = new Int32Array(2 * this.cuts.length);
        cuts.set(this.cuts);
        this.cuts = cuts;
      }
      this.cuts[3 * members] = sepFrom;
      this.cuts[3 * members + 1] = valueStart;
      this.cuts[3 * members + 2] = i;
      members++;
      sepFrom = i;
      i = skipBlanks(b, i, e);
      if (b[i] === 0x2c) {
        i = skipBlanks(b, i + 1, e);
        continue;
      }
      return b[i] === 0x7d ? members : -1;
    }
  }
}

function skipBlanks(b: Uint8Array, i: number, e: number): number {
  while (i < e) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** The index after the string starting at `b[i]` (a `"`), or `e`. */
function stringEnd(b: Uint8Array, i: number, e: number): number {
  for (let j = i + 1; j < e; j++) {
    const c = b[j]!;
    if (c === 0x22) return j + 1;
    if (c === 0x5c) j++;
  }
  return e;
}

/** The index after the JSON value starting at `b[i]`, or -1. */
function valueEnd(b: Uint8Array, i: number, e: number): number {
  const c = b[i];
  if (c === 0x22) return stringEnd(b, i, e);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < e; j++) {
      const d = b[j]!;
      if (d === 0x22) j = stringEnd(b, j, e) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < e) {
    const d = b[j]!;
    if (d === 0x2c || d === 0x7d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
    j++;
  }
  return j > i ? j : -1;
}

/** True when `b[s, e)` is a string of ASCII characters without an escape (its content is its value). */
function plainString(b: Uint8Array, s: number, e: number): boolean {
  if (e - s < 2 || b[s] !== 0x22 || b[e - 1] !== 0x22) return false;
  for (let i = s + 1; i < e - 1; i++) {
    const c = b[i]!;
    if (c === 0x5c || c === 0x22 || c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** The key a separator (`,"key":`) names, or undefined. */
function keyOfSeparator(b: Uint8Array, s: number, e: number, decoder: TextDecoder): string | undefined {
  let i = s;
  while (i < e && b[i] !== 0x22) i++;
  if (i === e) return undefined;
  const end = stringEnd(b, i, e);
  try {
    const key: unknown = JSON.parse(decoder.decode(b.subarray(i, end)));
    return typeof key === "string" ? key : undefined;
  } catch {
    return undefined;
  }
}

function writeVarint(out: Uint8Array, p: number, v: number): number {
  while (v >= 0x80) {
    out[p++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[p++] = v;
  return p;
}
