/**
 * The parts of a parallel `fromNdjson` build (docs/node.md, "`fromNdjson(input, options)`"): the Node entry
 * cuts a file into ranges of whole lines, builds each range into a part (`IncidentSet.ndjsonBuild`, the same
 * code as the one-thread build, over that range's lines only), and appends the parts in file order to the
 * build of the first range, which remaps dictionary codes, text columns' value ids and rows. This module
 * holds what a part is (plain data: typed arrays to transfer between threads, arrays of scalars and
 * strings) and how a part's first error is carried over and numbered again in the whole file. The engine
 * stays pure: no files, threads or clocks here.
 */

import { type Codes, ValueIds } from "./columns.js";
import type { RecordsPart } from "./record-store.js";

/** One label field of a part: its dictionary column, its text column (it outgrew `maxDictionary`), or nothing. */
export type LabelPart =
  | {
      readonly field: string;
      readonly kind: "codes";
      /** Per row its code: 0 missing, 1 null, 2 array or object, 3… `values[code]`. */
      readonly codes: Codes;
      readonly values: readonly unknown[];
    }
  | {
      readonly field: string;
      readonly kind: "text";
      /** Per row its value id (the id-th value of `values`), or -1 missing, -2 null, -3 array or object. */
      readonly ids: Int32Array;
      readonly values: PackedValues;
    }
  | {
      readonly field: string;
      /** Dropped (past `maxDictionary` without a text index): the rows' values are not kept. */
      readonly kind: "dropped";
    };

/**
 * A text column's distinct values, packed to cross to another thread (`packValues`, `unpackValues`): the
 * strings joined into a few long strings and the other scalars listed, with each value's `ValueIds` hash.
 * Posting an array of half a million strings cost the receiving thread about as much as building them
 * (the structured clone reads every string back one by one); a few long strings are copied whole, and
 * the receiver takes each value as a slice of them.
 * Pays: bench/one-shot.ts, "set build" row (threads 2; CHANGELOG.md, Unreleased).
 */
export interface PackedValues {
  /** The strings, in id order, joined: each at most `PACKED_CHARS` long, but for one longer string alone. */
  readonly texts: readonly string[];
  /** Per value: a string's length (≥ 0), or `-1 - k` for the k-th entry of `others`. */
  readonly lengths: Int32Array;
  /** The values that are not strings (numbers, booleans), in id order. */
  readonly others: readonly unknown[];
  /** Per value: `ValueIds.hashOf(value)`. */
  readonly hashes: Int32Array;
}

/** The characters a string of `PackedValues.texts` holds at most (a string of V8 holds about 2^29). */
export const PACKED_CHARS = 1 << 24;

/**
 * Packs a text column's values (`PackedValues`); every value a string, a finite number or a boolean.
 * `hashes`, when given, holds each value's `ValueIds.hashOf` already (`ValueIds.hashesById`).
 */
export function packValues(
  values: readonly unknown[],
  maxChars = PACKED_CHARS,
  hashes: Int32Array = Int32Array.from(values, (value) => ValueIds.hashOf(value)),
): PackedValues {
  const n = values.length;
  const lengths = new Int32Array(n);
  const others: unknown[] = [];
  const texts: string[] = [];
  let pending: string[] = [];
  let chars = 0;
  for (let i = 0; i < n; i++) {
    const value = values[i];
    if (typeof value !== "string") {
      lengths[i] = -1 - others.length;
      others.push(value);
      continue;
    }
    if (chars > 0 && chars + value.length > maxChars) {
      texts.push(pending.join(""));
      pending = [];
      chars = 0;
    }
    pending.push(value);
    chars += value.length;
    lengths[i] = value.length;
  }
  texts.push(pending.join(""));
  return { texts, lengths, others, hashes };
}

/**
 * The values `packValues` packed, in id order (each string a slice of `texts`).
 * @throws {Error} when `packed` is not what `packValues` writes (a length past its text)
 */
export function unpackValues(packed: PackedValues): unknown[] {
  const { texts, lengths, others } = packed;
  const values: unknown[] = new Array(lengths.length);
  let t = 0;
  let text = texts[0] ?? "";
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    const length = lengths[i]!;
    if (length < 0) {
      values[i] = others[-1 - length];
      continue;
    }
    // The next text begins where this one cannot hold the string (as `packValues` cut them).
    if (at + length > text.length) {
      t++;
      if (t >= texts.length) throw new Error("IncidentSet: a packed value past its texts.");
      text = texts[t]!;
      at = 0;
      if (length > text.length) throw new Error("IncidentSet: a packed value past its texts.");
    }
    values[i] = text.slice(at, at + length);
    at += length;
  }
  return values;
}

/** A part's first error: a line's (`line`, 1-based within the part) or another. */
export interface PartError {
  /** The error's class: `SyntaxError`, `TypeError`, `RangeError` or `Error`. */
  readonly name: string;
  /** A line's error: its line within the part, and its message after `NDJSON line N: `. */
  readonly line?: number;
  readonly detail?: string;
  /** Another error's message. */
  readonly message: string;
}

/**
 * A part of a parallel build (`NdjsonBuild.exportPart`): rows `0 … rows - 1` of its range, in line order,
 * or its first error. Every typed array may be longer than `rows` (capacity).
 */
export interface NdjsonPart {
  /** Lines of the range, blank ones included (the number of the range's last line within it). */
  readonly lines: number;
  readonly rows: number;
  /** The range's first error: the part holds nothing else then. */
  readonly error?: PartError;
  readonly records?: RecordsPart;
  /** Per label field of the set, in the set's order. */
  readonly labels?: readonly LabelPart[];
  readonly dates?: readonly {
    readonly field: string;
    readonly ms: Float64Array;
    readonly states: Uint8Array;
  }[];
  readonly hashes?: readonly {
    readonly field: string;
    readonly hashes: Uint32Array;
    readonly arrayRows: readonly number[];
  }[];
  /** The order keys of the rows, how many are dated, and the rows sorted by them (`CreationOrder`). */
  readonly order?: {
    readonly time: Float64Array;
    readonly id: Float64Array;
    readonly dated: number;
    readonly sorted?: Int32Array;
  };
}

/** The line and message of each error a build threw for a line (`lineError`). */
const LINE_ERRORS = new WeakMap<Error, { line: number; detail: string }>();

/**
 * The error of line `line` of a build: `NDJSON line N: ` and `detail`, remembered so that a part's error can
 * be numbered again in the whole file (`partError`, `partErrorIn`).
 */
export function lineError<E extends Error>(
  Kind: new (message: string) => E,
  line: number,
  detail: string,
): E {
  const error = new Kind(`NDJSON line ${line}: ${detail}`);
  LINE_ERRORS.set(error, { line, detail });
  return error;
}

/** What a part keeps of an error its build threw (see `PartError`). */
export function partError(error: unknown): PartError {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  const known = error instanceof Error ? LINE_ERRORS.get(error) : undefined;
  return known === undefined ? { name, message } : { name, message, ...known };
}

/**
 * A part's error as the one-thread build throws it: a line's error numbered in the whole file (the part's
 * range starts after line `linesBefore`), of the same class.
 */
export function partErrorIn(error: PartError, linesBefore: number): Error {
  const Kind =
    error.name === "SyntaxError"
      ? SyntaxError
      : error.name === "TypeError"
        ? TypeError
        : error.name === "RangeError"
          ? RangeError
          : Error;
  if (error.line === undefined || error.detail === undefined) return new Kind(error.message);
  return lineError(Kind, linesBefore + error.line, error.detail);
}

/** The buffers of a part's typed arrays, each once, to transfer it to another thread without a copy. */
export function partBuffers(part: NdjsonPart): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  const add = (array: ArrayBufferView | undefined): void => {
    if (array !== undefined && array.buffer instanceof ArrayBuffer) buffers.add(array.buffer);
  };
  const records = part.records;
  if (records !== undefined) {
    for (const chunk of records.chunks) add(chunk);
    add(records.chunkOf);
    add(records.starts);
    add(records.lengths);
    const shapes = records.shapes;
    if (shapes !== undefined) {
      for (const d of [shapes.separators, ...shapes.dictionaries]) {
        if (d === undefined) continue;
        add(d.pool);
        add(d.at);
        add(d.len);
      }
      for (const shape of shapes.shapeSeparators) add(shape);
    }
  }
  for (const label of part.labels ?? []) {
    if (label.kind === "codes") add(label.codes);
    else if (label.kind === "text") {
      add(label.ids);
      add(label.values.lengths);
      add(label.values.hashes);
    }
  }
  for (const date of part.dates ?? []) {
    add(date.ms);
    add(date.states);
  }
  for (const hash of part.hashes ?? []) add(hash.hashes);
  add(part.order?.time);
  add(part.order?.id);
  add(part.order?.sorted);
  return [...buffers];
}
