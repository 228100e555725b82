/**
 * The byte reader of `match` on the WebAssembly line kernel (src/node/kernel.ts) through the conformance
 * harness: each case's incidents are written as NDJSON lines into one block, which the kernel reads before
 * a `LineMatcher` judges each line (twice, so that the second pass meets the keys of the line before). Every
 * answer is held to `evaluate` on the parsed line, to the table, and to the same matcher without the kernel
 * (docs/semantics.md 1.7, "The byte reader"); the kernel must have read most lines itself. The compiled
 * kernel is required (the global setup builds it from source).
 */
import { isDeepStrictEqual } from "node:util";
import { afterAll, expect } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import type { BlockKernelFactory } from "../../src/incidents/block-kernel.js";
import { ROW_OK, ROW_STATUS } from "../../src/incidents/block-kernel.js";
import { LINE_EXACT, LINE_MATCH, LineMatcher } from "../../src/incidents/line-matcher.js";
import { ORDER_FIELD } from "../../src/incidents/order.js";
import { lineKernel, lineKernelUnavailable } from "../../src/node/kernel.js";
import { type Incident, runConformance } from "./harness.js";

const loaded = lineKernel();
if (loaded === undefined) throw new Error(`the line kernel is required here: ${lineKernelUnavailable()}`);
const kernel: BlockKernelFactory = loaded;

const encoder = new TextEncoder();
/** Lines judged, and lines the kernel read itself (its `ROW_OK` records). */
const judged = { lines: 0, kernel: 0 };

/** The kernel, counting the lines it read itself. */
const counting: BlockKernelFactory = (keys) => {
  const inner = kernel(keys);
  if (inner === undefined) return undefined;
  return {
    load: (b, start, end, filtered, cut) => inner.load(b, start, end, filtered, cut),
    next: () => {
      const n = inner.next();
      for (let i = 0; i < n; i++)
        if (inner.results[i * inner.stride + ROW_STATUS] === ROW_OK) judged.kernel++;
      return n;
    },
    get results() {
      return inner.results;
    },
    get cuts() {
      return inner.cuts;
    },
    stride: inner.stride,
  };
};

afterAll(() => {
  expect(judged.kernel).toBeGreaterThan(judged.lines / 2);
});

/** The incident's NDJSON line, or undefined when its JSON form is not the same record. */
function lineOf(incident: Incident): string | undefined {
  try {
    const text = JSON.stringify(incident);
    return text !== undefined && isDeepStrictEqual(JSON.parse(text), incident) ? text : undefined;
  } catch {
    return undefined;
  }
}

runConformance({
  engine: "line-matcher:kernel",
  run: (conditions, incidents, catalog) => {
    const condition = parseSearchConditions(conditions, { catalog });
    const extra = [ORDER_FIELD, "IncidentId"];
    const matcher = new LineMatcher(condition, extra, counting);
    const reference = new LineMatcher(condition, extra);
    const lines = incidents.map(lineOf);
    const bytes = encoder.encode(lines.map((line) => line ?? "").join("\n"));
    const starts: number[] = [];
    let at = 0;
    for (const line of lines) {
      starts.push(at);
      at += encoder.encode(line ?? "").length + 1;
    }
    let answers: (boolean | undefined)[] = [];
    for (let pass = 0; pass < 2; pass++) {
      matcher.prepare(bytes, 0, bytes.length);
      const these = lines.map((line, index) => {
        if (line === undefined || line === "") return undefined;
        judged.lines++;
        const start = starts[index]!;
        const end = start + encoder.encode(line).length;
        const answer = matcher.test(bytes, start, end);
        const record = answer === LINE_EXACT ? undefined : { ...matcher.record };
        expect(answer, `pass ${pass}, incident #${index}: as without the kernel`).toBe(
          reference.test(bytes, start, end),
        );
        if (record !== undefined) expect(record).toEqual(reference.record);
        const parsed = JSON.parse(line) as object;
        const matches = answer === LINE_EXACT ? matcher.predicate(parsed) : answer === LINE_MATCH;
        expect(matches, `pass ${pass}, incident #${index} agrees with evaluate`).toBe(
          evaluate(condition, parsed),
        );
        return matches;
      });
      matcher.release();
      if (pass > 0) expect(these).toEqual(answers);
      answers = these;
    }
    return answers;
  },
});
