/**
 * matchesEverythingByShape (docs/semantics.md 3.3; docs/semantics.md 1.1): the conditions that match every
 * incident by their shape alone, which TriggerIncidentExternalAction refuses like `{}`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { incidentArb } from "../../test/arbitraries/incidents.js";
import { fcOptions } from "../../test/support/fc.js";
import { evaluate } from "./evaluate.js";
import { parseSearchConditions } from "./parse.js";
import { matchesEverythingByShape } from "./shape.js";

const everything: [string, unknown][] = [
  ["{}", {}],
  ["[{}]", [{}]],
  ['{"$and": [{}]}', { $and: [{}] }],
  ['{"$or": [{}]}', { $or: [{}] }],
  ['{"$or": [{}, {"Title": "x"}]}', { $or: [{}, { Title: "x" }] }],
  ["an array with an empty object after a field condition", [{ Title: "x" }, {}]],
  ["nested ANDs", { $and: [{ $and: [{}] }, {}] }],
  ["an AND of ORs with an empty part", { $and: [{ $or: [{ Title: "x" }, {}] }, { $or: [{}] }] }],
  ["an object holding both", { $and: [{}], $or: [{}, { Severity: "High" }] }],
  ["an array of an AND of nothing", [{ $and: [{}, {}] }]],
  ['a NOR of "nothing": {"$nor": [{"$nor": [{}]}]}', { $nor: [{ $nor: [{}] }] }],
  ['{"$nin": []} excludes no value', { Title: { $nin: [] } }],
  ['$not of {"$in": []}', { Title: { $not: { $in: [] } } }],
  ['$not of {"$all": []}', { Tags: { $not: { $all: [] } } }],
  ['a NOR of {"$in": []}', { $nor: [{ Title: { $in: [] } }] }],
  ["deep: OR inside AND inside OR", [{ $and: [{ $or: [{ $and: [{}] }, { Title: "x" }] }] }]],
];

const notEverything: [string, unknown][] = [
  ['{"$nor": [{}]} matches nothing', { $nor: [{}] }],
  ['{"a": {"$exists": true}}', { a: { $exists: true } }],
  ["an AND with a field condition", { $and: [{}, { Title: "x" }] }],
  ["an object with a field beside an empty $and", { $and: [{}], Title: "x" }],
  ["an OR without an empty part", { $or: [{ Title: "x" }, { Severity: "High" }] }],
  [
    "a tautology across leaves (not decided by shape)",
    { $or: [{ a: { $exists: true } }, { a: { $exists: false } }] },
  ],
  ['{"$ne": "x"}', { Title: { $ne: "x" } }],
  ['{"$in": []} matches nothing', { Title: { $in: [] } }],
  ['{"$all": []} matches nothing', { Tags: { $all: [] } }],
  ['$not of {"$nin": []} matches nothing', { Title: { $not: { $nin: [] } } }],
  ['{"$nin": [null]}', { Title: { $nin: [null] } }],
  ['{"a": null}', { a: null }],
  ['$not of {"$exists": true}', { a: { $not: { $exists: true } } }],
  ["a NOR of a field condition", { $nor: [{ Title: "x" }] }],
  ['a NOR of "nothing" and a field condition', { $nor: [{ $nor: [{}] }, { Title: "x" }] }],
  ["an AND of an empty OR part and a field", { $and: [{ $or: [{}] }, { Title: "x" }] }],
];

describe("matchesEverythingByShape", () => {
  it.each(everything)("matches everything: %s", (_name, json) => {
    expect(matchesEverythingByShape(parseSearchConditions(json))).toBe(true);
  });

  it.each(notEverything)("does not: %s", (_name, json) => {
    expect(matchesEverythingByShape(parseSearchConditions(json))).toBe(false);
  });

  /** Conditions built from shapes that match everything, nothing, or depend on the record. */
  const shapeArb: fc.Arbitrary<unknown> = fc.letrec<{ c: Record<string, unknown> }>((tie) => ({
    c: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom<Record<string, unknown>>(
        {},
        { Title: { $nin: [] } },
        { Title: { $in: [] } },
        { Tags: { $all: [] } },
        { Title: { $not: { $in: [] } } },
        { Title: "Phishing" },
        { Severity: { $exists: true } },
      ),
      fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((cs) => ({ $and: cs })),
      fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((cs) => ({ $or: cs })),
      fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((cs) => ({ $nor: cs })),
    ),
  })).c;

  it("is sound: a condition it accepts matches every record, and its NOR matches none", () => {
    let accepted = 0;
    fc.assert(
      fc.property(shapeArb, fc.array(incidentArb(), { minLength: 1, maxLength: 5 }), (json, records) => {
        const condition = parseSearchConditions(json);
        if (!matchesEverythingByShape(condition)) return;
        accepted++;
        const negation = parseSearchConditions({ $nor: [json] });
        for (const record of records) {
          expect(evaluate(condition, record)).toBe(true);
          expect(evaluate(negation, record)).toBe(false);
        }
      }),
      fcOptions(1000),
    );
    // The property must not hold vacuously.
    expect(accepted).toBeGreaterThan(100);
  });
});
