/**
 * Heap measurement for the memory tests: a full garbage collection (V8's `gc`, exposed at run time, so the
 * tests need no command-line flag) and the heap in use after it.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

/** Runs a full garbage collection and returns the bytes of heap in use (`process.memoryUsage().heapUsed`). */
export function heapAfterGc(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/**
 * Runs a full garbage collection and returns the bytes of `ArrayBuffer`s alive outside the heap
 * (`process.memoryUsage().arrayBuffers`): typed arrays' memory, which `heapUsed` does not count.
 */
export function arrayBuffersAfterGc(): number {
  collect();
  collect();
  return process.memoryUsage().arrayBuffers;
}
