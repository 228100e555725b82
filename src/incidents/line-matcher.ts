/**
 * Matching one NDJSON line against Search Conditions straight from its UTF-8 bytes: the line is validated as
 * JSON by the `LineScanner` (line-scanner.ts), which finds the top-level keys the condition names and leaves
 * every other value unbuilt; only those fields are decoded, into a small record that the compiled predicate
 * reads. A condition reads nothing but the top-level fields of its field paths (docs/semantics.md 1.1: own
 * properties; 1.5: paths), so the predicate answers on that record exactly as on the whole parsed line.
 *
 * Before anything is decoded, a byte prefilter settles most lines: where the condition requires (through
 * its top-level AND) that a field equal one of some operands, a plain ASCII string value of that field that
 * equals none of them cannot match (a string equals a string operand only when the two are the same; in a
 * catalogue date field it equals a `$date` operand when it reads as that instant, docs/semantics.md 1.5),
 * and the line is answered without decoding or calling the predicate. Any other value of the field (an
 * array, an escaped or non-ASCII string, a number) goes to the predicate. The rule every test keeps: a test
 * answers `FAILS` only for a value on which the predicate's conjunct is false (src/incidents/
 * line-matcher.test.ts holds every operator and node kind to `evaluate` through this reader).
 *
 * A line that the scanner cannot read exactly as `JSON.parse` would (a syntax error, an escape in a key,
 * a repeated key, a top level that is not an object) is answered `LINE_EXACT`: its caller parses it with
 * `JSON.parse` and judges it as before, so that errors and values are always `JSON.parse`'s.
 */

import type { Condition } from "../conditions/ast.js";
import { assertNever } from "../conditions/ast.js";
import { compile, type Predicate } from "../conditions/compile.js";
import { isoUtcBytesMs, MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "../conditions/dates.js";
import { slotsOf } from "../conditions/leaf.js";
import { analyzeLiteral } from "../conditions/regex/matcher.js";
import {
  type BlockKernel,
  type BlockKernelFactory,
  type KernelTest,
  KIND_ASCII,
  ROW_FIELDS,
} from "./block-kernel.js";
import { FIELD_ASCII, FIELD_MISSING, hashBytes, LineScanner, SCAN_OK } from "./line-scanner.js";

/** `LineMatcher.test`: the line is a valid incident line that does not match. */
export const LINE_NO_MATCH = 0;
/** `LineMatcher.test`: the line is a valid incident line that matches. */
export const LINE_MATCH = 1;
/** `LineMatcher.test`: the bytes cannot be judged exactly; parse the line with `JSON.parse` and judge that. */
export const LINE_EXACT = 2;

/** What `LineMatcher.test` answers. */
export type LineAnswer = typeof LINE_NO_MATCH | typeof LINE_MATCH | typeof LINE_EXACT;

/** Decoded short strings kept per field (labels repeat line after line). */
const INTERN_SLOTS = 256;
/** The longest string kept in the intern table, in bytes. */
const INTERN_MAX_BYTES = 32;

/**
 * A necessary condition on a top-level field's value when it is a plain ASCII string (see the module
 * comment): equal to one of some strings or (in a catalogue date field) `$date` instants; a catalogue date within bounds (epoch ms, each bound inclusive or not);
 * or holding a literal (ASCII case-insensitive with `fold`).
 */
type ByteTest =
  | {
      readonly kind: "equals";
      readonly strings: readonly Uint8Array[];
      /** The `$date` operands' instants (epoch ms), in a catalogue date field only; else empty. */
      readonly dates: readonly number[];
    }
  | {
      readonly kind: "date";
      readonly lower: number;
      readonly lowerInclusive: boolean;
      readonly upper: number;
      readonly upperInclusive: boolean;
    }
  | {
      readonly kind: "contains";
      readonly bytes: Uint8Array;
      readonly fold: boolean;
      /** `skipTable(bytes)`: how far the search moves on each byte under the needle's last one. */
      readonly skip: Uint8Array;
    };

/** The byte tests of a condition's top-level AND, by field, and whether they decide every conjunct. */
interface ByteTests {
  readonly byField: Map<string, ByteTest[]>;
  /**
   * True when every conjunct has a test that is exact on a plain ASCII string value: then a line whose
   * tested fields are all such strings, and that passes every test, matches without the predicate.
   */
  exact: boolean;
}

/**
 * The byte tests the condition's top-level AND implies, by top-level field (docs/semantics.md 1.5): an
 * equality or `$in` (pipe alternatives included) — a string equals only the same string, or in a catalogue
 * date field a `$date` operand it reads as; a range with `$date` operands on a catalogue date field — a
 * string there is a date only in the ISO-8601 UTC form, and then compares as its instant; a `$regex` that
 * is a literal — a match holds it. Each is a necessary condition on its own, so a field may have several.
 */
function byteTests(
  condition: Condition,
  out: ByteTests = { byField: new Map<string, ByteTest[]>(), exact: true },
): ByteTests {
  const encoder = new TextEncoder();
  const conjuncts = condition.kind === "and" ? condition.children : [condition];
  const add = (field: string, test: ByteTest, exact: boolean) => {
    const list = out.byField.get(field);
    if (list === undefined) out.byField.set(field, [test]);
    else list.push(test);
    if (!exact) out.exact = false;
  };
  for (const node of conjuncts) {
    if (node.kind === "and") {
      // A field's operator object with several operators: each of its parts is required.
      byteTests(node, out);
      continue;
    }
    if (
      (node.kind !== "eq" && node.kind !== "in" && node.kind !== "range" && node.kind !== "regex") ||
      node.path.length !== 1
    ) {
      out.exact = false;
      continue;
    }
    const field = node.path[0]!;
    if (node.kind === "eq" || node.kind === "in") {
      // A string value equals a string operand when the bytes are the same, and a `$date` operand when the
      // field is a catalogue date field and the value reads as that instant (docs/semantics.md 1.5); never
      // a number, boolean or `null` operand (null matches null or missing). Exact on a plain ASCII string.
      const operands = node.kind === "eq" ? [node.operand] : node.operands;
      const strings: Uint8Array[] = [];
      const dates: number[] = [];
      for (const operand of operands) {
        if (operand.type === "string") strings.push(encoder.encode(operand.value));
        else if (operand.type === "date" && node.fieldKind === "date") dates.push(operand.value);
      }
      // A missing field is no plain ASCII string: `test` leaves it (and `{"F": null}`) to the predicate.
      add(field, { kind: "equals", strings, dates }, true);
    } else if (node.kind === "range") {
      const { lower, upper } = node;
      if (
        node.fieldKind !== "date" ||
        (lower !== undefined && lower.operand.type !== "date") ||
        (upper !== undefined && upper.operand.type !== "date")
      ) {
        out.exact = false;
        continue;
      }
      // Exact when the value reads as an ISO-8601 UTC instant (`passes` says when it does not).
      add(
        field,
        {
          kind: "date",
          lower: lower?.operand.type === "date" ? lower.operand.value : Number.NEGATIVE_INFINITY,
          lowerInclusive: lower?.inclusive ?? true,
          upper: upper?.operand.type === "date" ? upper.operand.value : Number.POSITIVE_INFINITY,
          upperInclusive: upper?.inclusive ?? true,
        },
        true,
      );
    } else {
      const literal = analyzeLiteral(node.source, node.flags);
      if (literal === undefined || literal.text.length === 0) {
        out.exact = false;
        continue;
      }
      const bytes = encoder.encode(literal.ignoreCase ? literal.text.toLowerCase() : literal.text);
      // An unanchored literal matches exactly the values that hold it (with `i`: ASCII text, folded).
      add(
        field,
        { kind: "contains", bytes, fold: literal.ignoreCase, skip: skipTable(bytes) },
        !literal.anchorStart && !literal.anchorEnd,
      );
    }
  }
  return out;
}

/** `passes`: the value fails the test (the line does not match). */
const FAILS = 0;
/** `passes`: the value passes, exactly as the predicate would judge that conjunct. */
const PASSES = 1;
/** `passes`: the value may pass; only the predicate can say. */
const UNSURE = 2;

/** Whether the plain ASCII string value `b[start, end)` passes `test`: `FAILS`, `PASSES` or `UNSURE`. */
function passes(test: ByteTest, b: Uint8Array, start: number, end: number): number {
  switch (test.kind) {
    case "equals": {
      if (anyEqual(test.strings, b, start, end)) return PASSES;
      if (test.dates.length === 0) return FAILS;
      // Not of the ISO-8601 UTC form: no date, so it equals no `$date` operand either.
      const ms = isoUtcBytesMs(b, start, end);
      return test.dates.includes(ms) ? PASSES : FAILS;
    }
    case "date": {
      const ms = isoUtcBytesMs(b, start, end);
      // Not of the form: not a date, which no date range matches; the predicate says so.
      if (Number.isNaN(ms)) return UNSURE;
      if (ms < test.lower || (ms === test.lower && !test.lowerInclusive)) return FAILS;
      return ms > test.upper || (ms === test.upper && !test.upperInclusive) ? FAILS : PASSES;
    }
    case "contains":
      return contains(test.bytes, test.fold, test.skip, b, start, end) ? PASSES : FAILS;
    default:
      return assertNever(test);
  }
}

/**
 * Answers whether NDJSON lines match one condition, reading each line's bytes once (see the module
 * comment). Not thread-safe state: one matcher per reader. After `LINE_MATCH` or `LINE_NO_MATCH` (with
 * `keepRecord`, the default), `record` holds the line's decoded top-level fields (the condition's, then
 * `extraFields`), as `JSON.parse` gives them, for the caller (e.g. the order key of docs/semantics.md 1.9)
 * until the next call.
 */
export class LineMatcher {
  /** The compiled predicate (docs/semantics.md 1: `evaluate` on every input). */
  readonly predicate: Predicate;
  /** The top-level fields decoded: the condition's, then the extra ones. */
  readonly fields: readonly string[];
  /** The decoded fields of the last line answered `LINE_MATCH` or `LINE_NO_MATCH` (see the class comment). */
  record: Record<string, unknown> = {};
  /**
   * Whether `record` is kept (the default). A caller that never reads it (a count) sets false: a line that
   * the byte tests decide is then answered without decoding its fields, and `record` is left as it was.
   *
   * Speed: the benchmark row "$regex with a literal (Title)" (bench/one-shot.ts), where each match's title
   * was decoded for nothing (CHANGELOG.md, Unreleased).
   */
  keepRecord = true;
  private readonly scanner: LineScanner;
  /** Per field: the byte tests its plain ASCII string values must pass, or undefined. */
  private readonly required: (readonly ByteTest[] | undefined)[];
  /** Whether the byte tests decide every conjunct exactly (`ByteTests.exact`). */
  private readonly exact: boolean;
  /** Per field: decoded short strings by hash (`INTERN_SLOTS` each), with their bytes. */
  private readonly internText: (string | undefined)[];
  private readonly internBytes: (Uint8Array | undefined)[];
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /** The `maxLineBytes` of the kernel filter set (`loadRows`), -1 before; whether the kernel took it. */
  private filterFor = -1;
  private filtered = false;

  /**
   * @param condition - a parsed Search Conditions condition (from `parseSearchConditions`)
   * @param extraFields - top-level fields to decode as well (the order's `CreatedUtcTime`, `IncidentId`)
   * @param kernel - a block kernel for the scanner (`LineScanner`; `prepare`)
   * @throws {TypeError} when `condition` was not produced by `parseSearchConditions` (as `compile` does)
   */
  constructor(condition: Condition, extraFields: readonly string[] = [], kernel?: BlockKernelFactory) {
    this.predicate = compile(condition);
    // The top-level fields the condition reads, in order of first use: the slots `compile` reads too.
    const fields = [...slotsOf(condition).fields.keys()];
    for (const extra of extraFields) if (!fields.includes(extra)) fields.push(extra);
    this.fields = fields;
    this.scanner = new LineScanner(fields, kernel);
    const tests = byteTests(condition);
    this.required = fields.map((field) => tests.byField.get(field));
    this.exact = tests.exact;
    this.internText = new Array<string | undefined>(fields.length * INTERN_SLOTS).fill(undefined);
    this.internBytes = new Array<Uint8Array | undefined>(fields.length * INTERN_SLOTS).fill(undefined);
  }

  /** Hands a block of lines to the scanner's kernel, if any (`LineScanner.prepare`; then `release`). */
  prepare(b: Uint8Array, start: number, end: number): void {
    this.scanner.prepare(b, start, end);
  }

  /** Forgets the block given to `prepare` (`LineScanner.release`). */
  release(): void {
    this.scanner.release();
  }

  /**
   * Hands the block `b[start, end)` to the kernel for a caller that reads the kernel's line records itself
   * (`LineScanner.loadRows`): each record of status `ROW_OK` is then judged by `testRow`, and every other
   * line by `test`, which reads its bytes.
   *
   * With `maxLineBytes`, the kernel judges itself the lines (of at most that many bytes) that the byte tests
   * it can make fail (`kernelTests`): those get no record, and each record's `ROW_SKIPPED` (then the
   * kernel's `tail`) counts them, each a record that `testRow` would answer `LINE_NO_MATCH` for.
   * @returns the kernel holding the block, or undefined (no kernel, or it cannot take the block)
   */
  loadRows(b: Uint8Array, start: number, end: number, maxLineBytes?: number): BlockKernel | undefined {
    if (maxLineBytes !== undefined && maxLineBytes !== this.filterFor) {
      this.filterFor = maxLineBytes;
      const tests = kernelTests(this.required);
      this.filtered = tests.length > 0 && this.scanner.kernelFilter(tests, maxLineBytes);
    }
    return this.scanner.loadRows(b, start, end, maxLineBytes !== undefined && this.filtered);
  }

  /** Where a block may be written so that the kernel takes it without a copy (`LineScanner.kernelMemory`). */
  kernelMemory(bytes: number): Uint8Array | undefined {
    return this.scanner.kernelMemory(bytes);
  }

  /**
   * Judges the line of the kernel's record at `results[row…]` (status `ROW_OK`, from the block given to
   * `loadRows`, `b`): what `test` answers on that line, `LINE_MATCH` or `LINE_NO_MATCH`, with `record` set
   * the same way. The byte tests read the record's spans before any field is taken.
   */
  testRow(b: Uint8Array, results: Int32Array, row: number): LineAnswer {
    const required = this.required;
    let exact = this.exact;
    for (let k = 0, at = row + ROW_FIELDS; k < required.length; k++, at += 3) {
      const tests = required[k];
      if (tests === undefined) continue;
      if (results[at] !== KIND_ASCII) {
        exact = false;
        continue;
      }
      const start = results[at + 1]!;
      const end = results[at + 2]!;
      for (const test of tests) {
        const verdict = passes(test, b, start, end);
        if (verdict === FAILS) return LINE_NO_MATCH;
        if (verdict === UNSURE) exact = false;
      }
    }
    // Decided by the byte tests, and no caller reads `record`: nothing to decode.
    if (exact && !this.keepRecord) return LINE_MATCH;
    this.scanner.takeRow(b, results, row);
    return this.decide(b, exact);
  }

  /**
   * Judges the line `b[start, end)` (no line break; JSON whitespace around it allowed).
   * @returns `LINE_MATCH`, `LINE_NO_MATCH`, or `LINE_EXACT` when the line must be parsed with `JSON.parse`
   *   and judged from that (see the module comment)
   */
  test(b: Uint8Array, start: number, end: number): LineAnswer {
    const scanner = this.scanner;
    if (scanner.scanLine(b, start, end) !== SCAN_OK) return LINE_EXACT;
    const kinds = scanner.kinds;
    const required = this.required;
    let exact = this.exact;
    for (let k = 0; k < required.length; k++) {
      const tests = required[k];
      if (tests === undefined) continue;
      if (kinds[k] !== FIELD_ASCII) {
        exact = false;
        continue;
      }
      for (const test of tests) {
        const verdict = passes(test, b, scanner.starts[k]!, scanner.ends[k]!);
        if (verdict === FAILS) return LINE_NO_MATCH;
        if (verdict === UNSURE) exact = false;
      }
    }
    if (exact && !this.keepRecord) return LINE_MATCH;
    return this.decide(b, exact);
  }

  /**
   * The answer on a line whose fields the scanner holds and whose byte tests passed (`exact`: they decide
   * every conjunct): `record` built, then the predicate unless the tests decided.
   */
  private decide(b: Uint8Array, exact: boolean): LineAnswer {
    const scanner = this.scanner;
    const kinds = scanner.kinds;
    const record: Record<string, unknown> = {};
    const fields = this.fields;
    for (let k = 0; k < fields.length; k++) {
      const kind = kinds[k];
      if (kind === FIELD_MISSING) continue;
      record[fields[k]!] =
        kind === FIELD_ASCII ? this.text(k, b, scanner.starts[k]!, scanner.ends[k]!) : scanner.values[k];
    }
    this.record = record;
    // Every conjunct passed a test that decides it exactly: the predicate would say the same.
    if (exact) return LINE_MATCH;
    return this.predicate(record) ? LINE_MATCH : LINE_NO_MATCH;
  }

  /** The ASCII bytes `b[start, end)` of field `k` as a string, short ones from the intern table. */
  private text(k: number, b: Uint8Array, start: number, end: number): string {
    const length = end - start;
    if (length > INTERN_MAX_BYTES) return this.decoder.decode(b.subarray(start, end));
    const slot = k * INTERN_SLOTS + (hashBytes(b, start, end) & (INTERN_SLOTS - 1));
    const kept = this.internBytes[slot];
    if (kept !== undefined && kept.length === length) {
      let i = 0;
      while (i < length && kept[i] === b[start + i]) i++;
      if (i === length) return this.internText[slot]!;
    }
    const bytes = b.slice(start, end);
    const text = this.decoder.decode(bytes);
    this.internBytes[slot] = bytes;
    this.internText[slot] = text;
    return text;
  }
}

/**
 * The byte tests (`required`, by field) that the block kernel can make itself (`KernelTest`): each fails
 * exactly where `passes` answers `FAILS` on the same plain ASCII value, or on fewer values. Left out: an
 * equality with `$date` operands, a date test whose bound no ISO-8601 instant of years 0000–9999 spells.
 */
function kernelTests(required: readonly (readonly ByteTest[] | undefined)[]): KernelTest[] {
  const out: KernelTest[] = [];
  const encoder = new TextEncoder();
  required.forEach((tests, field) => {
    for (const test of tests ?? []) {
      if (test.kind === "equals") {
        if (test.dates.length === 0) out.push({ field, kind: "equals", strings: test.strings });
      } else if (test.kind === "contains") {
        out.push({ field, kind: "contains", needle: test.bytes, fold: test.fold });
      } else {
        const lower = boundKey(test.lower, encoder);
        const upper = boundKey(test.upper, encoder);
        if (lower === null || upper === null) continue;
        const { lowerInclusive, upperInclusive } = test;
        out.push({ field, kind: "date", lower, lowerInclusive, upper, upperInclusive });
      }
    }
  });
  return out;
}

/**
 * A date test's bound as the kernel compares it (`KernelTest`, `date`): undefined for none (an infinite
 * one), null when the kernel cannot hold it (not a whole millisecond, or outside the years 0000–9999).
 */
function boundKey(ms: number, encoder: TextEncoder): Uint8Array | undefined | null {
  if (ms === Number.NEGATIVE_INFINITY || ms === Number.POSITIVE_INFINITY) return undefined;
  if (!Number.isInteger(ms) || ms < MIN_ISO_EPOCH_MS || ms > MAX_ISO_EPOCH_MS) return null;
  const iso = new Date(ms).toISOString();
  return encoder.encode(iso.slice(0, 19) + iso.slice(20, 23));
}

/** Whether `b[start, end)` equals one of `strings`. */
function anyEqual(strings: readonly Uint8Array[], b: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  for (const s of strings) {
    if (s.length !== length) continue;
    let i = 0;
    while (i < length && s[i] === b[start + i]) i++;
    if (i === length) return true;
  }
  return false;
}

/**
 * The Horspool shift table of `needle`: for each byte, how far a search may move when that byte lies under
 * the needle's last position (the distance from its last occurrence before the end, else the needle's
 * length, at most 255).
 */
function skipTable(needle: Uint8Array): Uint8Array {
  const n = Math.min(needle.length, 255);
  const table = new Uint8Array(256).fill(n);
  for (let k = Math.max(0, needle.length - 255); k < needle.length - 1; k++)
    table[needle[k]!] = Math.min(255, needle.length - 1 - k);
  return table;
}

/**
 * Whether `b[start, end)` holds `needle` (with `fold`: ASCII letters of `b` compared lower-cased; the needle
 * is lower-case then). Horspool's search with `skip` (`skipTable(needle)`): the byte under the needle's last
 * position says how far to move, so a title is read a needle's length a step where it holds none of the
 * needle's bytes.
 *
 * Speed: the benchmark row "$regex with a literal (Title)" (bench/one-shot.ts), `match --count` at one
 * thread: 0.89× the CPU time of a byte-by-byte search (paired; docs/performance.md, "The line kernel").
 */
function contains(
  needle: Uint8Array,
  fold: boolean,
  skip: Uint8Array,
  b: Uint8Array,
  start: number,
  end: number,
): boolean {
  const last = needle.length - 1;
  const tail = needle[last]!;
  for (let i = start; i + last < end; ) {
    let c = b[i + last]!;
    if (fold && c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c === tail) {
      let k = 0;
      for (; k < last; k++) {
        let d = b[i + k]!;
        if (fold && d >= 0x41 && d <= 0x5a) d |= 0x20;
        if (d !== needle[k]) break;
      }
      if (k === last) return true;
    }
    i += skip[c]!;
  }
  return false;
}
