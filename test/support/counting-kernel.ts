/**
 * The line kernel (src/node/kernel.ts) wrapped so that a test can count what it did: its line records (and
 * those of status `ROW_OK`), the blocks it took in place (`memory`) and the blocks copied into it, and the
 * lines its filter judged without a record (`ROW_SKIPPED`, then `tail`). Throws when the kernel cannot be
 * loaded: the suites that use it test the kernel itself.
 */
import type { BlockKernel, BlockKernelFactory } from "../../src/incidents/block-kernel.js";
import { ROW_OK, ROW_SKIPPED, ROW_STATUS } from "../../src/incidents/block-kernel.js";
import { lineKernel, lineKernelUnavailable } from "../../src/node/kernel.js";

/** What a counting kernel did, summed over every kernel it made. */
export interface KernelCounts {
  rows: number;
  ok: number;
  inPlace: number;
  copied: number;
  skipped: number;
}

/** A factory of line kernels that add what they do to `seen`. */
export function countingKernel(): {
  readonly counting: BlockKernelFactory;
  readonly seen: KernelCounts;
} {
  const factory = lineKernel();
  if (factory === undefined) throw new Error(`the line kernel is required here: ${lineKernelUnavailable()}`);
  const seen: KernelCounts = { rows: 0, ok: 0, inPlace: 0, copied: 0, skipped: 0 };
  const counting: BlockKernelFactory = (keys) => {
    const kernel = factory(keys);
    if (kernel === undefined) return undefined;
    let view: Uint8Array | undefined;
    const counted: BlockKernel = {
      load: (b, start, end, filtered, cut) => {
        if (view !== undefined && b.buffer === view.buffer && b.byteOffset === view.byteOffset)
          seen.inPlace++;
        else seen.copied++;
        return kernel.load(b, start, end, filtered, cut);
      },
      filter: (tests, maxLineBytes) => kernel.filter?.(tests, maxLineBytes) ?? false,
      memory: (bytes) => {
        view = kernel.memory?.(bytes);
        return view;
      },
      next: () => {
        const n = kernel.next();
        for (let i = 0; i < n; i++) {
          seen.rows++;
          if (kernel.results[i * kernel.stride + ROW_STATUS] === ROW_OK) seen.ok++;
          seen.skipped += kernel.results[i * kernel.stride + ROW_SKIPPED]!;
        }
        if (n === 0) seen.skipped += kernel.tail ?? 0;
        return n;
      },
      get results() {
        return kernel.results;
      },
      get cuts() {
        return kernel.cuts;
      },
      get tail() {
        return kernel.tail ?? 0;
      },
      stride: kernel.stride,
    };
    return counted;
  };
  return { counting, seen };
}
