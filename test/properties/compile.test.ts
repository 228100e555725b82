/**
 * Differential properties: `compile` (generated code and closures) agrees with the reference `evaluate` on
 * generated Search Conditions and generated, odd and hostile records (docs/semantics.md 1.5), including records
 * whose fields are inherited, accessors, or shadow `Object.prototype` names.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { hostileRecordArb, incidentArb } from "../arbitraries/incidents.js";
import { fcOptions } from "../support/fc.js";
import { compileIn } from "../support/tiers.js";

/** A record whose own fields are partly turned into accessors or moved to the prototype. */
const trickyRecordArb = fc
  .tuple(
    incidentArb(),
    fc.array(fc.nat(), { maxLength: 4 }),
    fc.constantFrom("getter", "inherited", "undefined"),
  )
  .map(([incident, picks, how]) => {
    const keys = Object.keys(incident);
    const proto: Record<string, unknown> = {};
    const record: Record<string, unknown> = { ...incident };
    for (const pick of picks) {
      const key = keys[pick % keys.length];
      if (key === undefined) continue;
      const value = incident[key];
      delete record[key];
      if (how === "getter")
        Object.defineProperty(record, key, { get: () => value, enumerable: true, configurable: true });
      else if (how === "inherited") proto[key] = value;
      else record[key] = undefined;
    }
    return Object.setPrototypeOf(record, proto) as Record<string, unknown>;
  });

describe.each([true, false])("compile agrees with evaluate (codegen: %s)", (codegen) => {
  it("on generated conditions and incidents", () => {
    fc.assert(
      fc.property(searchConditionsArb(), fc.array(incidentArb(), { maxLength: 8 }), (raw, incidents) => {
        const condition = parseSearchConditions(raw);
        const predicate = compileIn(condition, { codegen });
        for (const incident of incidents) expect(predicate(incident)).toBe(evaluate(condition, incident));
      }),
      fcOptions(400),
    );
  });

  it("on hostile records (never throws where evaluate does not)", () => {
    fc.assert(
      fc.property(searchConditionsArb(), fc.array(hostileRecordArb(), { maxLength: 6 }), (raw, records) => {
        const condition = parseSearchConditions(raw);
        const predicate = compileIn(condition, { codegen });
        for (const record of records) {
          let expected: boolean | "throws";
          try {
            expected = evaluate(condition, record as object);
          } catch {
            expected = "throws";
          }
          if (expected === "throws") expect(() => predicate(record)).toThrow();
          else expect(predicate(record)).toBe(expected);
        }
      }),
      fcOptions(300),
    );
  });

  it("on records with accessors, inherited fields and own undefined values", () => {
    fc.assert(
      fc.property(searchConditionsArb(), fc.array(trickyRecordArb, { maxLength: 6 }), (raw, records) => {
        const condition = parseSearchConditions(raw);
        const predicate = compileIn(condition, { codegen });
        for (const record of records) expect(predicate(record)).toBe(evaluate(condition, record));
      }),
      fcOptions(300),
    );
  });
});
