/**
 * Records of an `IncidentSet` and the NDJSON reader of `IncidentSet.fromNdjson` (issue 14, "Ten million
 * incidents in one process").
 *
 * - `ArrayRecords`: the caller's objects, by reference (the default).
 * - `CompactRecords`: each record as the UTF-8 bytes of its JSON line, packed into 8 MiB chunks with a
 *   chunk number, a start and a length per row (10 bytes per row beside the bytes themselves). A record is
 *   materialized on demand (`JSON.parse` of its line), so every read returns a fresh object and the set
 *   keeps no object per incident: the bytes live outside the JavaScript heap (array buffers).
 * - `ndjsonLines`: splits a stream of chunks (bytes or strings) into lines, without I/O of its own: the
 *   caller opens the source (the engine stays pure; DESIGN.md).
 */

/** Where a set keeps its records. */
export interface RecordStore<T> {
  /** Number of records. */
  readonly length: number;
  /** The record of a row: the caller's object, or a fresh object parsed from the kept bytes. */
  get(row: number): T;
  /**
   * Keeps a record. `bytes` (a compact store only): its JSON line, as read; without it the record's
   * `JSON.stringify` form is kept.
   */
  push(record: T, bytes?: Uint8Array): void;
  /** Bytes held outside the objects the caller passed (0 for `ArrayRecords`). */
  bytes(): number;
  /** True when records are kept as bytes (`add` then keeps an incident's JSON form). */
  readonly compact: boolean;
}

/** The caller's records, by reference. */
export class ArrayRecords<T> implements RecordStore<T> {
  private readonly items: T[] = [];
  readonly compact = false;

  get length(): number {
    return this.items.length;
  }

  get(row: number): T {
    return this.items[row]!;
  }

  push(record: T): void {
    this.items.push(record);
  }

  bytes(): number {
    return 0;
  }
}

/** The size of one chunk of record bytes (a longer line gets a chunk of its own). */
const CHUNK_BYTES = 8 * 1024 * 1024;

/** Records as the bytes of their JSON lines (see the file comment). */
export class CompactRecords<T> implements RecordStore<T> {
  readonly compact = true;
  private readonly chunks: Uint8Array[] = [];
  private used = CHUNK_BYTES;
  private chunkOf = new Uint16Array(1024);
  private starts = new Uint32Array(1024);
  private lengths = new Uint32Array(1024);
  private count = 0;
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();

  get length(): number {
    return this.count;
  }

  get(row: number): T {
    const chunk = this.chunks[this.chunkOf[row]!]!;
    const start = this.starts[row]!;
    return JSON.parse(this.decoder.decode(chunk.subarray(start, start + this.lengths[row]!))) as T;
  }

  push(record: T, bytes?: Uint8Array): void {
    const line = bytes ?? this.encoder.encode(JSON.stringify(record));
    if (this.used + line.length > (this.chunks.at(-1)?.length ?? 0)) {
      if (this.chunks.length >= 0xffff) throw new RangeError("IncidentSet: more than 512 GiB of records.");
      this.chunks.push(new Uint8Array(Math.max(CHUNK_BYTES, line.length)));
      this.used = 0;
    }
    const row = this.count;
    if (row >= this.starts.length) {
      const capacity = this.starts.length * 2;
      this.chunkOf = grow(this.chunkOf, new Uint16Array(capacity));
      this.starts = grow(this.starts, new Uint32Array(capacity));
      this.lengths = grow(this.lengths, new Uint32Array(capacity));
    }
    this.chunks.at(-1)!.set(line, this.used);
    this.chunkOf[row] = this.chunks.length - 1;
    this.starts[row] = this.used;
    this.lengths[row] = line.length;
    this.used += line.length;
    this.count++;
  }

  bytes(): number {
    let total = this.chunkOf.byteLength + this.starts.byteLength + this.lengths.byteLength;
    for (const chunk of this.chunks) total += chunk.byteLength;
    return total;
  }
}

function grow<A extends Uint16Array | Uint32Array>(from: A, to: A): A {
  to.set(from);
  return to;
}

/** A source of NDJSON: chunks of bytes or text, from a stream or any (async) iterable. */
export type NdjsonSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** One line of NDJSON: its bytes (no line break) and its number (1-based). */
export interface NdjsonLine {
  readonly bytes: Uint8Array;
  readonly line: number;
}

/**
 * Splits NDJSON chunks into non-blank lines, a batch per chunk (one `await` per chunk, not per line): `\n`
 * ends a line, a `\r` before it is dropped, surrounding spaces and tabs are dropped, a last line without
 * `\n` counts.
 * @param source - chunks of bytes or text (a Node readable stream, a web stream's async iterator, an array)
 * @throws {TypeError} when a chunk is neither a string nor a `Uint8Array`
 */
export async function* ndjsonBatches(source: NdjsonSource): AsyncGenerator<NdjsonLine[]> {
  const encoder = new TextEncoder();
  let carry: Uint8Array | undefined;
  let line = 0;
  for await (const piece of source as AsyncIterable<Uint8Array | string>) {
    let chunk: Uint8Array;
    if (typeof piece === "string") chunk = encoder.encode(piece);
    else if (piece instanceof Uint8Array) chunk = piece;
    else throw new TypeError(`NDJSON chunks must be strings or Uint8Array, found ${typeof piece}.`);
    const batch: NdjsonLine[] = [];
    let from = 0;
    for (;;) {
      const end = chunk.indexOf(10, from);
      if (end < 0) break;
      let bytes = chunk.subarray(from, end);
      if (carry !== undefined) {
        bytes = concat(carry, bytes);
        carry = undefined;
      }
      line++;
      const trimmed = trimLine(bytes);
      if (trimmed.length > 0) batch.push({ bytes: trimmed, line });
      from = end + 1;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      // Copied: the caller may reuse its chunk buffer.
      carry = carry === undefined ? rest.slice() : concat(carry, rest);
    }
    if (batch.length > 0) yield batch;
  }
  if (carry !== undefined) {
    line++;
    const trimmed = trimLine(carry);
    if (trimmed.length > 0) yield [{ bytes: trimmed, line }];
  }
}

/**
 * The lines of `ndjsonBatches`, one at a time.
 * @param source - as for `ndjsonBatches`
 * @throws {TypeError} when a chunk is neither a string nor a `Uint8Array`
 */
export async function* ndjsonLines(source: NdjsonSource): AsyncGenerator<NdjsonLine> {
  for await (const batch of ndjsonBatches(source)) yield* batch;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The line without surrounding ASCII whitespace (space, tab, CR). */
function trimLine(bytes: Uint8Array): Uint8Array {
  let start = 0;
  let end = bytes.length;
  while (start < end && isSpace(bytes[start]!)) start++;
  while (end > start && isSpace(bytes[end - 1]!)) end--;
  return bytes.subarray(start, end);
}

function isSpace(b: number): boolean {
  return b === 32 || b === 9 || b === 13;
}
