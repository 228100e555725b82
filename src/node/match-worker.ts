/**
 * A worker thread of a match over a regular file (reader.ts): takes the next block from the shared
 * counter, reads the lines that start in it by position (the last one read to its end), judges them with a
 * `BlockScanner`, and posts the results. A line longer than any record may be is skipped without being held
 * (`OverlongLine`). Runs ahead of the merge by at most `WINDOW` blocks, so memory stays bounded. Its work
 * comes as `workerData`, or, for a worker started with the process (workers.ts), as the first
 * message, once its modules are loaded.
 */

import { parentPort, workerData } from "node:worker_threads";
import type { ParseOptions } from "../conditions/options.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { BlockScanner, type MatchMode, overlongBytes } from "./block-scanner.js";
import { FileBlocks, WINDOW } from "./file-blocks.js";
import { MATCH_RULES } from "./record-rules.js";

interface WorkerInput {
  readonly path: string;
  readonly from: number;
  readonly size: number;
  readonly blockBytes: number;
  /** The file's descriptor, open in this process for the whole read (file-blocks.ts `BlockPlan.fd`). */
  readonly fd?: number;
  readonly blocks: number;
  readonly control: Int32Array;
  readonly condition: unknown;
  /** The catalogue and limits the condition was parsed with (the same condition again, see reader.ts). */
  readonly parse?: ParseOptions;
  readonly mode: MatchMode;
  readonly maxLineLength: number;
  readonly maxErrors: number;
  readonly skipInvalid: boolean;
  readonly countMatches: boolean;
}

/** Judges the blocks this thread takes, as `input` says, and posts their results. */
function run(input: WorkerInput): void {
  const scanner = new BlockScanner(
    parseSearchConditions(input.condition, input.parse),
    {
      mode: input.mode,
      maxLineLength: input.maxLineLength,
      maxErrors: input.maxErrors,
      skipInvalid: input.skipInvalid,
      countMatches: input.countMatches,
    },
    MATCH_RULES,
  );
  const blocks = new FileBlocks(input, scanner, overlongBytes(input.maxLineLength), input.skipInvalid);
  const control = input.control;
  try {
    for (;;) {
      const i = Atomics.add(control, 0, 1);
      if (i >= input.blocks) break;
      for (;;) {
        if (Atomics.load(control, 2) !== 0) break;
        const merged = Atomics.load(control, 1);
        if (i < merged + WINDOW) break;
        Atomics.wait(control, 1, merged, 100);
      }
      if (Atomics.load(control, 2) !== 0) break;
      parentPort?.postMessage({ block: i, results: blocks.judge(i) });
    }
  } finally {
    blocks.close();
  }
}

// A worker started with the process gets its work as its first message (no top-level await: the
// CommonJS build of this script has none).
if (workerData !== null && workerData !== undefined) run(workerData as WorkerInput);
else parentPort?.once("message", (input: WorkerInput) => run(input));
