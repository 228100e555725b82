/**
 * `compile` through the conformance harness, with both back ends (generated code and closure
 * composition). Each predicate reports its back end, keeps its condition, and answers as the reference
 * `evaluate` does on every incident (checked even where a skip excuses a difference from the table).
 */
import { expect } from "vitest";
import { compile } from "../../src/conditions/compile.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { runConformance } from "./harness.js";

for (const [mode, codegen] of [
  ["codegen", true],
  ["closure", false],
] as const) {
  runConformance({
    engine: `compile:${mode}`,
    run: (conditions, incidents, catalog) => {
      const condition = parseSearchConditions(conditions, { catalog });
      const predicate = compile(condition, { codegen });
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
