/**
 * `LineScanner`: reads chosen top-level fields of an NDJSON line straight from its UTF-8 bytes, validating
 * the whole line as JSON on the way, without building the record object. Repeated short values (labels) come back as
 * the same string each time. A line it cannot read exactly as `JSON.parse` would (a syntax error, a byte
 * order mark, an escape in a key, invalid UTF-8, a top level that is not an object) is left to
 * `JSON.parse`, so errors and values are always `JSON.parse`'s. One piece: the fast path, the general scan
 * and the duplicate-key check share the scanner's per-line state.
 */

import {
  type BlockKernel,
  type BlockKernelFactory,
  type KernelTest,
  KIND_ASCII,
  KIND_CONTAINER,
  KIND_FALSE,
  KIND_MISSING,
  KIND_NUMBER,
  KIND_STRING,
  KIND_TRUE,
  ROW_CONTENT_END,
  ROW_CONTENT_START,
  ROW_CUTS,
  ROW_EPOCH,
  ROW_FIELDS,
  ROW_LINE_END,
  ROW_LINE_START,
  ROW_MEMBERS,
  ROW_OK,
  ROW_STATUS,
} from "./block-kernel.js";
import { ownDataValue } from "./columns.js";

const LF = 10;
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

/** `scanLine`: the fields are read (`kinds`, `starts`, `ends`, `values`). */
export const SCAN_OK = 0;
/**
 * `scanLine`: the line must go to `JSON.parse` (then `kinds` is meaningless): it is not JSON, not an
 * object, or not valid UTF-8 (the parse or the decoder throws), or a form the scanner leaves to it.
 */
export const SCAN_FALLBACK = 1;
/** `scanLine`: the line is a valid JSON object that repeats a key in one object (docs/semantics.md 3.1). */
export const SCAN_DUPLICATE = 2;

/** A field's kind after `scanLine`: absent from the line. */
export const FIELD_MISSING = 0;
/** A string of ASCII bytes without escapes: its content is `b[starts[k], ends[k])` (quotes excluded). */
export const FIELD_ASCII = 1;
/** Any other value (a number, a literal, a string with escapes or non-ASCII text, an array, an object): `values[k]`. */
export const FIELD_VALUE = 2;

/** Key positions of the previous line remembered (most lines repeat the keys of the line before). */
const MAX_SHAPE = 256;
/** New keys of one object compared pair by pair up to this count; a set of the decoded keys past it. */
const PAIRWISE_KEYS = 32;

/** Byte classes inside a JSON string: 0 plain ASCII, 1 `"`, 2 `\`, 3 a control character, 4 ≥ 0x80. */
const STRING_CLASS = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_CLASS[c] = 3;
STRING_CLASS[QUOTE] = 1;
STRING_CLASS[BACKSLASH] = 2;
for (let c = 0x80; c < 0x100; c++) STRING_CLASS[c] = 4;

/**
 * The closing quote of a string of plain ASCII bytes from `p` (after its opening quote): no escape, no
 * control character, no byte ≥ 0x80 (-1 when one comes first, or the string does not end before `end`).
 * Four bytes a step, through `view` (a view of `b`'s buffer).
 */
function plainStringEnd(view: DataView<ArrayBufferLike>, b: Uint8Array, p: number, end: number): number {
  for (p = plainRun(view, p, end); p < end; p++) {
    const c = b[p]!;
    if (c === QUOTE) return p;
    if (c === BACKSLASH || c < 0x20 || c >= 0x80) return -1;
  }
  return -1;
}

/**
 * Skips plain bytes from `p` four at a time while none of a word is a quote, a backslash, a control
 * character or ≥ 0x80: the index where a word holding one starts (or fewer than four bytes are left).
 */
function plainRun(view: DataView<ArrayBufferLike>, p: number, end: number): number {
  while (p + 4 <= end) {
    const x = view.getInt32(p, true);
    const quote = x ^ 0x22222222;
    const backslash = x ^ 0x5c5c5c5c;
    if (
      ((x - 0x20202020) |
        0 |
        x |
        (((quote - 0x01010101) | 0) & ~quote) |
        (((backslash - 0x01010101) | 0) & ~backslash)) &
      0x80808080
    ) {
      return p;
    }
    p += 4;
  }
  return p;
}

/** FNV-1a over `b[start, end)`. */
export function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return h >>> 0;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));
}

/**
 * Reads chosen top-level fields of JSON lines from their UTF-8 bytes, validating the whole line as JSON on
 * the way (see the file comment). `scanLine` answers `SCAN_OK` only when the fields it reports are exactly
 * what `JSON.parse` of the line followed by `ownDataValue` would give (a missing field is `FIELD_MISSING`),
 * `SCAN_DUPLICATE` when the line is valid JSON that repeats a key in one object, at any depth (keys compared
 * after decoding their escapes, as `JSON.parse` compares them), and `SCAN_FALLBACK` otherwise.
 *
 * Strings of ASCII bytes without escapes are not decoded: `kinds[k]` is `FIELD_ASCII` and the bytes are
 * `b[starts[k], ends[k])`, so that the columns can look them up by their bytes and decode only new values.
 * Repeated top-level keys in the order of the previous line are matched by comparing bytes, and such a
 * line needs no duplicate check of its top-level keys.
 */
export class LineScanner {
  /** The fields read, in the order of the results. */
  readonly fields: readonly string[];
  /** Per field after `scanLine`: `FIELD_MISSING`, `FIELD_ASCII` or `FIELD_VALUE`. */
  readonly kinds: Uint8Array;
  /** Per `FIELD_ASCII` field: the start and end of its string's content in the line's buffer. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Per `FIELD_VALUE` field: its value, as `JSON.parse` gives it. */
  readonly values: unknown[];
  private readonly keys: Uint8Array[] = [];
  private readonly keyHashes: Uint32Array;
  /** Open addressing over key hashes: field index + 1, 0 when empty. */
  private readonly keySlots: Int32Array;
  /** Field indexes by name, for keys written with escapes. */
  private readonly names = new Map<string, number>();
  /** The previous line's top-level keys: their count, fields, flags (1 escaped, 2 non-ASCII) and bytes. */
  private shapeCount = 0;
  /** Whether the previous line's keys are all plain ASCII (no escape), so that `fastScan` may compare them. */
  private shapePlain = false;
  private readonly shapeField = new Int32Array(MAX_SHAPE);
  /**
   * After a line read by the fast path (the previous line's keys, no blanks), or by the kernel of a block
   * given to `prepare` with `cut`: how many top-level values it holds, else -1; and where each starts and
   * ends (`memberCuts[memberCutsAt + 2i]`, `memberCuts[memberCutsAt + 2i + 1]`, indexes into the line's
   * buffer; the kernel's cuts are not copied, so they are valid until the next scan). Handed to the records'
   * shape encoder, which then need not find the values again (record-shapes.ts `encode`).
   */
  members = -1;
  memberCuts: Int32Array = new Int32Array(2 * MAX_SHAPE);
  memberCutsAt = 0;
  /** The fast path's own `memberCuts`. */
  private readonly fastCuts = this.memberCuts;
  /**
   * With `members` set: -1, or the line's epoch. Lines of one epoch hold the same keys (a prefix of the same
   * list) written without blanks, so the bytes between their values are the same for as many values
   * (record-shapes.ts `encode` then compares them for one line of the epoch, not for every line). The fast
   * path's epoch grows whenever the remembered top-level keys change (`keepShape`); the kernel's epochs
   * (`ROW_EPOCH`) are given numbers of their own, from the same count, so the two never share one.
   */
  shapeEpoch = 0;
  /** The last epoch given (`shapeEpoch`), the fast path's, and the kernel's last one and the number it was given. */
  private epochs = 0;
  private fastEpoch = 0;
  private kernelEpoch = -1;
  private kernelEpochAs = -1;
  /** Whether the block given to `prepare` is cut by the kernel (`members`). */
  private kernelCuts = false;
  private readonly shapeFlags = new Uint8Array(MAX_SHAPE);
  private readonly shapeStart = new Int32Array(MAX_SHAPE + 1);
  private shapeBytes = new Uint8Array(1024);
  private shapeView = new DataView(this.shapeBytes.buffer);
  /** A view of the buffer of the line being scanned (words read four bytes at a time), and that buffer. */
  private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private viewOf: Uint8Array | undefined;
  /** The keys of the objects open in the line (a stack): their bytes, flags and fields (-1 nested). */
  private keyStarts = new Int32Array(64);
  private keyEnds = new Int32Array(64);
  private keyFlags = new Uint8Array(64);
  private keyFields = new Int32Array(64);
  private keyTop = 0;
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private readonly strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  private readonly encoder = new TextEncoder();
  /** Per scan: a byte ≥ 0x80 was seen (the line must be checked as UTF-8). */
  private high = false;
  /** Per scan: a key repeats in one object. */
  private duplicate = false;
  /** After an `open` scan: the end of the line's content (after its closing brace), and the index after its `\n`. */
  lineEnd = 0;
  next = 0;
  /** Per string: it held an escape. */
  private escaped = false;
  /** Containers open while skipping a nested value: 1 object, 2 array; and each object's first key. */
  private stack = new Uint8Array(64);
  private frames = new Int32Array(64);
  /** The block kernel, when one was given and serves these fields (see `prepare`). */
  private readonly kernel: BlockKernel | undefined;
  /** The buffer whose block the kernel holds (`prepare`), the records of its last batch, and the next one read. */
  private kernelOf: Uint8Array | undefined;
  private kernelRows = 0;
  private kernelRow = 0;

  /**
   * @param fields - top-level field names; a name that is not well-formed UTF-16 is never found in bytes
   * @param kernel - a block kernel factory (src/node/kernel.ts): lines of a block given to `prepare` are then
   *   read by it, with the same answers
   */
  constructor(fields: readonly string[], kernel?: BlockKernelFactory) {
    this.fields = fields;
    this.kinds = new Uint8Array(fields.length);
    this.starts = new Int32Array(fields.length);
    this.ends = new Int32Array(fields.length);
    this.values = new Array<unknown>(fields.length).fill(undefined);
    let size = 16;
    while (size < fields.length * 4) size *= 2;
    this.keySlots = new Int32Array(size);
    this.keyHashes = new Uint32Array(fields.length);
    fields.forEach((field, index) => {
      if (!this.names.has(field)) this.names.set(field, index);
      const bytes = this.encoder.encode(field);
      this.keys.push(bytes);
      // A lone surrogate encodes as U+FFFD: such a name can only be written with an escape (found through
      // `names`), so it is not entered in the byte table.
      if (!isWellFormed(field)) return;
      const h = hashBytes(bytes, 0, bytes.length);
      this.keyHashes[index] = h;
      let slot = h & (size - 1);
      while (this.keySlots[slot] !== 0) slot = (slot + 1) & (size - 1);
      this.keySlots[slot] = index + 1;
    });
    // A name with a lone surrogate is given as a lone quote, which no key written without escapes holds.
    this.kernel = kernel?.(fields.map((field, k) => (isWellFormed(field) ? this.keys[k]! : QUOTE_ONLY)));
  }

  /** Whether a block kernel reads the blocks given to `prepare`. */
  get hasKernel(): boolean {
    return this.kernel !== undefined;
  }

  /**
   * Hands the lines of `b[start, end)` to the block kernel, if there is one: `scanLine` then takes the
   * kernel's answer for a line of that block (it must be called for the block's lines in order; any other
   * call reads the bytes itself), until `release` or the next `prepare`. The kernel copies the block, but the
   * caller must `release` before it changes `b`'s bytes, since `scanLine` recognizes the block by `b`.
   * With `cut`, a line the kernel reads gets `members`, `memberCuts` and `shapeEpoch` too (when the kernel
   * can cut lines: `BlockKernel.cuts`).
   */
  prepare(b: Uint8Array, start: number, end: number, cut = false): void {
    if (this.kernel === undefined) return;
    this.kernelOf = this.kernel.load(b, start, end, false, cut) ? b : undefined;
    this.kernelRows = 0;
    this.kernelRow = 0;
    this.kernelCuts = cut;
    // The kernel's epochs are its block's.
    this.kernelEpoch = -1;
  }

  /** Forgets the block given to `prepare`. */
  release(): void {
    this.kernelOf = undefined;
  }

  /**
   * `scanLine` by the kernel's record of the line `b[start, end)` (see `scanLine`): `SCAN_OK` with the fields
   * set, or -1 when the kernel left the line to the scanner or has no record of it.
   */
  private fromKernel(b: Uint8Array, start: number, end: number, open: boolean): number {
    const kernel = this.kernel!;
    const stride = kernel.stride;
    let results = kernel.results;
    let i = this.kernelRow;
    for (;;) {
      if (i >= this.kernelRows) {
        const n = kernel.next();
        if (n === 0) {
          this.kernelOf = undefined;
          return -1;
        }
        results = kernel.results;
        this.kernelRows = n;
        i = 0;
      }
      if (results[i * stride + ROW_LINE_END]! >= start) break;
      i++;
    }
    this.kernelRow = i;
    const row = i * stride;
    // The line's content, with only blanks (space, tab, CR) between it and `start`, `end`.
    if (
      results[row + ROW_STATUS] !== ROW_OK ||
      results[row + ROW_LINE_START]! > start ||
      start > results[row + ROW_CONTENT_START]!
    )
      return -1;
    const contentEnd = results[row + ROW_CONTENT_END]!;
    const lineEnd = results[row + ROW_LINE_END]!;
    if (open) {
      if (lineEnd >= end || b[lineEnd] !== LF) return -1;
      this.next = lineEnd + 1;
      this.lineEnd = contentEnd;
    } else if (end < contentEnd || end > lineEnd) return -1;
    this.takeRow(b, results, row);
    const members = results[row + ROW_MEMBERS]!;
    const cuts = kernel.cuts;
    // The kernel's cuts, not a copy: the build took 0.96x the processor time of a copy into `memberCuts`
    // (1M distinct titles, eight pairs; docs/performance.md, "The set build on the line kernel").
    if (this.kernelCuts && members >= 0 && cuts !== undefined) {
      this.memberCuts = cuts;
      this.memberCutsAt = results[row + ROW_CUTS]!;
      this.members = members;
      const epoch = results[row + ROW_EPOCH]!;
      if (epoch < 0) this.shapeEpoch = -1;
      else {
        if (epoch !== this.kernelEpoch) {
          this.kernelEpoch = epoch;
          this.kernelEpochAs = ++this.epochs;
        }
        this.shapeEpoch = this.kernelEpochAs;
      }
    }
    return SCAN_OK;
  }

  /**
   * Hands `b[start, end)` to the block kernel for a caller that reads its line records itself (one pass
   * over them, `BlockKernel.next`), instead of `scanLine`: `scanLine` then reads every line's bytes itself
   * (a line the kernel left to the scanner goes there), until the next `prepare`.
   * With `filtered`, the block goes through the kernel's filter (`kernelFilter`).
   * @returns the kernel, holding the block; undefined when there is no kernel or it cannot take the block
   */
  loadRows(b: Uint8Array, start: number, end: number, filtered = false): BlockKernel | undefined {
    this.kernelOf = undefined;
    if (this.kernel === undefined) return undefined;
    return this.kernel.load(b, start, end, filtered) ? this.kernel : undefined;
  }

  /**
   * Sets the kernel's filter for the blocks `loadRows` takes `filtered` (`BlockKernel.filter`); the fields
   * of the tests are indexes in this scanner's fields.
   * @returns whether the kernel took it (false without a kernel, or one without a filter)
   */
  kernelFilter(tests: readonly KernelTest[], maxLineBytes: number): boolean {
    return this.kernel?.filter?.(tests, maxLineBytes) ?? false;
  }

  /**
   * A view of the kernel's own memory of at least `bytes` bytes, where a block may be written so that
   * `prepare` and `loadRows` take it without a copy (`BlockKernel.memory`); undefined without a kernel
   * that offers one. Valid until the next call (the memory may move when it grows).
   */
  kernelMemory(bytes: number): Uint8Array | undefined {
    return this.kernel?.memory?.(bytes);
  }

  /**
   * Sets the fields (`kinds`, `starts`, `ends`, `values`) from the kernel's record of a line at
   * `results[row…]`, whose status is `ROW_OK` (what `scanLine` answers `SCAN_OK` for on that line).
   */
  takeRow(b: Uint8Array, results: Int32Array, row: number): void {
    const { kinds, starts, ends, values } = this;
    for (let k = 0, at = row + ROW_FIELDS; k < kinds.length; k++, at += 3) {
      const kind = results[at]!;
      if (kind === KIND_MISSING) {
        kinds[k] = FIELD_MISSING;
        continue;
      }
      const s = results[at + 1]!;
      const e = results[at + 2]!;
      if (kind === KIND_ASCII) {
        kinds[k] = FIELD_ASCII;
        starts[k] = s;
        ends[k] = e;
        continue;
      }
      kinds[k] = FIELD_VALUE;
      values[k] =
        kind === KIND_NUMBER
          ? numberValue(b, s, e, this.decoder)
          : kind === KIND_STRING || kind === KIND_CONTAINER
            ? JSON.parse(this.decoder.decode(b.subarray(s, e)))
            : kind === KIND_TRUE
              ? true
              : kind === KIND_FALSE
                ? false
                : null;
    }
  }

  /**
   * Reads the fields of the JSON line `b[start, end)` (a byte order mark at its start is skipped, as
   * `TextDecoder` drops it) into `kinds`, `starts`, `ends` and `values`. With `open`, `end` is only a limit:
   * the line is the object at `start` followed by blanks and a `\n` (then `SCAN_OK` sets `next` to the index
   * after that `\n`, and the line's content ends at its closing brace); a line that does not end so before
   * `end` is `SCAN_FALLBACK`.
   * @returns `SCAN_OK`, `SCAN_DUPLICATE` or `SCAN_FALLBACK` (see the class comment)
   */
  scanLine(b: Uint8Array, start: number, end: number, open = false): number {
    const kinds = this.kinds;
    for (let k = 0; k < kinds.length; k++) kinds[k] = FIELD_MISSING;
    this.members = -1;
    if (b !== this.viewOf) {
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
      this.viewOf = b;
    }
    if (b === this.kernelOf) {
      const status = this.fromKernel(b, start, end, open);
      if (status >= 0) return status;
    }
    this.high = false;
    this.duplicate = false;
    this.keyTop = 0;
    this.shapeEpoch = this.fastEpoch;
    this.memberCuts = this.fastCuts;
    this.memberCutsAt = 0;
    if (this.shapePlain && this.fastScan(b, start, end, open)) return SCAN_OK;
    let p = start;
    if (end - p >= 3 && b[p] === 0xef && b[p + 1] === 0xbb && b[p + 2] === 0xbf) {
      p += 3;
      this.high = true;
    }
    p = skipSpace(b, p, end);
    if (p >= end || b[p] !== OPEN_BRACE) return SCAN_FALLBACK;
    p = skipSpace(b, p + 1, end);
    let count = 0;
    let matched = 0;
    let same = true;
    if (p < end && b[p] === CLOSE_BRACE) p++;
    else {
      const shapeBytes = this.shapeBytes;
      for (;;) {
        if (p >= end || b[p] !== QUOTE) return SCAN_FALLBACK;
        const keyStart = p + 1;
        let keyEnd = -1;
        let field = -1;
        let flags = 0;
        if (same && count < this.shapeCount) {
          // The key at this position on the previous line, byte for byte (its text was valid then).
          const from = this.shapeStart[count]!;
          const length = this.shapeStart[count + 1]! - from;
          const close = keyStart + length;
          if (close < end && b[close] === QUOTE) {
            let i = 0;
            const view = this.view;
            const shapeView = this.shapeView;
            while (
              i + 4 <= length &&
              view.getInt32(keyStart + i, true) === shapeView.getInt32(from + i, true)
            )
              i += 4;
            while (i < length && b[keyStart + i] === shapeBytes[from + i]) i++;
            if (i === length) {
              keyEnd = close;
              field = this.shapeField[count]!;
              flags = this.shapeFlags[count]!;
              if ((flags & 2) !== 0) this.high = true;
              matched = count + 1;
            }
          }
        }
        if (keyEnd < 0) {
          same = false;
          const wasHigh: boolean = this.high;
          this.high = false;
          this.escaped = false;
          keyEnd = this.scanString(b, keyStart, end);
          if (keyEnd < 0) return SCAN_FALLBACK;
          flags = (this.escaped ? 1 : 0) | (this.high ? 2 : 0);
          this.high = wasHigh || this.high;
          field =
            (flags & 1) !== 0
              ? (this.names.get(this.keyText(b, keyStart, keyEnd, 1)) ?? -1)
              : this.fieldOf(b, keyStart, keyEnd);
        }
        this.pushKey(keyStart, keyEnd, flags, field);
        count++;
        p = skipSpace(b, keyEnd + 1, end);
        if (p >= end || b[p] !== COLON) return SCAN_FALLBACK;
        p = skipSpace(b, p + 1, end);
        if (p >= end) return SCAN_FALLBACK;
        const valueEnd = field < 0 ? this.skipValue(b, p, end) : this.readValue(b, p, end, field);
        if (valueEnd < 0) return SCAN_FALLBACK;
        p = skipSpace(b, valueEnd, end);
        if (p >= end) return SCAN_FALLBACK;
        if (b[p] === COMMA) {
          p = skipSpace(b, p + 1, end);
          continue;
        }
        if (b[p] !== CLOSE_BRACE) return SCAN_FALLBACK;
        p++;
        break;
      }
    }
    if (open) {
      // The line ends at the first `\n` after the object, blanks (spaces, tabs, CR) between.
      let q = p;
      while (q < end && (b[q] === 32 || b[q] === 9 || b[q] === 13)) q++;
      if (q >= end || b[q] !== LF) return SCAN_FALLBACK;
      this.next = q + 1;
      this.lineEnd = p;
      end = p;
    } else if (skipSpace(b, p, end) !== end) return SCAN_FALLBACK;
    if (this.high) {
      try {
        this.strict.decode(b.subarray(start, end));
      } catch {
        return SCAN_FALLBACK;
      }
    }
    // Keys in the previous line's order are distinct (it was checked); each other key is compared.
    if (!same) {
      if (this.repeats(b, 0, count, matched)) this.duplicate = true;
      else this.keepShape(b, matched, count);
    }
    return this.duplicate ? SCAN_DUPLICATE : SCAN_OK;
  }

  /**
   * The common line, read without `scanLine`'s generality: compact (no blanks), its keys the previous
   * line's in the same order, or the first of them (plain ASCII, known to be distinct), each value a string
   * of plain ASCII bytes (no escape, no control character), a number or a literal. Sets the fields as
   * `scanLine` sets them and returns true; false when the line is not of that form (the fields are then
   * reset, and `scanLine` reads it), so the answers are `scanLine`'s on every line.
   */
  private fastScan(b: Uint8Array, start: number, end: number, open: boolean): boolean {
    const n = this.shapeCount;
    const { view, shapeView, shapeBytes, shapeStart, shapeField, kinds, starts, ends, values } = this;
    const cuts = this.fastCuts;
    let members = 0;
    let p = start;
    if (b[p] !== OPEN_BRACE) return false;
    p++;
    for (let i = 0; i < n; i++) {
      const from = shapeStart[i]!;
      const length = shapeStart[i + 1]! - from;
      const keyStart = p + 1;
      const close = keyStart + length;
      if (close + 1 >= end || b[p] !== QUOTE || b[close] !== QUOTE || b[close + 1] !== COLON)
        return this.unfast();
      let k = 0;
      while (k + 4 <= length && view.getInt32(keyStart + k, true) === shapeView.getInt32(from + k, true))
        k += 4;
      while (k < length && b[keyStart + k] === shapeBytes[from + k]) k++;
      if (k !== length) return this.unfast();
      p = close + 2;
      cuts[2 * i] = p;
      const field = shapeField[i]!;
      const c = b[p]!;
      if (c === QUOTE) {
        const q = plainStringEnd(view, b, p + 1, end);
        if (q < 0) return this.unfast();
        if (field >= 0) {
          kinds[field] = FIELD_ASCII;
          starts[field] = p + 1;
          ends[field] = q;
        }
        p = q + 1;
      } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
        const q = scanNumber(b, p, end);
        if (q < 0) return this.unfast();
        if (field >= 0) {
          values[field] = numberValue(b, p, q, this.decoder);
          kinds[field] = FIELD_VALUE;
        }
        p = q;
      } else {
        const q = scanLiteral(b, p, end);
        if (q < 0) return this.unfast();
        if (field >= 0) {
          values[field] = c === 0x74 ? true : c === 0x66 ? false : null;
          kinds[field] = FIELD_VALUE;
        }
        p = q;
      }
      if (p >= end) return this.unfast();
      cuts[2 * i + 1] = p;
      const c2 = b[p]!;
      p++;
      if (c2 === COMMA && i < n - 1) continue;
      // The object ends here: after the last key of the shape, or after the first `i + 1` of its keys (a
      // line without the previous line's last fields, which keeps the shape for the lines after it).
      if (c2 === CLOSE_BRACE) {
        members = i + 1;
        break;
      }
      return this.unfast();
    }
    if (open) {
      if (p >= end || b[p] !== LF) return this.unfast();
      this.next = p + 1;
      this.lineEnd = p;
    } else if (p !== end) return this.unfast();
    this.members = members;
    return true;
  }

  /** `fastScan` gives the line up: the fields it set are reset. */
  private unfast(): false {
    this.kinds.fill(FIELD_MISSING);
    return false;
  }

  /**
   * Reads the fields of the JSON line `b[start, end)` into `out` (one value per field, `undefined` when
   * absent).
   * @returns true when `out` holds exactly what `JSON.parse` would give; false when the line must go to
   *   `JSON.parse` (then `out` is meaningless), or repeats a key
   */
  scan(b: Uint8Array, start: number, end: number, out: unknown[]): boolean {
    if (this.scanLine(b, start, end) !== SCAN_OK) return false;
    for (let k = 0; k < this.fields.length; k++) out[k] = this.value(b, k);
    return true;
  }

  /** The string of the ASCII bytes `b[start, end)`. */
  readonly decodeAscii = (b: Uint8Array, start: number, end: number): string =>
    this.decoder.decode(b.subarray(start, end));

  /** Field `k`'s value after `SCAN_OK` (`b`: the line's buffer), as `JSON.parse` gives it. */
  value(b: Uint8Array, k: number): unknown {
    const kind = this.kinds[k];
    if (kind === FIELD_ASCII) return this.decoder.decode(b.subarray(this.starts[k], this.ends[k]));
    return kind === FIELD_VALUE ? this.values[k] : undefined;
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

  /** The text of the key `b[start, end)` (its content, without quotes): decoded, escapes included. */
  private keyText(b: Uint8Array, start: number, end: number, flags: number): string {
    return (flags & 1) !== 0
      ? (JSON.parse(this.decoder.decode(b.subarray(start - 1, end + 1))) as string)
      : this.decoder.decode(b.subarray(start, end));
  }

  /** Pushes a key on the stack of the open objects' keys. */
  private pushKey(start: number, end: number, flags: number, field: number): void {
    const top = this.keyTop;
    if (top === this.keyStarts.length) {
      const size = top * 2;
      this.keyStarts = widen32(this.keyStarts, size);
      this.keyEnds = widen32(this.keyEnds, size);
      this.keyFields = widen32(this.keyFields, size);
      const flagsWide = new Uint8Array(size);
      flagsWide.set(this.keyFlags);
      this.keyFlags = flagsWide;
    }
    this.keyStarts[top] = start;
    this.keyEnds[top] = end;
    this.keyFlags[top] = flags;
    this.keyFields[top] = field;
    this.keyTop = top + 1;
  }

  /**
   * True when a key of `[from, to)` on the key stack equals an earlier one of that range; the keys before
   * `known` are known to be distinct.
   */
  private repeats(b: Uint8Array, from: number, to: number, known: number): boolean {
    const n = to - from;
    if (n < 2) return false;
    const { keyStarts, keyEnds, keyFlags } = this;
    if (n > PAIRWISE_KEYS) {
      const seen = new Set<string>();
      for (let i = from; i < to; i++) seen.add(this.keyText(b, keyStarts[i]!, keyEnds[i]!, keyFlags[i]!));
      return seen.size < n;
    }
    for (let i = Math.max(from + 1, known); i < to; i++) {
      const si = keyStarts[i]!;
      const li = keyEnds[i]! - si;
      const fi = keyFlags[i]! & 1;
      for (let j = from; j < i; j++) {
        const sj = keyStarts[j]!;
        const lj = keyEnds[j]! - sj;
        if ((fi | (keyFlags[j]! & 1)) === 0) {
          if (li !== lj) continue;
          let k = 0;
          while (k < li && b[si + k] === b[sj + k]) k++;
          if (k === li) return true;
        } else if (
          this.keyText(b, si, si + li, keyFlags[i]!) === this.keyText(b, sj, sj + lj, keyFlags[j]!)
        ) {
          return true;
        }
      }
    }
    return false;
  }

  /** Remembers the line's top-level keys from position `from` on (the ones before are the same). */
  private keepShape(b: Uint8Array, from: number, count: number): void {
    this.fastEpoch = ++this.epochs;
    this.shapeEpoch = this.fastEpoch;
    const n = Math.min(count, MAX_SHAPE);
    let at = this.shapeStart[from]!;
    for (let i = from; i < n; i++) {
      const s = this.keyStarts[i]!;
      const length = this.keyEnds[i]! - s;
      if (at + length > this.shapeBytes.length) {
        const wider = new Uint8Array(Math.max(this.shapeBytes.length * 2, at + length));
        wider.set(this.shapeBytes);
        this.shapeBytes = wider;
        this.shapeView = new DataView(wider.buffer);
      }
      this.shapeBytes.set(b.subarray(s, s + length), at);
      this.shapeField[i] = this.keyFields[i]!;
      this.shapeFlags[i] = this.keyFlags[i]!;
      at += length;
      this.shapeStart[i + 1] = at;
    }
    this.shapeCount = n;
    let plain = n > 0;
    for (let i = 0; i < n; i++) if (this.shapeFlags[i] !== 0) plain = false;
    this.shapePlain = plain;
  }

  /**
   * Scans a string's body from `p` (after the opening quote): the index of the closing quote, or -1 when
   * the string is not valid JSON. Sets `escaped` when it holds an escape and `high` on a byte ≥ 0x80.
   */
  private scanString(b: Uint8Array, p: number, end: number): number {
    p = plainRun(this.view, p, end);
    for (; p < end; p++) {
      const kind = STRING_CLASS[b[p]!]!;
      if (kind === 0) continue;
      if (kind === 1) return p;
      if (kind === 4) {
        this.high = true;
        continue;
      }
      if (kind === 3) return -1;
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
    }
    return -1;
  }

  /** Reads the value at `p` as field `field`'s: the index after it, or -1 (see `scanLine`). */
  private readValue(b: Uint8Array, p: number, end: number, field: number): number {
    const c = b[p]!;
    if (c === QUOTE) {
      const wasHigh = this.high;
      this.high = false;
      this.escaped = false;
      const q = this.scanString(b, p + 1, end);
      if (q < 0) return -1;
      const high = this.high;
      this.high = wasHigh || high;
      if (this.escaped) {
        this.values[field] = JSON.parse(this.decoder.decode(b.subarray(p, q + 1)));
        this.kinds[field] = FIELD_VALUE;
      } else if (high) {
        this.values[field] = this.decoder.decode(b.subarray(p + 1, q));
        this.kinds[field] = FIELD_VALUE;
      } else {
        this.starts[field] = p + 1;
        this.ends[field] = q;
        this.kinds[field] = FIELD_ASCII;
      }
      return q + 1;
    }
    let q: number;
    let value: unknown;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      q = this.skipValue(b, p, end);
      if (q < 0) return -1;
      value = JSON.parse(this.decoder.decode(b.subarray(p, q)));
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      q = scanNumber(b, p, end);
      if (q < 0) return -1;
      value = numberValue(b, p, q, this.decoder);
    } else {
      q = scanLiteral(b, p, end);
      if (q < 0) return -1;
      value = c === 0x74 ? true : c === 0x66 ? false : null;
    }
    this.values[field] = value;
    this.kinds[field] = FIELD_VALUE;
    return q;
  }

  /** Skips any JSON value at `p`, validating it and checking its objects' keys: the index after it, or -1. */
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
          this.frames = widen32(this.frames, depth * 2);
        }
        this.frames[depth] = this.keyTop;
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
        if (inObject) {
          const from = this.frames[depth]!;
          if (!this.duplicate && this.repeats(b, from, this.keyTop, from)) this.duplicate = true;
          this.keyTop = from;
        }
        p++;
      }
    }
  }

  /** Skips `"key" :` at `p` (the key pushed on the key stack) and the blanks after it: the index of the value, or -1. */
  private skipKey(b: Uint8Array, p: number, end: number): number {
    if (p >= end || b[p] !== QUOTE) return -1;
    this.escaped = false;
    const q = this.scanString(b, p + 1, end);
    if (q < 0) return -1;
    this.pushKey(p + 1, q, this.escaped ? 1 : 0, -1);
    p = skipSpace(b, q + 1, end);
    if (p >= end || b[p] !== COLON) return -1;
    return skipSpace(b, p + 1, end);
  }
}

function widen32(from: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  const to = new Int32Array(size);
  to.set(from.subarray(0, Math.min(from.length, size)));
  return to;
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

/** The first index at or after `p` that is not JSON whitespace other than `\n` (space, tab, CR). */
function skipSpace(b: Uint8Array, p: number, end: number): number {
  while (p < end) {
    const c = b[p]!;
    // No `\n`: it ends an NDJSON line, so a line holds none (and an open scan must stop at it).
    if (c !== 32 && c !== 9 && c !== 13) break;
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

const QUOTE_ONLY = new Uint8Array([QUOTE]);
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
