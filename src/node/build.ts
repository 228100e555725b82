/**
 * A parallel `fromNdjson` over a regular file (docs/node.md, "`fromNdjson(input, options)`"): the file's
 * blocks (file-blocks.ts, as `matchNdjson` cuts them: the lines that start in a block, the last one read to
 * its end) are split into ranges of consecutive blocks, one per thread. This thread reads the first range
 * into the set itself (`IncidentSet.ndjsonBuild`); each other range is built into a part by a worker thread
 * (build-worker.ts; from the sources, or for options that cannot be cloned to a worker, by this thread after
 * its own range), and the parts are appended in file order (ndjson-parts.ts). The process's budget of
 * workers (workers.ts) decides how many ranges there are: one per worker granted, and this thread's. The set is the
 * one-thread build's in every answer: the same rows in the same order, columns, indexes, records, and
 * the same first error (the earliest bad line's, numbered in the whole file, whichever thread met it
 * first). Every worker has ended when the call returns or rejects.
 */

import type { FileHandle } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import {
  IncidentSet,
  type IncidentSetOptions,
  type NdjsonBuild,
  type NdjsonReading,
} from "../incidents/incident-set.js";
import { untilAborted } from "../incidents/ndjson.js";
import { type NdjsonPart, partError, partErrorIn } from "../incidents/ndjson-parts.js";
import { buildRange, type RangeInput } from "./build-range.js";
import { NdjsonInputError, type NdjsonInputErrorKind } from "./errors.js";
import { blockCount } from "./file-blocks.js";
import { buildWorkerScript, defaultThreads, releaseWorkers, takeWorkers } from "./workers.js";

/**
 * The blocks a regular file holds at least for `fromNdjson` to build it with several threads when no
 * `threads` is given: 16 (64 MiB with `BLOCK_BYTES`). Below, a worker's start (its module loaded, about a
 * fifth of a second on the machine measured) and the append of its part cost more than its range saves.
 */
export const PARALLEL_BUILD_MIN_BLOCKS = 16;

/**
 * The threads `fromNdjson` builds a regular file of `size` bytes with (docs/node.md, "`fromNdjson(input,
 * options)`"): `asked` when given; else the cores available (at most 8, as `matchNdjson`'s default) for a
 * file of at least `PARALLEL_BUILD_MIN_BLOCKS` blocks of `blockBytes`, and one thread below.
 */
export function buildThreads(asked: number | undefined, size: number, blockBytes: number): number {
  if (asked !== undefined) return asked;
  return size >= PARALLEL_BUILD_MIN_BLOCKS * blockBytes ? defaultThreads() : 1;
}

/** What a worker posts: its part (or a line's error in it), or the error that ended its read. */
type WorkerMessage =
  | { readonly part: NdjsonPart }
  | { readonly input: { readonly message: string; readonly kind: NdjsonInputErrorKind } }
  | { readonly system: { readonly message: string; readonly code: string } };

/**
 * Builds the set of the regular file open as `handle` with up to `threads` threads (this one included):
 * one range of blocks per thread, at most one per block; one range (a small file, `threads` 1) is the
 * one-thread build (`IncidentSet.fromNdjson` over the handle).
 *
 * Speed: the benchmark row "set build" of bench/one-shot.ts (1M incidents, threads 1 against the default).
 * @param handle - the file, open for reading (left open)
 * @param path - its path, for messages
 * @param options - the set's options (validated by the set)
 * @param threads - threads in all, ≥ 1, or undefined for the default (`buildThreads`)
 * @param blockBytes - bytes of a block (`BLOCK_BYTES`; tests cut lines at block boundaries with tiny blocks)
 * @param reading - `IncidentSet.fromNdjson`'s: its `signal` is also asked between the blocks of this
 *   thread's ranges and while a worker's part is awaited; with its `kernel`, the ranges read in this thread
 *   use it and the workers use the line kernel (`lineKernel()`, where it runs)
 * @throws {SyntaxError} {TypeError} {RangeError} (rejects) as `IncidentSet.fromNdjson` does, for the
 *   earliest bad line of the file; {NdjsonInputError} `ioError` when the file shrinks while it is read;
 *   Node's error when a read fails; the signal's reason once it is aborted (every worker ended)
 */
export async function buildFromFile<R extends object>(
  handle: FileHandle,
  path: string,
  options: IncidentSetOptions,
  threads: number | undefined,
  blockBytes: number,
  reading: NdjsonReading = {},
): Promise<IncidentSet<R>> {
  const size = (await handle.stat()).size;
  const blocks = blockCount({ path, from: 0, size, blockBytes });
  const wanted = Math.min(buildThreads(threads, size, blockBytes), blocks);
  if (wanted <= 1) return IncidentSet.fromNdjson<R>(handle, options, reading);
  const signal = reading.signal;
  signal?.throwIfAborted();
  const stop = () => signal?.aborted === true;
  // Validated (and its errors thrown) before any worker starts.
  const build = IncidentSet.ndjsonBuild<R>(options, reading.kernel);
  const script = buildWorkerScript();
  const granted = script === undefined ? 0 : takeWorkers(wanted - 1);
  // With workers, one range per thread granted; from the sources, the ranges asked for, all read here.
  const parts = script === undefined ? wanted : granted + 1;
  if (parts <= 1) {
    releaseWorkers(granted);
    return IncidentSet.fromNdjson<R>(handle, options, reading);
  }
  const range = (k: number): RangeInput => ({
    path,
    fd: handle.fd,
    size,
    blockBytes,
    first: Math.floor((k * blocks) / parts),
    end: Math.floor(((k + 1) * blocks) / parts),
  });
  const control = new Int32Array(new SharedArrayBuffer(4));
  const workers: Worker[] = [];
  const results: (Promise<NdjsonPart> | undefined)[] = [undefined];
  try {
    for (let k = 1; k < parts; k++) {
      results.push(
        k <= granted
          ? startWorker(script!, range(k), options, reading.kernel !== undefined, control, workers)
          : undefined,
      );
    }
    if (!(await buildRange(build as NdjsonBuild<object>, range(0), stop, true))) throw signal!.reason;
    // While the workers finish: this range's order sorted, so that theirs (sorted by them) are merged in.
    // Pays: bench/one-shot.ts, "set build" row (1M, threads 2, three runs: what follows the last part,
    // its append and the build's end, 0.57 s against 0.62 s with the whole order sorted at the end).
    // And the build sized for the whole file, as this range's lines per byte predict (`expectedLines`).
    build.settle(expectedLines(build.line, range(0).end * blockBytes, size, parts));
    for (let k = 1; k < parts; k++) {
      const given = results[k];
      const part =
        (given === undefined ? undefined : await untilAborted(given, signal)) ??
        (await buildHere<R>(options, range(k), stop, reading.kernel));
      if (part === undefined) throw signal!.reason;
      // The earliest bad line: every range before this one was read without error.
      if (part.error !== undefined) throw partErrorIn(part.error, build.line);
      build.append(part);
      signal?.throwIfAborted();
    }
    return build.finish();
  } finally {
    Atomics.store(control, 0, 1);
    await Promise.all(workers.map((worker) => worker.terminate()));
    releaseWorkers(granted);
  }
}

/**
 * The lines a file of `size` bytes is expected to hold, after its first `lines` lines took `bytes` bytes (the
 * first of `parts` ranges): in proportion, and at most twice `parts` times as many, so that a file whose
 * first range has much shorter lines than the rest cannot size a build past a small multiple of the set
 * it ends with.
 */
export function expectedLines(lines: number, bytes: number, size: number, parts: number): number {
  if (lines <= 0 || bytes <= 0) return 0;
  return Math.min(Math.ceil((lines * size) / Math.min(bytes, size)), 2 * parts * lines);
}

/**
 * The part of `range`, built in this thread (its line's error kept in it, as a worker's); undefined when
 * `stop` said so between two blocks.
 */
async function buildHere<R extends object>(
  options: IncidentSetOptions,
  range: RangeInput,
  stop: () => boolean,
  kernel: NdjsonReading["kernel"],
): Promise<NdjsonPart | undefined> {
  const part = IncidentSet.ndjsonBuild<R>(options, kernel);
  try {
    if (!(await buildRange(part as NdjsonBuild<object>, range, stop, true))) return undefined;
  } catch (error) {
    const kept = partError(error);
    if (kept.line === undefined) throw error;
    return { lines: 0, rows: 0, error: kept };
  }
  return part.exportPart();
}

/**
 * Starts a worker on `range` (with `kernel`, reading it with the line kernel where it runs): its part, or
 * its read's error (rejects); rejects too when it ends without either; undefined when the worker cannot be
 * given the options. The rejection is handled here too: a part no longer awaited (an earlier one failed) is
 * no unhandled rejection.
 */
function startWorker(
  script: URL,
  range: RangeInput,
  options: IncidentSetOptions,
  kernel: boolean,
  control: Int32Array,
  workers: Worker[],
): Promise<NdjsonPart> | undefined {
  let worker: Worker;
  try {
    worker = new Worker(script, { workerData: { ...range, options, kernel, control } });
  } catch {
    // Options that cannot be cloned to a worker (a catalogue holding functions): this thread builds it.
    return undefined;
  }
  workers.push(worker);
  const result = new Promise<NdjsonPart>((resolve, reject) => {
    worker.once("message", (message: WorkerMessage) => {
      if ("part" in message) resolve(message.part);
      else if ("input" in message) reject(new NdjsonInputError(message.input.message, message.input.kind));
      else reject(Object.assign(new Error(message.system.message), { code: message.system.code }));
    });
    worker.once("error", reject);
    worker.once("exit", (code) =>
      reject(new Error(`fromNdjson: a worker thread ended (exit code ${code}) before its part was built.`)),
    );
  });
  result.catch(() => undefined);
  return result;
}
