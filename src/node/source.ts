/**
 * The Node entry's input sources (and the CLI's): a file, `-` for standard input, or anything the system can open by name
 * (`/dev/stdin`, a named pipe). Never read by position, so pipes work. A gzip stream is recognised by its
 * magic bytes (1f 8b), not by its name, and inflated with node's zlib (concatenated members included).
 * The bytes are decoded as strict UTF-8 (`TextDecoder` with `fatal`): an invalid sequence is an error that
 * gives its byte offset, never a silent U+FFFD.
 */

import { closeSync, constants, createReadStream, openSync } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { untilAborted } from "../incidents/ndjson.js";
import { NdjsonInputError } from "./errors.js";

/** An opened input: its name for messages, its size when known, and its text in chunks. */
export interface InputSource {
  /** `'path'` quoted, or `standard input`. */
  readonly label: string;
  /** The size in bytes of a regular file (compressed size for gzip); `undefined` for pipes and terminals. */
  readonly size: number | undefined;
  /** Whether the bytes were gzip. */
  readonly gzip: boolean;
  /** Bytes read so far from the file or pipe (before inflating), for progress. */
  readonly bytesRead: () => number;
  /** The decoded text, in chunks (never splitting a character). Throws `NdjsonInputError` on bad input. */
  readonly text: AsyncIterable<string>;
  /**
   * The bytes (inflated when gzip), in chunks, undecoded: read either `bytes` or `text`, once. Throws
   * `NdjsonInputError` on an unreadable input or bad gzip.
   */
  readonly bytes: AsyncIterable<Buffer>;
  /** The path of a regular file (read by position by `match`'s threads), else `undefined`. */
  readonly path: string | undefined;
  /**
   * The descriptor of that regular file, open until `close` (the blocks are read through it, so the file
   * read is the file opened, whatever happens to its name meanwhile); else `undefined`.
   */
  readonly fd?: number | undefined;
  /** Whether `text` marks lines of invalid UTF-8 instead of throwing (`SourceOptions.invalidUtf8Lines`). */
  readonly invalidUtf8Lines?: boolean;
  /**
   * Stops reading and releases the input (safe to call twice): a file or pipe opened by path is destroyed;
   * a stream passed in and standard input are left to their owner, paused, without a listener of this
   * module (docs/node.md, "Whose stream").
   */
  readonly close: () => void;
}

/** Where `-` reads from (the process's standard input, or a test's stream), and how bad text is told. */
export interface SourceOptions {
  readonly stdin?: NodeJS.ReadableStream | undefined;
  /** The name of a stream input in messages (default `the input`; `-` is `standard input`). */
  readonly label?: string | undefined;
  /**
   * With `--skip-invalid`: `text` does not end at invalid UTF-8 but yields, in place of the line that holds
   * it, `invalidUtf8Mark(byte)` (the text before the bad byte on that line may come first), and goes on
   * after the line's `\n` (docs/cli.md, Encoding). Default false: `text` throws `InvalidUtf8Error`.
   */
  readonly invalidUtf8Lines?: boolean | undefined;
  /**
   * Ends the wait for a path to open: a named pipe opens only once a writer opens it; an abort rejects
   * with the signal's reason instead of waiting on.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The first character of the chunk `text` yields for a line of invalid UTF-8 (see `invalidUtf8Lines`): a
 * lone low surrogate, which decoded UTF-8 never holds, so no text is taken for the mark.
 */
const MARK = "\udc00";

/** The chunk `text` yields for invalid UTF-8 whose first bad byte is `byte` (1-based in the input). */
export function invalidUtf8Mark(byte: number): string {
  return `${MARK}${byte}`;
}

/** The byte named by a chunk that `invalidUtf8Mark` made, or `undefined` for text. */
export function markedInvalidByte(chunk: string): number | undefined {
  return chunk.charCodeAt(0) === 0xdc00 ? Number(chunk.slice(1)) : undefined;
}

const CHUNK = 1 << 20;

/**
 * Opens an input: a readable stream of bytes as it is; by name, `-` is standard input and anything else
 * is a path.
 * @throws {NdjsonInputError} `noInput` (the CLI's 66) when the path does not exist, cannot be read, or is
 *   a directory
 */
export async function openInput(
  name: string | NodeJS.ReadableStream,
  options: SourceOptions = {},
): Promise<InputSource> {
  let stream: NodeJS.ReadableStream;
  let size: number | undefined;
  let label: string;
  if (typeof name !== "string") {
    label = options.label ?? "the input";
    stream = name;
  } else if (name === "-") {
    label = "standard input";
    stream = options.stdin ?? process.stdin;
  } else {
    label = `'${name}'`;
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(name);
    } catch (error) {
      throw new NdjsonInputError(`Cannot read ${label}: ${describeSystemError(error)}`, "noInput");
    }
    if (info.isDirectory()) {
      throw new NdjsonInputError(`Cannot read ${label}: it is a directory, not a file.`, "noInput");
    }
    size = info.isFile() ? info.size : undefined;
    options.signal?.throwIfAborted();
    const file = createReadStream(name, { highWaterMark: CHUNK });
    stream = file;
    // Opening can still fail (permissions): wait for it, so that the failure is "cannot read" (66). A named
    // pipe opens once a writer does: an abort ends that wait (and unblocks the open, see `unblockPipe`).
    const signal = options.signal;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        reject(signal!.reason);
        file.destroy();
        if (info.isFIFO()) unblockPipe(name, file);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      file.once("open", () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      file.once("error", (error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(new NdjsonInputError(`Cannot read ${label}: ${describeSystemError(error)}`, "noInput"));
      });
    });
  }
  let bytes = 0;
  let gzip = false;
  const raw = stream as Readable;
  // What this function opened (a path) is destroyed when released; what it was given (a stream, standard
  // input) stays its owner's: read in paused mode and left paused, never destroyed.
  const owned = typeof name === "string" && name !== "-";
  let borrowed: Borrowed | undefined;
  const close = (): void => {
    if (owned) raw.destroy();
    else borrowed?.return();
  };

  async function* rawChunks(): AsyncGenerator<Buffer> {
    if (!owned) borrowed ??= borrow(raw);
    const iterator: AsyncIterator<unknown> =
      borrowed ?? (raw as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    let done = false;
    try {
      for (;;) {
        // Each wait for a chunk ends at an abort: standard input is paused, not destroyed, on release, and
        // an idle one would otherwise never answer.
        const next = await untilAborted(iterator.next(), options.signal);
        if (next.done === true) {
          done = true;
          return;
        }
        const buffer = bytesOf(next.value, label);
        bytes += buffer.length;
        yield buffer;
      }
    } catch (error) {
      if (error instanceof NdjsonInputError) throw error;
      throw new NdjsonInputError(`Cannot read ${label}: ${describeSystemError(error)}`, "ioError");
    } finally {
      // As `for await` would: the stream's iterator ends (not awaited: a read may still be pending).
      if (!done) iterator.return?.().catch(() => {});
    }
  }

  async function* inflated(): AsyncGenerator<Buffer> {
    const chunks = rawChunks();
    const first = await firstBytes(chunks, 2);
    if (first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b) {
      gzip = true;
      const gunzip = createGunzip({ chunkSize: CHUNK });
      const input = Readable.from(prepend(first, chunks), { objectMode: false });
      input.on("error", (error) => gunzip.destroy(error));
      input.pipe(gunzip);
      try {
        for await (const chunk of gunzip) yield chunk as Buffer;
      } catch (error) {
        if (error instanceof NdjsonInputError) throw error;
        throw new NdjsonInputError(
          `${capitalize(label)} is not a valid gzip stream: ${describeSystemError(error)}`,
          "dataError",
        );
      } finally {
        input.destroy();
        gunzip.destroy();
      }
    } else {
      if (first.length > 0) yield first;
      yield* chunks;
    }
  }

  async function* bytesRead(): AsyncGenerator<Buffer> {
    try {
      yield* inflated();
    } finally {
      close();
    }
  }

  return {
    label,
    size,
    get gzip() {
      return gzip;
    },
    bytesRead: () => bytes,
    text: {
      [Symbol.asyncIterator]: () => decodeText(label, inflated(), close, options.invalidUtf8Lines === true),
    },
    bytes: { [Symbol.asyncIterator]: () => bytesRead() },
    path: typeof name === "string" && size !== undefined && name !== "-" ? name : undefined,
    get fd() {
      const fd = (raw as { fd?: unknown }).fd;
      return size !== undefined && typeof fd === "number" && !raw.destroyed ? fd : undefined;
    },
    invalidUtf8Lines: options.invalidUtf8Lines === true,
    close,
  };
}

/** The chunks of a stream this module did not open (`borrow`). */
interface Borrowed extends AsyncIterator<unknown> {
  /** Removes every listener this module added and pauses the stream (safe to call twice). */
  return(): Promise<IteratorResult<unknown>>;
}

/** The error of a stream that closed before its end, as Node's own iterator gives it. */
function prematureClose(): Error {
  return Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

/**
 * Reads the chunks of a stream this module did not open (a stream passed in, standard input), one at a time:
 * resumed while a chunk is awaited, paused as soon as one arrives. `return` (the read ended, stopped, failed
 * or was aborted) removes the listeners at once, even while a chunk is awaited (Node's own iterator waits
 * for that chunk first), and pauses the stream (so standard input stops reading and no longer keeps the
 * process alive) without destroying it: its owner decides (destroys it, drains it, answers on its socket).
 */
function borrow(stream: Readable): Borrowed {
  let wake: (() => void) | undefined;
  const queue: unknown[] = [];
  let ended = false;
  let failure: unknown;
  let released = false;
  const notify = (): void => {
    const woken = wake;
    wake = undefined;
    woken?.();
  };
  const onData = (chunk: unknown): void => {
    queue.push(chunk);
    stream.pause();
    notify();
  };
  const onEnd = (): void => {
    ended = true;
    notify();
  };
  const onError = (error: unknown): void => {
    failure ??= error ?? prematureClose();
    notify();
  };
  const onClose = (): void => {
    if (!ended && !stream.readableEnded) failure ??= stream.errored ?? prematureClose();
    notify();
  };
  stream.pause();
  stream.on("data", onData);
  stream.on("end", onEnd);
  stream.on("error", onError);
  stream.on("close", onClose);
  const done = { done: true, value: undefined } as const;
  const release = async (): Promise<IteratorResult<unknown>> => {
    if (!released) {
      released = true;
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.off("close", onClose);
      stream.pause();
      queue.length = 0;
      notify();
    }
    return done;
  };
  return {
    async next(): Promise<IteratorResult<unknown>> {
      for (;;) {
        if (released) return done;
        if (queue.length > 0) return { done: false, value: queue.shift() };
        if (failure !== undefined) {
          const error = failure;
          await release();
          throw error;
        }
        if (ended || stream.readableEnded) return release();
        if (stream.destroyed) {
          failure = stream.errored ?? prematureClose();
          continue;
        }
        const arrived = new Promise<void>((resolve) => {
          wake = resolve;
        });
        stream.resume();
        await arrived;
      }
    },
    return: release,
  };
}

/**
 * A chunk of a stream as bytes: a `Buffer`, another `Uint8Array` (viewed as a `Buffer`), or text (encoded as
 * UTF-8, as a stream with `setEncoding` gives it).
 * @throws {NdjsonInputError} `dataError` for anything else (an object-mode stream of values), which is no
 *   input a reader can take
 */
function bytesOf(chunk: unknown, label: string): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === "string") return Buffer.from(chunk);
  const found = chunk === null || chunk === undefined ? String(chunk) : `a value of type ${typeof chunk}`;
  throw new NdjsonInputError(
    `${capitalize(label)} is not a stream of bytes or text: it gave ${found} (an object-mode stream?).`,
    "dataError",
  );
}

/** Tries of `unblockPipe`, one every `PIPE_RETRY_MS`, while the stream's open has not returned. */
const PIPE_TRIES = 50;
const PIPE_RETRY_MS = 20;

/**
 * Ends a blocked open of the named pipe at `path` for reading by `file` (destroyed; the open waits for a
 * writer in one of the system's threads, which it would hold for ever): opens the pipe for writing without
 * blocking, which succeeds once a reader waits, and closes it at once, so the reader's open returns (and
 * the destroyed stream closes it). Tried again a bounded number of times while the open has not reached the
 * system yet (no reader waits: `ENXIO`), until the stream has closed. Never throws.
 */
function unblockPipe(path: string, file: ReturnType<typeof createReadStream>, tries = PIPE_TRIES): void {
  if (file.closed) return;
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader waits yet, or the pipe is gone.
  }
  if (tries > 1) setTimeout(() => unblockPipe(path, file, tries - 1), PIPE_RETRY_MS).unref();
}

/**
 * An input whose bytes are `head` (chunks already read from `source.bytes`) followed by the rest of
 * `rest` (the iterator they were read from): the input again from its start, for a reader that gives up
 * after a first look (`match`'s byte reader hands the input to the text reader).
 */
export function replayInput(
  source: InputSource,
  head: readonly Buffer[],
  rest: AsyncIterator<Buffer>,
): InputSource {
  async function* chunks(): AsyncGenerator<Buffer> {
    yield* head;
    for (;;) {
      const next = await rest.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  return {
    label: source.label,
    size: source.size,
    get gzip() {
      return source.gzip;
    },
    bytesRead: source.bytesRead,
    text: {
      [Symbol.asyncIterator]: () =>
        decodeText(source.label, chunks(), source.close, source.invalidUtf8Lines === true),
    },
    bytes: { [Symbol.asyncIterator]: () => chunks() },
    path: source.path,
    get fd() {
      return source.fd;
    },
    invalidUtf8Lines: source.invalidUtf8Lines === true,
    close: source.close,
  };
}

/**
 * The strict UTF-8 text of a byte stream (see the module comment); `close` is called at its end. With
 * `marks`, a line holding invalid UTF-8 is yielded as the text before its first bad byte, then
 * `invalidUtf8Mark(byte)`, and its other bytes up to its `\n` are dropped (`SourceOptions.invalidUtf8Lines`).
 */
async function* decodeText(
  label: string,
  chunks: AsyncIterable<Buffer>,
  close: () => void,
  marks = false,
): AsyncGenerator<string> {
  let decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  let offset = 0;
  let previous: Uint8Array = new Uint8Array(0);
  /** Whether the rest of a marked line is being dropped (up to its `\n`). */
  let dropping = false;
  try {
    for await (const whole of chunks) {
      let chunk: Buffer = whole;
      while (chunk.length > 0) {
        if (dropping) {
          const nl = chunk.indexOf(10);
          if (nl < 0) {
            offset += chunk.length;
            break;
          }
          // The `\n` is kept: it ends the marked line for the reader. A byte order mark is text here.
          dropping = false;
          decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
          previous = new Uint8Array(0);
          offset += nl;
          chunk = chunk.subarray(nl);
        }
        let decoded: string;
        try {
          decoded = decoder.decode(chunk, { stream: true });
        } catch {
          if (!marks) throw invalidUtf8(label, offset, previous, chunk);
          const at = invalidUtf8Index(previous, chunk);
          // The text before the bad sequence is valid (with a character begun in the chunk before).
          const before =
            at <= 0 ? new Uint8Array(0) : Buffer.concat([pendingCharacter(previous), chunk.subarray(0, at)]);
          const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(before);
          if (text.length > 0) yield text;
          yield invalidUtf8Mark(offset + at + 1);
          dropping = true;
          const from = Math.max(0, at);
          offset += from;
          chunk = chunk.subarray(from);
          continue;
        }
        previous = lastBytes(previous, chunk, 3);
        offset += chunk.length;
        if (decoded.length > 0) yield decoded;
        break;
      }
    }
    if (dropping) return;
    let rest: string;
    try {
      rest = decoder.decode();
    } catch {
      // A sequence cut by the end of the input: named by the byte where it starts, as mid-input.
      const byte = offset - previous.length + lastCharStart(previous) + 1;
      if (!marks) throw new InvalidUtf8Error(label, byte, 0);
      yield invalidUtf8Mark(byte);
      return;
    }
    if (rest.length > 0) yield rest;
  } finally {
    close();
  }
}

/** The bytes of a character begun at the end of `tail` (the last bytes decoded) and not ended, or none. */
function pendingCharacter(tail: Uint8Array): Uint8Array {
  const at = lastCharStart(tail);
  if (at >= tail.length) return new Uint8Array(0);
  const lead = tail[at]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return tail.length - at < need ? tail.subarray(at) : new Uint8Array(0);
}

/** The first `count` bytes of a chunk stream (fewer at its end), as one buffer; the rest stays unread. */
async function firstBytes(chunks: AsyncGenerator<Buffer>, count: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let length = 0;
  while (length < count) {
    const next = await chunks.next();
    if (next.done === true) break;
    parts.push(next.value);
    length += next.value.length;
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

async function* prepend(first: Buffer, rest: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  yield* rest;
}

/**
 * The last `count` bytes of `before` followed by `chunk` (a short chunk keeps bytes of the one before it, where
 * a character may have begun).
 */
export function lastBytes(before: Uint8Array, chunk: Buffer, count: number): Uint8Array {
  if (chunk.length >= count) return chunk.subarray(chunk.length - count);
  return Buffer.concat([before, chunk]).subarray(Math.max(0, before.length + chunk.length - count));
}

/**
 * The index in `tail` (the last bytes decoded, at most 3) where its last character starts: its last byte
 * that is not a continuation byte (10xxxxxx); `tail.length` when there is none (the bytes end a character
 * begun before them).
 */
export function lastCharStart(tail: Uint8Array): number {
  for (let i = tail.length - 1; i >= 0; i--) if ((tail[i]! & 0xc0) !== 0x80) return i;
  return tail.length;
}

/**
 * Invalid UTF-8 in the input: where (the byte offset in the decoded stream, 1-based) and how many line
 * breaks precede it in its chunk, so that a reader that counts lines can name the line.
 */
export class InvalidUtf8Error extends NdjsonInputError {
  constructor(
    readonly label: string,
    /** 1-based byte position in the (inflated) input. */
    readonly byte: number,
    /** Line breaks between the start of the chunk and the bad byte. */
    readonly breaksIntoChunk: number,
  ) {
    super(`${capitalize(label)} is not valid UTF-8 at byte ${byte}.`, "dataError");
  }
}

/**
 * The error for invalid UTF-8 in `chunk` (which starts at byte `offset` of the decoded stream; `previous`
 * holds the last bytes before it, where a character may have begun): finds the first byte of the first bad
 * sequence (in `previous` when the sequence begun there breaks in the chunk).
 */
function invalidUtf8(label: string, offset: number, previous: Uint8Array, chunk: Buffer): NdjsonInputError {
  const at = invalidUtf8Index(previous, chunk);
  let breaks = 0;
  for (let i = chunk.indexOf(10); i !== -1 && i < at; i = chunk.indexOf(10, i + 1)) breaks++;
  return new InvalidUtf8Error(label, offset + at + 1, breaks);
}

/**
 * Where the first bad sequence of `chunk` starts, `previous` holding the last bytes decoded before it (at
 * most 3, where a character may have begun): an index into `chunk`, negative when the sequence begun in
 * `previous` breaks in the chunk (named by its first byte).
 */
export function invalidUtf8Index(previous: Uint8Array, chunk: Uint8Array): number {
  // From the start of the last character before the chunk (the bytes before it were whole characters):
  // a sequence begun there and broken in the chunk is named by its first byte, as one within the chunk.
  const begun = previous.subarray(lastCharStart(previous));
  return firstInvalidUtf8(Buffer.concat([begun, chunk])) - begun.length;
}

/**
 * The index of the first byte at or after a character boundary near `from` that does not start a valid
 * UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). Scans from the start of
 * `bytes` so that a sequence begun before `from` is judged whole.
 */
export function firstInvalidUtf8(bytes: Uint8Array, from = 0): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number;
    let min = 0x80;
    let max = 0xbf;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) min = 0xa0;
      if (b === 0xed) max = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) min = 0x90;
      if (b === 0xf4) max = 0x8f;
    } else return Math.max(i, from);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return Math.max(i, from);
      if (c < (k === 1 ? min : 0x80) || c > (k === 1 ? max : 0xbf)) return Math.max(i, from);
    }
    i += need + 1;
  }
  return bytes.length;
}

/** A one-line description of a system error: `no such file or directory (ENOENT)`. */
export function describeSystemError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const code = typeof e?.code === "string" ? e.code : undefined;
  const known: Record<string, string> = {
    ENOENT: "no such file or directory",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EISDIR: "it is a directory, not a file",
    ENOTDIR: "a part of the path is not a directory",
    ELOOP: "too many symbolic links",
    EIO: "input/output error",
    Z_DATA_ERROR: "the compressed data is corrupt",
    Z_BUF_ERROR: "the compressed data ends too early",
  };
  const text = code !== undefined && known[code] !== undefined ? known[code] : String(e?.message ?? error);
  return `${text.split("\n")[0]}${code === undefined ? "" : ` (${code})`}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
