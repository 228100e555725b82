/**
 * The NDJSON reader of the Node entry (`matchNdjson`, and the CLI's `match`): the input is read as bytes,
 * its lines judged by `BlockScanner` (block-scanner.ts): standard input, streams and gzip as they arrive,
 * in this thread, cut into blocks of whole lines in linear time (`StreamLines`); a regular file in blocks
 * read by position (file-blocks.ts), by this thread and, with `threads` above 1, by worker threads beside it
 * (`threads: N` is N threads in all, at most the cores available). The results of the blocks are merged in
 * input order by `MatchMerge`, which gives what one pass over the lines gives: the same count, first match
 * (docs/semantics.md 1.9, `isNewFirst`), matches in input order, problems with their lines and records.
 *
 * With a `handover` (the CLI), the first record decides the format: when it is not a plain incident line (a
 * JSON array, one JSON document over several lines, a dataset, an invalid first record), the input is
 * handed to the caller's text reader (`replayInput` gives it what was read so far, so standard input works
 * too). Without one (`matchNdjson`), the first line is a line like any other.
 */

import { availableParallelism } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { Worker } from "node:worker_threads";
import type { Condition } from "../conditions/ast.js";
import type { ParseOptions } from "../conditions/options.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { toSearchConditions } from "../conditions/print.js";
import { untilAborted } from "../incidents/ndjson.js";
import {
  type BlockResult,
  BlockScanner,
  type MatchMode,
  OverlongLine,
  overlongBytes,
  type RecordRules,
  type ScanBest,
} from "./block-scanner.js";
import { NdjsonInputError } from "./errors.js";
import { type BlockPlan, blockCount, FileBlocks, WINDOW } from "./file-blocks.js";
import { isNewFirst } from "./first-match.js";
import { describeSystemError, type InputSource, openInput, replayInput } from "./source.js";
import { StreamLines } from "./stream-lines.js";
import { matchWorkerScript, releaseWorkers, takePrestartedWorker, takeWorkers } from "./workers.js";

/** A problem of one record: its 1-based line and record number in the input, and its message. */
export interface NdjsonProblem {
  readonly line: number;
  readonly record: number;
  readonly message: string;
}

/** What the reader is asked. */
export interface ReadRequest {
  readonly condition: Condition;
  /** The catalogue and limits `condition` was parsed with (the workers parse it again with them). */
  readonly parse?: ParseOptions | undefined;
  readonly mode: MatchMode;
  /** `all`: stop after this many matches (infinity for all). */
  readonly limit: number;
  /** Threads for a regular file, this one included: 1 reads in this thread. */
  readonly threads: number;
  /** Bytes of one block of a file read by threads (`BLOCK_BYTES`). */
  readonly blockBytes: number;
  /** The longest line a record may have, in characters (UTF-16 code units). */
  readonly maxLineLength: number;
  /** Problems listed with their messages; the rest are counted. */
  readonly maxErrors: number;
  /** Whether a line of invalid UTF-8 is an invalid record (true) or ends the input (false). */
  readonly skipInvalid: boolean;
  /**
   * `first`: whether `found` counts every match (default true); false lets the blocks pass over lines that
   * cannot come first (`ScanOptions.countMatches`), and `found` is then 1 or 0.
   */
  readonly countMatches?: boolean | undefined;
  readonly rules: RecordRules;
  /** `all`: each match in input order, as compact JSON text; awaited (back-pressure). */
  readonly onMatch?: ((text: string, line: number, record: number) => unknown) | undefined;
  /** Called with the records read so far after each block, and once the input is opened. */
  readonly progress?: ((source: InputSource) => ReadProgress | undefined) | undefined;
  /** Ends the read early: the read rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/** A progress display of a read (the CLI's bar). */
export interface ReadProgress {
  update(records: number): void;
  stop(): void;
}

/** The CLI's hand-over of inputs whose first record is no plain incident line (see the module comment). */
export interface Handover {
  /** Whether a record is a dataset of the in-memory backend (then the text reader says so). */
  readonly isDataset: (value: unknown) => boolean;
  /** Reads the input from its start by the text reader. */
  readonly read: (source: InputSource) => Promise<void>;
}

/** The merged answer of the reader. */
export interface ReadAnswer {
  /** Matching records (in `all` mode, those given to `onMatch`). */
  readonly found: number;
  /** `first`: the first match (positions in the input). */
  readonly best: ScanBest | undefined;
  /** Problems with their messages, in input order (at most `maxErrors`). */
  readonly problems: readonly NdjsonProblem[];
  /** Invalid records past `maxErrors` (counted, not listed). */
  readonly unlisted: number;
  /** Lines and records read (records: non-blank lines). */
  readonly lines: number;
  readonly records: number;
  readonly source: InputSource;
}

/** `all` lets the event loop run after this many matches taken without back-pressure. */
const YIELD_EVERY = 256;

/**
 * Bytes of a stream judged between two turns of the event loop: a stream whose chunks are already
 * buffered (or an in-memory one) would otherwise be read to its end in one turn, deaf to an abort and to
 * the other requests of a server (a regular file turns once a block).
 */
const YIELD_BYTES = 1 << 20;

/** One turn of the event loop (timers, I/O and an abort's listeners run). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Applies block results in input order (see the module comment): positions made absolute, problems kept,
 * matches given to `onMatch` (with back-pressure), the first match kept.
 */
class MatchMerge {
  line = 0;
  record = 0;
  found = 0;
  best: ScanBest | undefined;
  readonly problems: NdjsonProblem[] = [];
  unlisted = 0;
  /** Set once the limit is reached: nothing after is taken. */
  done = false;

  constructor(
    private readonly request: ReadRequest,
    private readonly label: string,
  ) {}

  private problem(line: number, record: number, message: string): void {
    if (this.problems.length < this.request.maxErrors) this.problems.push({ line, record, message });
    else this.unlisted++;
  }

  /**
   * Takes the next block's result.
   * @throws {NdjsonInputError} `dataError` for invalid UTF-8 in the block (after its earlier lines were
   *   taken); the signal's reason once it is aborted
   */
  async apply(result: BlockResult): Promise<void> {
    this.request.signal?.throwIfAborted();
    if (this.done) return;
    const lineBase = this.line;
    const recordBase = this.record;
    if (this.request.mode === "all") {
      // Problems and matches interleaved by line, so that the limit ends both at the same place.
      let k = 0;
      let more = 0;
      const problems = result.problems;
      const extra = result.moreProblems;
      const takeBefore = (line: number): void => {
        while (k < problems.length && problems[k]!.line < line) {
          const problem = problems[k++]!;
          this.problem(lineBase + problem.line, recordBase + problem.record, problem.message);
        }
        while (more < extra.length && extra[more]! < line && k >= problems.length) {
          this.unlisted++;
          more++;
        }
      };
      for (const match of result.matches) {
        takeBefore(match.line);
        const taken = this.request.onMatch?.(match.text, lineBase + match.line, recordBase + match.record);
        this.found++;
        if (taken instanceof Promise) await untilAborted(taken, this.request.signal);
        // A block's matches are taken in one go: let a reader that went away (`| head -1`) be heard.
        else if (this.found % YIELD_EVERY === 0) await nextTurn();
        // No match is given after an abort, even one of the block being taken.
        this.request.signal?.throwIfAborted();
        if (this.found >= this.request.limit) {
          this.done = true;
          return;
        }
      }
      takeBefore(Number.POSITIVE_INFINITY);
    } else {
      for (const problem of result.problems)
        this.problem(lineBase + problem.line, recordBase + problem.record, problem.message);
      this.unlisted += result.moreProblems.length;
      this.found += result.found;
      const best = result.best;
      if (best !== undefined && isNewFirst(this.best, best)) {
        this.best = { ...best, line: lineBase + best.line, record: recordBase + best.record };
      }
    }
    this.line += result.lines;
    this.record += result.records;
    if (result.stop !== undefined) {
      throw new NdjsonInputError(
        `${this.label} line ${lineBase + result.stop.line} is not valid UTF-8 (byte ${result.stop.byte} of the input).`,
        "dataError",
      );
    }
  }
}

/** The blanks the text reader skips before the first record (`\S` of a regular expression), as bytes. */
function isBlankByte(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/**
 * Whether worker threads can judge `condition`: they get it as Search Conditions JSON and parse it again
 * with `parse`, which must give the same condition (a condition parsed with another catalogue would not).
 */
function workersCanParse(condition: Condition, parse: ParseOptions | undefined): boolean {
  try {
    return isDeepStrictEqual(parseSearchConditions(toSearchConditions(condition), parse), condition);
  } catch {
    return false;
  }
}

/**
 * Reads NDJSON `input` and judges its records (see the module comment).
 * @param input - a path (`-` for `stdin`), or a readable stream of bytes
 * @returns the merged answer, or `undefined` after handing the input over (`handover.read`)
 * @throws {NdjsonInputError} for an unreadable input, bad gzip, or invalid UTF-8 without `skipInvalid`;
 *   the signal's reason once it is aborted
 */
export async function readNdjson(
  input: string | NodeJS.ReadableStream,
  open: { readonly stdin?: NodeJS.ReadableStream | undefined; readonly label?: string | undefined },
  request: ReadRequest,
  handover?: Handover,
): Promise<ReadAnswer | undefined> {
  request.signal?.throwIfAborted();
  const source = await openInput(input, {
    stdin: open.stdin,
    label: open.label,
    invalidUtf8Lines: request.skipInvalid,
    signal: request.signal,
  });
  // A file's descriptor stays open while its blocks are read (threads read through it): the abort is then
  // seen between blocks, and the input closed once every worker has ended.
  const reading = { blocks: false };
  const onAbort = () => {
    if (!reading.blocks) source.close();
  };
  request.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await readSource(source, request, handover, reading);
  } catch (error) {
    // Closing the input on abort makes its reads fail: the abort is what the caller asked about.
    if (request.signal?.aborted === true) throw request.signal.reason;
    throw error;
  } finally {
    request.signal?.removeEventListener("abort", onAbort);
    source.close();
  }
}

async function readSource(
  source: InputSource,
  request: ReadRequest,
  handover: Handover | undefined,
  reading: { blocks: boolean },
): Promise<ReadAnswer | undefined> {
  const chunks = source.bytes[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  // The first line: read until it is whole (at most the longest line a record may have). Each chunk is
  // searched once, and the chunks are joined once, at the end (never quadratic).
  const cap = overlongBytes(request.maxLineLength);
  let held = 0;
  let bom = -1;
  let start = -1;
  let firstEnd = -1;
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) {
      if (start >= 0) firstEnd = held;
      break;
    }
    const chunk = next.value;
    const base = held;
    head.push(chunk);
    held += chunk.length;
    if (bom < 0) {
      // Whether a byte order mark begins the input, once its first three bytes are in.
      if (held < 3) continue;
      const lead = head.length === 1 ? chunk : Buffer.concat(head, 3);
      bom = lead[0] === 0xef && lead[1] === 0xbb && lead[2] === 0xbf ? 3 : 0;
    }
    if (start < 0) {
      let p = Math.max(0, bom - base);
      while (p < chunk.length && isBlankByte(chunk[p]!)) p++;
      if (p < chunk.length) start = base + p;
    }
    if (start >= 0) {
      const nl = chunk.indexOf(10, Math.max(0, start - base));
      if (nl >= 0) {
        firstEnd = base + nl + 1;
        break;
      }
    }
    if (held > cap) break;
  }
  if (bom < 0) {
    // An input of fewer than three bytes.
    const lead = Buffer.concat(head);
    bom = lead.length >= 3 && lead[0] === 0xef && lead[1] === 0xbb && lead[2] === 0xbf ? 3 : 0;
    let p = bom;
    while (p < lead.length && isBlankByte(lead[p]!)) p++;
    if (p < lead.length) start = p;
    if (start >= 0) firstEnd = lead.indexOf(10, start) + 1 || lead.length;
  }
  const buffer: Buffer = head.length === 1 ? head[0]! : Buffer.concat(head, held);
  const scanner = new BlockScanner(
    request.condition,
    {
      mode: request.mode,
      maxLineLength: request.maxLineLength,
      maxErrors: request.maxErrors,
      skipInvalid: request.skipInvalid,
      countMatches: request.countMatches !== false,
    },
    request.rules,
  );
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  let first: BlockResult | undefined;
  if (handover !== undefined) {
    if (start < 0 || firstEnd < 0 || buffer[start] !== 0x7b) {
      await handover.read(replayInput(source, head, chunks));
      return undefined;
    }
    first = scanner.first(bytes, bom, firstEnd, handover.isDataset);
    if (first === undefined) {
      await handover.read(replayInput(source, head, chunks));
      return undefined;
    }
  } else if (firstEnd >= 0) first = scanner.scan(bytes, bom, firstEnd, 0);

  const merge = new MatchMerge(request, source.label);
  const progress = request.progress?.(source);
  try {
    if (first !== undefined) await merge.apply(first);
    progress?.update(merge.record);
    const size = source.size ?? 0;
    if (first === undefined) {
      // No whole first line within the cap (or only blanks): everything after a byte order mark, as a stream.
      await matchInThread(
        scanner,
        buffer.subarray(bom),
        bom,
        chunks,
        merge,
        { cap, skipInvalid: request.skipInvalid },
        () => progress?.update(merge.record),
      );
    } else if (!merge.done && source.path !== undefined && !source.gzip && size > firstEnd) {
      // A regular file: its blocks read by position through the descriptor the input was opened with (the
      // file opened is the file read, even once its name is removed or given to another file), in this
      // thread and (with threads > 1 and a file of two blocks or more) in worker threads beside it.
      reading.blocks = true;
      const plan: BlockPlan = {
        path: source.path,
        fd: source.fd,
        from: firstEnd,
        size,
        blockBytes: request.blockBytes,
      };
      const script = matchWorkerScript();
      // No more threads than the cores: more would only share them (and each holds a block and the engine).
      const threads = Math.min(request.threads, availableParallelism());
      const workers =
        script !== undefined &&
        size - firstEnd >= 2 * request.blockBytes &&
        threads > 1 &&
        workersCanParse(request.condition, request.parse)
          ? threads - 1
          : 0;
      await matchFileBlocks(plan, scanner, workers, script, request, merge, () =>
        progress?.update(merge.record),
      );
    } else if (!merge.done) {
      await matchInThread(
        scanner,
        buffer.subarray(firstEnd),
        firstEnd,
        chunks,
        merge,
        { cap, skipInvalid: request.skipInvalid },
        () => progress?.update(merge.record),
      );
    }
  } finally {
    progress?.stop();
  }
  // Without `countMatches`, the blocks counted only the matches they judged.
  const onlyFirst = request.countMatches === false && request.mode === "first";
  return {
    found: onlyFirst ? Number(merge.best !== undefined) : merge.found,
    best: merge.best,
    problems: merge.problems,
    unlisted: merge.unlisted,
    lines: merge.line,
    records: merge.record,
    source,
  };
}

/**
 * The rest of the input read in this thread: cut into blocks of whole lines by `StreamLines` (linear in
 * the input, whatever its lines' lengths), each judged as it comes; a line longer than any record may be
 * is skipped (`OverlongLine`), never held.
 */
async function matchInThread(
  scanner: BlockScanner,
  rest: Buffer,
  offset: number,
  chunks: AsyncIterator<Buffer>,
  merge: MatchMerge,
  limits: { readonly cap: number; readonly skipInvalid: boolean },
  progress: () => void,
): Promise<void> {
  const lines = new StreamLines(limits.cap);
  let at = offset;
  let sinceTurn = 0;
  const skip = new OverlongLine(limits.skipInvalid);
  const take = async (chunk: Buffer): Promise<void> => {
    sinceTurn += chunk.length;
    if (sinceTurn >= YIELD_BYTES) {
      sinceTurn = 0;
      await nextTurn();
    }
    if (skip.active) {
      const ended = skip.feed(chunk, at);
      at += skip.consumed;
      if (!ended) return;
      await merge.apply(skip.finish(scanner));
      if (merge.done) return;
      chunk = chunk.subarray(skip.consumed);
    }
    const cut = lines.push(chunk);
    for (const block of cut.blocks) {
      const bytes = new Uint8Array(block.buffer, block.byteOffset, block.length);
      await merge.apply(scanner.scan(bytes, 0, bytes.length, at));
      at += block.length;
      if (merge.done) return;
    }
    progress();
    if (cut.overlong !== undefined) {
      skip.start(cut.overlong, at);
      for (const piece of cut.overlong) at += piece.length;
    }
  };
  if (rest.length > 0) await take(rest);
  for (;;) {
    if (merge.done) return;
    const next = await chunks.next();
    if (next.done === true) break;
    await take(next.value);
  }
  if (merge.done) return;
  if (skip.active) await merge.apply(skip.finish(scanner));
  else {
    const last = lines.end();
    if (last !== undefined) {
      const bytes = new Uint8Array(last.buffer, last.byteOffset, last.length);
      await merge.apply(scanner.scan(bytes, 0, bytes.length, at));
    }
  }
  progress();
}

/**
 * Judges the blocks of a regular file in this thread and in `workers` worker threads, merging them in
 * order. The threads take blocks from one shared counter, at most `WINDOW` ahead of the merge; this thread
 * merges whatever has come back before it takes the next block itself.
 */
async function matchFileBlocks(
  plan: BlockPlan,
  scanner: BlockScanner,
  workers: number,
  script: URL | undefined,
  request: ReadRequest,
  merge: MatchMerge,
  progress: () => void,
): Promise<void> {
  const blocks = blockCount(plan);
  // [next block to take, blocks merged, stop]
  const control = new Int32Array(new SharedArrayBuffer(12));
  const threads: Worker[] = [];
  const results = new Map<number, BlockResult[]>();
  let merged = 0;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const settle = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const condition = toSearchConditions(request.condition);
  const parse = request.parse;
  // The process's budget of worker threads is shared by every read in progress (a server's concurrent
  // calls): what it cannot grant is judged in this thread.
  const granted = script === undefined ? 0 : takeWorkers(Math.min(workers, blocks - 1));
  const signal = request.signal;
  signal?.addEventListener("abort", settle);
  let own: FileBlocks | undefined;
  try {
    for (let t = 0; t < granted && script !== undefined; t++) {
      const work = {
        ...plan,
        blocks,
        control,
        condition,
        ...(parse === undefined ? {} : { parse }),
        mode: request.mode,
        maxLineLength: request.maxLineLength,
        maxErrors: request.maxErrors,
        skipInvalid: request.skipInvalid,
        countMatches: request.countMatches !== false,
      };
      // A worker started with the process has loaded its modules by now (workers.ts, `prestartWorkers`).
      const started = takePrestartedWorker();
      if (started !== undefined) started.postMessage(work);
      const worker = started ?? new Worker(script, { workerData: work });
      worker.on("message", (message: { block: number; results: BlockResult[] }) => {
        results.set(message.block, message.results);
        settle();
      });
      worker.on("error", (error) => {
        failure ??= inputError(error, plan.path);
        settle();
      });
      worker.on("exit", () => settle());
      threads.push(worker);
    }
    own = fileCall(
      () => new FileBlocks(plan, scanner, overlongBytes(request.maxLineLength), request.skipInvalid),
      plan.path,
    );
    while (merged < blocks && !merge.done) {
      signal?.throwIfAborted();
      const block = results.get(merged);
      if (block !== undefined) {
        results.delete(merged);
        merged++;
        Atomics.store(control, 1, merged);
        Atomics.notify(control, 1);
        for (const result of block) await merge.apply(result);
        progress();
        continue;
      }
      if (failure !== undefined) throw failure;
      // Take the next block when it is within the window (the one the merge waits for always is).
      const next = Atomics.load(control, 0);
      if (next < blocks && next < merged + WINDOW) {
        const i = Atomics.add(control, 0, 1);
        const reader = own;
        if (i < blocks)
          results.set(
            i,
            fileCall(() => reader.judge(i), plan.path),
          );
        // Let the workers' messages in before the next look, and an abort or a server's other work.
        await nextTurn();
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    signal?.removeEventListener("abort", settle);
    own?.close();
    Atomics.store(control, 2, 1);
    Atomics.notify(control, 1);
    try {
      await Promise.all(threads.map((worker) => worker.terminate()));
    } finally {
      releaseWorkers(granted);
    }
  }
}

/**
 * What a file's read threw, as the reader's error: an `NdjsonInputError` (from this thread, or from a worker
 * thread, which sends its name, message and `kind`) as it is, a failed read of the system (`ENOENT` once
 * the file is gone, `EIO`) as an `ioError` naming the file; anything else (a defect) unchanged.
 */
function inputError(error: unknown, path: string): unknown {
  const e = error as { name?: unknown; kind?: unknown; code?: unknown; message?: unknown } | null;
  if (error instanceof NdjsonInputError) return error;
  if (e?.name === "NdjsonInputError" && typeof e.kind === "string" && typeof e.message === "string")
    return new NdjsonInputError(e.message, e.kind as NdjsonInputError["kind"]);
  if (typeof e?.code === "string" && /^E[A-Z]+$/.test(e.code))
    return new NdjsonInputError(`Cannot read '${path}': ${describeSystemError(error)}`, "ioError");
  return error;
}

/** Runs a read of the file at `path`, its failure as `inputError` gives it. */
function fileCall<T>(read: () => T, path: string): T {
  try {
    return read();
  } catch (error) {
    throw inputError(error, path);
  }
}
