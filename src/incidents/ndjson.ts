/**
 * The NDJSON reader of `IncidentSet.fromNdjson` (issue 14, "Ten million incidents in one process"), without
 * I/O of its own: the caller opens the source (the engine stays pure; DESIGN.md).
 *
 * - `NdjsonSplitter`: splits chunks of bytes or text into lines, handing each line to a callback as a range
 *   of a buffer (no object, no copy per line; a line split across chunks is joined once, however many chunks
 *   it spans).
 * - `LineScanner`: reads the top-level fields a set indexes straight from a line's UTF-8 bytes, validating
 *   the whole line as JSON on the way, without building the record object; repeated short values (labels)
 *   come back as the same string each time. A line it cannot read exactly as `JSON.parse` would (a syntax
 *   error, a byte order mark, an escape in a key, invalid UTF-8, a top level that is not an object) is left
 *   to `JSON.parse`, so errors and values are always `JSON.parse`'s.
 * - `ndjsonLines`: the lines one at a time, as objects (for callers and tests).
 */

import { ownDataValue } from "./columns.js";

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
   * Splits one chunk, calling `sink` for each non-blank line it ends.
   * @throws {TypeError} when the chunk is neither a string nor a `Uint8Array`
   */
  push(piece: Uint8Array | string, sink: LineSink): void {
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

/** The first `\n` in `chunk[from, length)`, or -1. */
function indexOfLf(chunk: Uint8Array, from: number, length: number): number {
  return from < length ? chunk.indexOf(LF, from) : -1;
}

/** Calls `sink` with the line `[start, end)` less surrounding spaces, tabs and CRs, when not blank. */
function emit(sink: LineSink, buffer: Uint8Array, start: number, end: number, line: number): void {
  while (start < end && isBlank(buffer[start]!)) start++;
  while (end > start && isBlank(buffer[end - 1]!)) end--;
  if (start < end) sink(buffer, start, end, line);
}

function isBlank(b: number): boolean {
  return b === 32 || b === 9 || b === 13;
}

/**
 * Feeds every chunk of `source` through a splitter, then ends it; `afterChunk` runs after each chunk's lines
 * (and after the last line), before the chunk's buffer is released to its owner.
 * @throws {TypeError} (rejects) when a chunk is neither a string nor a `Uint8Array`; whatever `sink` throws
 */
export async function readNdjson(
  source: NdjsonSource,
  sink: LineSink,
  afterChunk?: () => void,
): Promise<void> {
  const splitter = new NdjsonSplitter();
  for await (const piece of source as AsyncIterable<Uint8Array | string>) {
    splitter.push(piece, sink);
    afterChunk?.();
  }
  splitter.end(sink);
  afterChunk?.();
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

// ---------------------------------------------------------------------------------------------------------
// Reading indexed fields from a line's bytes

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** Entries of the per-field cache of repeated string values (direct-mapped by hash). */
const INTERN_SLOTS = 1024;
/** Lookups after which a field whose values rarely repeat stops being looked up in the cache. */
const INTERN_TRIAL = 4096;
/** Key positions whose field is remembered from the previous line (lines usually share a key order). */
const KEY_ORDER = 64;
/** String values longer than this are not looked up in the cache (titles, keys and dates rarely repeat). */
const INTERN_MAX_BYTES = 40;

/** FNV-1a over `b[start, end)`. */
function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));
}

/**
 * Reads chosen top-level fields of JSON lines from their UTF-8 bytes (see the file comment). `scan` answers
 * `true` and fills the values only when they are exactly what `JSON.parse` of the line followed by
 * `ownDataValue` would give (a missing field is `undefined`; duplicate keys: the last wins); `false` means
 * "use `JSON.parse`" and says nothing about the line's validity.
 */
export class LineScanner {
  /** The fields read, in the order of `scan`'s values. */
  readonly fields: readonly string[];
  private readonly keys: Uint8Array[] = [];
  private readonly keyHashes: Uint32Array;
  /** Open addressing over key hashes: field index + 1, 0 when empty. */
  private readonly keySlots: Int32Array;
  /** Per field, allocated on its first string: the cache's hashes and strings (`INTERN_SLOTS` each). */
  private readonly internHashes: (Uint32Array | undefined)[];
  private readonly interned: ((string | undefined)[] | undefined)[];
  /** Per field: cache lookups and hits (see `INTERN_TRIAL`), and whether the cache is still used. */
  private readonly internTries: Int32Array;
  private readonly internHits: Int32Array;
  private readonly interning: Uint8Array;
  /** Per key position: the field found there on the previous line, -1 when none. */
  private readonly keyOrder = new Int32Array(KEY_ORDER).fill(-1);
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private readonly strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  private readonly encoder = new TextEncoder();
  /** Per scan: a byte ≥ 0x80 was seen (the line must be checked as UTF-8). */
  private high = false;
  /** Per string: it held an escape. */
  private escaped = false;
  /** Containers open while skipping a nested value: 1 object, 2 array. */
  private stack = new Uint8Array(64);

  /** @param fields - top-level field names; a name that is not well-formed UTF-16 is never found in bytes */
  constructor(fields: readonly string[]) {
    this.fields = fields;
    let size = 16;
    while (size < fields.length * 4) size *= 2;
    this.keySlots = new Int32Array(size);
    this.keyHashes = new Uint32Array(fields.length);
    fields.forEach((field, index) => {
      const bytes = this.encoder.encode(field);
      this.keys.push(bytes);
      // A lone surrogate encodes as U+FFFD: such a name can only be written with an escape, which `scan`
      // leaves to JSON.parse, so it is not entered in the table.
      if (!isWellFormed(field)) return;
      const h = hashBytes(bytes, 0, bytes.length);
      this.keyHashes[index] = h;
      let slot = h & (size - 1);
      while (this.keySlots[slot] !== 0) slot = (slot + 1) & (size - 1);
      this.keySlots[slot] = index + 1;
    });
    this.internHashes = new Array<Uint32Array | undefined>(fields.length).fill(undefined);
    this.interned = new Array<(string | undefined)[] | undefined>(fields.length).fill(undefined);
    this.internTries = new Int32Array(fields.length);
    this.internHits = new Int32Array(fields.length);
    this.interning = new Uint8Array(fields.length).fill(1);
  }

  /**
   * Reads the fields of the JSON line `b[start, end)` into `out` (one value per field, `undefined` when
   * absent).
   * @returns true when `out` holds exactly what `JSON.parse` would give; false when the line must go to
   *   `JSON.parse` (then `out` is meaningless)
   */
  scan(b: Uint8Array, start: number, end: number, out: unknown[]): boolean {
    for (let k = 0; k < this.fields.length; k++) out[k] = undefined;
    this.high = false;
    let p = skipSpace(b, start, end);
    if (p >= end || b[p] !== OPEN_BRACE) return false;
    p = skipSpace(b, p + 1, end);
    if (p < end && b[p] === CLOSE_BRACE) p++;
    else {
      for (let position = 0; ; position++) {
        if (p >= end || b[p] !== QUOTE) return false;
        this.escaped = false;
        const keyEnd = this.scanString(b, p + 1, end);
        if (keyEnd < 0 || this.escaped) return false;
        let field = position < KEY_ORDER ? this.keyOrder[position]! : -1;
        if (field < 0 || !equalBytes(this.keys[field]!, b, p + 1, keyEnd)) {
          field = this.fieldOf(b, p + 1, keyEnd);
          if (position < KEY_ORDER) this.keyOrder[position] = field;
        }
        p = skipSpace(b, keyEnd + 1, end);
        if (p >= end || b[p] !== COLON) return false;
        p = skipSpace(b, p + 1, end);
        if (p >= end) return false;
        const valueEnd = field < 0 ? this.skipValue(b, p, end) : this.readValue(b, p, end, field, out);
        if (valueEnd < 0) return false;
        p = skipSpace(b, valueEnd, end);
        if (p >= end) return false;
        if (b[p] === COMMA) {
          p = skipSpace(b, p + 1, end);
          continue;
        }
        if (b[p] !== CLOSE_BRACE) return false;
        p++;
        break;
      }
    }
    if (skipSpace(b, p, end) !== end) return false;
    if (this.high) {
      try {
        this.strict.decode(b.subarray(start, end));
      } catch {
        return false;
      }
    }
    return true;
  }

  /** The index of the field whose UTF-8 name is `b[start, end)`, or -1. */
  private fieldOf(b: Uint8Array, start: number, end: number): number {
    const h = hashBytes(b, start, end);
    const mask = this.keySlots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.keySlots[slot]!;
      if (entry === 0) return -1;
      const index = entry - 1;
      if (this.keyHashes[index] === h && equalBytes(this.keys[index]!, b, start, end)) return index;
    }
  }

  /**
   * Scans a string's body from `p` (after the opening quote): the index of the closing quote, or -1 when
   * the string is not valid JSON. Sets `escaped` when it holds an escape and `high` on a byte ≥ 0x80.
   */
  private scanString(b: Uint8Array, p: number, end: number): number {
    for (; p < end; p++) {
      const c = b[p]!;
      if (c === QUOTE) return p;
      if (c === BACKSLASH) {
        this.escaped = true;
        if (++p >= end) return -1;
        const e = b[p]!;
        if (e === 0x75) {
          if (p + 4 >= end) return -1;
          if (!isHex(b[p + 1]) || !isHex(b[p + 2]) || !isHex(b[p + 3]) || !isHex(b[p + 4])) return -1;
          p += 4;
        } else if (
          e !== QUOTE &&
          e !== BACKSLASH &&
          e !== 0x2f &&
          e !== 0x62 &&
          e !== 0x66 &&
          e !== 0x6e &&
          e !== 0x72 &&
          e !== 0x74
        ) {
          return -1;
        }
      } else if (c < 0x20) return -1;
      else if (c >= 0x80) this.high = true;
    }
    return -1;
  }

  /** Reads the value at `p` into `out[field]`: the index after it, or -1 (see `scan`). */
  private readValue(b: Uint8Array, p: number, end: number, field: number, out: unknown[]): number {
    const c = b[p]!;
    if (c === QUOTE) {
      const wasHigh = this.high;
      this.high = false;
      this.escaped = false;
      const q = this.scanString(b, p + 1, end);
      if (q < 0) return -1;
      const high = this.high;
      this.high = wasHigh || high;
      if (this.escaped) out[field] = JSON.parse(this.decoder.decode(b.subarray(p, q + 1)));
      else if (high || q - p - 1 > INTERN_MAX_BYTES || this.interning[field] === 0)
        out[field] = this.decoder.decode(b.subarray(p + 1, q));
      else out[field] = this.intern(b, p + 1, q, field);
      return q + 1;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const q = this.skipValue(b, p, end);
      if (q < 0) return -1;
      out[field] = JSON.parse(this.decoder.decode(b.subarray(p, q)));
      return q;
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const q = scanNumber(b, p, end);
      if (q < 0) return -1;
      out[field] = numberValue(b, p, q, this.decoder);
      return q;
    }
    const q = scanLiteral(b, p, end);
    if (q < 0) return -1;
    out[field] = c === 0x74 ? true : c === 0x66 ? false : null;
    return q;
  }

  /** The string of the ASCII bytes `b[start, end)`, the same string object each time they repeat. */
  private intern(b: Uint8Array, start: number, end: number, field: number): string {
    const tries = ++this.internTries[field]!;
    if (tries === INTERN_TRIAL && this.internHits[field]! * 4 < tries) this.interning[field] = 0;
    // A cheap hash (length, first, middle and last bytes): a collision only costs a cache miss.
    const length = end - start;
    const h =
      length === 0
        ? 0
        : (Math.imul(length, 0x9e3779b1) ^
            (b[start]! << 3) ^
            (b[start + (length >>> 1)]! << 9) ^
            (b[end - 2]! << 13) ^
            (b[end - 1]! << 17)) >>>
          0;
    let interned = this.interned[field];
    let internHashes = this.internHashes[field];
    if (interned === undefined || internHashes === undefined) {
      interned = new Array<string | undefined>(INTERN_SLOTS).fill(undefined);
      internHashes = new Uint32Array(INTERN_SLOTS);
      this.interned[field] = interned;
      this.internHashes[field] = internHashes;
    }
    const slot = (h ^ (h >>> 10)) & (INTERN_SLOTS - 1);
    const known = interned[slot];
    if (known !== undefined && internHashes[slot] === h && known.length === end - start) {
      let same = true;
      for (let i = start; i < end; i++) {
        if (known.charCodeAt(i - start) !== b[i]) {
          same = false;
          break;
        }
      }
      if (same) {
        this.internHits[field]!++;
        return known;
      }
    }
    const text = this.decoder.decode(b.subarray(start, end));
    interned[slot] = text;
    internHashes[slot] = h;
    return text;
  }

  /** Skips any JSON value at `p`, validating it: the index after it, or -1. */
  private skipValue(b: Uint8Array, p: number, end: number): number {
    let depth = 0;
    for (;;) {
      // A value starts at p.
      if (p >= end) return -1;
      const c = b[p]!;
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === this.stack.length) {
          const wider = new Uint8Array(depth * 2);
          wider.set(this.stack);
          this.stack = wider;
        }
        this.stack[depth++] = c === OPEN_BRACE ? 1 : 2;
        p = skipSpace(b, p + 1, end);
        if (p < end && b[p] === (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
          depth--;
          p++;
        } else {
          if (c === OPEN_BRACE) {
            p = this.skipKey(b, p, end);
            if (p < 0) return -1;
          }
          continue;
        }
      } else if (c === QUOTE) {
        const q = this.scanString(b, p + 1, end);
        if (q < 0) return -1;
        p = q + 1;
      } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
        p = scanNumber(b, p, end);
        if (p < 0) return -1;
      } else {
        p = scanLiteral(b, p, end);
        if (p < 0) return -1;
      }
      // After a value: close containers, or go on to the next element.
      for (;;) {
        if (depth === 0) return p;
        p = skipSpace(b, p, end);
        if (p >= end) return -1;
        const d = b[p]!;
        const inObject = this.stack[depth - 1] === 1;
        if (d === COMMA) {
          p = skipSpace(b, p + 1, end);
          if (inObject) {
            p = this.skipKey(b, p, end);
            if (p < 0) return -1;
          }
          break;
        }
        if (d !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return -1;
        depth--;
        p++;
      }
    }
  }

  /** Skips `"key" :` at `p` and the blanks after it: the index of the value, or -1. */
  private skipKey(b: Uint8Array, p: number, end: number): number {
    if (p >= end || b[p] !== QUOTE) return -1;
    const q = this.scanString(b, p + 1, end);
    if (q < 0) return -1;
    p = skipSpace(b, q + 1, end);
    if (p >= end || b[p] !== COLON) return -1;
    return skipSpace(b, p + 1, end);
  }
}

/** `String.prototype.isWellFormed` (Node 20): no lone surrogate. */
function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

function equalBytes(key: Uint8Array, b: Uint8Array, start: number, end: number): boolean {
  if (key.length !== end - start) return false;
  for (let i = 0; i < key.length; i++) if (key[i] !== b[start + i]) return false;
  return true;
}

/** The first index at or after `p` that is not JSON whitespace (space, tab, LF, CR). */
function skipSpace(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p]!;
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    p++;
  }
  return p;
}

/** Scans a JSON number at `p`: the index after it, or -1. */
function scanNumber(b: Uint8Array, p: number, end: number): number {
  if (b[p] === MINUS) p++;
  if (p >= end) return -1;
  const c = b[p]!;
  if (c === ZERO) p++;
  else if (c > ZERO && c <= NINE) p = skipDigits(b, p + 1, end);
  else return -1;
  if (p < end && b[p] === 0x2e) {
    p++;
    const from = p;
    p = skipDigits(b, p, end);
    if (p === from) return -1;
  }
  if (p < end && (b[p] === 0x65 || b[p] === 0x45)) {
    p++;
    if (p < end && (b[p] === 0x2b || b[p] === MINUS)) p++;
    const from = p;
    p = skipDigits(b, p, end);
    if (p === from) return -1;
  }
  return p;
}

/** The first index at or after `p` that is not an ASCII digit. */
function skipDigits(b: Uint8Array, p: number, end: number): number {
  while (p < end && b[p]! >= ZERO && b[p]! <= NINE) p++;
  return p;
}

/** The value of the valid JSON number `b[start, end)`, as `JSON.parse` reads it. */
function numberValue(b: Uint8Array, start: number, end: number, decoder: TextDecoder): number {
  const negative = b[start] === MINUS;
  let p = negative ? start + 1 : start;
  if (end - p <= 15) {
    let value = 0;
    for (; p < end; p++) {
      const c = b[p]!;
      if (c < ZERO || c > NINE) break;
      value = value * 10 + (c - ZERO);
    }
    // Integers of at most 15 digits are exact; -0 stays -0, as in JSON.parse.
    if (p === end) return negative ? -value : value;
  }
  return Number(decoder.decode(b.subarray(start, end)));
}

/** Scans `true`, `false` or `null` at `p`: the index after it, or -1. */
function scanLiteral(b: Uint8Array, p: number, end: number): number {
  const c = b[p];
  const word = c === 0x74 ? TRUE_BYTES : c === 0x66 ? FALSE_BYTES : c === 0x6e ? NULL_BYTES : undefined;
  if (word === undefined || p + word.length > end) return -1;
  for (let i = 1; i < word.length; i++) if (b[p + i] !== word[i]) return -1;
  return p + word.length;
}

const TRUE_BYTES = new TextEncoder().encode("true");
const FALSE_BYTES = new TextEncoder().encode("false");
const NULL_BYTES = new TextEncoder().encode("null");

/**
 * One top-level field of the JSON line `b[start, end)`, as `ownDataValue(JSON.parse(line), name)` gives
 * it: read with `scanner` (built for `[name]`) when the bytes allow, else from the record `parse` returns.
 */
export function fieldOfLine(
  scanner: LineScanner,
  b: Uint8Array,
  start: number,
  end: number,
  parse: () => object,
): unknown {
  const out: unknown[] = [undefined];
  return scanner.scan(b, start, end, out) ? out[0] : ownDataValue(parse(), scanner.fields[0]!);
}
