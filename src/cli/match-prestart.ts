/**
 * Worker threads of `match` started with the process (docs/cli.md, "Fast path"): a worker takes about a
 * tenth of a second to load the engine, which it would otherwise spend after the main thread had loaded
 * it too, while the main thread scans alone. `prestartMatchWorkers` is called by the executable before it
 * loads anything else, for a command line that will read a regular file in blocks by several threads; the
 * workers load the engine beside the main thread and wait for their work (`takePrestartedWorker`, then a
 * message with what `workerData` would hold). An unused worker holds nothing open: the process ends
 * without waiting for it.
 *
 * The pool and its workers are the Node entry's (src/node/workers.ts); this module reads the command
 * line. It loads no part of the engine (only Node's own modules and that pool), so that the workers start
 * before the executable's modules load.
 */

import { statSync } from "node:fs";
import {
  BLOCK_BYTES,
  defaultThreads,
  matchWorkerScript,
  prestartWorkers,
  takePrestartedWorker,
} from "../node/workers.js";

export { BLOCK_BYTES, defaultThreads, matchWorkerScript, takePrestartedWorker };

/**
 * The smallest file whose workers start with the process: 16 blocks (64 MiB). Below it a worker started
 * early costs more than it gains: paired whole processes of `match --count --threads 2` (labels, 16 pairs
 * each, a quiet machine, 2026-12-07): wall 0.95× (447 MB), 0.97× (100 MB) and 1.04× (25 MB; CPU 1.20×)
 * the build that starts them when the blocks are planned. Speed: bench/one-shot.ts, the one-shot rows
 * ("faster DuckDB / faster CLI"; docs/performance.md, "Worker threads started with the process").
 */
export const PRESTART_MIN_BYTES = 16 * BLOCK_BYTES;

/**
 * The value of option `name` in `argv` (`--name value` or `--name=value`; the last one given), or undefined.
 * Only what follows the subcommand is read; an option's value that itself looks like `--name` is taken.
 */
function optionValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (arg === name && i + 1 < argv.length) value = argv[++i];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  }
  return value;
}

/**
 * How many workers `match` will want for `argv` (the arguments after the executable): `--threads` (or its
 * default) less one, when the subcommand is `match`, `--incidents` names a regular file of at least
 * `minBytes` bytes, and nothing else on the line says the threads will not run (`--reader text`,
 * `--block-bytes`, `--help`). At most 7 (the default's bound of 8 threads): the command starts any more it
 * wants itself. Anything unusual gives 0: the command then starts its workers itself, as it always could.
 * @param minBytes - the smallest file that starts workers (default `PRESTART_MIN_BYTES`; at least two
 *   blocks, below which no worker runs at all)
 */
export function prestartCount(argv: readonly string[], minBytes = PRESTART_MIN_BYTES): number {
  if (argv[0] !== "match" || argv.includes("--help") || argv.includes("-h")) return 0;
  if (optionValue(argv, "--reader") !== undefined || optionValue(argv, "--block-bytes") !== undefined)
    return 0;
  const threadsText = optionValue(argv, "--threads");
  const threads = threadsText === undefined ? defaultThreads() : Number(threadsText);
  if (!Number.isSafeInteger(threads) || threads < 2) return 0;
  const path = optionValue(argv, "--incidents");
  if (path === undefined || path === "-" || path.endsWith(".gz")) return 0;
  try {
    const stat = statSync(path);
    if (!stat.isFile() || stat.size < Math.max(minBytes, 2 * BLOCK_BYTES)) return 0;
  } catch {
    return 0;
  }
  return Math.min(threads, 8) - 1;
}

/**
 * Starts the workers `match` will want for `argv` (see `prestartCount`); does nothing when the build's
 * worker script is absent (run from the sources). Never throws: a worker that fails to start is not used.
 * @param argv - the process's arguments after the executable (`process.argv.slice(2)`)
 * @param script - the worker's script (tests; default: the build's, beside this module)
 * @param minBytes - as for `prestartCount`
 * @returns how many started workers wait to be taken (this call's and any earlier)
 */
export function prestartMatchWorkers(argv: readonly string[], script?: URL, minBytes?: number): number {
  return prestartWorkers(prestartCount(argv, minBytes), script);
}
