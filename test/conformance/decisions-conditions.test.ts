/**
 * Audit probes of docs/semantics.md section 1 (Search Conditions). Every matching probe runs through evaluate,
 * compile (closures and generated code) and IncidentSet, which must agree (helpers.ts).
 */

import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { IncidentSet, parseSearchConditions, safeParseSearchConditions } from "../../src/index.js";
import { issuesOf, matching } from "../support/all-engines.js";
import { countingInstructions } from "../support/regex-work.js";

const notNest = (levels: number): unknown => {
  let c: unknown = { $gt: 1 };
  for (let i = 0; i < levels; i++) c = { $not: c };
  return { a: c };
};

describe("docs/semantics.md 1.7: limits at their edges", () => {
  it("depth: 32 levels accepted, 33 refused (root object, field object, then $not objects)", () => {
    expect(issuesOf(notNest(30))).toEqual([]);
    expect(issuesOf(notNest(31)).map((i) => i.code)).toEqual(["limit_exceeded"]);
  });

  it("nodes: a root with 999 fields (1,000 nodes) accepted, 1,000 fields refused", () => {
    const wide = (k: number) => Object.fromEntries(Array.from({ length: k }, (_, i) => [`f${i}`, i]));
    expect(issuesOf(wide(999))).toEqual([]);
    expect(issuesOf(wide(1000)).map((i) => i.code)).toEqual(["limit_exceeded"]);
  });

  it.each(["$in", "$nin", "$all"])("%s: 10,000 values accepted, 10,001 refused", (op) => {
    const values = (k: number) => Array.from({ length: k }, (_, i) => i);
    expect(issuesOf({ a: { [op]: values(10_000) } })).toEqual([]);
    expect(issuesOf({ a: { [op]: values(10_001) } }).map((i) => [i.code, i.path])).toEqual([
      ["limit_exceeded", ["a", op]],
    ]);
  });

  it("string operand: 10,000 characters accepted, 10,001 refused, also inside $in and as a pipe string", () => {
    expect(issuesOf({ a: "x".repeat(10_000) })).toEqual([]);
    expect(issuesOf({ a: "x".repeat(10_001) }).map((i) => i.code)).toEqual(["limit_exceeded"]);
    expect(issuesOf({ a: { $in: ["x".repeat(10_001)] } }).map((i) => i.code)).toEqual(["limit_exceeded"]);
    expect(issuesOf({ Status: `Open|${"x".repeat(9_996)}` }).map((i) => i.code)).toEqual(["limit_exceeded"]);
  });

  it("pattern: 1,000 characters accepted, 1,001 refused", () => {
    expect(issuesOf({ a: { $regex: "x".repeat(1_000) } })).toEqual([]);
    expect(issuesOf({ a: { $regex: "x".repeat(1_001) } }).map((i) => i.code)).toEqual(["limit_exceeded"]);
  });

  it("program: a{1000} accepted; (a{500}){2} (1,000 a's plus two captures) refused, quickly", () => {
    expect(issuesOf({ a: { $regex: "a{1000}" } })).toEqual([]);
    expect(issuesOf({ a: { $regex: "(a{500}){2}" } }).map((i) => i.code)).toEqual([
      "regex_program_too_large",
    ]);
    expect(issuesOf({ a: { $regex: "((a{10}){10}){10}" } }).map((i) => i.code)).toEqual([
      "regex_program_too_large",
    ]);
    // "Quickly" as counts, which a busy machine cannot change: the budget is known before the program is
    // built, so refusing builds no program instruction; the probe shows the counter sees a real build
    // (a{1000} built is about 1,000 instructions).
    expect(countingInstructions(() => RE2JS.compile("a{1000}")).added).toBeGreaterThanOrEqual(1000);
    for (const pattern of ["(a{500}){2}", "((a{10}){10}){10}"]) {
      const refused = countingInstructions(() => issuesOf({ a: { $regex: pattern } }));
      expect(refused.result.map((i) => i.code)).toEqual(["regex_program_too_large"]);
      expect(refused.added).toBe(0);
    }
  });

  it("program total: four a{1000} accepted, a fifth small pattern refused", () => {
    const four = [1, 2, 3, 4].map((i) => ({ [`f${i}`]: { $regex: "a{1000}" } }));
    expect(issuesOf({ $and: four })).toEqual([]);
    expect(issuesOf({ $and: [...four, { g: { $regex: "ab" } }] }).map((i) => i.code)).toEqual([
      "regex_programs_too_large",
    ]);
  });
});

describe("docs/semantics.md 1.4: date operands", () => {
  it.each([
    "2024-01-01T00:00:00Z",
    "2024-01-01T00:00:00.123Z",
    "2024-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z",
  ])("accepts %s", (date) => {
    expect(issuesOf({ CreatedUtcTime: { $gt: { $date: date } } })).toEqual([]);
  });

  it.each([
    "2024-01-01T00:00:00.12Z",
    "2024-01-01T00:00:00.1234Z",
    "2024-01-01T00:00:00.Z",
    "2024-01-01T00:00:00",
    "2024-01-01T00:00:00+00:00",
    "2024-01-01 00:00:00Z",
    "2024-01-01t00:00:00z",
    "2024-02-30T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2024-04-31T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T23:59:60Z",
    " 2024-01-01T00:00:00Z",
  ])("refuses %s with a message showing the expected format", (date) => {
    const issues = issuesOf({ CreatedUtcTime: { $gt: { $date: date } } });
    expect(issues.map((i) => [i.code, i.path])).toEqual([
      ["invalid_date", ["CreatedUtcTime", "$gt", "$date"]],
    ]);
    expect(issues[0]?.message).toContain("yyyy-MM-ddTHH:mm:ssZ");
  });

  it.each([
    [{ $numberLong: 1704067200000 }],
    [{ $numberLong: "1.5" }],
    [{ $numberLong: "1e3" }],
    [{ $numberLong: " 1" }],
    [{ $numberLong: "99999999999999999999" }],
    [{ $numberLong: "1", extra: 1 }],
    [1704067200000],
    [null],
  ])("refuses the $date operand %j", (operand) => {
    expect(issuesOf({ CreatedUtcTime: { $gt: { $date: operand } } }).map((i) => i.code)).toEqual([
      "invalid_date",
    ]);
  });

  it("$numberLong and the string form name the same instant, with evaluate, compile and IncidentSet", () => {
    const records = [
      { CreatedUtcTime: "2024-01-01T00:00:00Z" },
      { CreatedUtcTime: new Date("2024-01-01T00:00:00.000Z") },
      { CreatedUtcTime: "2024-01-01T00:00:00.001Z" },
      { CreatedUtcTime: "2024-02-30T00:00:00Z" },
      { CreatedUtcTime: "garbage" },
      {},
    ];
    expect(matching({ CreatedUtcTime: { $date: { $numberLong: "1704067200000" } } }, records)).toEqual([
      0, 1,
    ]);
    expect(matching({ CreatedUtcTime: { $date: "2024-01-01T00:00:00.000Z" } }, records)).toEqual([0, 1]);
    expect(matching({ CreatedUtcTime: { $ne: { $date: "2024-01-01T00:00:00Z" } } }, records)).toEqual([
      2, 3, 4, 5,
    ]);
  });

  it.each([
    [{ CreatedUtcTime: { $ne: "2024-01-01T00:00:00Z" } }, ["CreatedUtcTime", "$ne"]],
    [{ CreatedUtcTime: { $in: ["2024-01-01T00:00:00Z"] } }, ["CreatedUtcTime", "$in", 0]],
    [{ CreatedUtcTime: 5 }, ["CreatedUtcTime"]],
  ])("a date field refuses a non-$date operand: %j", (input, path) => {
    expect(issuesOf(input).map((i) => [i.code, i.path])).toEqual([["date_operand_required", path]]);
  });

  it("the text-field message is exactly the one docs/semantics.md quotes", () => {
    expect(issuesOf({ Number: 123 }).map((i) => i.message)).toEqual([
      "Number is a text field: expected a string, found the number 123.",
    ]);
  });

  it.each(["x", "g", "u", "I", "ii", "imsi"])("$options refuses %j", (flags) => {
    expect(issuesOf({ a: { $regex: "a", $options: flags } }).map((i) => i.code)).toEqual([
      "invalid_regex_options",
    ]);
  });
});

describe("docs/semantics.md 1.5: null along dotted paths, exactly the listed examples, in every engine", () => {
  const listed = [
    { a: [] },
    { a: [1] },
    { a: [[]] },
    { a: [{}] },
    { a: [{ b: 3 }, {}] },
    { a: [5, { b: 1 }] },
    { a: [{ b: 1 }, { b: 3 }] },
  ];
  it('{"a.b": null} and $in [null] match the six listed, not {a: [{b: 1}, {b: 3}]}', () => {
    expect(matching({ "a.b": null }, listed)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(matching({ "a.b": { $in: [null] } }, listed)).toEqual([0, 1, 2, 3, 4, 5]);
  });
  it("$ne: null and $nin [null] are the exact negations", () => {
    expect(matching({ "a.b": { $ne: null } }, listed)).toEqual([6]);
    expect(matching({ "a.b": { $nin: [null] } }, listed)).toEqual([6]);
  });
  it('{"a.0": 42} does not match {a: [[42]]}; it matches {a: [42]} and {a: {"0": 42}}', () => {
    expect(matching({ "a.0": 42 }, [{ a: [[42]] }, { a: [42] }, { a: { 0: 42 } }])).toEqual([1, 2]);
  });
});

describe("docs/semantics.md 1.1: records are read through own properties, accessors at most once", () => {
  it("a class-prototype getter is inherited, so it counts as missing, in every engine", () => {
    class Incident {
      get Severity() {
        return "High";
      }
    }
    expect(matching({ Severity: "High" }, [new Incident()])).toEqual([]);
    expect(matching({ Severity: null }, [new Incident()])).toEqual([0]);
  });
});

describe("docs/semantics.md 1.9: the first matching incident", () => {
  it("earliest instant (ms and Date included), ties and undated by numeric IncidentId ascending", () => {
    const set = new IncidentSet([
      { IncidentId: 10, CreatedUtcTime: "2024-01-01T00:00:00Z", k: 1 },
      { IncidentId: 9, CreatedUtcTime: "2024-01-01T00:00:00.000Z", k: 1 },
      { IncidentId: 1, CreatedUtcTime: "garbage", k: 1 },
      { IncidentId: 0, k: 1 },
      { IncidentId: 11, CreatedUtcTime: new Date("2023-12-31T23:59:59.999Z"), k: 2 },
      { IncidentId: 12, CreatedUtcTime: "2024-02-30T00:00:00Z", k: 3 },
      { IncidentId: 3, CreatedUtcTime: "nope", k: 3 },
    ]);
    expect(set.findFirst({ k: 1 })?.IncidentId).toBe(9);
    expect(set.findFirst({ k: { $in: [1, 2] } })?.IncidentId).toBe(11);
    expect(set.findFirst({ k: 3 })?.IncidentId).toBe(3);
    expect(
      set.findFirst({ $or: [{ k: 1, CreatedUtcTime: { $exists: false } }, { IncidentId: 1 }] })?.IncidentId,
    ).toBe(0);
  });
});

describe("docs/semantics.md 1.6: unknown labels suggest the nearest label", () => {
  it("'Hi' for Severity suggests 'High' (the only label it is a prefix of)", () => {
    const r = safeParseSearchConditions({ Severity: "Hi" });
    expect(r.success).toBe(false);
    expect(r.success ? "" : r.issues[0]?.message).toContain("did you mean 'High'?");
  });
});

it("sanity: the parser accepts what the engines ran", () => {
  expect(parseSearchConditions({ a: 1 }).kind).toBe("eq");
});
