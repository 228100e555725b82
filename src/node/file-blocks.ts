/**
 * The blocks of a regular file read by position (reader.ts): block `i` holds the lines
 * that start in `[from + i·blockBytes, from + (i+1)·blockBytes)`, the last one read to its end. A line
 * longer than any record may be is skipped without being held (`OverlongLine`). Used by the worker threads
 * (match-worker.ts) and, with one thread, by the main thread, so that both judge the same lines.
 */

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type BlockResult, type BlockScanner, emptyResult, OverlongLine } from "./block-scanner.js";
import { NdjsonInputError } from "./errors.js";

/** How many blocks the threads may judge ahead of the merge (so memory stays bounded). */
export const WINDOW = 4;

/** Bytes read at a time past a block's end to finish its last line. */
const EXTEND_BYTES = 64 * 1024;

/** Where a file's blocks are: the file, the byte after the first record, its size and the block size. */
export interface BlockPlan {
  readonly path: string;
  /** The offset of the first line after the first record (the blocks start there). */
  readonly from: number;
  /** The file's size when it was opened: bytes past it are not read. */
  readonly size: number;
  readonly blockBytes: number;
  /**
   * The descriptor of the file, open for the whole read (shared by the threads of one process; not closed
   * here); without one, each reader opens `path`.
   */
  readonly fd?: number | undefined;
}

/** The number of blocks of a plan. */
export function blockCount(plan: BlockPlan): number {
  return Math.ceil((plan.size - plan.from) / plan.blockBytes);
}

/** Reads and judges the blocks of one file (synchronous reads; one instance per thread). */
export class FileBlocks {
  private readonly file: number;
  private buffer: Buffer;
  /** Whether `buffer` is in the kernel's memory (`place`). */
  private inKernel = false;

  /**
   * @param plan - the file and its blocks
   * @param scanner - judges the lines (`judge`); without one, only `lines` is used (a parallel build)
   * @param cap - `overlongBytes(--max-line-length)`: a longer line is skipped, not held (with a scanner)
   * @param skipInvalid - `--skip-invalid`: a skipped line's invalid UTF-8 does not end the input
   * @throws {Error} when the file cannot be opened (Node's error)
   */
  constructor(
    private readonly plan: BlockPlan,
    private readonly scanner: BlockScanner | undefined,
    private readonly cap: number,
    private readonly skipInvalid = false,
  ) {
    this.file = plan.fd ?? openSync(plan.path, "r");
    this.buffer = this.place(plan.blockBytes + 1 + EXTEND_BYTES);
  }

  /**
   * A buffer of `bytes` bytes for a block: in the line kernel's memory when there is one, so that the
   * block is read straight to where the kernel scans it (no copy), else a buffer of its own. The kernel's
   * memory keeps what was read when it grows (`BlockKernel.memory`).
   *
   * Speed: the benchmark row "line kernel: WebAssembly SIMD vs JavaScript scanner" (bench/one-shot.ts),
   * `match --count` over the file: paired against reading into a buffer and copying it into the kernel,
   * 0.91× (labels) and 0.92× (a date range) the CPU time at one thread (docs/performance.md, "The line
   * kernel").
   */
  private place(bytes: number): Buffer {
    const memory = this.scanner?.blockMemory(bytes);
    this.inKernel = memory !== undefined;
    return memory === undefined
      ? Buffer.allocUnsafe(bytes)
      : Buffer.from(memory.buffer, memory.byteOffset, memory.length);
  }

  /** Closes the file (when this reader opened it). */
  close(): void {
    if (this.plan.fd === undefined) closeSync(this.file);
  }

  /**
   * Block `i`'s results, in line order: its lines, then (when its last line was too long) that line's.
   * @throws {Error} when a read fails (Node's error)
   */
  judge(i: number): BlockResult[] {
    const lines = this.lines(i);
    if (lines === undefined) return [emptyResult()];
    const results = [this.scanner!.scan(lines.bytes, lines.start, lines.end, lines.readStart)];
    if (lines.overlong !== undefined && results[0]!.stop === undefined) results.push(lines.overlong);
    return results;
  }

  /**
   * The lines that start in block `i`: `bytes[start, end)` (valid until the next call), which starts at a
   * line's start and ends after a `\n` or at the end of the file, where `bytes[0]` is byte `readStart` of the
   * file; undefined when no line starts in the block. A last line longer than `cap` is left out of the
   * range and skipped (`overlong`, its result; only with a scanner).
   * @throws {Error} when a read fails (Node's error)
   */
  lines(
    i: number,
  ):
    | { bytes: Uint8Array; start: number; end: number; readStart: number; overlong?: BlockResult }
    | undefined {
    const { plan } = this;
    const blockStart = plan.from + i * plan.blockBytes;
    const blockEnd = Math.min(blockStart + plan.blockBytes, plan.size);
    const readStart = i === 0 ? blockStart : blockStart - 1;
    // The kernel's memory may have grown since (another block of this scanner): its view again.
    if (this.inKernel) this.buffer = this.place(this.buffer.length);
    const filled = this.read(this.buffer, 0, blockEnd - readStart, readStart);
    let start = 0;
    if (i > 0) {
      // The first line that starts in the block: after the first `\n` from the byte before it.
      const nl = this.buffer.indexOf(10, 0);
      if (nl < 0 || nl >= filled) return undefined;
      start = nl + 1;
    }
    if (start >= filled) return undefined;
    const lastBreak = this.buffer.lastIndexOf(10, filled - 1);
    // The last line: whole when the block ends with `\n` or the file ends.
    const lineStart = lastBreak < start ? start : lastBreak + 1;
    let end = filled;
    let overlong: BlockResult | undefined;
    if (lineStart < filled && readStart + filled < plan.size) {
      for (;;) {
        if (end + EXTEND_BYTES > this.buffer.length) {
          const was = this.inKernel;
          const old = this.buffer;
          const wider = this.place(Math.max(old.length * 2, end + EXTEND_BYTES));
          // The kernel's memory kept the bytes read so far; a buffer of its own gets them copied.
          if (!(was && this.inKernel)) old.copy(wider, 0, 0, end);
          this.buffer = wider;
        }
        const n = this.read(this.buffer, end, EXTEND_BYTES, readStart + end);
        const nl = this.buffer.indexOf(10, end);
        if (nl >= 0 && nl < end + n) {
          end = nl + 1;
          break;
        }
        end += n;
        if (n === 0) break;
        if (end - lineStart > this.cap) {
          overlong = this.skipLine(lineStart, end, readStart);
          end = lineStart;
          break;
        }
      }
    }
    const buffer = this.buffer;
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
    return overlong === undefined
      ? { bytes, start, end, readStart }
      : { bytes, start, end, readStart, overlong };
  }

  /**
   * Reads `length` bytes at `position` into `into[offset…]`, fewer only at the end of the file.
   * @throws {NdjsonInputError} `ioError` when the file ends before the size it had when the read started
   *   (it shrank: what was counted would be part of the file; docs/node.md)
   */
  private read(into: Buffer, offset: number, length: number, position: number): number {
    let done = 0;
    while (done < length) {
      const n = readSync(this.file, into, offset + done, length - done, position + done);
      if (n === 0) {
        if (position + done < this.plan.size) {
          throw new NdjsonInputError(
            `'${this.plan.path}' shrank while it was read (${this.plan.size} bytes when opened, ${fstatSync(this.file).size} now).`,
            "ioError",
          );
        }
        break;
      }
      done += n;
    }
    return done;
  }

  /** Skips the over-long line begun at `lineStart` (bytes up to `end` read), to its `\n` or the file's end. */
  private skipLine(lineStart: number, end: number, readStart: number): BlockResult {
    const skip = new OverlongLine(this.skipInvalid);
    skip.start([this.buffer.subarray(lineStart, end)], readStart + lineStart);
    let position = readStart + end;
    const chunk = Buffer.allocUnsafe(EXTEND_BYTES);
    for (;;) {
      const n = this.read(chunk, 0, EXTEND_BYTES, position);
      if (n === 0) break;
      if (skip.feed(chunk.subarray(0, n), position)) break;
      position += n;
    }
    return skip.finish(this.scanner!);
  }
}
