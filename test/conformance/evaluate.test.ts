/**
 * The reference interpreter `evaluate` through the conformance harness, and the table's own sanity checks.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { allCases, runConformance } from "./harness.js";
import { matchCases } from "./match-cases.js";

describe("conformance table", () => {
  it("has a large table with unique names, each case with matching and non-matching incidents", () => {
    expect(matchCases.length).toBeGreaterThanOrEqual(120);
    expect(new Set(allCases.map((matchCase) => matchCase.name)).size).toBe(allCases.length);
    const withBoth = matchCases.filter(
      (matchCase) =>
        matchCase.incidents.some((entry) => entry.matches) &&
        matchCase.incidents.some((entry) => !entry.matches),
    );
    // A few cases are one-sided by nature ($in: [] matches nothing, $nin: [] and {} match everything).
    expect(matchCases.length - withBoth.length).toBeLessThanOrEqual(5);
  });
});

runConformance({
  engine: "evaluate",
  run: (conditions, incidents, catalog) => {
    const condition = parseSearchConditions(conditions, { catalog });
    return incidents.map((incident) => evaluate(condition, incident));
  },
});
