/**
 * Loads the line kernel (assembly/line-kernel.ts, compiled to `dist/kernel/line-kernel.wasm` by
 * `npm run build`) for Node, as a `BlockKernelFactory` that the engine's `LineScanner` takes. Selected at run
 * time: where WebAssembly SIMD is missing (the module does not compile), where the file is absent, or when
 * the environment variable `INCIDENT_QUERY_KERNEL` is `js`, there is no kernel and the JavaScript scanner
 * reads every line, with the same answers (docs/semantics.md 1.7, "The byte reader").
 *
 * Speed: the benchmark row "line kernel: WebAssembly SIMD vs JavaScript scanner" (bench/one-shot.ts).
 */

import { readFileSync } from "node:fs";
import type { BlockKernel, BlockKernelFactory, KernelTest } from "../incidents/block-kernel.js";

/**
 * Where the compiled kernel may be, relative to this module: in dist/ (bundled into dist/cli, dist/node or
 * dist/), from the sources (src/node), or from the benchmark's build (bench/.build/src/node).
 */
const CANDIDATES = [
  "../kernel/line-kernel.wasm",
  "./kernel/line-kernel.wasm",
  "../../dist/kernel/line-kernel.wasm",
  "../../../../dist/kernel/line-kernel.wasm",
];

/** The kernel's exports (see assembly/line-kernel.ts). */
interface KernelExports {
  readonly memory: WebAssembly.Memory;
  keysOffsets(): number;
  keysBytes(): number;
  maxFields(): number;
  maxKeyBytes(): number;
  configure(count: number): void;
  reserve(length: number): number;
  begin(length: number, at: number, from: number, filtered: number, cut: number): void;
  cuts(): number;
  cutsWritten(): number;
  skippedLines(): number;
  filterTestsAt(): number;
  filterStringsAt(): number;
  filterBytesAt(): number;
  maxTests(): number;
  maxFilterStrings(): number;
  maxFilterBytes(): number;
  setFilter(count: number, maxLine: number): void;
  results(): number;
  lineStride(): number;
  scan(): number;
}

let compiled: WebAssembly.Module | null | undefined;
let failure: string | undefined;

/** The compiled module, or null (with `failure` saying why). */
function kernelModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  if (process.env.INCIDENT_QUERY_KERNEL === "js") {
    failure = "INCIDENT_QUERY_KERNEL=js";
    return compiled;
  }
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  for (const candidate of CANDIDATES) {
    try {
      bytes = new Uint8Array(readFileSync(new URL(candidate, import.meta.url)));
      break;
    } catch {
      // Not there: the next place.
    }
  }
  if (bytes === undefined) {
    failure = `line-kernel.wasm not found (${CANDIDATES.join(", ")}, from ${import.meta.url})`;
    return compiled;
  }
  try {
    // Compiling is the feature test: without WebAssembly SIMD the module does not validate.
    compiled = new WebAssembly.Module(bytes);
  } catch (error) {
    failure = `WebAssembly SIMD is not available: ${error instanceof Error ? error.message : String(error)}`;
  }
  return compiled;
}

/** One instance of the kernel, bound to its wanted keys. */
class WasmBlockKernel implements BlockKernel {
  results = new Int32Array(0);
  cuts = new Int32Array(0);
  readonly stride: number;
  tail = 0;
  private readonly exports: KernelExports;
  /** The view `memory` last gave. */
  private view: Uint8Array | undefined;

  constructor(module: WebAssembly.Module, keys: readonly Uint8Array[]) {
    this.exports = new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    const x = this.exports;
    const offsets = new Int32Array(x.memory.buffer, x.keysOffsets(), keys.length + 1);
    const bytes = new Uint8Array(x.memory.buffer, x.keysBytes(), x.maxKeyBytes());
    let at = 0;
    keys.forEach((key, k) => {
      offsets[k] = at;
      bytes.set(key, at);
      at += key.length;
    });
    offsets[keys.length] = at;
    x.configure(keys.length);
    this.stride = x.lineStride();
  }

  load(b: Uint8Array, start: number, end: number, filtered = false, cut = false): boolean {
    const x = this.exports;
    const view = this.view;
    if (
      view !== undefined &&
      view.buffer === x.memory.buffer &&
      b.buffer === view.buffer &&
      b.byteOffset === view.byteOffset &&
      end <= view.length
    ) {
      // Written in place (`memory`): the memory was reserved for the view's length, so nothing grows.
      x.begin(end, 0, start, filtered ? 1 : 0, cut ? 1 : 0);
      return true;
    }
    const at = x.reserve(end - start);
    if (at === 0) return false;
    new Uint8Array(x.memory.buffer, at, end - start).set(b.subarray(start, end));
    x.begin(end - start, start, 0, filtered ? 1 : 0, cut ? 1 : 0);
    return true;
  }

  /** The block's place in the kernel's memory (`BlockKernel.memory`): reading there saves `load` a copy. */
  memory(bytes: number): Uint8Array | undefined {
    const x = this.exports;
    const at = x.reserve(bytes);
    if (at === 0) return undefined;
    this.view = new Uint8Array(x.memory.buffer, at, bytes);
    return this.view;
  }

  next(): number {
    const x = this.exports;
    const n = x.scan();
    this.results = new Int32Array(x.memory.buffer, x.results(), n * this.stride);
    this.cuts = new Int32Array(x.memory.buffer, x.cuts(), x.cutsWritten());
    if (n === 0) this.tail = x.skippedLines();
    return n;
  }

  /**
   * Writes the filter into the kernel's memory (see `setFilter` in assembly/line-kernel.ts).
   *
   * Speed: the benchmark rows of bench/one-shot.ts `SHAPES` (labels, date range, `$regex` with a literal,
   * spec sample), `matchNdjson` count at one thread: 0.74–0.92× the CPU time (docs/performance.md, "The
   * kernel's filter").
   */
  filter(tests: readonly KernelTest[], maxLineBytes: number): boolean {
    const x = this.exports;
    const strings: Uint8Array[] = [];
    const rows: number[] = [];
    for (const test of tests) {
      if (test.kind === "equals") {
        rows.push(test.field, TEST_EQUALS, strings.length, test.strings.length);
        strings.push(...test.strings);
      } else if (test.kind === "date") {
        const flags =
          (test.lower === undefined ? 0 : 1 | (test.lowerInclusive ? 2 : 0)) |
          (test.upper === undefined ? 0 : 4 | (test.upperInclusive ? 8 : 0));
        rows.push(test.field, TEST_DATE, flags, strings.length);
        strings.push(test.lower ?? NO_BOUND, test.upper ?? NO_BOUND);
      } else {
        rows.push(test.field, TEST_CONTAINS, strings.length, test.fold ? 1 : 0);
        strings.push(test.needle);
      }
    }
    let total = 0;
    for (const s of strings) total += s.length;
    if (tests.length > x.maxTests() || strings.length > x.maxFilterStrings() || total > x.maxFilterBytes()) {
      x.setFilter(0, 0);
      return false;
    }
    new Int32Array(x.memory.buffer, x.filterTestsAt(), rows.length).set(rows);
    const spans = new Int32Array(x.memory.buffer, x.filterStringsAt(), 2 * strings.length);
    const bytes = new Uint8Array(x.memory.buffer, x.filterBytesAt(), x.maxFilterBytes());
    let at = 0;
    strings.forEach((s, k) => {
      spans[2 * k] = at;
      spans[2 * k + 1] = s.length;
      bytes.set(s, at);
      at += s.length;
    });
    x.setFilter(tests.length, Math.max(0, Math.min(maxLineBytes, 0x7fffffff)));
    return true;
  }
}

/** Whether a kernel serves these keys (the kernel's own limits on their count and bytes). */
function fits(keys: readonly Uint8Array[]): boolean {
  let total = 0;
  for (const key of keys) total += key.length;
  return keys.length <= MAX_FIELDS && total <= MAX_KEY_BYTES;
}

/** The filter's test kinds (assembly/line-kernel.ts: `TEST_EQUALS`, `TEST_DATE`, `TEST_CONTAINS`). */
const TEST_EQUALS = 1;
const TEST_DATE = 2;
const TEST_CONTAINS = 3;
/** The string of an absent date bound (its flag says it is absent; the string keeps the numbering). */
const NO_BOUND = new Uint8Array(0);

/** The kernel's limits (assembly/line-kernel.ts: `MAX_FIELDS`, `MAX_KEY_BYTES`). */
const MAX_FIELDS = 64;
const MAX_KEY_BYTES = 4096;

/**
 * The line kernel as a factory for `LineScanner` (and `LineMatcher`, `IncidentSet.fromNdjson`), or undefined
 * when it is not available here (see the module comment; `lineKernelUnavailable` says why).
 */
export function lineKernel(): BlockKernelFactory | undefined {
  const module = kernelModule();
  if (module === null) return undefined;
  return (keys) => (fits(keys) ? new WasmBlockKernel(module, keys) : undefined);
}

/** Why `lineKernel` returns undefined (undefined when it does not). */
export function lineKernelUnavailable(): string | undefined {
  kernelModule();
  return failure;
}
