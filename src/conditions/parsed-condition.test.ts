/**
 * Only conditions the parser produced are conditions (docs/semantics.md 1.1): every
 * public function taking a Condition refuses anything else with a TypeError that says to call
 * parseSearchConditions, and IncidentSet parses anything else as raw Search Conditions, so a forged AST
 * never skips the parser's checks.
 */
import { describe, expect, it } from "vitest";
import { hostile } from "../../test/support/conditions-input.js";
import { IncidentSet } from "../incidents/incident-set.js";
import { firstMatchingIncident } from "../mongodb/first-match.js";
import { toMongoFilter, toMongoFind } from "../mongodb/to-mongo.js";
import type { Condition } from "./ast.js";
import { compile } from "./compile.js";
import { evaluate } from "./evaluate.js";
import { SearchConditionsError } from "./issues.js";
import { isParsedCondition, parseSearchConditions, safeParseSearchConditions } from "./parse.js";
import { explain, toSearchConditions } from "./print.js";
import { matchesEverythingByShape } from "./shape.js";

/** The forged nodes: a prototype-named path, an unknown label, a pattern RE2 refuses. */
const FORGED: [string, unknown][] = [
  [
    "a __proto__ path",
    JSON.parse('{"kind": "eq", "path": ["__proto__"], "fieldKind": "open", "operand": {"type": "null"}}'),
  ],
  [
    "an enum field with an unknown label",
    { kind: "eq", path: ["Severity"], fieldKind: "enum", operand: { type: "string", value: "Urgent" } },
  ],
  ["a backreference", { kind: "regex", path: ["Title"], fieldKind: "text", source: "(a)\\1", flags: "" }],
  ["a well-formed node", { kind: "exists", path: ["Title"], fieldKind: "text", exists: true }],
  ["an empty AND node", { kind: "and", children: [] }],
];

const parsed = parseSearchConditions({ $or: [{ Severity: "High" }, { Score: { $gt: 1, $lt: 5 } }] });

/** Values that are not parsed conditions although some carry a parsed condition's exact data. */
const NOT_PARSED: [string, unknown][] = [
  ...FORGED,
  ["raw Search Conditions", { Severity: "High" }],
  ["a raw array of conditions", [{ Severity: "High" }]],
  ["a structured clone of a parsed condition", structuredClone(parsed)],
  ["a JSON round trip of a parsed condition", JSON.parse(JSON.stringify(parsed))],
  ["a spread copy of a parsed condition", { ...parsed }],
  ["null", null],
  ["undefined", undefined],
  ["a string", "Severity"],
];

const ENTRY_POINTS: [string, (condition: Condition) => unknown][] = [
  ["compile", (c) => compile(c)],
  ["compile", (c) => compile(c, { codegen: false, cache: false })],
  ["evaluate", (c) => evaluate(c, { Severity: "High" })],
  ["toMongoFilter", (c) => toMongoFilter(c)],
  ["toMongoFind", (c) => toMongoFind(c)],
  ["toSearchConditions", (c) => toSearchConditions(c)],
  ["explain", (c) => explain(c)],
  ["matchesEverythingByShape", (c) => matchesEverythingByShape(c)],
];

describe("public functions taking a Condition refuse anything the parser did not produce", () => {
  for (const [name, call] of ENTRY_POINTS) {
    it.each(NOT_PARSED)(`${name}: %s`, (_what, value) => {
      const attempt = () => call(value as Condition);
      expect(attempt).toThrow(TypeError);
      expect(attempt).toThrow(`${name} expects a condition from parseSearchConditions`);
      expect(attempt).toThrow(/call parseSearchConditions\(searchConditions\) and pass its result/);
    });
  }

  it("firstMatchingIncident refuses a forged condition before querying the collection", async () => {
    let queried = false;
    const collection = {
      findOne: async () => {
        queried = true;
        return null;
      },
    };
    for (const [, forged] of FORGED) {
      await expect(firstMatchingIncident(collection, forged as Condition)).rejects.toThrow(
        /toMongoFind expects a condition from parseSearchConditions/,
      );
    }
    expect(queried).toBe(false);
  });
});

describe("parsed conditions and every node inside them are accepted", () => {
  it("accepts the root and its sub-nodes, which the incident set's planner compiles separately", () => {
    expect(isParsedCondition(parsed)).toBe(true);
    if (parsed.kind !== "or") throw new Error("expected an OR");
    for (const child of parsed.children) {
      expect(isParsedCondition(child)).toBe(true);
      expect(typeof compile(child)({ Severity: "High" })).toBe("boolean");
      expect(typeof evaluate(child, {})).toBe("boolean");
      expect(toMongoFilter(child)).toBeTypeOf("object");
    }
    expect(evaluate(parsed, { Score: 2 })).toBe(true);
    expect(compile(parsed)({ Severity: "High" })).toBe(true);
  });

  it("safeParseSearchConditions brands its conditions too", () => {
    const result = safeParseSearchConditions({ Title: "x" });
    expect(result.success && isParsedCondition(result.condition)).toBe(true);
  });

  it("isParsedCondition is false for everything else and never throws", () => {
    for (const [, value] of NOT_PARSED) expect(isParsedCondition(value)).toBe(false);
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(isParsedCondition(revoked.proxy)).toBe(false);
  });

  it("stays plain data: two parses are deeply equal, and JSON prints the same", () => {
    const again = parseSearchConditions({ $or: [{ Severity: "High" }, { Score: { $gt: 1, $lt: 5 } }] });
    expect(again).not.toBe(parsed);
    expect(again).toEqual(parsed);
    expect(JSON.stringify(again)).toBe(JSON.stringify(parsed));
    expect(structuredClone(parsed)).toEqual(parsed);
  });

  it("is frozen, so a branded condition is always what the parser checked", () => {
    const condition = parseSearchConditions({
      Title: "x",
      Severity: { $in: ["High", "Low"] },
      Score: { $gte: 1 },
      Tags: { $not: { $size: 2 } },
    });
    const mutations: (() => void)[] = [
      () => Object.assign(condition, { kind: "or" }),
      () => (condition as unknown as { children: Condition[] }).children.push(condition),
    ];
    if (condition.kind !== "and") throw new Error("expected an AND");
    const [title, severity, score, tags] = condition.children;
    mutations.push(
      () => ((title as unknown as { path: string[] }).path[0] = "__proto__"),
      () => Object.assign((title as unknown as { operand: object }).operand, { value: "y" }),
      () =>
        (severity as unknown as { operands: unknown[] }).operands.push({ type: "string", value: "Urgent" }),
      () => Object.assign((score as unknown as { lower: object }).lower, { inclusive: false }),
      () => Object.assign((tags as unknown as { child: object }).child, { size: -1 }),
    );
    for (const mutate of mutations) expect(mutate).toThrow(TypeError);
    expect(toSearchConditions(condition)).toEqual({
      Title: "x",
      Severity: { $in: ["High", "Low"] },
      Score: { $gte: 1 },
      Tags: { $not: { $size: 2 } },
    });
  });
});

describe("IncidentSet parses every input that is not a parsed condition", () => {
  const incidents = [
    { IncidentId: 1, Number: "N-1", Title: "a", Severity: "High" },
    { IncidentId: 2, Number: "N-2", Title: "b", Severity: "Low", __proto__x: null },
  ];

  it.each(FORGED)("refuses a forged node: %s", (_name, forged) => {
    const set = new IncidentSet(incidents);
    expect(() => set.findFirst(hostile(forged))).toThrow(SearchConditionsError);
    expect(() => set.findAll(hostile(forged))).toThrow(SearchConditionsError);
    expect(() => set.count(hostile(forged))).toThrow(SearchConditionsError);
    expect(() => set.explain(hostile(forged))).toThrow(SearchConditionsError);
  });

  it("the forged __proto__ node no longer finds the site's first incident", () => {
    const set = new IncidentSet(incidents);
    const [, forged] = FORGED[0]!;
    let found: unknown = "not called";
    try {
      found = set.findFirst(hostile(forged));
    } catch (error) {
      expect(error).toBeInstanceOf(SearchConditionsError);
      const issues = (error as SearchConditionsError).issues.map((issue) => issue.path.join("."));
      expect(issues).toEqual(expect.arrayContaining(["path", "operand"]));
    }
    expect(found).toBe("not called");
  });

  it("uses a parsed condition as it is, with the catalogue it was parsed with", () => {
    const set = new IncidentSet(incidents);
    expect(set.findFirst(parseSearchConditions({ Severity: "Low" }))?.IncidentId).toBe(2);
    expect(set.count(parseSearchConditions({ Title: { $in: ["a", "b"] } }))).toBe(2);
    expect(set.findAll({ Severity: "High" }).map((i) => i.IncidentId)).toEqual([1]);
  });
});
