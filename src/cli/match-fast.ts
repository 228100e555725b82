/**
 * `match` over NDJSON bytes (docs/cli.md, "Fast path"): the input is read as bytes, its lines
 * judged by `BlockScanner` (match-scan.ts): standard input and gzip as they arrive, in this thread; a
 * regular file in blocks read by position (match-blocks.ts), by this thread and, with `--threads` above 1,
 * by worker threads beside it (`--threads N` is N threads in all). The results of the blocks are merged
 * in input order by `MatchMerge`, which gives what the text reader gives: the same count, first match,
 * `--all` lines, messages with their lines and records, and exit codes.
 *
 * The byte reader gives the input to the text reader (records.ts) whenever its first record is not a plain
 * incident line: a JSON array, one JSON document over several lines, a dataset, an invalid first record
 * (`replayInput` hands it what was read so far, so standard input works too).
 */

import { Worker } from "node:worker_threads";
import type { Condition } from "../conditions/ast.js";
import { toSearchConditions } from "../conditions/print.js";
import { isBefore } from "../incidents/order.js";
import type { CliContext } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { ProblemLog, type RecordCliOptions } from "./input.js";
import { type BlockPlan, blockCount, FileBlocks, WINDOW } from "./match-blocks.js";
import { matchWorkerScript, takePrestartedWorker } from "./match-prestart.js";
import {
  type BlockResult,
  BlockScanner,
  type MatchMode,
  OverlongLine,
  overlongBytes,
  type RecordRules,
  type ScanBest,
} from "./match-scan.js";
import { startProgress } from "./progress.js";
import { type InputSource, openInput, replayInput } from "./source.js";

/** What the byte reader was asked. */
export interface FastMatchRequest {
  readonly condition: Condition;
  readonly mode: MatchMode;
  /** `--limit` (with `--all`), or infinity. */
  readonly limit: number;
  readonly options: RecordCliOptions;
  /** Worker threads for a regular file: 1 reads in this thread. */
  readonly threads: number;
  /** Bytes of one block of a file read by threads (`BLOCK_BYTES`). */
  readonly blockBytes: number;
  readonly rules: RecordRules;
  /** Whether a record is a dataset of the in-memory backend. */
  readonly isDataset: (value: unknown) => boolean;
}

/** The merged answer of the byte reader: the log (not yet finished), the count, the best match. */
export interface FastMatchAnswer {
  readonly log: ProblemLog;
  readonly found: number;
  /** The first match (positions in the input). */
  readonly best: ScanBest | undefined;
  readonly source: InputSource;
}

/** `--all` lets the event loop run after this many matches written without back-pressure. */
const YIELD_EVERY = 256;

/**
 * Applies block results in input order (see the module comment): positions made absolute, problems logged,
 * `--all` lines written (with back-pressure), the first match kept.
 */
class MatchMerge {
  line = 0;
  record = 0;
  found = 0;
  best: ScanBest | undefined;
  /** Set once `--limit` is reached: nothing after is taken. */
  done = false;

  constructor(
    readonly log: ProblemLog,
    private readonly context: CliContext,
    private readonly mode: MatchMode,
    private readonly limit: number,
    private readonly label: string,
  ) {}

  /**
   * Takes the next block's result.
   * @throws {CliError} `dataError` for invalid UTF-8 in the block (after its earlier lines were taken)
   */
  async apply(result: BlockResult): Promise<void> {
    if (this.done) return;
    const { log } = this;
    const lineBase = this.line;
    const recordBase = this.record;
    if (this.mode === "all") {
      // Problems and matches interleaved by line, so that `--limit` ends both at the same place.
      let k = 0;
      let more = 0;
      const problems = result.problems;
      const extra = result.moreProblems;
      const logBefore = (line: number): void => {
        while (k < problems.length && problems[k]!.line < line) {
          const problem = problems[k++]!;
          log.add(lineBase + problem.line, recordBase + problem.record, [problem.message]);
        }
        while (more < extra.length && extra[more]! < line && k >= problems.length) {
          log.addUnlisted();
          more++;
        }
      };
      for (const match of result.matches) {
        logBefore(match.line);
        const written = this.context.output.write(`${match.text}\n`);
        this.found++;
        if (written !== undefined) await written;
        // A block's matches are written in one go: let a reader that went away (`| head -1`) be heard.
        else if (this.found % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.found >= this.limit) {
          this.done = true;
          return;
        }
      }
      logBefore(Number.POSITIVE_INFINITY);
    } else {
      for (const problem of result.problems)
        log.add(lineBase + problem.line, recordBase + problem.record, [problem.message]);
      for (let i = 0; i < result.moreProblems.length; i++) log.addUnlisted();
      this.found += result.found;
      const best = result.best;
      if (best !== undefined && (this.best === undefined || isBefore(best, this.best))) {
        this.best = { ...best, line: lineBase + best.line, record: recordBase + best.record };
      }
    }
    this.line += result.lines;
    this.record += result.records;
    if (result.stop !== undefined) {
      throw new CliError(
        `${this.label} line ${lineBase + result.stop.line} is not valid UTF-8 (byte ${result.stop.byte} of the input).`,
        EXIT.dataError,
      );
    }
  }
}

/** The blanks the text reader skips before the first record (`\S` of a regular expression), as bytes. */
function isBlankByte(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/**
 * Runs `match` over input `name` with the byte reader (see the module comment).
 * @returns the merged answer, or `undefined` after handing the input to `text` (the text reader's run)
 * @throws {CliError} as the text reader does (unreadable input, invalid UTF-8, a dataset)
 */
export async function matchBytes(
  name: string,
  context: CliContext,
  request: FastMatchRequest,
  text: (source: InputSource) => Promise<void>,
): Promise<FastMatchAnswer | undefined> {
  const source = await openInput(name, { stdin: context.stdin });
  const chunks = source.bytes[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  const { options } = request;
  // The first record: read until its line is whole (at most the longest line a record may have).
  const cap = overlongBytes(options.maxLineLength);
  let held = 0;
  let start = -1;
  let firstEnd = -1;
  let buffer: Buffer = Buffer.alloc(0);
  for (;;) {
    const next = await chunks.next();
    if (next.done === true) {
      if (start >= 0) firstEnd = buffer.length;
      break;
    }
    head.push(next.value);
    held += next.value.length;
    buffer = head.length === 1 ? next.value : Buffer.concat(head);
    if (start < 0) {
      let p = buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
      while (p < buffer.length && isBlankByte(buffer[p]!)) p++;
      if (p < buffer.length) start = p;
    }
    if (start >= 0) {
      const nl = buffer.indexOf(10, start);
      if (nl >= 0) {
        firstEnd = nl + 1;
        break;
      }
    }
    if (held > cap) break;
  }
  const giveUp = async (): Promise<undefined> => {
    await text(replayInput(source, head, chunks));
    return undefined;
  };
  if (start < 0 || firstEnd < 0 || buffer[start] !== 0x7b) return giveUp();
  const scanner = new BlockScanner(request.condition, { ...options, mode: request.mode }, request.rules);
  const bom = buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  const first = scanner.first(bytes, bom, firstEnd, request.isDataset);
  if (first === undefined) return giveUp();

  const log = new ProblemLog(source.label, options);
  const merge = new MatchMerge(log, context, request.mode, request.limit, source.label);
  const progress = startProgress(source, context.stderr);
  try {
    await merge.apply(first);
    progress?.update(merge.record);
    const size = source.size ?? 0;
    if (!merge.done && source.path !== undefined && !source.gzip && size > firstEnd) {
      // A regular file: its blocks read by position, in this thread and (with --threads > 1 and a file of
      // two blocks or more) in worker threads beside it.
      source.close();
      const plan: BlockPlan = { path: source.path, from: firstEnd, size, blockBytes: request.blockBytes };
      const script = matchWorkerScript();
      const workers =
        script !== undefined && size - firstEnd >= 2 * request.blockBytes ? request.threads - 1 : 0;
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
        options.maxLineLength,
        () => progress?.update(merge.record),
      );
    }
  } finally {
    progress?.stop();
    source.close();
  }
  return { log, found: merge.found, best: merge.best, source };
}

/**
 * The rest of the input read in this thread: each chunk's whole lines judged as one block; a line longer
 * than any record may be is skipped (`OverlongLine`).
 */
async function matchInThread(
  scanner: BlockScanner,
  rest: Buffer,
  offset: number,
  chunks: AsyncIterator<Buffer>,
  merge: MatchMerge,
  maxLineLength: number,
  progress: () => void,
): Promise<void> {
  const cap = overlongBytes(maxLineLength);
  let pending: Buffer = rest;
  let at = offset;
  const skip = new OverlongLine();
  for (;;) {
    if (merge.done) return;
    const next = await chunks.next();
    if (next.done === true) break;
    let chunk = next.value;
    if (skip.active) {
      const ended = skip.feed(chunk, at);
      at += skip.consumed;
      if (!ended) continue;
      await merge.apply(skip.finish(scanner));
      if (merge.done) return;
      chunk = chunk.subarray(skip.consumed);
    }
    const buffer = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const last = buffer.lastIndexOf(10);
    if (last >= 0) {
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
      await merge.apply(scanner.scan(bytes, 0, last + 1, at));
      progress();
      if (merge.done) return;
      at += last + 1;
    }
    pending = last >= 0 ? buffer.subarray(last + 1) : buffer;
    if (pending.length > cap) {
      skip.start(pending, at);
      at += pending.length;
      pending = Buffer.alloc(0);
    }
  }
  if (skip.active) await merge.apply(skip.finish(scanner));
  else if (pending.length > 0) {
    const bytes = new Uint8Array(pending.buffer, pending.byteOffset, pending.length);
    await merge.apply(scanner.scan(bytes, 0, bytes.length, at));
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
  request: FastMatchRequest,
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
  for (let t = 0; t < Math.min(workers, blocks - 1) && script !== undefined; t++) {
    const work = {
      ...plan,
      blocks,
      control,
      condition,
      mode: request.mode,
      maxLineLength: request.options.maxLineLength,
      maxErrors: request.options.maxErrors,
    };
    // A worker started with the process has loaded its modules by now (match-prestart.ts).
    const started = takePrestartedWorker();
    if (started !== undefined) started.postMessage(work);
    const worker = started ?? new Worker(script, { workerData: work });
    worker.on("message", (message: { block: number; results: BlockResult[] }) => {
      results.set(message.block, message.results);
      settle();
    });
    worker.on("error", (error) => {
      failure ??= error;
      settle();
    });
    worker.on("exit", () => settle());
    threads.push(worker);
  }
  const own = new FileBlocks(plan, scanner, overlongBytes(request.options.maxLineLength));
  try {
    while (merged < blocks && !merge.done) {
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
        if (i < blocks) results.set(i, own.judge(i));
        // Let the workers' messages in before the next look.
        if (threads.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    own.close();
    Atomics.store(control, 2, 1);
    Atomics.notify(control, 1);
    await Promise.all(threads.map((worker) => worker.terminate()));
  }
}
