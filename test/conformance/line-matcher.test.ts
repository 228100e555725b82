/**
 * The byte reader of `match` (`LineMatcher`, docs/cli.md, "Fast path") through the conformance harness: each case's
 * incidents are written as NDJSON (one `JSON.stringify` line each) and judged from their bytes, twice in a
 * row, so that the second pass reads lines whose keys are the previous line's (the scanner's fast path).
 * A line the matcher leaves to the exact path (`LINE_EXACT`) is judged as the CLI judges it: `JSON.parse`,
 * then the compiled predicate. Every answer is held to `evaluate` on the parsed line as well as to the
 * table, and most lines must be judged from their bytes (else this test would prove little).
 * An incident whose JSON form is not the same record (a `Date`, `undefined`, `NaN`) is not compared.
 */
import { isDeepStrictEqual } from "node:util";
import { afterAll, expect } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { LINE_EXACT, LINE_MATCH, LINE_NO_MATCH, LineMatcher } from "../../src/incidents/line-matcher.js";
import { ORDER_FIELD } from "../../src/incidents/order.js";
import { type Incident, runConformance } from "./harness.js";

const encoder = new TextEncoder();
/** Lines judged from their bytes, and lines left to the exact path. */
const judged = { bytes: 0, exact: 0 };

afterAll(() => {
  expect(judged.bytes).toBeGreaterThan(4 * judged.exact);
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
  engine: "line-matcher",
  run: (conditions, incidents, catalog) => {
    const condition = parseSearchConditions(conditions, { catalog });
    const matcher = new LineMatcher(condition, [ORDER_FIELD, "IncidentId"]);
    const lines = incidents.map(lineOf);
    // One buffer holding every line, as a block of the CLI holds them.
    const text = lines.map((line) => line ?? "").join("\n");
    const bytes = encoder.encode(text);
    const starts: number[] = [];
    let at = 0;
    for (const line of lines) {
      starts.push(at);
      at += encoder.encode(line ?? "").length + 1;
    }
    let answers: (boolean | undefined)[] = [];
    for (let pass = 0; pass < 2; pass++) {
      const these = lines.map((line, index) => {
        if (line === undefined) return undefined;
        const start = starts[index]!;
        const end = start + encoder.encode(line).length;
        const answer = matcher.test(bytes, start, end);
        const parsed = JSON.parse(line) as object;
        const expected = evaluate(condition, parsed);
        if (answer === LINE_EXACT) {
          judged.exact++;
          return matcher.predicate(parsed);
        }
        judged.bytes++;
        expect([LINE_MATCH, LINE_NO_MATCH], `pass ${pass}, incident #${index}`).toContain(answer);
        expect(answer === LINE_MATCH, `pass ${pass}, incident #${index} agrees with evaluate`).toBe(expected);
        if (answer === LINE_MATCH) {
          // The decoded record holds what the order of the first match needs, as JSON.parse gives it.
          const record = parsed as Record<string, unknown>;
          for (const field of [ORDER_FIELD, "IncidentId"]) {
            if (Object.hasOwn(record, field)) expect(matcher.record[field]).toEqual(record[field]);
          }
        }
        return answer === LINE_MATCH;
      });
      if (pass > 0) expect(these).toEqual(answers);
      answers = these;
    }
    return answers;
  },
});
