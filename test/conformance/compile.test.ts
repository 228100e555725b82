/**
 * Runs every conformance match case through `parseSearchConditions` + `compile`, with both back ends
 * (generated code and closure composition), and checks each answer against the table and against the
 * reference `evaluate`. A failure names the case, its rule, the back end and the incident.
 */
import { describe, expect, it } from "vitest";
import { compile } from "../../src/conditions/compile.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { matchCases } from "./match-cases.js";

function describeIncident(incident: Record<string, unknown>): string {
  const text = JSON.stringify(incident, (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value)
      ? String(value)
      : value === undefined
        ? "(undefined)"
        : value,
  );
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

describe.each([
  ["codegen", true],
  ["closure", false],
] as const)("conformance: compile (%s)", (mode, codegen) => {
  describe.each(matchCases.map((matchCase) => [matchCase.name, matchCase] as const))(
    "%s",
    (_name, matchCase) => {
      it(`(${matchCase.rule})`, () => {
        const condition = parseSearchConditions(
          matchCase.conditions,
          matchCase.catalog === undefined ? undefined : { catalog: matchCase.catalog },
        );
        const predicate = compile(condition, { codegen });
        expect(predicate.mode).toBe(mode);
        expect(predicate.condition).toBe(condition);
        matchCase.incidents.forEach(({ incident, matches }, index) => {
          const where = `case "${matchCase.name}" (${matchCase.rule}), ${mode}, incident #${index} ${describeIncident(incident)}`;
          expect(predicate(incident), where).toBe(matches);
          expect(predicate(incident), `${where} (agrees with evaluate)`).toBe(evaluate(condition, incident));
        });
      });
    },
  );
});
