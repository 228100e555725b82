/**
 * Runs every conformance match case through `parseSearchConditions` + `evaluate` (the reference
 * interpreter). A failure names the case, its rule and the incident.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { matchCases } from "./match-cases.js";

/** A short, readable description of an incident for failure messages (handles Dates, NaN, undefined). */
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

describe("conformance: evaluate", () => {
  it("has a large table with unique names, each case with matching and non-matching incidents", () => {
    expect(matchCases.length).toBeGreaterThanOrEqual(120);
    expect(new Set(matchCases.map((matchCase) => matchCase.name)).size).toBe(matchCases.length);
    const withBoth = matchCases.filter(
      (matchCase) =>
        matchCase.incidents.some((entry) => entry.matches) &&
        matchCase.incidents.some((entry) => !entry.matches),
    );
    // A few cases are one-sided by nature ($in: [] matches nothing, $nin: [] and {} match everything).
    expect(matchCases.length - withBoth.length).toBeLessThanOrEqual(5);
  });

  describe.each(matchCases.map((matchCase) => [matchCase.name, matchCase] as const))(
    "%s",
    (_name, matchCase) => {
      it(`(${matchCase.rule})`, () => {
        const condition = parseSearchConditions(
          matchCase.conditions,
          matchCase.catalog === undefined ? undefined : { catalog: matchCase.catalog },
        );
        matchCase.incidents.forEach(({ incident, matches }, index) => {
          expect(
            evaluate(condition, incident),
            `case "${matchCase.name}" (${matchCase.rule}), incident #${index} ${describeIncident(incident)}`,
          ).toBe(matches);
        });
      });
    },
  );
});
