/**
 * `compile` through the conformance harness, with both back ends (generated code, switched to before the
 * case, and closure composition) and a tiered predicate that switches from one to the other in the middle of
 * the case's incidents. Each predicate reports its back end, keeps its condition, and answers as the
 * reference `evaluate` does on every incident (checked even where a skip excuses a difference from the
 * table).
 */
import { expect } from "vitest";
import { CODEGEN_AFTER_CALLS, compile } from "../../src/conditions/compile.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { compileIn } from "../support/tiers.js";
import { runConformance } from "./harness.js";

for (const [mode, codegen] of [
  ["codegen", true],
  ["closure", false],
] as const) {
  runConformance({
    engine: `compile:${mode}`,
    run: (conditions, incidents, catalog) => {
      const condition = parseSearchConditions(conditions, { catalog });
      const predicate = compileIn(condition, { codegen });
      expect(predicate.mode).toBe(mode);
      expect(predicate.condition).toBe(condition);
      return incidents.map((incident, index) => {
        const answer = predicate(incident);
        expect(answer, `${mode}, incident #${index} agrees with evaluate`).toBe(
          evaluate(condition, incident),
        );
        return answer;
      });
    },
  });
}

// A fresh predicate that switches from closures to generated code in the middle of the case's incidents.
runConformance({
  engine: "compile:tiered",
  run: (conditions, incidents, catalog) => {
    const condition = parseSearchConditions(conditions, { catalog });
    const predicate = compile(condition, { cache: false });
    const switchAt = incidents.length >> 1;
    for (let i = switchAt; i < CODEGEN_AFTER_CALLS; i++) predicate(undefined);
    return incidents.map((incident, index) => {
      expect(predicate.mode, `incident #${index}`).toBe(index < switchAt ? "closure" : "codegen");
      expect(predicate.condition).toBe(condition);
      const answer = predicate(incident);
      expect(answer, `tiered, incident #${index} agrees with evaluate`).toBe(evaluate(condition, incident));
      return answer;
    });
  },
});
