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
/**
 * Per line record: how many lines before this one (after the previous record) the kernel's filter judged
 * itself (`BlockKernel.filter`): each one record that does not match; 0 without a filter.
 */
export const ROW_SKIPPED = 5;
/**
 * Per line record of a block loaded with `cut` (`ROW_STATUS` = `ROW_OK`; else -1): how many top-level values
 * the line holds. Then the index in `BlockKernel.cuts` of the first value's start and end (the next values'
 * follow, two numbers each: where the value starts, and the index after it).
 */
export const ROW_MEMBERS = 6;
export const ROW_CUTS = 7;
/**
 * Per line record of a block loaded with `cut`: -1, or the line's epoch, a number that two lines of the
 * block share only when the bytes before, between and after their first `n` values are the same for any
 * `n` both hold (no blanks between the values, the same keys in the same order, as far as both go).
 */
export const ROW_EPOCH = 8;
/** Per line record: the first field's kind, start and end; field `k`'s at `ROW_FIELDS + 3 * k`. */
export const ROW_FIELDS = 9;

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
 * One test of a kernel's filter (`BlockKernel.filter`) on the plain ASCII string value (`KIND_ASCII`) of
 * wanted field `field`; a line whose such value fails it is judged by the kernel (no match). Each is a
 * necessary condition of the caller's match, so the kernel never judges a line that could match:
 * - `equals`: the value is one of `strings` (UTF-8 bytes);
 * - `date`: the value, when it is an ISO-8601 UTC instant of the form `isoUtcBytesMs` reads (and only
 *   then), lies within the bounds; a bound is the 22 ASCII bytes `yyyy-MM-ddTHH:mm:ss` then the three
 *   digits of its milliseconds (years 0000 to 9999), absent for no bound;
 * - `contains`: the value holds `needle` (with `fold`: ASCII letters of the value lower-cased).
 */
export type KernelTest =
  | { readonly field: number; readonly kind: "equals"; readonly strings: readonly Uint8Array[] }
  | {
      readonly field: number;
      readonly kind: "date";
      readonly lower: Uint8Array | undefined;
      readonly lowerInclusive: boolean;
      readonly upper: Uint8Array | undefined;
      readonly upperInclusive: boolean;
    }
  | {
      readonly field: number;
      readonly kind: "contains";
      readonly needle: Uint8Array;
      readonly fold: boolean;
    };

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
   * view `memory` last gave, in place (then `b` must not change until the block is done). With `filtered`,
   * its lines go through the filter last set (`filter`), if any. With `cut`, the records give where each
   * line's top-level values start and end (`ROW_MEMBERS`, `ROW_CUTS`, `ROW_EPOCH`, `cuts`), if the kernel
   * can (a kernel without `cuts` never does).
   * @returns false when the kernel cannot take the block (then nothing is scanned)
   */
  load(b: Uint8Array, start: number, end: number, filtered?: boolean, cut?: boolean): boolean;
  /**
   * Sets the filter that a block loaded `filtered` goes through: a line read `ROW_OK` (and at most
   * `maxLineBytes` bytes long, its `\r` included) whose value fails one of `tests` gets no record; the next
   * record's `ROW_SKIPPED`, or `tail` after the block's last record, counts it.
   * @returns false when the kernel cannot take these tests (too many, too long): then no block is filtered
   */
  filter?(tests: readonly KernelTest[], maxLineBytes: number): boolean;
  /** Once `next` returned 0: the lines the filter judged after the block's last record. */
  readonly tail?: number;
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
  /**
   * The cuts of the last `next` call's records (a block loaded with `cut`): per value of a line, where it
   * starts and the index after it, as indexes in the array given to `load` (see `ROW_CUTS`).
   */
  readonly cuts?: Int32Array | undefined;
  /** Numbers per record: `ROW_FIELDS + 3 * fields`. */
  readonly stride: number;
}

/**
 * Makes a kernel for the wanted top-level keys, given as their UTF-8 bytes (in field order; a key that no
 * line can spell without escapes is given as bytes no key can hold, e.g. a lone `"`).
 * @returns undefined when the kernel cannot serve these keys (too many, too long)
 */
export type BlockKernelFactory = (keys: readonly Uint8Array[]) => BlockKernel | undefined;
