/**
 * Where an `IncidentSet` keeps its records, and the hash index of a compact set.
 *
 * - `ArrayRecords`: the caller's objects, by reference (the default).
 * - `CompactRecords`: each record as the UTF-8 bytes of its JSON line, packed into chunks (64 KiB doubling up
 *   to 256 MiB) with a chunk number, a start and a length per row (10 bytes per row beside the bytes
 *   themselves). A record is materialized on demand (`JSON.parse` of its line), so every read returns a fresh
 *   object and the set keeps no object per incident: the bytes live outside the JavaScript heap (array
 *   buffers).
 * - `CompactHashIndex`: the equality index of a compact set, in typed arrays: a 32-bit hash of each row's
 *   value and an open-addressing table of the distinct hashes, instead of a `Map` holding every key string
 *   (about 150 bytes of heap per row and field). A lookup verifies each row whose hash matches by reading
 *   the row's value back from its record, so it answers exactly what `HashIndex` answers.
 */

import { emptyBitset, popcount32, setBit } from "./bitset.js";
import { HashIndex } from "./columns.js";
import { fieldOfLine, LineScanner } from "./line-scanner.js";
import { NumberKeys, ScalarMap } from "./number-keys.js";
import {
  LineShapes,
  SHAPED,
  type ShapesState,
  type SpliceColumn,
  type SpliceDates,
} from "./record-shapes.js";

/** Where a set keeps its records. */
export interface RecordStore<T> {
  /** Number of records. */
  readonly length: number;
  /** The record of a row: the caller's object, or a fresh object parsed from the kept bytes. */
  get(row: number): T;
  /** The records of `rows`, in that order (`get` of each: fresh objects from a compact store). */
  getAll(rows: ArrayLike<number>): T[];
  /**
   * The records of the rows a bitset over positions of the creation order selects (`positions`: bit `j`
   * selects row `order[j]`, `rank` its inverse; `count` bits set), in position order: the answer of
   * `findAll` without a sort.
   */
  getAllInOrder(rows: InOrder): T[];
  /**
   * The record of a row for a predicate to read (never to keep): the caller's object, or an object parsed
   * from the kept bytes that the next `get` of the same row may return instead of parsing again (it has
   * then been handed out by no `get` before, so `get` still returns a fresh object every time).
   */
  peek(row: number): T;
  /**
   * Keeps a record. `bytes` (a compact store only): its JSON line, as read; without it the record's
   * `JSON.stringify` form is kept.
   */
  push(record: T, bytes?: Uint8Array): void;
  /** Bytes held outside the objects the caller passed (0 for `ArrayRecords`). */
  bytes(): number;
  /**
   * Bytes of the heap held by the copy of the records' references in creation order that `getAllInOrder`
   * keeps for large answers (8 a row; 0 when none is kept, and always for a compact store).
   */
  orderedBytes(): number;
  /** True when records are kept as bytes (`add` then keeps an incident's JSON form). */
  readonly compact: boolean;
}

/** Rows as a bitset over positions of a creation order (the planner's `PositionedRows`). */
export interface InOrder {
  readonly positions: Uint32Array;
  readonly count: number;
  readonly order: Int32Array;
  readonly rank: Int32Array;
}

/**
 * `getAllInOrder` keeps the records in creation order when an answer holds at least this share of the rows
 * (1 / `IN_ORDER_SHARE`): reading them at ascending positions of that copy is sequential, where reading
 * `items[order[j]]` misses the cache on almost every match of a large answer.
 */
const IN_ORDER_SHARE = 16;

/** The caller's records, by reference. */
export class ArrayRecords<T> implements RecordStore<T> {
  private readonly items: T[] = [];
  readonly compact = false;
  /** The records in the order `inOrderOf` (entry `j`: `items[inOrderOf[j]]`), built by `getAllInOrder`. */
  private inOrder: T[] = [];
  private inOrderOf: Int32Array | undefined;

  get length(): number {
    return this.items.length;
  }

  get(row: number): T {
    return this.items[row]!;
  }

  getAll(rows: ArrayLike<number>): T[] {
    const items = this.items;
    const out: T[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = items[rows[k]!]!;
    return out;
  }

  /**
   * A large answer (at least 1 / `IN_ORDER_SHARE` of the rows) is read from a copy of the records in
   * creation order, built on first need and kept until the order changes (8 bytes a row, `orderedBytes`);
   * a smaller one reads `items[order[j]]` directly. A copy for an order that changed is dropped here.
   */
  getAllInOrder({ positions, count, order }: InOrder): T[] {
    const out: T[] = new Array(count);
    let k = 0;
    if (this.inOrderOf !== undefined && this.inOrderOf !== order) {
      this.inOrder = [];
      this.inOrderOf = undefined;
    }
    if (this.inOrderOf !== order && count * IN_ORDER_SHARE >= order.length) {
      const items = this.items;
      const copy: T[] = new Array(order.length);
      for (let j = 0; j < order.length; j++) copy[j] = items[order[j]!]!;
      this.inOrder = copy;
      this.inOrderOf = order;
    }
    // Position `p` is entry `p` of the copy, or row `order[p]` of the records.
    const copied = this.inOrderOf === order;
    const source = copied ? this.inOrder : this.items;
    for (let w = 0; w < positions.length; w++) {
      let x = positions[w]!;
      while (x !== 0) {
        const low = x & -x;
        const p = (w << 5) + 31 - Math.clz32(low);
        out[k++] = source[copied ? p : order[p]!]!;
        x ^= low;
      }
    }
    return out;
  }

  peek(row: number): T {
    return this.items[row]!;
  }

  push(record: T): void {
    this.items.push(record);
  }

  bytes(): number {
    return 0;
  }

  orderedBytes(): number {
    return this.inOrder.length * 8;
  }
}

/**
 * The size of the largest chunks of record bytes (a longer line gets a chunk of its own). Large: V8 starts a
 * major collection of the heap for about every 64 MiB of new `ArrayBuffer` memory, so the number of chunks a
 * build allocates sets how many times it marks the heap (at 3M incidents, 8 MiB chunks: 32–35 collections;
 * 256 MiB: 19). A chunk's pages are touched only as its lines are copied in, and `trim` gives back the unused
 * end of the last one.
 */
const CHUNK_BYTES = 256 * 1024 * 1024;
/** `trim` copies the last chunk to its used size when more than this is unused (the old largest chunk). */
const TRIM_BYTES = 8 * 1024 * 1024;
/** The size of the first chunk: chunks double up to `CHUNK_BYTES`, so that small sets stay small. */
const FIRST_CHUNK_BYTES = 64 * 1024;
/** The read buffers of a shaped store (`newChunk`): the reader reads up to 1 MiB at a time into them. */
const READ_BUFFER_BYTES = 4 * 1024 * 1024;

/** The records of a part of a parallel build (`CompactRecords.exportPart`): rows `0 … rows - 1`. */
export interface RecordsPart {
  readonly rows: number;
  readonly chunks: readonly Uint8Array[];
  /** Per row: its chunk, where it starts in it and its length in bytes. */
  readonly chunkOf: Uint16Array;
  readonly starts: Uint32Array;
  readonly lengths: Uint32Array;
  readonly shapes: ShapesState | undefined;
}

/** Records as the bytes of their JSON lines (see the file comment). */
export class CompactRecords<T> implements RecordStore<T> {
  readonly compact = true;
  private readonly chunks: Uint8Array[] = [];
  private chunk: Uint8Array = new Uint8Array(0);
  private used = 0;
  private chunkOf = new Uint16Array(64);
  private starts = new Uint32Array(64);
  private lengths = new Uint32Array(64);
  private count = 0;
  /** Readers of single fields, by name (`field`). */
  private readonly fieldScanners = new Map<string, LineScanner>();
  /** The last record `peek` parsed, not yet handed out by `get`. */
  private peeked: T | undefined;
  private peekedRow = -1;
  /** The source of the lines pushed but not yet copied: `pending[pendingFrom, pendingTo)` goes to `pendingAt`. */
  private pending: Uint8Array | undefined;
  private pendingFrom = 0;
  private pendingTo = 0;
  private pendingAt = 0;
  /** Strips a byte order mark at the start of a line, as the reader's `JSON.parse` path did on build. */
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();
  /**
   * With `shapes`: lines are kept shaped (record-shapes.ts), copied from the reader's buffers (`newChunk`
   * then hands out `readBuffers`, reused) instead of kept where they were read.
   */
  private readonly shapes: LineShapes | undefined;
  private readBuffers: Uint8Array[] = [];
  /**
   * Per chunk appended from a part of a parallel build (`appendPart`): the decoder of its shaped lines
   * (undefined for the chunks of this store's own `shapes`).
   */
  private readonly chunkShapes: (LineShapes | undefined)[] = [];
  private readTurn = 0;
  private readSize = FIRST_CHUNK_BYTES;

  /**
   * @param options - `shapes`: keep each line without what other lines or the set's text columns already
   *   hold (record-shapes.ts; `fromNdjson` does)
   */
  constructor(options: { shapes?: boolean } = {}) {
    this.shapes = options.shapes === true ? new LineShapes() : undefined;
  }

  /**
   * Rows pushed from now on may leave out their values of top-level key `field`, which `column` holds (a
   * shaped store only; the column must keep every row's value from the next row on).
   */
  spliceFrom(field: string, column: SpliceColumn): void {
    this.shapes?.spliceFrom(field, column);
  }

  /** Rows pushed from now on may leave out their dates of top-level key `field`, which `column` holds. */
  spliceDates(field: string, column: SpliceDates): void {
    this.shapes?.spliceDates(field, column);
  }

  get length(): number {
    return this.count;
  }

  get(row: number): T {
    const peeked = this.peeked;
    if (peeked !== undefined && this.peekedRow === row) {
      this.peeked = undefined;
      return peeked;
    }
    return this.parse(row);
  }

  getAll(rows: ArrayLike<number>): T[] {
    const out: T[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = this.get(rows[k]!);
    return out;
  }

  /**
   * Parses the records in row order, where their bytes lie in order (about a fifth faster than in creation
   * order for 83,000 of 1M), and writes each to its place: the number of positions set before its rank
   * (prefix counts per word of `positions`).
   */
  getAllInOrder({ positions, count, order, rank }: InOrder): T[] {
    const rows = emptyBitset(order.length);
    for (let w = 0; w < positions.length; w++) {
      let x = positions[w]!;
      while (x !== 0) {
        const low = x & -x;
        setBit(rows, order[(w << 5) + 31 - Math.clz32(low)]!);
        x ^= low;
      }
    }
    const before = new Int32Array(positions.length + 1);
    for (let w = 0; w < positions.length; w++) before[w + 1] = before[w]! + popcount32(positions[w]!);
    const out: T[] = new Array(count);
    for (let w = 0; w < rows.length; w++) {
      let x = rows[w]!;
      while (x !== 0) {
        const low = x & -x;
        const row = (w << 5) + 31 - Math.clz32(low);
        const p = rank[row]!;
        out[before[p >>> 5]! + popcount32(positions[p >>> 5]! & ((1 << (p & 31)) - 1))] = this.get(row);
        x ^= low;
      }
    }
    return out;
  }

  peek(row: number): T {
    const record = this.parse(row);
    this.peeked = record;
    this.peekedRow = row;
    return record;
  }

  private parse(row: number): T {
    this.flush();
    const chunk = this.chunks[this.chunkOf[row]!]!;
    const start = this.starts[row]!;
    const end = start + this.lengths[row]!;
    if (chunk[start] === SHAPED)
      return (this.chunkShapes[this.chunkOf[row]!] ?? this.shapes!).record(chunk, start, end, row) as T;
    return JSON.parse(this.decoder.decode(chunk.subarray(start, end))) as T;
  }

  /**
   * The value of one top-level field of a row's record, as `ownDataValue` reads it from `get(row)`
   * (undefined when absent), without parsing the whole line when its bytes allow (see `fieldOfLine`).
   */
  field(row: number, name: string): unknown {
    this.flush();
    const chunk = this.chunks[this.chunkOf[row]!]!;
    const start = this.starts[row]!;
    let scanner = this.fieldScanners.get(name);
    if (scanner === undefined) {
      scanner = new LineScanner([name]);
      this.fieldScanners.set(name, scanner);
    }
    if (chunk[start] === SHAPED) {
      const shapes = this.chunkShapes[this.chunkOf[row]!] ?? this.shapes!;
      const n = shapes.decode(chunk, start, start + this.lengths[row]!, row);
      return fieldOfLine(scanner, shapes.out, 0, n, () => this.parse(row) as object);
    }
    return fieldOfLine(scanner, chunk, start, start + this.lengths[row]!, () => this.parse(row) as object);
  }

  push(record: T, bytes?: Uint8Array): void {
    const line = bytes ?? this.encoder.encode(JSON.stringify(record));
    this.pushBytes(line, 0, line.length);
    this.flush();
  }

  /**
   * Keeps `source[start, end)` (a JSON line, as read) as the next record. The bytes are copied by the next
   * `flush` (or read): consecutive lines of one source are copied together, with what lies between them.
   * `source` must stay unchanged until then. `members` and `cuts`, when given, are where the line's
   * top-level values start and end (`LineScanner.members`, and `memberCuts` from `cutsAt`), for the shape
   * encoder; `epoch`, `LineScanner.shapeEpoch` after the scan that gave them (record-shapes.ts `encode`).
   */
  pushBytes(
    source: Uint8Array,
    start: number,
    end: number,
    members = -1,
    cuts?: Int32Array,
    epoch = -1,
    cutsAt = 0,
  ): void {
    if (this.shapes !== undefined) {
      this.pushShaped(source, start, end, members, cuts, epoch, cutsAt);
      return;
    }
    const length = end - start;
    if (source === this.chunk && start >= this.used) {
      // Read into the chunk itself (`newChunk`): kept where it lies.
      this.flush();
      this.keep(start, length);
      return;
    }
    let at = this.pendingAt + (start - this.pendingFrom);
    if (source !== this.pending || start < this.pendingTo || at + length > this.chunk.length) {
      this.flush();
      if (this.used + length > this.chunk.length) this.addChunk(length);
      this.pending = source;
      this.pendingFrom = start;
      this.pendingAt = this.used;
      at = this.used;
    }
    this.pendingTo = end;
    this.keep(at, length);
  }

  /**
   * A new chunk of at least `length` bytes (chunks double up to `CHUNK_BYTES`), for a reader to fill: lines
   * then pushed from it (`pushBytes` with the chunk itself as `source`, at or after the last line kept) are
   * kept where they lie, without a copy. The chunk is the current one until the next is made; a current
   * chunk that holds no record by then is dropped (so a long line read into chunk after chunk leaves only
   * the one it ends in).
   * @throws {RangeError} when the records would need more than 65,535 chunks
   */
  newChunk(length: number): Uint8Array {
    this.flush();
    if (this.shapes !== undefined) {
      // Shaped lines are copied out of the reader's buffers: two, taken in turn (the reader copies the
      // line begun from the last one into the next).
      // Their size doubles from the first chunk's up to `READ_BUFFER_BYTES`, as the chunks of lines
      // kept where they were read do, so that a small input is read in as many reads as before.
      const turn = this.readTurn;
      this.readTurn ^= 1;
      const size = Math.max(length, this.readSize);
      this.readSize = Math.min(READ_BUFFER_BYTES, this.readSize * 2);
      let buffer = this.readBuffers[turn];
      if (buffer === undefined || buffer.length < size) {
        buffer = new Uint8Array(size);
        this.readBuffers[turn] = buffer;
      }
      return buffer;
    }
    // A chunk that holds no record (a long line moved on from it before it ended) is dropped, not kept.
    if (this.used === 0 && this.chunks.length > 0) this.chunks.pop();
    return this.addChunk(length);
  }

  private addChunk(length: number): Uint8Array {
    if (this.chunks.length >= 0xffff)
      throw new RangeError("IncidentSet: more than 65,535 chunks of records.");
    const size = Math.min(CHUNK_BYTES, Math.max(FIRST_CHUNK_BYTES, this.chunk.length * 2));
    this.chunk = new Uint8Array(Math.max(size, length));
    this.chunks.push(this.chunk);
    this.used = 0;
    return this.chunk;
  }

  /** Room for `rows` rows' places (their chunk, start and length). */
  reserve(rows: number): void {
    if (rows <= this.starts.length) return;
    this.chunkOf = grow(this.chunkOf, new Uint16Array(rows));
    this.starts = grow(this.starts, new Uint32Array(rows));
    this.lengths = grow(this.lengths, new Uint32Array(rows));
  }

  /** Records the next row as `length` bytes at `at` of the current chunk. */
  private keep(at: number, length: number): void {
    const row = this.count;
    if (row >= this.starts.length) {
      const capacity = this.starts.length * 2;
      this.chunkOf = grow(this.chunkOf, new Uint16Array(capacity));
      this.starts = grow(this.starts, new Uint32Array(capacity));
      this.lengths = grow(this.lengths, new Uint32Array(capacity));
    }
    this.chunkOf[row] = this.chunks.length - 1;
    this.starts[row] = at;
    this.lengths[row] = length;
    this.used = at + length;
    this.count++;
  }

  /**
   * Ends a build: the last chunk is copied to the bytes it uses when more than `TRIM_BYTES` of it are unused
   * (the next `pushBytes` starts a new chunk).
   */
  trim(): void {
    this.flush();
    this.readBuffers = [];
    if (this.chunk.length - this.used <= TRIM_BYTES) return;
    const trimmed = this.chunk.slice(0, this.used);
    this.chunks[this.chunks.length - 1] = trimmed;
    this.chunk = trimmed;
  }

  /** Copies the bytes of the lines pushed since the last flush (see `pushBytes`). */
  flush(): void {
    const source = this.pending;
    if (source === undefined) return;
    this.chunk.set(source.subarray(this.pendingFrom, this.pendingTo), this.pendingAt);
    this.pending = undefined;
  }

  /**
   * Keeps the line `source[start, end)` shaped (record-shapes.ts) when that saves a quarter of its bytes,
   * else as it is: copied now.
   */
  private pushShaped(
    source: Uint8Array,
    start: number,
    end: number,
    members: number,
    cuts: Int32Array | undefined,
    epoch: number,
    cutsAt: number,
  ): void {
    const shapes = this.shapes!;
    // Encoded straight into the chunk (room for the line and the encoding's few bytes of overhead): no
    // copy and no view per line (bench/one-shot.ts, "set build" row: 0.87x with record-shapes.ts `encode`'s
    // last-shape path).
    const room = end - start + 16;
    if (this.used + room > this.chunk.length) this.addChunk(room);
    let length = shapes.encode(
      source,
      start,
      end,
      this.count,
      this.chunk,
      this.used,
      members,
      cuts,
      epoch,
      cutsAt,
    );
    if (length < 0) {
      length = end - start;
      const chunk = this.chunk;
      const at = this.used;
      if (length < 256) for (let i = 0; i < length; i++) chunk[at + i] = source[start + i]!;
      else chunk.set(source.subarray(start, end), at);
    }
    this.keep(this.used, length);
  }

  /**
   * The records of a finished build (`trim` first), for a parallel build's part (ndjson-parts.ts): its
   * chunks, row table and shapes, as arrays to transfer (this store must not be used after).
   */
  exportPart(): RecordsPart {
    this.trim();
    return {
      rows: this.count,
      chunks: this.chunks,
      chunkOf: this.chunkOf,
      starts: this.starts,
      lengths: this.lengths,
      shapes: this.shapes?.exportState(),
    };
  }

  /**
   * Appends the records of a part of a parallel build (`exportPart` of another store), after this store's
   * rows: its chunks are kept as they are, its shaped lines decoded by its own shapes (`LineShapes.decoding`),
   * whose spliced values are read from the columns `rebindParts` gives. The next `pushBytes` starts a chunk.
   * @throws {RangeError} when the records would need more than 65,535 chunks
   */
  appendPart(part: RecordsPart): void {
    this.trim();
    const first = this.chunks.length;
    if (first + part.chunks.length > 0xffff)
      throw new RangeError("IncidentSet: more than 65,535 chunks of records.");
    const shapes = part.shapes === undefined ? undefined : LineShapes.decoding(part.shapes);
    while (this.chunkShapes.length < first) this.chunkShapes.push(undefined);
    for (const chunk of part.chunks) {
      this.chunks.push(chunk);
      this.chunkShapes.push(shapes);
    }
    const rows = part.rows;
    const needed = this.count + rows;
    if (needed > this.starts.length) {
      const capacity = Math.max(needed, this.starts.length * 2);
      this.chunkOf = grow(this.chunkOf, new Uint16Array(capacity));
      this.starts = grow(this.starts, new Uint32Array(capacity));
      this.lengths = grow(this.lengths, new Uint32Array(capacity));
    }
    const base = this.count;
    for (let r = 0; r < rows; r++) this.chunkOf[base + r] = first + part.chunkOf[r]!;
    this.starts.set(part.starts.subarray(0, rows), base);
    this.lengths.set(part.lengths.subarray(0, rows), base);
    this.count = needed;
    // A new chunk for the next line pushed: the last chunk is the part's.
    this.chunk = new Uint8Array(0);
    this.used = 0;
  }

  /** The decoders of appended parts read spliced values from these columns (by field) from now on. */
  rebindParts(columns: ReadonlyMap<string, SpliceColumn>, dates: ReadonlyMap<string, SpliceDates>): void {
    for (const shapes of new Set(this.chunkShapes)) shapes?.rebind(columns, dates);
  }

  bytes(): number {
    let total = this.chunkOf.byteLength + this.starts.byteLength + this.lengths.byteLength;
    for (const chunk of this.chunks) total += chunk.byteLength;
    for (const buffer of this.readBuffers) total += buffer.byteLength;
    for (const shapes of new Set(this.chunkShapes)) total += shapes?.bytes() ?? 0;
    return total + (this.shapes?.bytes() ?? 0);
  }

  /** What `bytes` counts, by part (for memory reports: bench/memory-parts.ts). */
  partBytes(): [string, number][] {
    let lines = 0;
    for (const chunk of this.chunks) lines += chunk.byteLength;
    return [
      ["records: line bytes", lines],
      ["records: row table", this.chunkOf.byteLength + this.starts.byteLength + this.lengths.byteLength],
      ["records: shapes and value dictionaries", this.shapes?.bytes() ?? 0],
      ["records: read buffers", this.readBuffers.reduce((a, b) => a + b.byteLength, 0)],
    ];
  }

  orderedBytes(): number {
    return 0;
  }
}

function grow<A extends Uint16Array | Uint32Array | Int32Array>(from: A, to: A): A {
  to.set(from);
  return to;
}

const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

/**
 * A 32-bit hash of a scalar key: strings by their UTF-16 code units, numbers by value (`0` and `-0` alike,
 * as `Map` keys are), booleans apart; the type is mixed in, so `"1"` and `1` rarely collide. Collisions
 * cost a verification, never a wrong answer.
 */
export function hashKey(value: string | number | boolean): number {
  let h: number;
  if (typeof value === "string") {
    h = 0x811c9dc5;
    for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  } else if (typeof value === "number") {
    if (Number.isNaN(value)) h = 0x7ff80000;
    else if ((value | 0) === value) h = Math.imul(value ^ 0x5bd1e995, 0x85ebca6b);
    else {
      float[0] = value === 0 ? 0 : value;
      h = Math.imul(floatWords[0]! ^ 0x27d4eb2f, 0x85ebca6b) ^ Math.imul(floatWords[1]!, 0xc2b2ae35);
    }
  } else h = value ? 0x3c6ef372 : 0x1b873593;
  return finishHash(h);
}

/** `hashKey` of the string whose ASCII bytes are `b[start, end)`, without building it. */
export function hashKeyAscii(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return finishHash(h);
}

function finishHash(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

/** `Map` key equality (SameValueZero). */
function sameKey(a: unknown, b: unknown): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * Rows one hash may name in a `CompactHashIndex` before they are grouped by value (once, by the first
 * lookup of their bucket): a lookup reads back at most this many rows that do not hold its value, however
 * the values were crafted (SECURITY.md, "Crafted values cost a bounded number of steps each"). Distinct
 * honest values share a 32-bit hash three at a time about once in 10^17 triples, so in practice only a
 * value held by more rows than this is grouped.
 */
export const MAX_HASH_RUN = 8;

/** The rows of one crowded hash (more than `MAX_HASH_RUN` rows), by value: every row below `upTo`. */
interface Crowd {
  readonly byValue: ScalarMap<number[]>;
  upTo: number;
}

/**
 * The hash index of a compact set (see the file comment): answers `rowsOf` and `arrayRows` exactly as
 * `HashIndex` does, in about 12–20 bytes per row outside the JavaScript heap. Adding a row only writes its
 * hash; the lookup structure (the rows bucketed by their hash's top bits, a counting sort) is built by
 * `prepare` or by the first lookup, and rebuilt once the rows added since outnumber an eighth of it (those
 * are kept by value until then, in a `ScalarMap`, so that they are found exactly).
 *
 * The hash is not seeded, so values can be crafted to share it (FNV-1a states collide; concatenated
 * collisions multiply). The first lookup that reaches a bucket of more than `MAX_HASH_RUN` entries after a
 * build sorts it by hash, and reads back once, grouping them by value, the rows of each of its hashes named
 * by more than `MAX_HASH_RUN` rows (a crowded hash) that no earlier grouping read. Every other lookup reads
 * back at most `MAX_HASH_RUN` rows that do not hold its value and visits at most `MAX_HASH_RUN` entries
 * plus a binary search, and a row is read for grouping at most once over the index's life (rows are never
 * removed): crafted values cost a bounded number of reads each, however many share a hash. The build itself
 * reads no row: a value held by many rows (an empty string in 5% of the rows) is a crowded hash too, read
 * once by its first lookup (which read them all before, on every lookup) and exactly after that.
 */
export class CompactHashIndex extends HashIndex {
  /** Per row: the hash of its scalar value, never 0; 0 when the value is not a scalar. */
  private hashes = new Uint32Array(64);
  private rows = 0;
  /**
   * The buckets: entries `offsets[b] … offsets[b+1]-1` have hashes with top bits b; entry k is the pair
   * `bucketRows[2k]` (the hash, as an int32) and `bucketRows[2k+1]` (the row), side by side so that a lookup
   * reads one cache line per entry instead of the row's hash elsewhere. Entries are in row order within a
   * bucket, except in a bucket of more than `MAX_HASH_RUN` entries: sorted by hash (as an int32), then row.
   */
  private built = 0;
  private shift = 31;
  private offsets = new Int32Array(3);
  private bucketRows = new Int32Array(0);
  // The tables below are keyed by numbers the data chooses (hashes, buckets, values): kept by a table hashed
  // with a secret of its own, since V8 hashes a number key of a `Map` without one (SECURITY.md, "Tables
  // keyed by numbers are hashed with a secret").
  /** The hashes of more than `MAX_HASH_RUN` rows (unsigned) a lookup met, their rows grouped by value. */
  private readonly crowded = new ScalarMap<Crowd>();
  /**
   * The buckets of more than `MAX_HASH_RUN` entries sorted (and their crowded hashes grouped) since the
   * build: a bucket → 0.
   */
  private readonly settled = new NumberKeys();
  /** The scalar rows added since the last build (none before the first), by value, in row order. */
  private readonly pending = new ScalarMap<number[]>();
  /** Distinct values, counted on demand for `size`; -1 when stale. */
  private distinct = -1;
  private readonly read: (row: number) => unknown;

  /**
   * @param field - the indexed field
   * @param read - a row's value of `field`, as `ownDataValue` reads it from the row's record
   */
  constructor(field: string, read: (row: number) => unknown) {
    super(field);
    this.read = read;
  }

  /** Room for `rows` rows' hashes. */
  reserve(rows: number): void {
    if (rows > this.hashes.length) this.hashes = grow(this.hashes, new Uint32Array(rows));
  }

  override set(row: number, value: unknown): void {
    if (row >= this.hashes.length) {
      this.hashes = grow(this.hashes, new Uint32Array(Math.max(row + 1, this.hashes.length * 2)));
    }
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      this.hashes[row] = hashKey(value) || 1;
      if (this.built > 0) this.keepPending(row, value);
    } else {
      this.hashes[row] = 0;
      if (Array.isArray(value)) this.arrayRows.push(row);
    }
    this.rows = Math.max(this.rows, row + 1);
    this.distinct = -1;
  }

  /** `set` of the string whose ASCII bytes are `b[start, end)`, without building it. */
  setAscii(row: number, b: Uint8Array, start: number, end: number): void {
    if (row >= this.hashes.length) {
      this.hashes = grow(this.hashes, new Uint32Array(Math.max(row + 1, this.hashes.length * 2)));
    }
    this.hashes[row] = hashKeyAscii(b, start, end) || 1;
    if (this.built > 0) {
      let text = "";
      for (let i = start; i < end; i++) text += String.fromCharCode(b[i]!);
      this.keepPending(row, text);
    }
    this.rows = Math.max(this.rows, row + 1);
    this.distinct = -1;
  }

  /** Keeps a row added after a build by its value, until the next build. */
  private keepPending(row: number, value: unknown): void {
    const rows = this.pending.get(value);
    if (rows === undefined) this.pending.set(value, [row]);
    else rows.push(row);
  }

  /** Rows `0 … rows - 1`: their hashes (0 for no scalar) and the rows holding an array (a part's export). */
  exportRows(): { hashes: Uint32Array; rows: number; arrayRows: number[] } {
    return { hashes: this.hashes, rows: this.rows, arrayRows: this.arrayRows };
  }

  /**
   * Appends rows `base … base + rows - 1` from another index of the same field (a part of a parallel build,
   * `exportRows`), as `set` would have written them.
   */
  appendRows(hashes: Uint32Array, rows: number, arrayRows: readonly number[], base: number): void {
    if (base + rows > this.hashes.length) {
      this.hashes = grow(this.hashes, new Uint32Array(Math.max(base + rows, this.hashes.length * 2)));
    }
    this.hashes.set(hashes.subarray(0, rows), base);
    for (const row of arrayRows) this.arrayRows.push(base + row);
    if (rows > 0) this.rows = Math.max(this.rows, base + rows);
    this.distinct = -1;
  }

  override rowsOf(value: unknown): readonly number[] {
    return this.probe(value).filter((row) => sameKey(this.read(row), value));
  }

  /**
   * The rows whose kept hash is `value`'s (a superset of `rowsOf(value)`: at most `MAX_HASH_RUN` rows of
   * other values with the same hash are included), without reading any record: for callers that check every
   * row they get against the whole condition anyway (the first lookup of a crowded bucket reads its crowded
   * rows once, see the class comment). Each row at most once: the bucketed rows in row order, then the rows
   * added since the buckets were built, in row order; empty for a non-scalar.
   */
  probe(value: unknown): number[] {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return [];
    this.prepare(false);
    const h = hashKey(value) || 1;
    const rows: number[] = [];
    const bucket = h >>> this.shift;
    if (this.offsets[bucket + 1]! - this.offsets[bucket]! > MAX_HASH_RUN && this.settled.get(bucket) < 0)
      this.settle(bucket);
    const crowd = this.crowded.size === 0 ? undefined : this.crowded.get(h);
    if (crowd !== undefined) {
      const held = crowd.byValue.get(value);
      if (held !== undefined) for (const row of held) rows.push(row);
    } else {
      const { bucketRows, offsets } = this;
      let k = offsets[bucket]!;
      const end = offsets[bucket + 1]!;
      const key = h | 0;
      if (end - k > MAX_HASH_RUN) {
        // Sorted by hash: the first entry of `key`, by binary search.
        let hi = end;
        while (k < hi) {
          const mid = (k + hi) >>> 1;
          if (bucketRows[2 * mid]! < key) k = mid + 1;
          else hi = mid;
        }
        for (; k < end && bucketRows[2 * k] === key; k++) rows.push(bucketRows[2 * k + 1]!);
      } else for (; k < end; k++) if (bucketRows[2 * k] === key) rows.push(bucketRows[2 * k + 1]!);
    }
    const added = this.pending.size === 0 ? undefined : this.pending.get(value);
    if (added !== undefined) for (const row of added) rows.push(row);
    return rows;
  }

  /** True when row `row`'s value is `value` (read back from its record; SameValueZero, as `Map` keys). */
  holds(row: number, value: unknown): boolean {
    return sameKey(this.read(row), value);
  }

  /** True when row `row`'s value is one of `values` (read back from its record once). */
  holdsAny(row: number, values: readonly unknown[]): boolean {
    const held = this.read(row);
    for (const value of values) if (sameKey(held, value)) return true;
    return false;
  }

  override get size(): number {
    if (this.distinct < 0) this.distinct = this.countDistinct();
    return this.distinct;
  }

  /** Bytes of the typed arrays (the rows of crowded hashes and of `pending`, on the heap, are not counted). */
  bytes(): number {
    return this.hashes.byteLength + this.offsets.byteLength + this.bucketRows.byteLength;
  }

  /**
   * Builds the buckets over every row (`all`, or the first lookup), or when the rows added since the last
   * build outnumber an eighth of it (at least 1,024). Reads no row (crowded hashes are grouped by their
   * first lookup, see the class comment).
   */
  prepare(all = true): void {
    const pending = this.rows - this.built;
    if (pending === 0) return;
    if (!all && this.built > 0 && pending <= Math.max(1024, this.built >>> 3)) return;
    const n = this.rows;
    let bits = 1;
    while (bits < 30 && 1 << bits < n) bits++;
    const shift = 32 - bits;
    const hashes = this.hashes;
    // The rows with a hash, sorted by bucket (the top `bits` bits of the hash) and by row within a bucket:
    // a least-significant-digit radix sort, 8 bits a pass, each pass reading its input in order and
    // writing 256 runs (a counting sort straight into 2^bits buckets writes all over memory). The sort
    // carries each row's whole hash, so that the buckets are filled in order: reading `hashes` by the
    // sorted rows was a cache miss a row (about a second per index at 10M rows).
    // The pairs (hash, row) sit side by side, as the buckets keep them, so that each pass writes one run
    // per digit and the last pass leaves the buckets' array itself.
    let count = 0;
    for (let row = 0; row < n; row++) if (hashes[row] !== 0) count++;
    let pairs = new Int32Array(2 * count);
    for (let row = 0, at = 0; row < n; row++) {
      const h = hashes[row]!;
      if (h === 0) continue;
      pairs[at] = h | 0;
      pairs[at + 1] = row;
      at += 2;
    }
    let next = new Int32Array(2 * count);
    const counts = new Int32Array(257);
    for (let low = 0; low < bits; low += 8) {
      counts.fill(0);
      const at = shift + low;
      for (let i = 0; i < 2 * count; i += 2) counts[((pairs[i]! >>> at) & 0xff) + 1]!++;
      for (let d = 1; d < 257; d++) counts[d]! += counts[d - 1]!;
      for (let i = 0; i < 2 * count; i += 2) {
        const key = pairs[i]!;
        const to = 2 * counts[(key >>> at) & 0xff]!++;
        next[to] = key;
        next[to + 1] = pairs[i + 1]!;
      }
      [pairs, next] = [next, pairs];
    }
    const offsets = new Int32Array((1 << bits) + 1);
    for (let i = 0; i < 2 * count; i += 2) offsets[(pairs[i]! >>> shift) + 1]!++;
    for (let b = 1; b < offsets.length; b++) offsets[b]! += offsets[b - 1]!;
    const bucketRows = pairs;
    this.settled.clear();
    this.pending.clear();
    this.shift = shift;
    this.offsets = offsets;
    this.bucketRows = bucketRows;
    this.built = n;
  }

  /**
   * Sorts bucket `bucket` (more than `MAX_HASH_RUN` entries) by hash, then row, and groups by value the rows
   * of each of its hashes named by more than `MAX_HASH_RUN` rows: the rows an earlier grouping read (below
   * its `upTo`) are kept, the others read back once.
   */
  private settle(bucket: number): void {
    const { bucketRows } = this;
    const from = this.offsets[bucket]!;
    const to = this.offsets[bucket + 1]!;
    // Entries in row order: ties broken by position keep rows ascending within a hash.
    const order = Array.from({ length: to - from }, (_, i) => from + i);
    order.sort((x, y) => bucketRows[2 * x]! - bucketRows[2 * y]! || x - y);
    const sorted = new Int32Array(2 * order.length);
    for (let i = 0; i < order.length; i++) {
      sorted[2 * i] = bucketRows[2 * order[i]!]!;
      sorted[2 * i + 1] = bucketRows[2 * order[i]! + 1]!;
    }
    bucketRows.set(sorted, 2 * from);
    for (let k = from; k < to; ) {
      const key = bucketRows[2 * k]!;
      let e = k + 1;
      while (e < to && bucketRows[2 * e] === key) e++;
      if (e - k > MAX_HASH_RUN) {
        const h = key >>> 0;
        const crowd = this.crowded.get(h) ?? { byValue: new ScalarMap<number[]>(), upTo: 0 };
        for (let j = k; j < e; j++) {
          const row = bucketRows[2 * j + 1]!;
          if (row < crowd.upTo) continue;
          const value = this.read(row);
          const rows = crowd.byValue.get(value);
          if (rows === undefined) crowd.byValue.set(value, [row]);
          else rows.push(row);
        }
        crowd.upTo = this.built;
        this.crowded.set(h, crowd);
      }
      k = e;
    }
    this.settled.idOrSet(bucket, 0);
  }

  /**
   * Distinct values among the rows, for memory reports: distinct hashes (each bucket's hashes sorted, then
   * counted), a crowded hash a lookup has grouped counted as the values it groups.
   */
  private countDistinct(): number {
    this.prepare();
    const { offsets, bucketRows } = this;
    let total = 0;
    let scratch = new Uint32Array(16);
    for (let b = 0; b + 1 < offsets.length; b++) {
      const from = offsets[b]!;
      const length = offsets[b + 1]! - from;
      if (length <= 1) {
        total += length;
        continue;
      }
      if (scratch.length < length) scratch = new Uint32Array(length);
      const run = scratch.subarray(0, length);
      for (let k = 0; k < length; k++) run[k] = bucketRows[2 * (from + k)]! >>> 0;
      run.sort();
      total++;
      for (let k = 1; k < length; k++) if (run[k] !== run[k - 1]) total++;
    }
    // A crowded hash is as many values as it groups.
    for (const crowd of this.crowded.values()) total += crowd.byValue.size - 1;
    return total;
  }
}
