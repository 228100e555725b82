/**
 * `$elemMatch`, `$type` and `$mod` (docs/semantics.md 1.3, revised) in every in-process engine: generated
 * conditions built from the three operators (nested in each other, under `$not`, `$or`, dotted paths and
 * array indexes) over generated records with nested arrays, objects, dates, NaN, `-0` and large numbers
 * (test/arbitraries/array-operators.ts); `evaluate`,
 * `compile` (closures and generated code), `IncidentSet.findAll` and `count` must agree (`matching`), and the
 * printed form must parse back to the same condition. Records with accessors check the read-once rule.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { toSearchConditions } from "../../src/conditions/print.js";
import { compile } from "../../src/index.js";
import { conditionArb as conditionArb_, recordArb as recordArb_ } from "../arbitraries/array-operators.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import { matching } from "../support/all-engines.js";
import { fcOptions } from "../support/fc.js";

const recordArb = recordArb_();
const conditionArb = conditionArb_();

describe("$elemMatch, $type, $mod: every engine agrees (docs/semantics.md 1.3, 1.5)", () => {
  it("on generated conditions and records (evaluate, compile both back ends, IncidentSet)", () => {
    fc.assert(
      fc.property(conditionArb, fc.array(recordArb, { minLength: 1, maxLength: 12 }), (input, records) => {
        matching(input, records);
      }),
      fcOptions(400),
    );
  });

  it("prints them canonically: the printed form parses back to the same condition", () => {
    fc.assert(
      fc.property(conditionArb, (input) => {
        const condition = parseSearchConditions(input);
        expect(parseSearchConditions(toSearchConditions(condition))).toEqual(condition);
      }),
      fcOptions(300),
    );
  });
});

describe("$elemMatch, $type, $mod among every other operator (searchConditionsArb with arrayOperators)", () => {
  it("every generated value parses and round-trips through its printed form", () => {
    fc.assert(
      fc.property(searchConditionsArb({ arrayOperators: true }), (input) => {
        const condition = parseSearchConditions(input);
        expect(parseSearchConditions(toSearchConditions(condition))).toEqual(condition);
      }),
      fcOptions(300),
    );
  });

  it("evaluate, compile (both back ends) and IncidentSet agree on generated incidents", () => {
    fc.assert(
      fc.property(
        searchConditionsArb({ arrayOperators: true, maxDepth: 2 }),
        fc.array(incidentArb(), { minLength: 1, maxLength: 8 }),
        (input, incidents) => {
          matching(input, incidents);
        },
      ),
      fcOptions(200),
    );
  });
});

describe("$elemMatch reads each element once (docs/semantics.md 1.1)", () => {
  it.each([
    ["query form", { a: { $elemMatch: { b: 1, $or: [{ b: 2 }, { b: 1 }] } } }],
    ["operator form", { a: { $elemMatch: { $gte: 1, $not: { $type: "string" } } } }],
  ])("%s: an accessor element and an accessor field are read at most once per evaluation", (_form, input) => {
    const condition = parseSearchConditions(input);
    for (const engine of [
      (record: object) => evaluate(condition, record),
      compile(condition, { codegen: false, cache: false }),
    ]) {
      let elementReads = 0;
      let fieldReads = 0;
      const element = {};
      Object.defineProperty(element, "b", {
        enumerable: true,
        get: () => {
          fieldReads++;
          return 1;
        },
      });
      const array: unknown[] = [];
      Object.defineProperty(array, 0, {
        enumerable: true,
        get: () => {
          elementReads++;
          return "b" in input.a.$elemMatch ? element : 1;
        },
      });
      expect(engine({ a: array })).toBe(true);
      expect(elementReads).toBe(1);
      expect(fieldReads).toBeLessThanOrEqual(1);
    }
  });
});

describe("$elemMatch on an array element read as a document (MongoDB's BSON arrays), and on undefined elements", () => {
  it.each([
    [{ a: { $elemMatch: { "0": 1 } } }, { a: [[1]] }, true],
    [{ a: { $elemMatch: { "1": { $exists: true } } } }, { a: [[1]] }, false],
    [{ a: { $elemMatch: { length: 1 } } }, { a: [[1]] }, false],
    [{ a: { $elemMatch: { length: { $exists: false } } } }, { a: [[1]] }, true],
    [{ a: { $elemMatch: { b: null } } }, { a: [[{ b: 1 }]] }, true],
    [{ a: { $elemMatch: { b: null } } }, { a: [{ b: 1 }] }, false],
    // An element holding `undefined` is no element, as a field holding it is missing (docs/semantics.md 1.1).
    [{ a: { $elemMatch: { $exists: true } } }, { a: [undefined] }, false],
    [{ a: { $elemMatch: { $not: { $eq: 1 } } } }, { a: [undefined, 1] }, false],
    [{ a: { $elemMatch: { $exists: true } } }, { a: [undefined, null] }, true],
  ])("%j on %j: %s", (input, record, expected) => {
    expect(matching(input, [record])).toEqual(expected ? [0] : []);
  });
});
