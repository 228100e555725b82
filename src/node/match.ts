/**
 * `matchNdjson` and `fromNdjson`: the Node entry's calls over an NDJSON export (a file, a stream, standard
 * input; gzip recognised by its magic bytes), for programs and servers. Both read through the same source
 * (source.ts); `matchNdjson` judges the lines with the engine's byte matcher in blocks, over worker threads
 * for a regular file (reader.ts), as the CLI's `match` does (docs/node.md).
 */

import { open, stat } from "node:fs/promises";
import type { Condition } from "../conditions/ast.js";
import type { ParseOptions } from "../conditions/options.js";
import type { BlockKernelFactory } from "../incidents/block-kernel.js";
import { toCondition } from "../incidents/condition-input.js";
import { IncidentSet, type IncidentSetOptions, type NdjsonReading } from "../incidents/incident-set.js";
import type { MatchMode } from "./block-scanner.js";
import { buildFromFile } from "./build.js";
import { NdjsonInputError } from "./errors.js";
import { lineKernel } from "./kernel.js";
import { type NdjsonProblem, readNdjson } from "./reader.js";
import { MATCH_RULES } from "./record-rules.js";
import { describeSystemError, openInput } from "./source.js";
import { BLOCK_BYTES, defaultThreads } from "./workers.js";

/** Where NDJSON is read from: a path (`-` is standard input), or a readable stream of bytes. */
export type NdjsonInput = string | NodeJS.ReadableStream;

/** One matching record: the parsed line and where it is. */
export interface NdjsonMatch {
  /** The record, as `JSON.parse` gives its line. */
  readonly record: Record<string, unknown>;
  /** Its 1-based line in the input (blank lines counted). */
  readonly line: number;
  /** Its 1-based number among the records (non-blank lines). */
  readonly index: number;
}

/** Options of `matchNdjson`. */
export interface MatchNdjsonOptions extends ParseOptions {
  /**
   * What to find: `count` the matching records; `first` the first match (docs/semantics.md 1.9: the
   * earliest `CreatedUtcTime`, ties by `IncidentId`, then the earlier line); `all` every match in input
   * order (given to `onMatch` as it is found, or gathered in `matches`). Default `first`.
   */
  readonly mode?: MatchMode;
  /** `all`: stop after this many matches (a positive integer). Default: no limit. */
  readonly limit?: number;
  /**
   * `first`: whether `found` counts every match. Default true. With false, `found` is 1 when there is a
   * match and 0 when there is none, and the reader passes over the lines that cannot be the first match
   * without judging them: those whose `CreatedUtcTime` is an ISO-8601 UTC string, written without escapes,
   * later than a match already found (docs/semantics.md 1.9). `first`, `lines`, `records` and the
   * problems are the same either way. Only with `mode: "first"`.
   */
  readonly countMatches?: boolean;
  /**
   * Threads that read a regular file, this one included (a positive integer): with more than one, blocks
   * of the file are judged by worker threads and merged in input order. Streams and gzip are read by this
   * thread. At most the cores available are used, whatever is asked. Default: the cores available, at most
   * 8.
   */
  readonly threads?: number;
  /**
   * Whether a line of invalid UTF-8 is an invalid record (a problem of the result, reading goes on) rather
   * than an `NdjsonInputError` that ends the read. Other invalid lines are always problems. Default false.
   */
  readonly skipInvalid?: boolean;
  /** Problems listed with their message in the result; the rest are counted (`unlisted`). Default 20. */
  readonly maxErrors?: number;
  /** The longest line a record may have, in characters; a longer line is a problem. Default 64 Mi. */
  readonly maxLineLength?: number;
  /**
   * `all`: called with each match, in input order; a returned promise is awaited (back-pressure: nothing
   * more is read meanwhile). When it throws or rejects, the read rejects with that error and releases the
   * input; after an abort it is not called again.
   */
  readonly onMatch?: (match: NdjsonMatch) => unknown;
  /**
   * Ends the read at any stage (opening a named pipe, the first line, the blocks, a pending `onMatch`):
   * `matchNdjson` rejects with the signal's reason and releases the input and its worker threads.
   */
  readonly signal?: AbortSignal;
  /** The name of a stream input in messages (default `the input`). */
  readonly label?: string;
}

/** What `matchNdjson` found. */
export interface MatchNdjsonResult {
  /** Matching records (in `all` mode with a `limit`, at most the limit). */
  readonly found: number;
  /** `first`: the first match; otherwise `undefined`. */
  readonly first: NdjsonMatch | undefined;
  /** `all` without `onMatch`: the matches in input order; otherwise empty. */
  readonly matches: readonly NdjsonMatch[];
  /**
   * Invalid records, in input order, at most `maxErrors` of them: their line, record number and one
   * sentence (`not valid JSON: …`, `longer than N characters (--max-line-length)`, `not valid UTF-8 (byte
   * B of the input)`, `Expected an incident (a JSON object), found …`, a repeated key).
   */
  readonly problems: readonly NdjsonProblem[];
  /** Invalid records past `maxErrors`, counted only. */
  readonly unlisted: number;
  /** Lines read (a last line without a line break counted) and records (non-blank lines) among them. */
  readonly lines: number;
  readonly records: number;
}

/** The default of `maxErrors`. */
const DEFAULT_MAX_ERRORS = 20;
/** The default of `maxLineLength`: 64 Mi characters. */
const DEFAULT_MAX_LINE_LENGTH = 64 * 1024 * 1024;

/**
 * Finds the records of an NDJSON export that match Search Conditions, reading its bytes once: each line is
 * validated and only the fields the conditions read are decoded (the engine's `LineMatcher`); a line the
 * byte reader cannot judge exactly is judged from `JSON.parse` as `evaluate` would (docs/semantics.md 1).
 * A regular file is read in blocks by `threads` threads; a stream (standard input, a pipe, a socket) and
 * gzip (recognised by its magic bytes 1f 8b, concatenated members included) as they arrive, in linear
 * time whatever the lines' lengths. Memory stays bounded: at most a few blocks and one line beyond them.
 *
 * Every line is a record (blank lines are skipped; a byte order mark at the start is ignored; `\r\n`
 * accepted): a line that is no JSON object is a problem of the result, never thrown.
 * @param input - a path, or a readable stream of bytes (`process.stdin`, `fs.createReadStream(…)`)
 * @param conditions - a condition from `parseSearchConditions`, or raw Search Conditions JSON (parsed with
 *   the catalogue and limits of `options`)
 * @param options - see `MatchNdjsonOptions`
 * @returns the count, the first match or the matches, and the problems of invalid records
 * @throws {SearchConditionsError} (rejects) when `conditions` is raw JSON with issues
 * @throws {NdjsonInputError} (rejects) when the input cannot be opened (`noInput`), reading it fails or the
 *   stream errs or closes with an error (`ioError`), it is not valid gzip, or (without `skipInvalid`) not
 *   valid UTF-8 (`dataError`, naming the line and byte)
 * @throws {TypeError} (rejects) when `input` is neither a path nor a readable stream, `options` is not an
 *   object, names an option this function does not know (`__proto__` included), or `onMatch`, `signal`,
 *   `skipInvalid`, `countMatches` or `label` has the wrong type; nothing is read then
 * @throws {RangeError} (rejects) when `limit`, `threads`, `maxErrors` or `maxLineLength` is not a positive
 *   integer (`maxErrors` may be 0), `mode` is not one of the three, or `countMatches` is false with a
 *   mode other than `first`
 * @throws {NdjsonInputError} `ioError` (rejects) when a regular file shrinks while it is read (a file is
 *   read through the descriptor it was opened with, up to its size when the read starts: lines appended
 *   later are not read, and removing or replacing its name changes nothing)
 * @throws the signal's reason (rejects) once `signal` is aborted
 * @example
 * const { found } = await matchNdjson("export.ndjson.gz", { Severity: "High" }, { mode: "count" });
 */
export async function matchNdjson(
  input: NdjsonInput,
  conditions: Condition | unknown,
  options: MatchNdjsonOptions = {},
): Promise<MatchNdjsonResult> {
  checkCall(input, options);
  const condition = toCondition(conditions, options);
  const mode = options.mode ?? "first";
  if (mode !== "count" && mode !== "first" && mode !== "all")
    throw new RangeError(`matchNdjson: mode must be "count", "first" or "all", not ${describe(mode)}.`);
  if (options.countMatches === false && mode !== "first")
    throw new RangeError(
      `matchNdjson: countMatches false is only for mode "first" (a count or a list counts every match), not ${describe(mode)}.`,
    );
  const limit = positive("limit", options.limit, Number.POSITIVE_INFINITY);
  const threads = positive("threads", options.threads, defaultThreads());
  const maxLineLength = positive("maxLineLength", options.maxLineLength, DEFAULT_MAX_LINE_LENGTH);
  const maxErrors = options.maxErrors ?? DEFAULT_MAX_ERRORS;
  if (!Number.isSafeInteger(maxErrors) || maxErrors < 0)
    throw new RangeError(`matchNdjson: maxErrors must be a whole number, not ${describe(maxErrors)}.`);
  const matches: NdjsonMatch[] = [];
  const onMatch = options.onMatch;
  const answer = await readNdjson(
    input,
    { label: options.label },
    {
      condition,
      parse: parseOptionsOf(options),
      mode,
      limit,
      threads,
      blockBytes: BLOCK_BYTES,
      maxLineLength,
      maxErrors,
      skipInvalid: options.skipInvalid === true,
      countMatches: options.countMatches !== false,
      rules: MATCH_RULES,
      onMatch: (text, line, index) => {
        const match: NdjsonMatch = { record: JSON.parse(text) as Record<string, unknown>, line, index };
        if (onMatch === undefined) matches.push(match);
        else return onMatch(match);
        return undefined;
      },
      signal: options.signal,
    },
  );
  // Without a hand-over the reader always answers.
  const { best } = answer!;
  return {
    found: answer!.found,
    first:
      best === undefined
        ? undefined
        : { record: JSON.parse(best.text) as Record<string, unknown>, line: best.line, index: best.record },
    matches,
    problems: answer!.problems,
    unlisted: answer!.unlisted,
    lines: answer!.lines,
    records: answer!.records,
  };
}

/** The catalogue and limits of `options`, when given (the workers parse the condition again with them). */
function parseOptionsOf(options: ParseOptions): ParseOptions | undefined {
  const { catalog, limits } = options;
  if (catalog === undefined && limits === undefined) return undefined;
  return { ...(catalog === undefined ? {} : { catalog }), ...(limits === undefined ? {} : { limits }) };
}

/**
 * `value` when it is a positive whole number, `fallback` when it is undefined.
 * @throws {RangeError} otherwise: `CALLER: NAME must be a positive whole number, not …`
 */
function positive(name: string, value: number | undefined, fallback: number, caller = "matchNdjson"): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${caller}: ${name} must be a positive whole number, not ${describe(value)}.`);
  return value;
}

/**
 * Every option of `matchNdjson`. Typed as a record over the interface's keys, so that an option added to
 * `MatchNdjsonOptions` (or to the parse options it extends) without being added here fails to compile.
 */
const MATCH_OPTIONS: Record<keyof MatchNdjsonOptions, true> = {
  catalog: true,
  limits: true,
  mode: true,
  limit: true,
  countMatches: true,
  threads: true,
  skipInvalid: true,
  maxErrors: true,
  maxLineLength: true,
  onMatch: true,
  signal: true,
  label: true,
};

/** A value as a message names it: `the number 5`, `the string "5"`, `null`, `an object`. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 60))}`;
  if (typeof value === "number") return Number.isFinite(value) ? `the number ${value}` : String(value);
  if (typeof value === "boolean") return `the boolean ${value}`;
  return `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
}

/** An input that is no path nor Node stream, as the messages name it (a web stream with its remedy). */
function describeInput(input: unknown): string {
  const web = typeof (input as { getReader?: unknown } | null)?.getReader === "function";
  return web ? "a web ReadableStream (pass Readable.fromWeb(stream), from node:stream)" : describe(input);
}

/** Whether `value` can be read as a stream of bytes (a Node `Readable`: `process.stdin`, a file stream). */
function isReadable(value: unknown): value is NodeJS.ReadableStream {
  const stream = value as { on?: unknown; [Symbol.asyncIterator]?: unknown } | null;
  return (
    typeof value === "object" &&
    stream !== null &&
    typeof stream.on === "function" &&
    typeof stream[Symbol.asyncIterator] === "function"
  );
}

/**
 * The checks of a call made before anything is read (docs/node.md, "Hostile calls and inputs"): the input
 * is a path or a readable stream, the options an object of the known options with the types they name.
 * @throws {TypeError} otherwise (the numbers' ranges are checked apart: `RangeError`)
 */
function checkCall(input: unknown, options: unknown): asserts options is MatchNdjsonOptions {
  if (typeof input !== "string" && !isReadable(input))
    throw new TypeError(
      `matchNdjson: input must be a path or a readable stream, not ${describeInput(input)}.`,
    );
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new TypeError(`matchNdjson: options must be an object, not ${describe(options)}.`);
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(MATCH_OPTIONS, key))
      throw new TypeError(
        `Unknown matchNdjson option '${key}': expected one of ${Object.keys(MATCH_OPTIONS).sort().join(", ")}.`,
      );
  }
  const { onMatch, signal, skipInvalid, label, countMatches } = options as MatchNdjsonOptions;
  if (onMatch !== undefined && typeof onMatch !== "function")
    throw new TypeError(`matchNdjson: onMatch must be a function, not ${describe(onMatch)}.`);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TypeError(`matchNdjson: signal must be an AbortSignal, not ${describe(signal)}.`);
  if (skipInvalid !== undefined && typeof skipInvalid !== "boolean")
    throw new TypeError(`matchNdjson: skipInvalid must be a boolean, not ${describe(skipInvalid)}.`);
  if (countMatches !== undefined && typeof countMatches !== "boolean")
    throw new TypeError(`matchNdjson: countMatches must be a boolean, not ${describe(countMatches)}.`);

  if (label !== undefined && typeof label !== "string")
    throw new TypeError(`matchNdjson: label must be a string, not ${describe(label)}.`);
}

/** Options of the Node entry's `fromNdjson`: the set's options, and the threads that read a regular file. */
export interface FromNdjsonOptions extends IncidentSetOptions {
  /**
   * Threads that build the set from a regular file, this one included (a positive integer): with more than
   * one, the file is cut into ranges of whole lines, one per thread, built at once by worker threads and
   * appended in file order, with the same set as one thread builds (docs/node.md, "`fromNdjson(input,
   * options)`"). Streams, standard input and gzip are read by this thread. At most the cores available are
   * used (the process's budget of worker threads, shared with `matchNdjson`), whatever is asked. Default:
   * as `matchNdjson`'s, the cores available (at most 8) for a file of at least `PARALLEL_BUILD_MIN_BLOCKS`
   * blocks (64 MiB), and one thread for a smaller one (`buildThreads`). Two threads take about 1.15x the
   * processor time of one: on a machine whose cores are all busy, `threads: 1` can be the faster.
   */
  readonly threads?: number;
}

/**
 * Builds an `IncidentSet` from an NDJSON export read by the Node entry's source: a path (a regular file is
 * read through a `FileHandle`, the set's fastest source, or in ranges by several threads; gzip, recognised
 * by its magic bytes, is inflated; anything else the system opens by name, a named pipe, is read once as a
 * stream), `-` for standard input, or a readable stream of bytes (gzip or not). The set is
 * `IncidentSet.fromNdjson`'s (the engine's pure entry, which takes chunks or a byte reader), read with the
 * WebAssembly SIMD line kernel where it runs, as `matchNdjson` reads (src/node/kernel.ts; not with the
 * environment variable `INCIDENT_QUERY_KERNEL=js`), in this thread and in the workers: the same set, in
 * less processor time (docs/performance.md, "The set build on the line kernel"). A regular file built with
 * more than one thread (`threads`; by default the cores for a file of 64 MiB or more) is cut at line starts
 * into one range per thread; each range is built by a worker thread
 * through the same engine code and the parts are appended in file order (docs/node.md): every answer of
 * the set, and the first error, are the one-thread build's. The text indexes are built by the first query
 * that reads one (docs/semantics.md, "The text index", "Built when first needed").
 *
 * With `reading.signal` (docs/node.md, "`fromNdjson(input, options, reading)`"): an abort before the call,
 * while a named pipe opens, while a chunk or a read is awaited, or between two of them (between two blocks
 * of a range, and between two ranges, with `threads`) rejects with the signal's reason, and no set is
 * returned; a file this function opened is closed, a stream it opened is destroyed, a stream passed in or
 * standard input is left as `matchNdjson` leaves it, and every worker thread has ended.
 * @param input - a path, or a readable stream of bytes
 * @param options - as for `IncidentSet.fromNdjson`, and `threads` (`FromNdjsonOptions`)
 * @param reading - as for `IncidentSet.fromNdjson`: `signal` (an `AbortSignal`), `kernel` (by default the
 *   line kernel, where it runs)
 * @returns the set, once the input is read
 * @throws {NdjsonInputError} (rejects) when the input cannot be opened (`noInput`: missing, a directory) or
 *   read (`ioError`; a regular file that shrinks while it is read), or is not valid gzip (`dataError`)
 * @throws {SyntaxError} {TypeError} (rejects) as `IncidentSet.fromNdjson` does (an invalid line, a repeated
 *   key, a line that is no object: the earliest in the file, whatever the threads; a malformed option; a
 *   `signal` that is no `AbortSignal`)
 * @throws {RangeError} (rejects) when `threads` is not a positive whole number (`fromNdjson: threads must
 *   be a positive whole number, not …`), or as `IncidentSet.fromNdjson` does (an option out of range)
 * @throws the signal's reason (rejects) once `reading.signal` is aborted before the set is built
 * @example
 * const set = await fromNdjson("export.ndjson.gz");
 * set.count({ Severity: "High" });
 */
export async function fromNdjson<R extends object = Record<string, unknown>>(
  input: NdjsonInput,
  options: FromNdjsonOptions = {},
  reading: NdjsonReading = {},
): Promise<IncidentSet<R>> {
  return buildNdjson<R>(input, options, BLOCK_BYTES, reading);
}

/**
 * `fromNdjson` with blocks of `blockBytes` bytes (tests cut lines at block boundaries with tiny blocks), and
 * `kernel` when `reading` gives none: by default the line kernel where it runs; `null` for the JavaScript
 * scanner alone (the reference the tests hold the kernel to).
 * @throws as `fromNdjson`
 */
export async function buildNdjson<R extends object = Record<string, unknown>>(
  input: NdjsonInput,
  options: FromNdjsonOptions,
  blockBytes: number,
  given: NdjsonReading = {},
  kernel: BlockKernelFactory | null = lineKernel() ?? null,
): Promise<IncidentSet<R>> {
  if (typeof input !== "string" && !isReadable(input))
    throw new TypeError(
      `fromNdjson: input must be a path or a readable stream, not ${describeInput(input)}.`,
    );
  const signal = given.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TypeError(`fromNdjson: signal must be an AbortSignal, not ${describe(signal)}.`);
  signal?.throwIfAborted();
  // The line kernel unless the caller gave one: the JavaScript scanner's build took 1.06x its processor
  // time, 1.13-1.16x its wall time (docs/performance.md, "The set build on the line kernel"; bench/one-shot.ts,
  // the row "line kernel: WebAssembly SIMD vs JavaScript scanner … fromNdjson").
  const reading: NdjsonReading = given.kernel !== undefined || kernel === null ? given : { ...given, kernel };
  // `threads` is the Node entry's: the set's own options go to the set (which checks them).
  let setOptions: IncidentSetOptions = options;
  // Undefined: the default, decided once the file's size is known (`buildThreads`).
  let threads: number | undefined;
  if (typeof options === "object" && options !== null && Object.hasOwn(options, "threads")) {
    const { threads: asked, ...rest } = options;
    setOptions = rest;
    if (asked !== undefined) threads = positive("threads", asked, 1, "fromNdjson");
  }
  if (
    typeof input === "string" &&
    input !== "-" &&
    (await isRegularFile(input)) &&
    !(await isGzipFile(input))
  ) {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(input, "r");
    } catch (error) {
      throw new NdjsonInputError(`Cannot read '${input}': ${describeSystemError(error)}`, "noInput");
    }
    try {
      return await buildFromFile<R>(handle, input, setOptions, threads, blockBytes, reading);
    } catch (error) {
      if (signal?.aborted === true) throw signal.reason;
      throw systemError(error, `'${input}'`);
    } finally {
      await handle.close().catch(() => {});
    }
  }
  // Anything else, a directory and a missing path included, as the source opens it (its errors typed).
  const source = await openInput(input, { signal });
  try {
    return await IncidentSet.fromNdjson<R>(source.bytes, setOptions, reading);
  } catch (error) {
    // The source's own wait for a chunk ends at the abort too (as a read error): the abort is the answer.
    if (signal?.aborted === true) throw signal.reason;
    throw error;
  } finally {
    source.close();
  }
}

/** A failed read of the system (an error with a `code`, as `EIO`) as an `ioError`; other errors as they are. */
function systemError(error: unknown, label: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (error instanceof NdjsonInputError || typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return error;
  return new NdjsonInputError(`Cannot read ${label}: ${describeSystemError(error)}`, "ioError");
}

/** Whether `path` names a regular file (false when it cannot be read: the source says why). */
async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Whether the regular file at `path` begins with gzip's magic bytes (false when it cannot be read). */
async function isGzipFile(path: string): Promise<boolean> {
  try {
    const handle = await open(path, "r");
    try {
      const { bytesRead, buffer } = await handle.read(Buffer.alloc(2), 0, 2, 0);
      return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}
