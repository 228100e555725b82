/**
 * The NDJSON reader of `IncidentSet.fromNdjson`, without
 * I/O of its own: the caller opens the source (the engine stays pure; docs/architecture.md).
 *
 * - `NdjsonSplitter`: splits chunks of bytes or text into lines, handing each line to a callback as a range
 *   of a buffer (no object, no copy per line; a line split across chunks is joined once, however many chunks
 *   it spans).
 * - `LineScanner`: reads the top-level fields a set indexes straight from a line's UTF-8 bytes, validating
 *   the whole line as JSON on the way, without building the record object; repeated short values (labels)
 *   come back as the same string each time. A line it cannot read exactly as `JSON.parse` would (a syntax
 *   error, a byte order mark, an escape in a key, invalid UTF-8, a top level that is not an object) is left
 *   to `JSON.parse`, so errors and values are always `JSON.parse`'s.
 * - `readNdjsonInPlace`: reads from a byte reader (a `FileHandle`) into buffers the caller keeps (the
 *   set's record chunks), handing each line out where it was read.
 * - `ndjsonLines`: the lines one at a time, as objects (for callers and tests).
 */

/** A source of NDJSON: chunks of bytes or text, from a stream or any (async) iterable. */
export type NdjsonSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** One line of NDJSON: its bytes (no line break, no surrounding blanks) and its number (1-based). */
export interface NdjsonLine {
  readonly bytes: Uint8Array;
  readonly line: number;
}

/**
 * Receives one non-blank line: bytes `[start, end)` of `buffer` (readable only until the callback returns)
 * and its line number (1-based, blank lines counted).
 */
export type LineSink = (buffer: Uint8Array, start: number, end: number, line: number) => void;

const LF = 10;

/**
 * Splits NDJSON chunks into lines: `\n` ends a line; spaces, tabs and `\r` around a line are dropped (so
 * CRLF works); a line left blank is skipped but counted; a last line without `\n` counts (`end`).
 */
export class NdjsonSplitter {
  /** Lines seen so far, blank ones included. */
  line = 0;
  /** The start of a line not yet ended, as copies of the chunks' tails. */
  private pieces: Uint8Array[] = [];
  private readonly encoder = new TextEncoder();

  /**
   * Splits one chunk, calling `sink` for each non-blank line it ends. `whole`, when given, is offered each
   * line that starts in this chunk first: it consumes the line at `from` (number `line`) when it can find its
   * end itself, returning the index after its `\n`, or returns -1 (then the line goes to `sink` as usual).
   * @throws {TypeError} when the chunk is neither a string nor a `Uint8Array`
   */
  push(
    piece: Uint8Array | string,
    sink: LineSink,
    whole?: (chunk: Uint8Array, from: number, length: number, line: number) => number,
  ): void {
    let chunk: Uint8Array;
    if (typeof piece === "string") chunk = this.encoder.encode(piece);
    else if (piece instanceof Uint8Array) {
      // A plain view: views of a subclass (Node's Buffer) cost more to create, line after line.
      chunk =
        piece.constructor === Uint8Array
          ? piece
          : new Uint8Array(piece.buffer, piece.byteOffset, piece.length);
    } else throw new TypeError(`NDJSON chunks must be strings or Uint8Array, found ${typeof piece}.`);
    let from = 0;
    const length = chunk.length;
    for (;;) {
      if (whole !== undefined && this.pieces.length === 0 && from < length) {
        const next = whole(chunk, from, length, this.line + 1);
        if (next >= 0) {
          this.line++;
          from = next;
          continue;
        }
      }
      const end = indexOfLf(chunk, from, length);
      if (end < 0) break;
      this.line++;
      if (this.pieces.length > 0) {
        const joined = this.join(chunk.subarray(from, end));
        emit(sink, joined, 0, joined.length, this.line);
      } else emit(sink, chunk, from, end, this.line);
      from = end + 1;
    }
    // Copied: the caller may reuse its chunk buffer.
    if (from < length) this.pieces.push(chunk.slice(from));
  }

  /** Ends the input: the last line, when it has no `\n`. */
  end(sink: LineSink): void {
    if (this.pieces.length === 0) return;
    this.line++;
    const joined = this.join(new Uint8Array(0));
    emit(sink, joined, 0, joined.length, this.line);
  }

  /** The pieces and `tail` as one buffer (each byte copied once), emptying the pieces. */
  private join(tail: Uint8Array): Uint8Array {
    let total = tail.length;
    for (const piece of this.pieces) total += piece.length;
    const out = new Uint8Array(total);
    let at = 0;
    for (const piece of this.pieces) {
      out.set(piece, at);
      at += piece.length;
    }
    out.set(tail, at);
    this.pieces = [];
    return out;
  }
}

/**
 * The first `\n` in `chunk[from, length)`, or -1 (`length` must be `chunk.length`: `indexOf` reads to the
 * end of its array).
 */
function indexOfLf(chunk: Uint8Array, from: number, length: number): number {
  return from < length ? chunk.indexOf(LF, from) : -1;
}

/**
 * Calls `sink` with the line `[start, end)` less surrounding spaces, tabs and CRs, when not blank. A line
 * that holds nothing but a byte order mark is blank too: the mark is dropped at the start of a line (see
 * `IncidentSet.fromNdjson`), as the CLI's reader drops it.
 */
function emit(sink: LineSink, buffer: Uint8Array, start: number, end: number, line: number): void {
  while (start < end && isBlank(buffer[start]!)) start++;
  while (end > start && isBlank(buffer[end - 1]!)) end--;
  if (
    end - start >= 3 &&
    buffer[start] === 0xef &&
    buffer[start + 1] === 0xbb &&
    buffer[start + 2] === 0xbf
  ) {
    let rest = start + 3;
    while (rest < end && isBlank(buffer[rest]!)) rest++;
    if (rest === end) return;
  }
  if (start < end) sink(buffer, start, end, line);
}

function isBlank(b: number): boolean {
  return b === 32 || b === 9 || b === 13;
}

/**
 * Feeds every chunk of `source` through a splitter, then ends it; `afterChunk` runs after each chunk's lines
 * (and after the last line), before the chunk's buffer is released to its owner; `whole` is offered each
 * line first (see `NdjsonSplitter.push`). With `signal`: checked before the first chunk and after each
 * chunk's lines, and a wait for a chunk ends at an abort; the source's iterator is then ended (`return`, as
 * `for await` ends it when its body throws: a Node stream is destroyed).
 * @throws {TypeError} (rejects) when a chunk is neither a string nor a `Uint8Array`; whatever `sink` throws;
 *   the signal's reason once it is aborted
 */
export async function readNdjson(
  source: NdjsonSource,
  sink: LineSink,
  afterChunk?: () => void,
  whole?: (chunk: Uint8Array, from: number, length: number, line: number) => number,
  signal?: AbortSignal,
): Promise<void> {
  const splitter = new NdjsonSplitter();
  if (signal === undefined) {
    for await (const piece of source as AsyncIterable<Uint8Array | string>) {
      splitter.push(piece, sink, whole);
      afterChunk?.();
    }
  } else {
    signal.throwIfAborted();
    const iterator =
      Symbol.asyncIterator in source
        ? (source as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]()
        : (source as Iterable<Uint8Array | string>)[Symbol.iterator]();
    let done = false;
    try {
      for (;;) {
        const next = await untilAborted(Promise.resolve(iterator.next()), signal);
        if (next.done === true) {
          done = true;
          break;
        }
        splitter.push(next.value, sink, whole);
        afterChunk?.();
        signal.throwIfAborted();
      }
    } finally {
      // As `for await` ends a source whose loop failed (not awaited: a read may still be pending).
      if (!done) Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  }
  splitter.end(sink);
  afterChunk?.();
}

/**
 * `promise`, or a rejection with the signal's reason as soon as it is aborted: a promise that never settles
 * (an idle input, a wait for a chunk that never comes, a consumer's `onMatch`) cannot keep an aborted read
 * from ending. A promise given up on is still handled: its later rejection (a stream's pending read ends
 * with "Premature close" when the stream is destroyed) is no unhandled rejection of the caller's process.
 * Without a signal, `promise` itself. Shared with the Node entry's readers (src/node).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A source that reads bytes into memory it is given: Node's `FileHandle` (`fs.promises.open`) is one.
 * `read(buffer, offset, length, null)` writes up to `length` bytes at `buffer[offset]` and resolves with how
 * many it wrote (0 at the end of the input), reading on from where the previous call stopped.
 */
export interface NdjsonByteReader {
  /**
   * Writes up to `length` bytes of the input at `buffer[offset]` (only there, and only before it resolves).
   * @param position - always `null`: read on from where the previous read stopped
   * @returns how many bytes it wrote, 0 at the end of the input
   */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: null,
  ): Promise<{ readonly bytesRead: number }>;
}

/** Whether `source` is an `NdjsonByteReader` (it has `read` and is not iterable, as a stream is). */
export function isByteReader(source: unknown): source is NdjsonByteReader {
  return (
    typeof source === "object" &&
    source !== null &&
    typeof (source as { read?: unknown }).read === "function" &&
    !(Symbol.asyncIterator in source) &&
    !(Symbol.iterator in source)
  );
}

/**
 * Splits the lines of `buffer[start, end)`, which starts at the start of a line and ends after a `\n`, or at
 * the end of the input (`last`): each is offered to `whole` first, then handed to `sink`, as
 * `readNdjsonInPlace` hands out the lines of a read (the same lines, the same numbers), numbered from
 * `line + 1`. For the blocks of a parallel build (ndjson-parts.ts), which cut the input at line starts.
 * @returns the number of the last line split (`line` when none)
 * @throws {Error} when the bytes end inside a line and `last` is false (a caller's bug); whatever `sink` or
 *   `whole` throws
 */
export function splitLines(
  buffer: Uint8Array,
  start: number,
  end: number,
  line: number,
  last: boolean,
  sink: LineSink,
  whole: (chunk: Uint8Array, from: number, length: number, line: number) => number,
): number {
  // `indexOf` searches to the end of its array: the bytes given, not what lies after them.
  const bytes = buffer.subarray(0, end);
  let lineStart = start;
  for (;;) {
    if (lineStart < end) {
      const next = whole(buffer, lineStart, end, line + 1);
      if (next >= 0) {
        line++;
        lineStart = next;
        continue;
      }
    }
    const nl = indexOfLf(bytes, lineStart, end);
    if (nl < 0) break;
    line++;
    emit(sink, buffer, lineStart, nl, line);
    lineStart = nl + 1;
  }
  if (lineStart < end) {
    if (!last) throw new Error("splitLines: the bytes end inside a line.");
    line++;
    emit(sink, buffer, lineStart, end, line);
  }
  return line;
}

/** The most `readNdjsonInPlace` asks of one read. */
const READ_BYTES = 1 << 20;
/** A buffer with less room than this at its end is left for a new one (`readNdjsonInPlace`). */
const MIN_READ_BYTES = 16 * 1024;

/**
 * Reads NDJSON from `reader` straight into buffers from `space` (`space(n)` returns a new buffer of at least
 * `n` bytes, which its owner keeps): each line is handed to `sink` (or consumed by `whole`, as in
 * `readNdjson`) as a range of the buffer it was read into, so that the owner keeps the line where it lies,
 * without a copy. A line is never split between buffers: the start of a line not yet ended is copied to the
 * start of the next buffer (asked for at least twice its size, so that each byte of a long line is copied
 * at most about twice in all). The next read is issued before the lines of the last one are handed out,
 * into the room after them. Lines are as `NdjsonSplitter` splits them; `afterChunk` runs after each read's
 * lines and at the end. With `signal`: checked before the first read and after each read's lines, and a
 * wait for a read ends at an abort (the read under way is left to finish; the reader is not closed).
 * @throws {TypeError} (rejects) when a read resolves with other than `{ bytesRead }`, an integer from 0 to
 *   the length asked for; whatever `reader.read`, `space` or `sink` throws; the signal's reason once it is
 *   aborted
 */
export async function readNdjsonInPlace(
  reader: NdjsonByteReader,
  space: (length: number) => Uint8Array,
  sink: LineSink,
  afterChunk: () => void,
  whole: (chunk: Uint8Array, from: number, length: number, line: number) => number,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  let buffer = space(MIN_READ_BYTES);
  /** Bytes read into `buffer`: `[0, filled)`; lines handed out end before `lineStart`. */
  let filled = 0;
  let lineStart = 0;
  let line = 0;
  const read = async (at: number): Promise<number> => {
    const length = Math.min(READ_BYTES, buffer.length - at);
    const result: unknown = await reader.read(buffer, at, length, null);
    // `bytesRead` read once (a getter may answer differently twice), and described without calling into it.
    const count =
      typeof result === "object" && result !== null
        ? (result as { bytesRead?: unknown }).bytesRead
        : undefined;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0 || count > length) {
      const found =
        typeof result === "object" && result !== null
          ? `{ bytesRead: ${describeCount(count)} }`
          : describeCount(result);
      throw new TypeError(
        `NDJSON reader: a read of up to ${length} bytes resolved with ${found}; expected { bytesRead } from 0 to ${length}.`,
      );
    }
    return count;
  };
  let pending: Promise<number> | undefined = read(0);
  try {
    for (;;) {
      const count = await untilAborted(pending, signal);
      pending = undefined;
      if (count === 0) break;
      const from = filled; // the new bytes: [from, filled)
      filled += count;
      if (buffer.length - filled >= MIN_READ_BYTES) pending = read(filled);
      // `indexOf` searches to the end of its array: the bytes read so far, not the read under way.
      const readBytes = buffer.subarray(0, filled);
      // Lines that start in these bytes are offered to `whole` first; a line begun before them is not (it
      // would be scanned again from its start on every read).
      let scanFrom = from;
      for (;;) {
        if (lineStart >= from && lineStart < filled) {
          const next = whole(buffer, lineStart, filled, line + 1);
          if (next >= 0) {
            line++;
            lineStart = scanFrom = next;
            continue;
          }
        }
        const end = indexOfLf(readBytes, Math.max(scanFrom, lineStart), filled);
        if (end < 0) break;
        line++;
        emit(sink, buffer, lineStart, end, line);
        lineStart = scanFrom = end + 1;
      }
      afterChunk();
      signal?.throwIfAborted();
      if (pending === undefined) {
        // No room for the next read: the line begun goes to the start of a new buffer.
        const begun = filled - lineStart;
        const next = space(Math.max(2 * begun, begun + MIN_READ_BYTES));
        next.set(buffer.subarray(lineStart, filled), 0);
        buffer = next;
        lineStart = 0;
        filled = begun;
        pending = read(filled);
      }
    }
    if (lineStart < filled) emit(sink, buffer, lineStart, filled, line + 1);
    afterChunk();
  } finally {
    // A read still under way when a line failed: its result (or failure) is of no interest now.
    pending?.catch(() => undefined);
  }
}

/** A number as written, `null`, or the type of anything else (nothing of the reader's is called). */
function describeCount(value: unknown): string {
  if (typeof value === "number") return String(value);
  return value === null ? "null" : typeof value;
}

/**
 * The non-blank lines of NDJSON chunks, one at a time (see `NdjsonSplitter` for what a line is).
 * @param source - chunks of bytes or text (a Node readable stream, a web stream's async iterator, an array)
 * @throws {TypeError} when a chunk is neither a string nor a `Uint8Array`
 */
export async function* ndjsonLines(source: NdjsonSource): AsyncGenerator<NdjsonLine> {
  const splitter = new NdjsonSplitter();
  let batch: NdjsonLine[] = [];
  const sink: LineSink = (buffer, start, end, line) => {
    batch.push({ bytes: buffer.slice(start, end), line });
  };
  for await (const piece of source as AsyncIterable<Uint8Array | string>) {
    splitter.push(piece, sink);
    const lines = batch;
    batch = [];
    yield* lines;
  }
  splitter.end(sink);
  yield* batch;
}
