/**
 * A worker thread of `match` over a regular file (match-fast.ts): takes the next block from the shared
 * counter, reads the lines that start in it by position (the last one read to its end), judges them with a
 * `BlockScanner`, and posts the results. A line longer than any record may be is skipped without being held
 * (`OverlongLine`). Runs ahead of the merge by at most `WINDOW` blocks, so memory stays bounded.
 */

import { closeSync, openSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { parseSearchConditions } from "../conditions/parse.js";
import { MATCH_RULES } from "./match-rules.js";
import {
  type BlockResult,
  BlockScanner,
  emptyResult,
  type MatchMode,
  OverlongLine,
  overlongBytes,
} from "./match-scan.js";

/** What `matchInWorkers` hands each worker. */
interface WorkerInput {
  readonly path: string;
  readonly from: number;
  readonly size: number;
  readonly blockBytes: number;
  readonly blocks: number;
  /** [next block to take, blocks merged, stop] */
  readonly control: Int32Array;
  readonly condition: unknown;
  readonly mode: MatchMode;
  readonly maxLineLength: number;
  readonly maxErrors: number;
}

/** Blocks a worker may be ahead of the merge. */
const WINDOW = 4;
/** Bytes read at a time past a block's end, to finish its last line. */
const EXTEND_BYTES = 64 * 1024;

const input = workerData as WorkerInput;
const scanner = new BlockScanner(
  parseSearchConditions(input.condition),
  { mode: input.mode, maxLineLength: input.maxLineLength, maxErrors: input.maxErrors },
  MATCH_RULES,
);
const cap = overlongBytes(input.maxLineLength);
const file = openSync(input.path, "r");
let buffer = Buffer.allocUnsafe(input.blockBytes + 1 + EXTEND_BYTES);
const control = input.control;

function read(into: Buffer, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = readSync(file, into, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** The results of block `i`: its lines, then (when its last line is too long to hold) that line's. */
function judgeBlock(i: number): BlockResult[] {
  const blockStart = input.from + i * input.blockBytes;
  const blockEnd = Math.min(blockStart + input.blockBytes, input.size);
  const readStart = i === 0 ? blockStart : blockStart - 1;
  const filled = read(buffer, 0, blockEnd - readStart, readStart);
  let start = 0;
  if (i > 0) {
    // The first line that starts in the block: after the first `\n` from the byte before it.
    const nl = buffer.indexOf(10, 0);
    if (nl < 0 || nl >= filled) return [emptyResult()];
    start = nl + 1;
  }
  if (start >= filled) return [emptyResult()];
  const lastBreak = buffer.lastIndexOf(10, filled - 1);
  // The last line: whole when the block ends with `\n` or the file ends.
  const lineStart = lastBreak < start ? start : lastBreak + 1;
  let end = filled;
  let overlong: BlockResult | undefined;
  if (lineStart < filled && readStart + filled < input.size) {
    for (;;) {
      if (end + EXTEND_BYTES > buffer.length) {
        const wider = Buffer.allocUnsafe(Math.max(buffer.length * 2, end + EXTEND_BYTES));
        buffer.copy(wider, 0, 0, end);
        buffer = wider;
      }
      const n = read(buffer, end, EXTEND_BYTES, readStart + end);
      const nl = buffer.indexOf(10, end);
      if (nl >= 0 && nl < end + n) {
        end = nl + 1;
        break;
      }
      end += n;
      if (n === 0) break;
      if (end - lineStart > cap) {
        overlong = skipLine(lineStart, end, readStart);
        end = lineStart;
        break;
      }
    }
  }
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
  const results = [scanner.scan(bytes, start, end, readStart)];
  if (overlong !== undefined && results[0]!.stop === undefined) results.push(overlong);
  return results;
}

/** Skips the line of `buffer[lineStart, end)` (at `readStart + lineStart` in the file) to its end. */
function skipLine(lineStart: number, end: number, readStart: number): BlockResult {
  const skip = new OverlongLine();
  skip.start(buffer.subarray(lineStart, end), readStart + lineStart);
  let position = readStart + end;
  const chunk = Buffer.allocUnsafe(EXTEND_BYTES);
  for (;;) {
    const n = read(chunk, 0, EXTEND_BYTES, position);
    if (n === 0) break;
    if (skip.feed(chunk.subarray(0, n), position)) break;
    position += n;
  }
  return skip.finish(scanner);
}

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
    parentPort?.postMessage({ block: i, results: judgeBlock(i) });
  }
} finally {
  closeSync(file);
}
