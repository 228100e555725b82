/**
 * The lines of a range of blocks of a regular file read into a build of a parallel `fromNdjson`
 * (build.ts): by a worker thread (build-worker.ts) or by the calling thread, block after block, each cut as
 * file-blocks.ts cuts the blocks of `matchNdjson` (the lines that start in it, the last one read to its end).
 */

import type { NdjsonBuild } from "../incidents/incident-set.js";
import { FileBlocks } from "./file-blocks.js";

/** A range of blocks of a file (`BlockPlan` from 0, blocks `first … end - 1`). */
export interface RangeInput {
  readonly path: string;
  /** The file's descriptor, open in this process for the whole build. */
  readonly fd?: number | undefined;
  /** The file's size when it was opened: bytes past it are not read. */
  readonly size: number;
  readonly blockBytes: number;
  readonly first: number;
  readonly end: number;
}

/**
 * Reads the lines of blocks `first … end - 1` into `build`, asking `stop` before each block; with `turn`,
 * the event loop turns after each block (the calling thread of a server: its other work is heard at least
 * once a block, as in `matchNdjson`).
 * @returns false when `stop` said so (the build is then incomplete)
 * @throws {SyntaxError} {TypeError} as `IncidentSet.fromNdjson` does, for the range's first bad line
 *   (numbered within the range); {NdjsonInputError} `ioError` when the file shrank; Node's error when a
 *   read fails
 */
export async function buildRange(
  build: NdjsonBuild<object>,
  input: RangeInput,
  stop: () => boolean = () => false,
  turn = false,
): Promise<boolean> {
  const plan = {
    path: input.path,
    from: 0,
    size: input.size,
    blockBytes: input.blockBytes,
    fd: input.fd,
  };
  // No line is too long here: the one-thread build reads lines of any length (cap: none).
  const blocks = new FileBlocks(plan, undefined, Number.POSITIVE_INFINITY);
  try {
    for (let i = input.first; i < input.end; i++) {
      if (stop()) return false;
      const lines = blocks.lines(i);
      if (lines === undefined) continue;
      build.lines(lines.bytes, lines.start, lines.end, lines.readStart + lines.end >= input.size);
      if (turn) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return true;
  } finally {
    blocks.close();
  }
}
