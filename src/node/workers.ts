/**
 * The worker threads of the readers of regular files (reader.ts): the block size, the default thread count
 * and the worker's script in the build. Workers are started by the reader when it has planned the blocks
 * (starting them with the process did not pay: docs/performance.md, "Worker threads started with the
 * process").
 */

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

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
