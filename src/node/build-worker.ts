/**
 * A worker thread of a parallel `fromNdjson` (build.ts): builds the part of one range of blocks of a regular
 * file (the lines that start in them, as file-blocks.ts cuts them) with the engine's build
 * (`IncidentSet.ndjsonBuild`), and posts it, its typed arrays transferred, or its first error. Stops between
 * blocks once the calling thread sets `control[0]` (it no longer needs the part). Its work comes as
 * `workerData`.
 */

import { parentPort, workerData } from "node:worker_threads";
import type { IncidentSetOptions } from "../incidents/incident-set.js";
import { IncidentSet } from "../incidents/incident-set.js";
import { partBuffers, partError } from "../incidents/ndjson-parts.js";
import { buildRange, type RangeInput } from "./build-range.js";
import { NdjsonInputError } from "./errors.js";
import { lineKernel } from "./kernel.js";

interface WorkerInput extends RangeInput {
  readonly options: IncidentSetOptions;
  /** Whether the lines are read with the line kernel (where it runs here). */
  readonly kernel: boolean;
  /** `control[0]` set: stop. */
  readonly control: Int32Array;
}

const input = workerData as WorkerInput;

async function run(): Promise<void> {
  try {
    const build = IncidentSet.ndjsonBuild(input.options, input.kernel ? lineKernel() : undefined);
    const done = await buildRange(build, input, () => Atomics.load(input.control, 0) !== 0);
    if (done) {
      const part = build.exportPart();
      parentPort?.postMessage({ part }, partBuffers(part));
    }
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (error instanceof NdjsonInputError)
      parentPort?.postMessage({ input: { message: error.message, kind: error.kind } });
    else if (typeof code === "string")
      parentPort?.postMessage({ system: { message: (error as Error).message, code } });
    else parentPort?.postMessage({ part: { lines: 0, rows: 0, error: partError(error) } });
  }
}

void run();
