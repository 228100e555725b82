/**
 * The worker threads of the readers of regular files (reader.ts): the block size, the default thread count,
 * the worker's script in the build, and workers started ahead of their work. A worker takes about a tenth
 * of a second to load the engine, which it would otherwise spend after the main thread had loaded it too,
 * while the main thread scans alone: an executable that knows early that it will read a file by several
 * threads (the CLI's `match`, src/cli/match-prestart.ts) starts them with `prestartWorkers` before it
 * loads anything else; the reader takes them (`takePrestartedWorker`, then a message with what
 * `workerData` would hold). An unused worker holds nothing open: the process ends without waiting for it.
 *
 * This module loads no part of the engine (only Node's own modules), so that the workers start before the
 * executable's modules load.
 */

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/** Bytes of one block of a regular file judged by one thread. */
export const BLOCK_BYTES = 4 << 20;

/**
 * Worker threads reading for all reads of this process at once (`matchNdjson` calls of a server, the CLI's
 * one read): at most the cores available minus one, the calling threads having a core each.
 */
let workersInUse = 0;

/**
 * Takes up to `wanted` worker threads from the process's budget (the cores available minus one, shared by
 * every read in progress) and returns how many were granted, possibly 0: a read granted fewer judges more
 * blocks in its own thread, with the same answers (docs/node.md, "Threads"). Every grant is given back
 * with `releaseWorkers`.
 * @param wanted - a count ≥ 0
 */
export function takeWorkers(wanted: number): number {
  const granted = Math.max(0, Math.min(wanted, availableParallelism() - 1 - workersInUse));
  workersInUse += granted;
  return granted;
}

/** Gives back worker threads granted by `takeWorkers`, once they have ended. */
export function releaseWorkers(granted: number): void {
  workersInUse -= granted;
}

/** The default of `--threads`: the cores available, at most 8. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(8, availableParallelism()));
}

/**
 * The worker's script in the build: beside the module that holds this code (`dist/cli/match-worker.js` for
 * the executable, `dist/node/match-worker.js` for the library entry, whose shared code may sit in
 * `dist/`); `undefined` when run from the sources (then every block is judged in the calling thread).
 */
export function matchWorkerScript(): URL | undefined {
  return workerScript("match-worker");
}

/**
 * The script of a parallel `fromNdjson`'s workers (build-worker.ts) in the build, found as `matchWorkerScript`
 * finds its own; `undefined` when run from the sources (then every part is built in the calling thread).
 */
export function buildWorkerScript(): URL | undefined {
  return workerScript("build-worker");
}

function workerScript(name: string): URL | undefined {
  for (const candidate of [`./${name}.js`, `./node/${name}.js`]) {
    try {
      const url = new URL(candidate, import.meta.url);
      if (url.protocol === "file:" && existsSync(fileURLToPath(url))) return url;
    } catch {
      // Not a file URL (a bundle of the caller's): no worker.
    }
  }
  return undefined;
}

/** A started worker that has not failed or ended before it was taken. */
interface Prestarted {
  readonly worker: Worker;
  failed: boolean;
}

const prestarted: Prestarted[] = [];

/**
 * Starts `count` workers that wait for their work (see the module comment); does nothing when the build's
 * worker script is absent (run from the sources). Never throws: a worker that fails to start is not used.
 * @param count - workers to start (at most the threads less one that the reader will want)
 * @param script - the worker's script (tests; default: the build's, `matchWorkerScript`)
 * @returns how many started workers wait to be taken (this call's and any earlier)
 */
export function prestartWorkers(count: number, script?: URL): number {
  const url = count > 0 ? (script ?? matchWorkerScript()) : undefined;
  if (url === undefined) return prestarted.length;
  for (let k = 0; k < count; k++) {
    try {
      const worker = new Worker(url);
      const entry: Prestarted = { worker, failed: false };
      worker.on("error", () => {
        entry.failed = true;
      });
      worker.on("exit", () => {
        entry.failed = true;
      });
      worker.unref();
      prestarted.push(entry);
    } catch {
      break;
    }
  }
  return prestarted.length;
}

/**
 * A started worker, waiting for its work as one message (what it would otherwise get as `workerData`),
 * held open again (`ref`) for the caller; or undefined when none is left. The caller adds its own `error`
 * and `exit` listeners and terminates it when done.
 */
export function takePrestartedWorker(): Worker | undefined {
  for (;;) {
    const entry = prestarted.shift();
    if (entry === undefined) return undefined;
    if (entry.failed) continue;
    entry.worker.ref();
    return entry.worker;
  }
}
