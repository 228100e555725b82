/**
 * The fields `match`'s byte reader decodes are the slots `compile` reads (one walk, `slotsOf`): a line
 * decoded with fewer fields would hand the predicate a record missing what it reads.
 */
import { describe, expect, it } from "vitest";
import { slotsOf } from "../conditions/leaf.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { LineMatcher } from "./line-matcher.js";

const CASES: readonly (readonly [name: string, conditions: unknown, fields: readonly string[]])[] = [
  ["one field", { Severity: "High" }, ["Severity"]],
  [
    "dotted paths by their first segment, once, in order of first use",
    { "Custom.Owner": "a", Severity: "High", "Custom.Team": "b" },
    ["Custom", "Severity"],
  ],
  [
    "under $or, $nor and $not",
    { $or: [{ A: 1 }, { $nor: [{ B: 1 }] }], C: { $not: { $eq: 1 } } },
    ["A", "B", "C"],
  ],
  [
    "an $elemMatch's inner fields are about its elements",
    { Artifacts: { $elemMatch: { Type: "ip", Value: "x" } } },
    ["Artifacts"],
  ],
  ["$all of $elemMatch", { a: { $all: [{ $elemMatch: { x: 1 } }, { $elemMatch: { y: 1 } }] } }, ["a"]],
  ["no field", {}, []],
];

describe("LineMatcher decodes the fields compile reads", () => {
  it.each(CASES)("%s", (_name, conditions, fields) => {
    const condition = parseSearchConditions(conditions);
    expect(new LineMatcher(condition).fields).toEqual(fields);
    expect(new LineMatcher(condition).fields).toEqual([...slotsOf(condition).fields.keys()]);
  });

  it("adds the extra fields after the condition's, once", () => {
    const condition = parseSearchConditions({ IncidentId: 3, Title: "x" });
    expect(new LineMatcher(condition, ["CreatedUtcTime", "IncidentId"]).fields).toEqual([
      "IncidentId",
      "Title",
      "CreatedUtcTime",
    ]);
  });
});
