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
 * - `2`: the row's value of a text column or of a label's dictionary column, read back from it (a string of
 *   ASCII characters written without an escape is kept whole by the column: `"` + the column's value + `"`
 *   are its bytes);
 * - `5` or `8`: the row's date of a date column, written `"YYYY-MM-DDTHH:MM:SSZ"` or with `.mmm` (kept so
 *   only when the column's date writes exactly the line's bytes).
 * A line that starts otherwise than with `{` (a byte order mark), is longer than `MAX_SHAPED_LINE`, holds
 * more than `MAX_MEMBERS` values, or
 * whose encoding saves less than a quarter of its bytes is kept as it is: its first byte is never the
 * marker (a JSON line starts with `{` or a byte order mark). Rebuilt lines are the original bytes, so their
 * records are `JSON.parse`'s of the original line, key order, escapes and numbers included.
 *
 * What the separators, shapes and dictionaries hold is paid for by what the shaped lines save: a new entry is
 * kept only while they hold at most half the bytes saved so far plus `SHAPES_SLACK` (`affordable`), so that
 * a file whose keys, orders or values are each seen once (shaping would cost more than it saves) is held in
 * at most its lines' bytes plus about twice the slack (test/attack/shaped-memory.test.ts).
 *
 * Pays: 447-byte lines of the one-shot export (1M incidents, distinct titles) kept in 67 bytes
 * (bench/memory-parts.ts, "records: line bytes"; docs/performance.md, "Memory per incident, part by part").
 * Cutting a line along the previous line's shape (`cutAsLast`, `cutAsKnown`) is for speed: most lines of an export share one
 * shape, and comparing its separators where they lie costs less than hashing and looking them up (the
 * build's profile at 300,000 lines: the shaped encoding 925 ms of processor time, 572 ms with it).
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
/** Bytes the separators, shapes and dictionaries may hold beyond half of what the shaped lines saved. */
const SHAPES_SLACK = 1024 * 1024;
/** Heap bytes counted per separator beside its bytes (its slots in three arrays, its key's string header). */
const SEPARATOR_OVERHEAD = 48;
/** Heap bytes counted per shape and per dictionary beside their typed arrays (the objects' headers). */
const OBJECT_OVERHEAD = 64;

/**
 * A column whose row values a shaped line may leave out: a text column (values by id, an id per row) or a
 * dictionary column (values by code, a code per row).
 */
export interface SpliceColumn {
  readonly values: readonly unknown[];
  readonly ids: ArrayLike<number>;
  /** Writes the rows queued by the build (ids of rows not yet written are not read before). */
  flushAscii(): void;
}

/** A date column whose rows' ISO-8601 UTC strings a shaped line may leave out (`DateColumn`). */
export interface SpliceDates {
  /** Per row: epoch ms, read when the row's state is a date (1). */
  readonly ms: Float64Array;
  readonly states: Uint8Array;
  /**
   * The row whose date was read last from the bytes of its line (`DateColumn.setAscii`), and where they lie
   * in its buffer (`[asciiStart, asciiEnd)`); -1 when none or when the last row was written otherwise.
   */
  readonly asciiRow: number;
  readonly asciiStart: number;
  readonly asciiEnd: number;
}

/**
 * Slots a lookup in a `ByteDictionary` visits at most: past them it gives up (`find` returns -2) and the
 * line is kept as it is, so that keys crafted to share their hash's low bits (the hash is not seeded) cost
 * a bounded number of steps per lookup, not one per key kept (test/attack/shaped-memory.test.ts).
 */
export const MAX_PROBES = 64;

/** Distinct byte strings by id, looked up by their bytes (an open-addressing table of their hashes). */
export class ByteDictionary {
  pool: Uint8Array = new Uint8Array(256);
  private used = 0;
  at: Int32Array = new Int32Array(16);
  len: Int32Array = new Int32Array(16);
  private hashes: Int32Array = new Int32Array(16);
  count = 0;
  private table = new Int32Array(32);
  /** Slots visited by every lookup so far (`find`). */
  probes = 0;

  constructor(readonly max: number) {}

  /**
   * The id of the bytes `b[s, e)` (hash `h`, `hashAscii`), -1 when not kept, or -2 when not found within
   * `MAX_PROBES` slots (then not to be added either).
   */
  find(b: Uint8Array, s: number, e: number, h: number): number {
    const table = this.table;
    const mask = table.length - 1;
    const n = e - s;
    for (let slot = h & mask, k = 0; ; slot = (slot + 1) & mask, k++) {
      if (k === MAX_PROBES) {
        this.probes += k;
        return -2;
      }
      const entry = table[slot]!;
      if (entry === 0) {
        this.probes += k + 1;
        return -1;
      }
      const id = entry - 1;
      if (this.hashes[id] !== h || this.len[id] !== n) continue;
      const pool = this.pool;
      const at = this.at[id]!;
      let i = 0;
      while (i < n && pool[at + i] === b[s + i]) i++;
      if (i === n) {
        this.probes += k + 1;
        return id;
      }
    }
  }

  /** Keeps the bytes `b[s, e)` (not kept yet: `find` returned -1; hash `h`) and returns their id, or -1 when full. */
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
  /** Per id: the value, parsed on first read when it is a scalar (strings, numbers, booleans, null). */
  readonly parsed: unknown[];
  /** Lookups since it filled, and how many of them hit. */
  probes: number;
  hits: number;
  off: boolean;
}

/**
 * What decoding the lines a `LineShapes` shaped needs (`exportState`, `LineShapes.decoding`): its separators,
 * shapes and separators' dictionaries, as typed arrays (transferable) and the separators' keys.
 */
export interface ShapesState {
  readonly separators: ByteDictionaryState;
  readonly keyOf: readonly (string | undefined)[];
  readonly dictionaries: readonly (ByteDictionaryState | undefined)[];
  readonly shapeSeparators: readonly Int32Array[];
  /** Bytes the encoder counted as held (`LineShapes.bytes`). */
  readonly held: number;
}

/** The bytes of a `ByteDictionary` by id (`pool[at[id], +len[id])`). */
export interface ByteDictionaryState {
  readonly pool: Uint8Array;
  readonly at: Int32Array;
  readonly len: Int32Array;
  readonly count: number;
}

function dictionaryState(d: ByteDictionary): ByteDictionaryState {
  return { pool: d.pool, at: d.at, len: d.len, count: d.count };
}

function dictionaryOf(state: ByteDictionaryState): ByteDictionary {
  const d = new ByteDictionary(state.count);
  d.pool = state.pool;
  d.at = state.at;
  d.len = state.len;
  d.count = state.count;
  return d;
}

/** Encodes lines into shaped lines and back (see the file comment). */
export class LineShapes {
  private separators = new ByteDictionary(MAX_SEPARATORS);
  /** Per separator id: the key it names (undefined when it names none that can be read), its dictionary, its column. */
  private readonly keyOf: (string | undefined)[] = [];
  private readonly dictionaries: (ValueDictionary | undefined)[] = [];
  private readonly columnOf: (SpliceColumn | undefined)[] = [];
  private readonly datesOf: (SpliceDates | undefined)[] = [];
  /** Date columns by field (`spliceDates`). */
  private readonly dateColumns = new Map<string, SpliceDates>();
  /** `formatDate`'s bytes. */
  private readonly dateBytes = new Uint8Array(26);
  private readonly shapes = new ByteDictionary(MAX_SHAPES);
  /** Per shape id: its separator ids (the last is the tail). */
  private readonly shapeSeparators: Int32Array[] = [];
  /** Per shape id, once known: whether its records are built key by key (`plainShape`). */
  private readonly plainShapes: (boolean | undefined)[] = [];
  /** Text columns by field (`spliceFrom`). */
  private readonly columns = new Map<string, SpliceColumn>();
  /** Scratch: per value, separator start, value start and end. */
  private cuts = new Int32Array(3 * 64);
  private shapeScratch = new Int32Array(64);
  /** The shape of the last line `encode` shaped, and of the one before it of another shape (-1: none yet). */
  private lastShape = -1;
  private otherShape = -1;
  /**
   * The scanner's epoch (`LineScanner.shapeEpoch`) of the last line whose given cuts were matched with a
   * shape's separators by comparing them (`cutAsKnown`), and that shape (-1: none).
   */
  private epoch = -1;
  private epochShape = -1;
  /** The encoded line (`encode`) or the rebuilt one (`decode`). */
  out: Uint8Array = new Uint8Array(1024);
  private readonly decoder = new TextDecoder();
  /** Bytes the separators, shapes and dictionaries hold (`bytes`), their keys' strings counted. */
  private held = 0;
  /** Bytes the shaped lines saved: their lengths less their encoded lengths. */
  private saved = 0;

  /** Rows of `column` leave out the values of top-level key `field` it holds (see the file comment). */
  spliceFrom(field: string, column: SpliceColumn): void {
    this.columns.set(field, column);
    for (let id = 0; id < this.keyOf.length; id++) if (this.keyOf[id] === field) this.columnOf[id] = column;
  }

  /**
   * Rows leave out their values of top-level key `field` that are the ISO-8601 UTC strings of `column`'s
   * dates (`"2024-01-02T03:04:05Z"`, or with `.mmm`): rebuilt from the column's epoch ms.
   */
  spliceDates(field: string, column: SpliceDates): void {
    this.dateColumns.set(field, column);
    for (let id = 0; id < this.keyOf.length; id++) if (this.keyOf[id] === field) this.datesOf[id] = column;
  }

  /**
   * What decoding this encoder's lines needs (a part of a parallel build, ndjson-parts.ts): its arrays,
   * not copies (the encoder must not be used after).
   */
  exportState(): ShapesState {
    return {
      separators: dictionaryState(this.separators),
      keyOf: this.keyOf,
      dictionaries: this.dictionaries.map((d) => (d === undefined ? undefined : dictionaryState(d.values))),
      shapeSeparators: this.shapeSeparators,
      held: this.held,
    };
  }

  /**
   * A decoder of the lines another encoder shaped (`exportState`): `decode` and `record` read them, their
   * spliced values from the columns given by `rebind` (by row of the set that keeps them). Never encodes.
   */
  static decoding(state: ShapesState): LineShapes {
    const shapes = new LineShapes();
    shapes.separators = dictionaryOf(state.separators);
    for (const key of state.keyOf) shapes.keyOf.push(key);
    for (const d of state.dictionaries) {
      shapes.dictionaries.push(
        d === undefined ? undefined : { values: dictionaryOf(d), parsed: [], probes: 0, hits: 0, off: true },
      );
    }
    for (const shape of state.shapeSeparators) shapes.shapeSeparators.push(shape);
    shapes.columnOf.length = state.keyOf.length;
    shapes.datesOf.length = state.keyOf.length;
    shapes.held = state.held;
    return shapes;
  }

  /** Reads spliced values from these columns from now on, by field (a decoder of `decoding`). */
  rebind(columns: ReadonlyMap<string, SpliceColumn>, dates: ReadonlyMap<string, SpliceDates>): void {
    for (let id = 0; id < this.keyOf.length; id++) {
      const key = this.keyOf[id];
      this.columnOf[id] = key === undefined ? undefined : columns.get(key);
      this.datesOf[id] = key === undefined ? undefined : dates.get(key);
    }
  }

  /**
   * Bytes of the separators, shapes and dictionaries (their typed arrays, the separators' key strings, and a
   * fixed allowance per entry for the heap objects that hold them).
   */
  bytes(): number {
    return this.held;
  }

  /** Slots visited by every lookup in the separators, shapes and dictionaries so far (`MAX_PROBES`). */
  probeCount(): number {
    let total = this.separators.probes + this.shapes.probes;
    for (const d of this.dictionaries) if (d !== undefined) total += d.values.probes;
    return total;
  }

  /** Whether a new separator, shape or dictionary value may be kept (see the file comment). */
  private affordable(): boolean {
    return this.held <= this.saved / 2 + SHAPES_SLACK;
  }

  /**
   * Encodes the JSON object line `b[s, e)` (valid JSON) of row `row` (whose dates a date column holds:
   * `spliceDates`) into `out` from `at` (by default this object's own `out`, from 0), which must have room
   * for `e - s + 16` bytes there: returns the encoded length, or -1
   * when the line is better kept as it is (then `out` from `at` holds scratch). `known`, when 0 or more, is
   * how many top-level values the line holds, and `knownCuts` from `cutsAt` on where each starts and ends (pairs of indexes
   * into `b`), as the line scanner found them.
   */
  encode(
    b: Uint8Array,
    s: number,
    e: number,
    row: number,
    out?: Uint8Array,
    at = 0,
    known = -1,
    knownCuts?: Int32Array,
    epoch = -1,
    cutsAt = 0,
  ): number {
    if (b[s] !== 0x7b || e - s > MAX_SHAPED_LINE) return -1;
    // Most lines repeat the last line's shape: the line is first matched against it, separator by separator
    // (their bytes compared where they are expected, each value's end found, or only the separators between
    // the values the line scanner found), and the separators and the shape are then not looked up. Pays,
    // with the encoding written straight into the records' chunk (record-store.ts `pushShaped`) and short
    // values copied without a view: a 1M build (bench/one-shot.ts, "set build" row) 0.87x the processor time
    // (median of five pairs, 0.85-0.91x) with the separators compared after the cut; matched in one pass
    // instead (`cutAsLast`), 0.94x of that (five pairs, 0.92-0.98x).
    // Two shapes often alternate (a field some lines leave out): the one before the last is tried too, and
    // becomes the last when it is this line's: in the 1M export 9% of lines change shape, and the build
    // (bench/one-shot.ts, "set build" row) took 0.94x the processor time (median of seven pairs, twice:
    // 0.91-1.01x).
    const last = this.lastShape;
    let shapeId = last;
    let members = -1;
    const given = known >= 0 && knownCuts !== undefined;
    // A line the scanner's fast path read under the epoch of a line whose separators were compared with
    // shape `epochShape` (`LineScanner.shapeEpoch`): its separators are that line's, byte for byte, when
    // it holds as many values; only the tail is compared. Pays: bench/one-shot.ts, "set build" row
    // (CHANGELOG.md, Unreleased).
    if (given && epoch >= 0 && epoch === this.epoch) {
      const shape = this.shapeSeparators[this.epochShape]!;
      if (shape.length === known + 1 && this.tailAfter(b, s, e, shape, known, knownCuts, cutsAt)) {
        members = known;
        shapeId = this.epochShape;
        if (shapeId !== last) {
          this.otherShape = last;
          this.lastShape = shapeId;
        }
      }
    }
    if (members < 0 && last >= 0) {
      const shapes = this.shapeSeparators;
      members = given
        ? this.cutAsKnown(b, s, e, shapes[last]!, known, knownCuts, cutsAt)
        : this.cutAsLast(b, s, e, shapes[last]!);
      const other = this.otherShape;
      if (members < 0 && other >= 0) {
        members = given
          ? this.cutAsKnown(b, s, e, shapes[other]!, known, knownCuts, cutsAt)
          : this.cutAsLast(b, s, e, shapes[other]!);
        if (members >= 0) {
          shapeId = other;
          this.otherShape = last;
          this.lastShape = other;
        }
      }
      if (members >= 0 && given && epoch >= 0) {
        this.epoch = epoch;
        this.epochShape = shapeId;
      }
      // The scanner's cuts may not be `cut`'s (a line the scanner's fast path read otherwise): the last
      // shape is then matched by scanning the values.
      if (members < 0 && given) members = this.cutAsLast(b, s, e, shapes[last]!);
    }
    if (members < 0) {
      members = this.cut(b, s, e);
      if (members < 0) return -1;
      shapeId = this.shapeOf(b, s, e, members);
      if (shapeId < 0) return -1;
      if (shapeId !== last) {
        this.otherShape = last;
        this.lastShape = shapeId;
      }
    }
    const cuts = this.cuts;
    const shape = this.shapeSeparators[shapeId]!;
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
      const dates = this.datesOf[sep];
      if (dates !== undefined && (to - from === 22 || to - from === 26) && dates.states[row] === 1) {
        // The column read this row's date from these very bytes (the line being encoded is the row's):
        // `isoUtcBytesMs` took them as exactly `YYYY-MM-DDTHH:MM:SS[.mmm]Z` naming a real instant of years
        // 0000-9999, and `formatDate` of that instant writes them back, so they are not written again to
        // be compared. Pays: bench/one-shot.ts, "set build" row (CHANGELOG.md, Unreleased).
        if (dates.asciiRow === row && dates.asciiStart === from + 1 && dates.asciiEnd === to - 1) {
          out[p++] = to - from === 22 ? 5 : 8;
          continue;
        }
        // Kept only when the column's date writes exactly these bytes.
        const n = this.formatDate(dates.ms[row]!, to - from === 26);
        const d = this.dateBytes;
        let i = 0;
        while (i < n && d[i] === b[from + i]) i++;
        if (i === n && n === to - from) {
          out[p++] = n === 22 ? 5 : 8;
          continue;
        }
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
    if (p > limit) return -1;
    this.saved += e - s - (p - at);
    return p - at;
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
        for (let i = 0; i < n; i++) out[q + i] = b[p + i]!;
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
      } else if (v !== 2) {
        const n = this.formatDate(this.datesOf[sep]!.ms[row]!, v === 8);
        if (q + n > out.length) out = this.grow(q + n);
        out.set(this.dateBytes.subarray(0, n), q);
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

  /**
   * The record of the shaped bytes `b[s, e)` (row `row`): `JSON.parse` of its line, built without the
   * line's text. Each value is `JSON.parse`'s of its own bytes (a label's scalar parsed once and reused; an
   * object or array parsed anew), a text column's value is read from it, and the keys, parsed once per
   * separator, are set in the line's order, as `JSON.parse` defines them (a key `Object.prototype` holds,
   * such as `__proto__` or `toString`, would be assigned otherwise: a line with one is parsed whole).
   * Pays: `get` of a line of the one-shot export (Title inline) takes 0.9 of `JSON.parse` of the line's text,
   * where rebuilding the text first took 1.5 (100,000 gets in one process; bench/memory-parts.ts,
   * "findFirst labels"; docs/performance.md, "Memory per incident, part by part").
   */
  record(b: Uint8Array, s: number, e: number, row: number): unknown {
    let p = s + 1;
    let shapeId = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[p++]!;
      shapeId |= (x & 0x7f) << shift;
      if (x < 0x80) break;
    }
    const shape = this.shapeSeparators[shapeId]!;
    const members = shape.length - 1;
    const keys = this.keyOf;
    if (!this.plainShape(shapeId, shape)) return JSON.parse(this.text(this.decode(b, s, e, row)));
    const record: Record<string, unknown> = {};
    for (let m = 0; m < members; m++) {
      const sep = shape[m]!;
      let v = 0;
      for (let shift = 0; ; shift += 7) {
        const x = b[p++]!;
        v += (x & 0x7f) * 2 ** shift;
        if (x < 0x80) break;
      }
      let value: unknown;
      const kind = v % 3;
      if (kind === 0) {
        const n = v / 3;
        value = JSON.parse(this.decoder.decode(b.subarray(p, p + n)));
        p += n;
      } else if (kind === 1) {
        const d = this.dictionaries[sep]!;
        const id = (v - 1) / 3;
        value = d.parsed[id];
        if (value === undefined) {
          const values = d.values;
          const at = values.at[id]!;
          value = JSON.parse(this.decoder.decode(values.pool.subarray(at, at + values.len[id]!)));
          if (value === null || typeof value !== "object") d.parsed[id] = value;
        }
      } else if (v !== 2) {
        const n = this.formatDate(this.datesOf[sep]!.ms[row]!, v === 8);
        value = String.fromCharCode.apply(null, this.dateBytes.subarray(1, n - 1) as unknown as number[]);
      } else {
        const column = this.columnOf[sep]!;
        column.flushAscii();
        value = column.values[column.ids[row]!];
      }
      record[keys[sep]!] = value;
    }
    if (p !== e) throw new Error(`CompactRecords: row ${row} is corrupt (read ${p - s} of ${e - s} bytes).`);
    return record;
  }

  /**
   * Whether the records of shape `id` can be built key by key (`record`): each separator names a key that
   * `Object.prototype` does not hold (decided once per shape).
   */
  private plainShape(id: number, shape: Int32Array): boolean {
    let plain = this.plainShapes[id];
    if (plain === undefined) {
      plain = true;
      for (let m = 0; m + 1 < shape.length; m++) {
        const key = this.keyOf[shape[m]!];
        if (key === undefined || key in Object.prototype) plain = false;
      }
      this.plainShapes[id] = plain;
    }
    return plain;
  }

  /** The text of a rebuilt line (`decode`'s `out[0, n)`). */
  text(n: number): string {
    return this.decoder.decode(this.out.subarray(0, n));
  }

  /**
   * Writes `"YYYY-MM-DDTHH:MM:SSZ"` (22 bytes) or with `.mmm` (26) of epoch ms `ms` into `dateBytes`, as
   * `Date.prototype.toISOString` writes years 0–9999; returns its length, or 0 for another year.
   */
  private formatDate(ms: number, millis: boolean): number {
    const d = this.dateBytes;
    const days = Math.floor(ms / 86_400_000);
    let rest = ms - days * 86_400_000;
    // Civil date of a day count (H. Hinnant's days_from_civil, inverted).
    const z = days + 719_468;
    const era = Math.floor(z / 146_097);
    const doe = z - era * 146_097;
    const yoe = Math.floor(
      (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
    );
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    if (!(year >= 0 && year <= 9999)) return 0;
    const hour = Math.floor(rest / 3_600_000);
    rest -= hour * 3_600_000;
    const minute = Math.floor(rest / 60_000);
    rest -= minute * 60_000;
    const second = Math.floor(rest / 1000);
    const milli = rest - second * 1000;
    d[0] = 0x22;
    digits(d, 1, year, 4);
    d[5] = 0x2d;
    digits(d, 6, month, 2);
    d[8] = 0x2d;
    digits(d, 9, day, 2);
    d[11] = 0x54;
    digits(d, 12, hour, 2);
    d[14] = 0x3a;
    digits(d, 15, minute, 2);
    d[17] = 0x3a;
    digits(d, 18, second, 2);
    let n = 20;
    if (millis) {
      d[20] = 0x2e;
      digits(d, 21, milli, 3);
      n = 24;
    }
    d[n] = 0x5a;
    d[n + 1] = 0x22;
    return n + 2;
  }

  private grow(needed: number): Uint8Array {
    const out = new Uint8Array(Math.max(needed, 2 * this.out.length));
    out.set(this.out);
    this.out = out;
    return out;
  }

  /** The id of the shape of the line `b[s, e)` cut into `members` values (`cut`), kept on first sight; -1 when full. */
  private shapeOf(b: Uint8Array, s: number, e: number, members: number): number {
    const cuts = this.cuts;
    if (this.shapeScratch.length < members + 1) this.shapeScratch = new Int32Array(2 * (members + 1));
    const shape = this.shapeScratch;
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
    let shapeId = this.shapes.find(shapeBytes, 0, shapeBytes.length, hs);
    if (shapeId < 0) {
      if (shapeId === -2 || !this.affordable()) return -1;
      const before = this.shapes.bytes();
      shapeId = this.shapes.add(shapeBytes, 0, shapeBytes.length, hs);
      if (shapeId < 0) return -1;
      this.shapeSeparators.push(shape.slice(0, members + 1));
      this.held += this.shapes.bytes() - before + 4 * (members + 1) + OBJECT_OVERHEAD;
    }
    return shapeId;
  }

  /** The id of the separator `b[s, e)`, kept on first sight; -1 when no more can be kept. */
  private separatorId(b: Uint8Array, s: number, e: number): number {
    const h = hashAscii(b, s, e);
    let id = this.separators.find(b, s, e, h);
    if (id >= 0) return id;
    if (id === -2 || !this.affordable()) return -1;
    const before = this.separators.bytes();
    id = this.separators.add(b, s, e, h);
    if (id < 0) return -1;
    const key = keyOfSeparator(b, s, e, this.decoder);
    this.held += this.separators.bytes() - before + 2 * (key?.length ?? 0) + SEPARATOR_OVERHEAD;
    this.keyOf.push(key);
    this.dictionaries.push(undefined);
    this.columnOf.push(key === undefined ? undefined : this.columns.get(key));
    this.datesOf.push(key === undefined ? undefined : this.dateColumns.get(key));
    return id;
  }

  /** The id of the value `b[s, e)` in separator `sep`'s dictionary (kept on first sight), or -1. */
  private dictionaryId(sep: number, b: Uint8Array, s: number, e: number): number {
    let d = this.dictionaries[sep];
    if (d === undefined) {
      if (!this.affordable()) return -1;
      d = {
        values: new ByteDictionary(MAX_DICTIONARY_VALUES),
        parsed: [],
        probes: 0,
        hits: 0,
        off: false,
      };
      this.dictionaries[sep] = d;
      this.held += d.values.bytes() + OBJECT_OVERHEAD;
    }
    if (d.off) return -1;
    const h = hashAscii(b, s, e);
    const found = d.values.find(b, s, e, h);
    if (found === -2) return -1;
    const id = found;
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
    if (id >= 0 || !this.affordable()) return id;
    const before = d.values.bytes();
    const added = d.values.add(b, s, e, h);
    this.held += d.values.bytes() - before;
    return added;
  }

  /**
   * Sets `cuts` from the given values' starts and ends (`known` values, `knownCuts` from `at`), the separators between
   * them taken to be `shape`'s, and returns whether the line's tail (after its last value) is `shape`'s.
   */
  private tailAfter(
    b: Uint8Array,
    s: number,
    e: number,
    shape: Int32Array,
    known: number,
    knownCuts: Int32Array,
    at: number,
  ): boolean {
    if (known === 0) return false;
    const { pool, at: poolAt, len } = this.separators;
    const tail = shape[known]!;
    const n = len[tail]!;
    const i = knownCuts[at + 2 * known - 1]!;
    if (e - i !== n) return false;
    const from = poolAt[tail]!;
    for (let k = 0; k < n; k++) if (b[i + k] !== pool[from + k]) return false;
    const cuts = this.cuts;
    let end = s;
    for (let m = 0; m < known; m++) {
      cuts[3 * m] = end;
      cuts[3 * m + 1] = knownCuts[at + 2 * m]!;
      end = knownCuts[at + 2 * m + 1]!;
      cuts[3 * m + 2] = end;
    }
    return true;
  }

  /**
   * `cutAsLast` with the values' starts and ends given (`known` values, `knownCuts` from `cutsAt`: pairs of indexes into
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
    cutsAt: number,
  ): number {
    if (shape.length !== known + 1) return -1;
    const { pool, at, len } = this.separators;
    const cuts = this.cuts;
    let i = s;
    for (let m = 0; m <= known; m++) {
      const id = shape[m]!;
      const n = len[id]!;
      const to = m === known ? e : knownCuts[cutsAt + 2 * m]!;
      if (to - i !== n) return -1;
      const from = at[id]!;
      for (let k = 0; k < n; k++) if (b[i + k] !== pool[from + k]) return -1;
      if (m === known) break;
      const end = knownCuts[cutsAt + 2 * m + 1]!;
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

/** Writes `value` as `width` decimal digits at `d[at]`. */
function digits(d: Uint8Array, at: number, value: number, width: number): void {
  for (let i = width - 1; i >= 0; i--) {
    d[at + i] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  }
}
