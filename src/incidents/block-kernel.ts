/**
 * The interface of a block kernel: byte-level code outside the engine (the WebAssembly SIMD kernel of
 * assembly/line-kernel.ts, loaded by src/node/kernel.ts) that reads a whole block of NDJSON lines at once and
 * answers, per line, what `LineScanner.scanLine` answers, or leaves the line to it. The engine stays pure: it
 * takes a kernel factory as an option and never loads one itself; without one (or where WebAssembly SIMD is
 * missing) the JavaScript scanner reads every line, with the same answers (docs/semantics.md 1.7, "The byte
 * reader").
 */

/** Per line record: the index of the line's first byte. */
export const ROW_LINE_START = 0;
/** Per line record: the index of the `\n` that ends the line, or the block's end. */
export const ROW_LINE_END = 1;
/** Per line record (`ROW_STATUS` = `ROW_OK`): the start and end of the object, without the blanks around it. */
export const ROW_CONTENT_START = 2;
export const ROW_CONTENT_END = 3;
/** Per line record: `ROW_OK`, or `ROW_DEFER` when the JavaScript scanner must read the line. */
export const ROW_STATUS = 4;
/** Per line record: the first field's kind, start and end; field `k`'s at `ROW_FIELDS + 3 * k`. */
export const ROW_FIELDS = 5;

/** `ROW_STATUS`: one JSON object of valid UTF-8 that repeats no key, whose wanted fields follow. */
export const ROW_OK = 0;
/** `ROW_STATUS`: left to the JavaScript scanner (any other line). */
export const ROW_DEFER = 1;

/** A field's kind: absent from the line. */
export const KIND_MISSING = 0;
/** A string of ASCII bytes without escapes: the span is its content (quotes excluded). */
export const KIND_ASCII = 1;
/** Any other string: the span is its JSON text, quotes included. */
export const KIND_STRING = 2;
/** A number: the span is its JSON text. */
export const KIND_NUMBER = 3;
export const KIND_TRUE = 4;
export const KIND_FALSE = 5;
export const KIND_NULL = 6;
/** An object or an array: the span is its JSON text. */
export const KIND_CONTAINER = 7;

/**
 * A kernel bound to one list of wanted top-level keys. Not thread-safe state: one per scanner.
 *
 * Protocol: `load` a block, then call `next` until it returns 0; each call replaces `results` with the
 * records of the next lines (`stride` numbers each, laid out as the `ROW_` constants say), in order. Every
 * position is an index in the array given to `load`.
 */
export interface BlockKernel {
  /**
   * Takes `b[start, end)` as the block to scan (copied: `b` may change afterwards), or, when `b` is the
   * view `memory` last gave, in place (then `b` must not change until the block is done).
   * @returns false when the kernel cannot take the block (then nothing is scanned)
   */
  load(b: Uint8Array, start: number, end: number): boolean;
  /**
   * A view of `bytes` bytes of the kernel's own memory, where the caller may write a block so that `load`
   * takes it without a copy; undefined when the memory cannot grow that far. A call may grow the memory:
   * the bytes written through an earlier view are kept, at the same indexes of the new one, but the earlier
   * view may no longer be usable. `load` in place writes over the view's bytes after the block's end.
   */
  memory?(bytes: number): Uint8Array | undefined;
  /** Scans the next lines of the block: how many records `results` now holds (0: the block is done). */
  next(): number;
  /** The records of the last `next` call. */
  readonly results: Int32Array;
  /** Numbers per record: `ROW_FIELDS + 3 * fields`. */
  readonly stride: number;
}

/**
 * Makes a kernel for the wanted top-level keys, given as their UTF-8 bytes (in field order; a key that no
 * line can spell without escapes is given as bytes no key can hold, e.g. a lone `"`).
 * @returns undefined when the kernel cannot serve these keys (too many, too long)
 */
export type BlockKernelFactory = (keys: readonly Uint8Array[]) => BlockKernel | undefined;
