/**
 * Matching over NDJSON bytes: the lines of a block of the input are judged by a `LineMatcher`
 * (src/incidents/line-matcher.ts, the engine's pure block-level matcher), which validates each line and
 * decodes only the fields the Search Conditions read; a line it cannot judge exactly goes through
 * `judgeText`, the same steps as the CLI's text reader (src/cli/records.ts) take for a record
 * (`RecordRules`). The result of a block is plain data (it crosses from a worker thread), and the reader's
 * merge (reader.ts) applies the results of the blocks in input order, so that counts, the first match
 * (docs/semantics.md 1.9), the matches of `all`, the limit, `maxErrors` and the positions of every message
 * are what one pass over the lines gives (docs/cli.md, "Fast path").
 *
 * With the CLI's hand-over, the blocks never see the first record: `first` judges it before any block,
 * since a first record that is no incident, or the start of one JSON document, hands the input to the text
 * reader.
 */

import { isUtf8 } from "node:buffer";
import type { Condition } from "../conditions/ast.js";
import type { Predicate } from "../conditions/compile.js";
import { isoUtcBytesMs } from "../conditions/dates.js";
import {
  type BlockKernel,
  type BlockKernelFactory,
  KIND_ASCII,
  ROW_FIELDS,
  ROW_LINE_END,
  ROW_LINE_START,
  ROW_OK,
  ROW_SKIPPED,
  ROW_STATUS,
} from "../incidents/block-kernel.js";
import { LINE_EXACT, LINE_MATCH, LineMatcher } from "../incidents/line-matcher.js";
import { type OrderKey, orderKeyOf } from "../incidents/order.js";
import { isNewFirst } from "./first-match.js";
import { formatJson } from "./format-json.js";
import { lineKernel } from "./kernel.js";
import { firstInvalidUtf8, invalidUtf8Index, lastBytes, lastCharStart } from "./source.js";

/** What `match` prints. */
export type MatchMode = "count" | "first" | "all";

/** The options of a scan (the `match` command's). */
export interface ScanOptions {
  readonly mode: MatchMode;
  /** `--max-line-length`, in characters. */
  readonly maxLineLength: number;
  /** `--max-errors`: problems kept with their messages per block (the rest are counted, by line). */
  readonly maxErrors: number;
  /**
   * `--skip-invalid`: a line of invalid UTF-8 is one invalid record (`RecordRules.notUtf8`) and reading
   * goes on; without it, invalid UTF-8 ends the input (`ScanStop`). docs/cli.md, Encoding.
   */
  readonly skipInvalid: boolean;
  /**
   * `first`: whether `found` must count every match (default true). When false, a line whose
   * `CreatedUtcTime` is a plain ISO-8601 UTC string later than a match this scanner already took is passed
   * over unjudged: it cannot be the first match (docs/semantics.md 1.9), whatever else it holds. `found`
   * then counts only the matches judged (at least 1 once there is a match). docs/node.md, `countMatches`.
   */
  readonly countMatches?: boolean;
}

/** A problem of one record: its position (1-based within the block) and its message. */
export interface ScanProblem {
  readonly line: number;
  readonly record: number;
  readonly message: string;
}

/** A matching record of an `all` scan: its position (line, record) and its compact JSON text. */
export interface ScanMatch {
  readonly line: number;
  readonly record: number;
  readonly text: string;
}

/** The best match of a block in `first` mode: its order key, position and line text. */
export interface ScanBest {
  readonly time: number;
  readonly id: number;
  readonly line: number;
  readonly record: number;
  readonly text: string;
}

/**
 * What ended a block early: invalid UTF-8 (its 1-based byte in the input, and its line in the block), after
 * which nothing of the input is read (docs/cli.md, Encoding).
 */
export interface ScanStop {
  readonly kind: "utf8";
  /** The first invalid byte, 1-based in the input. */
  readonly byte: number;
  readonly line: number;
}

/** The result of one block: plain data. Positions are 1-based within the block. */
export interface BlockResult {
  /** Lines of the block (each `\n`, and a last line without one). */
  lines: number;
  /** Records of the block (non-blank lines). */
  records: number;
  /** Matching records. */
  found: number;
  /** Problems kept with their message, in line order (at most `maxErrors`). */
  problems: ScanProblem[];
  /** The lines of the problems past `maxErrors`, in order (one message each). */
  moreProblems: number[];
  /** `--all`: the matches, in line order. */
  matches: ScanMatch[];
  /** `first`: the best match of the block. */
  best: ScanBest | undefined;
  stop: ScanStop | undefined;
}

/** A record's verdict in `judgeRecord`: not matched, matched (with its `--all` text), or a problem. */
type Verdict = { kind: "no" } | { kind: "match"; text: string } | { kind: "problem"; message: string };

/**
 * Messages and steps shared with the text reader and the `match` command (records.ts, match.ts), passed in
 * so that both paths say the same words.
 */
export interface RecordRules {
  /** The record judged from its line text: `JSON.parse`, the duplicate-key rule (records.ts). */
  readonly parseRecord: (
    text: string,
    record: number,
    line: number,
  ) => { ok: true; value: unknown } | { ok: false; message: string };
  /** The message for a record that is not a JSON object. */
  readonly notAnIncident: (value: unknown) => string;
  /** The message for a matching record too long to print. */
  readonly tooLongToPrint: string;
  /** The message for a line longer than `--max-line-length`. */
  readonly tooLong: (max: number) => string;
  /** The message for a line of invalid UTF-8 under `--skip-invalid` (its first bad byte, 1-based). */
  readonly notUtf8: (byte: number) => string;
}

/** A match whose `--all` text is not needed (`count` and `first` modes). */
const MATCHED: Verdict = { kind: "match", text: "" };

/** A block result with nothing in it (a block in which no line starts). */
export function emptyResult(): BlockResult {
  return {
    lines: 0,
    records: 0,
    found: 0,
    problems: [],
    moreProblems: [],
    matches: [],
    best: undefined,
    stop: undefined,
  };
}

const CR = 13;
const LF = 10;

/** Judges blocks of NDJSON lines against one condition (one per thread). */
export class BlockScanner {
  private readonly matcher: LineMatcher;
  private readonly predicate: Predicate;
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  /**
   * `first` without `countMatches`: the index of `CreatedUtcTime` among the matcher's fields (its span in
   * a kernel record is at `ROW_FIELDS + 3 * pruneField`), or -1 when lines are never passed over.
   */
  private readonly pruneField: number = -1;
  /** The earliest `CreatedUtcTime` (epoch ms) of the matches taken so far, in any block; +Infinity before. */
  private bound = Number.POSITIVE_INFINITY;

  /**
   * @param condition - the parsed Search Conditions
   * @param kernel - the block kernel: by default the WebAssembly SIMD line kernel where it runs
   *   (src/node/kernel.ts); `null` for the JavaScript scanner alone (the reference the tests hold it to)
   * @throws {TypeError} when `condition` was not produced by `parseSearchConditions`
   */
  constructor(
    condition: Condition,
    private readonly options: ScanOptions,
    private readonly rules: RecordRules,
    kernel: BlockKernelFactory | null = lineKernel() ?? null,
  ) {
    this.matcher = new LineMatcher(
      condition,
      options.mode === "first" ? ["CreatedUtcTime", "IncidentId"] : [],
      kernel ?? undefined,
    );
    this.predicate = this.matcher.predicate;
    // Only `first` reads the matcher's record (a match's order key).
    this.matcher.keepRecord = options.mode === "first";
    if (options.mode === "first" && options.countMatches === false)
      this.pruneField = this.matcher.fields.indexOf("CreatedUtcTime");
  }

  /**
   * Judges the lines of `b[start, end)`: `start` begins a line; `end` is the end of the input or follows a
   * `\n`. Nothing of the block is a first record (see the module comment).
   * @param offset - where `b[0]` is in the input (bytes), for the position of invalid UTF-8
   */
  scan(b: Uint8Array, start: number, end: number, offset: number): BlockResult {
    const kernel = this.matcher.loadRows(b, start, end, this.options.maxLineLength);
    return kernel === undefined ? this.scanLines(b, start, end, offset) : this.scanRows(kernel, b, offset);
  }

  /**
   * Where `FileBlocks` may read a block of up to `bytes` bytes so that the kernel takes it without a copy
   * (`BlockKernel.memory`); undefined without a kernel. Valid until the next call.
   */
  blockMemory(bytes: number): Uint8Array | undefined {
    return this.matcher.kernelMemory(bytes);
  }

  /**
   * `scan` driven by the kernel's line records (one pass over them, no second search for line ends and no
   * UTF-8 pass over the block in JavaScript): a line the kernel read (`ROW_OK`: one JSON object of valid
   * UTF-8) is judged from its record by `LineMatcher.testRow`; every other line as `scanLines` judges it
   * (its UTF-8 checked, then `LineMatcher.test` reading its bytes), so the answers are `scanLines`' on
   * every block (src/node/block-scanner.test.ts holds the two to each other).
   *
   * Speed: the benchmark row "line kernel: WebAssembly SIMD vs JavaScript scanner" (bench/one-shot.ts),
   * `match --count` over the file: paired against the loop that searched each `\n` and asked the kernel's
   * record per line, 0.89× (labels) and 0.91× (a date range) the CPU time at one thread (docs/performance.md,
   * "The line kernel").
   */
  private scanRows(kernel: BlockKernel, b: Uint8Array, offset: number): BlockResult {
    const result = emptyResult();
    const matcher = this.matcher;
    const max = this.options.maxLineLength;
    const stride = kernel.stride;
    const prune = this.pruneField;
    for (let n = kernel.next(); n > 0; n = kernel.next()) {
      const rows = kernel.results;
      for (let i = 0, row = 0; i < n; i++, row += stride) {
        // Lines the kernel's filter judged: each a record that does not match.
        const skipped = rows[row + ROW_SKIPPED]!;
        result.lines += skipped;
        result.records += skipped;
        const s = rows[row + ROW_LINE_START]!;
        const lineEnd = rows[row + ROW_LINE_END]!;
        const line = ++result.lines;
        if (rows[row + ROW_STATUS] !== ROW_OK) {
          if (this.otherLine(result, b, s, lineEnd, line, offset)) return result;
          continue;
        }
        let e = lineEnd;
        if (b[e - 1] === CR) e--;
        if (e - s > max) this.judgeText(result, this.decoder.decode(b.subarray(s, e)), line);
        else if (prune >= 0 && this.later(b, rows, row + ROW_FIELDS + 3 * prune)) result.records++;
        else this.answered(result, b, s, e, line, matcher.testRow(b, rows, row));
      }
    }
    const tail = kernel.tail ?? 0;
    result.lines += tail;
    result.records += tail;
    return result;
  }

  /**
   * Whether the line of a kernel record (`ROW_OK`) cannot be the first match: its `CreatedUtcTime`, whose
   * kind and span are at `rows[at…]`, is a plain ASCII ISO-8601 UTC instant strictly later than a match
   * already taken (`bound`). Any other value (escaped, not a string, no instant, missing) says nothing: the
   * line is judged. The instant is read as the order key reads it (`isoUtcBytesMs`, as `orderKeyOf`).
   *
   * Speed: bench/one-shot.ts, the `first` rows ("faster DuckDB / faster CLI"): a match that cannot come
   * first is no longer decoded (docs/performance.md, "First match").
   */
  private later(b: Uint8Array, rows: Int32Array, at: number): boolean {
    if (rows[at] !== KIND_ASCII) return false;
    return isoUtcBytesMs(b, rows[at + 1]!, rows[at + 2]!) > this.bound;
  }

  /**
   * One line of a block that the kernel did not read, `b[s, lineEnd)` (`lineEnd` its `\n` or the block's
   * end), as `scanLines` judges it.
   * @returns true when the line's invalid UTF-8 ends the input (`result.stop` set)
   */
  private otherLine(
    result: BlockResult,
    b: Uint8Array,
    s: number,
    lineEnd: number,
    line: number,
    offset: number,
  ): boolean {
    const bytes = b.subarray(s, lineEnd);
    if (!isUtf8(bytes)) {
      const byte = offset + s + firstInvalidUtf8(bytes) + 1;
      if (!this.options.skipInvalid) {
        result.stop = { kind: "utf8", byte, line };
        return true;
      }
      this.problem(result, line, ++result.records, this.rules.notUtf8(byte));
      return false;
    }
    let e = lineEnd;
    if (e > s && b[e - 1] === CR) e--;
    if (e !== s) this.judgeLine(result, b, s, e, line);
    return false;
  }

  private scanLines(b: Uint8Array, start: number, end: number, offset: number): BlockResult {
    const result = emptyResult();
    let valid = end;
    if (!isUtf8(b.subarray(start, end))) valid = start + firstInvalidUtf8(b.subarray(start, end));
    const buffer = Buffer.from(b.buffer, b.byteOffset, b.length);
    let p = start;
    while (p < end) {
      let nl = indexOfLf(buffer, p, end);
      const lineEnd = nl < 0 ? end : nl;
      if (nl < 0) nl = end;
      result.lines++;
      const line = result.lines;
      if (lineEnd > valid) {
        if (!this.options.skipInvalid) {
          // The line of the first invalid byte: nothing from here on is read.
          result.stop = { kind: "utf8", byte: offset + valid + 1, line };
          return result;
        }
        // `--skip-invalid`: the line is one invalid record, named by its first bad byte; the next bad
        // byte is looked for from the next line on (each byte checked once, however many lines are bad).
        this.problem(result, line, ++result.records, this.rules.notUtf8(offset + valid + 1));
        p = nl + 1;
        valid = p >= end ? end : p + firstInvalidUtf8(b.subarray(p, end));
        continue;
      }
      let e = lineEnd;
      if (e > p && b[e - 1] === CR) e--;
      const s = p;
      p = nl + 1;
      if (e === s) continue;
      this.judgeLine(result, b, s, e, line);
    }
    return result;
  }

  /** The non-empty line `b[s, e)` of valid UTF-8 (without its line break), judged by its bytes. */
  private judgeLine(result: BlockResult, b: Uint8Array, s: number, e: number, line: number): void {
    let answer: number = LINE_EXACT;
    // A byte order mark is text after the start of the input (the text reader keeps it): JSON.parse says no.
    if (e - s <= this.options.maxLineLength && !(b[s] === 0xef && b[s + 1] === 0xbb && b[s + 2] === 0xbf))
      answer = this.matcher.test(b, s, e);
    if (answer === LINE_EXACT) this.judgeText(result, this.decoder.decode(b.subarray(s, e)), line);
    else this.answered(result, b, s, e, line, answer);
  }

  /** A line answered from its bytes (`LINE_MATCH` or `LINE_NO_MATCH`): one record, taken if it matches. */
  private answered(
    result: BlockResult,
    b: Uint8Array,
    s: number,
    e: number,
    line: number,
    answer: number,
  ): void {
    const record = ++result.records;
    if (answer !== LINE_MATCH) return;
    const matcher = this.matcher;
    const text = () => this.decoder.decode(b.subarray(s, e));
    // `--all` prints the record as `JSON.parse` gives it (spacing, escapes and numbers normalised).
    const verdict = this.options.mode === "all" ? this.judgeParsed(JSON.parse(text()), true) : MATCHED;
    this.take(result, line, record, verdict, () => orderKeyOf(matcher.record), text);
  }

  /**
   * Judges the lines from the start of the input to its first record, `b[start, end)` (`start` after a
   * byte order mark that begins the input): blank lines, then the first record's line.
   * @param offset - where `b[0]` is in the input (bytes)
   * @param isDataset - whether a record is a dataset of the in-memory backend (`match` refuses those)
   * @returns the result of those lines; `undefined` when the text reader must read the input instead: the
   *   first record is invalid (perhaps the first line of one JSON document), not an incident, a dataset, or
   *   not valid UTF-8 (the text reader names each)
   */
  first(
    b: Uint8Array,
    start: number,
    end: number,
    isDataset: (value: unknown) => boolean,
  ): BlockResult | undefined {
    const result = emptyResult();
    const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let p = start;
    while (p < end) {
      let nl = b.indexOf(LF, p);
      if (nl < 0 || nl >= end) nl = end;
      result.lines++;
      const line = result.lines;
      let e = nl;
      if (e > p && b[e - 1] === CR) e--;
      const s = p;
      p = nl + 1;
      if (e === s) continue;
      let text: string;
      try {
        text = strict.decode(b.subarray(s, e));
      } catch {
        return undefined;
      }
      if (text.length > this.options.maxLineLength) return undefined;
      const item = this.rules.parseRecord(text, 1, line);
      if (!item.ok && text.trim() === "") continue;
      if (!item.ok || isDataset(item.value)) return undefined;
      const value = item.value;
      const verdict = this.judgeRecord(value);
      if (verdict.kind === "problem") return undefined;
      result.records = 1;
      this.take(
        result,
        line,
        1,
        verdict,
        () => orderKeyOf(value as object),
        () => text,
      );
      return p >= end ? result : undefined;
    }
    return result;
  }

  /** One line judged from its text, as the text reader and `match` judge it (blank lines are no record). */
  private judgeText(result: BlockResult, text: string, line: number): void {
    if (text.length > this.options.maxLineLength) {
      this.problem(result, line, ++result.records, this.rules.tooLong(this.options.maxLineLength));
      return;
    }
    const item = this.rules.parseRecord(text, result.records + 1, line);
    if (!item.ok && text.trim() === "") return;
    const record = ++result.records;
    if (!item.ok) {
      this.problem(result, line, record, item.message);
      return;
    }
    const value = item.value;
    this.take(
      result,
      line,
      record,
      this.judgeRecord(value),
      () => orderKeyOf(value as object),
      () => text,
    );
  }

  /**
   * Takes a record's verdict into the block's result: a problem, or a match (its `--all` line, or in
   * `first` mode the earliest by order key, docs/semantics.md 1.9, ties to the earlier record).
   */
  private take(
    result: BlockResult,
    line: number,
    record: number,
    verdict: Verdict,
    key: () => OrderKey,
    text: () => string,
  ): void {
    if (verdict.kind === "problem") {
      this.problem(result, line, record, verdict.message);
      return;
    }
    if (verdict.kind === "no") return;
    result.found++;
    if (this.options.mode === "all") result.matches.push({ line, record, text: verdict.text });
    else if (this.options.mode === "first") {
      const k = key();
      if (k.time < this.bound) this.bound = k.time;
      if (isNewFirst(result.best, k)) result.best = { time: k.time, id: k.id, line, record, text: text() };
    }
  }

  /** A parsed record judged as `match` judges it. */
  judgeRecord(value: unknown): Verdict {
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { kind: "problem", message: this.rules.notAnIncident(value) };
    return this.judgeParsed(value, this.predicate(value));
  }

  /** A matching or not matching incident: its `--all` text, or the problem of printing it. */
  private judgeParsed(value: unknown, matches: boolean): Verdict {
    if (!matches) return { kind: "no" };
    if (this.options.mode !== "all") return { kind: "match", text: "" };
    const text = formatJson(value);
    return text === undefined
      ? { kind: "problem", message: this.rules.tooLongToPrint }
      : { kind: "match", text };
  }

  /** The result of one line longer than `--max-line-length` (a record "longer than N characters"). */
  tooLongLine(): BlockResult {
    const result = emptyResult();
    result.lines = 1;
    result.records = 1;
    this.problem(result, 1, 1, this.rules.tooLong(this.options.maxLineLength));
    return result;
  }

  /** The result of one line of invalid UTF-8 under `--skip-invalid` (its first bad byte, 1-based). */
  notUtf8Line(byte: number): BlockResult {
    const result = emptyResult();
    result.lines = 1;
    result.records = 1;
    this.problem(result, 1, 1, this.rules.notUtf8(byte));
    return result;
  }

  private problem(result: BlockResult, line: number, record: number, message: string): void {
    if (result.problems.length < this.options.maxErrors) result.problems.push({ line, record, message });
    else result.moreProblems.push(line);
  }
}

/** The first `\n` in `b[from, end)`, or -1 (Buffer's `indexOf` is a native search, Uint8Array's a loop). */
function indexOfLf(b: Buffer, from: number, end: number): number {
  const at = b.indexOf(LF, from);
  return at < 0 || at >= end ? -1 : at;
}

/**
 * The byte length past which a line is longer than `maxLineLength` characters whatever it holds (UTF-8
 * spends at most 3 bytes on a UTF-16 code unit; a `\r` before the `\n` is not counted).
 */
export function overlongBytes(maxLineLength: number): number {
  return 3 * maxLineLength + 4;
}

/**
 * A line too long to hold, skipped: its bytes are checked as UTF-8 on the way (the text reader decodes
 * every byte, so invalid UTF-8 there ends the input with its position), then it is one record "longer than
 * N characters".
 */
export class OverlongLine {
  /** Whether a line is being skipped. */
  active = false;

  /** @param skipInvalid - `--skip-invalid`: invalid UTF-8 in the line does not end the input (`finish`) */
  constructor(private readonly skipInvalid = false) {}
  /** Bytes of the chunk last fed that belong to the line (its `\n` included). */
  consumed = 0;
  private decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  /** The last bytes checked (at most 3), and the input offset after them. */
  private previous: Uint8Array = new Uint8Array(0);
  private checkedTo = 0;
  /** The first invalid byte, 1-based in the input; 0 while none. */
  private invalid = 0;

  /** Starts skipping the line whose bytes so far are the `held` pieces, from input offset `offset`. */
  start(held: readonly Uint8Array[], offset: number): void {
    this.active = true;
    this.decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    this.previous = new Uint8Array(0);
    this.checkedTo = offset;
    this.invalid = 0;
    let at = offset;
    for (const piece of held) {
      this.check(piece, at);
      at += piece.length;
    }
  }

  /**
   * Feeds the next bytes of the input (at offset `offset`).
   * @returns true when the line ended in them (`consumed` says where) or invalid UTF-8 was found
   */
  feed(chunk: Uint8Array, offset: number): boolean {
    const nl = chunk.indexOf(10);
    this.consumed = nl < 0 ? chunk.length : nl + 1;
    this.check(nl < 0 ? chunk : chunk.subarray(0, nl), offset);
    if (nl >= 0) this.flush();
    // Without --skip-invalid, invalid UTF-8 ends the input at once; with it, the line is read to its end.
    return nl >= 0 || (this.invalid > 0 && !this.skipInvalid);
  }

  /**
   * The line's result, once `feed` returned true or the input ended: one record "longer than N
   * characters", or, when its bytes are not valid UTF-8, the end of the input (`ScanStop`) or with
   * `skipInvalid` one invalid record named by its first bad byte.
   */
  finish(scanner: BlockScanner): BlockResult {
    this.flush();
    this.active = false;
    if (this.invalid === 0) return scanner.tooLongLine();
    if (this.skipInvalid) return scanner.notUtf8Line(this.invalid);
    const result = emptyResult();
    result.lines = 1;
    result.stop = { kind: "utf8", byte: this.invalid, line: 1 };
    return result;
  }

  private check(bytes: Uint8Array, offset: number): void {
    if (this.invalid > 0 || bytes.length === 0) return;
    try {
      this.decoder.decode(bytes, { stream: true });
      this.previous = lastBytes(this.previous, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), 3);
      this.checkedTo = offset + bytes.length;
    } catch {
      this.invalid = offset + invalidUtf8Index(this.previous, bytes) + 1;
    }
  }

  /** The line's end: a character begun and not ended is invalid, named by its first byte. */
  private flush(): void {
    if (this.invalid > 0) return;
    try {
      this.decoder.decode();
    } catch {
      this.invalid = this.checkedTo - this.previous.length + lastCharStart(this.previous) + 1;
    }
  }
}
