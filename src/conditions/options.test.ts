import { describe, expect, it } from "vitest";
import { untyped } from "../../test/support/conditions-input.js";
import { IncidentSet } from "../incidents/incident-set.js";
import { toMongoFilter } from "../mongodb/to-mongo.js";
import { toSqlWhere } from "../postgres/to-sql.js";
import { compile } from "./compile.js";
import { evaluate } from "./evaluate.js";
import { MAX_CONDITION_DEPTH } from "./options.js";
import { parseSearchConditions, safeParseSearchConditions } from "./parse.js";
import { explain, toSearchConditions } from "./print.js";

/** `levels` nested `$nor`, each two levels of JSON (an array, then an object), around `{Title: "x"}`. */
function nestedNor(levels: number): object {
  let condition: object = { Title: "x" };
  for (let i = 0; i < levels; i++) condition = { $nor: [condition] };
  return condition;
}

/** `levels` nested `$not` on one field, each one level of JSON. */
function nestedNot(levels: number): object {
  let operators: object = { $eq: "x" };
  for (let i = 0; i < levels; i++) operators = { $not: operators };
  return { Title: operators };
}

/**
 * `levels` nested `$elemMatch` on `a` (operator form: one level of JSON each; query form: two), with the
 * record whose nested arrays match it.
 */
function nestedElemMatch(
  levels: number,
  form: "operator" | "query",
): [object, { IncidentId: number; a: unknown }] {
  let condition: unknown = form === "operator" ? { $eq: "x" } : { a: "x" };
  let value: unknown = "x";
  for (let i = 0; i < levels; i++) {
    condition = form === "operator" ? { $elemMatch: condition } : { a: { $elemMatch: condition } };
    value = form === "operator" ? [value] : [{ a: value }];
  }
  return [form === "operator" ? { a: condition } : (condition as object), { IncidentId: 4, a: value }];
}

describe("limits given as options (docs/semantics.md 1.7, 'Raising a limit')", () => {
  it.each([
    [{ depth: 0 }, RangeError, /Limit 'depth' must be from 1 to 256/],
    [{ depth: MAX_CONDITION_DEPTH + 1 }, RangeError, /Limit 'depth' must be from 1 to 256 .*found 257/],
    [{ depth: 100_000 }, RangeError, /found 100000/],
    [{ nodes: -1 }, RangeError, /Limit 'nodes' must be an integer ≥ 0, found -1/],
    [{ setSize: 1.5 }, RangeError, /Limit 'setSize' must be an integer ≥ 0, found 1.5/],
    [{ stringLength: Number.NaN }, RangeError, /found NaN/],
    [{ depth: "3" }, TypeError, /Limit 'depth' must be a number, found the string "3"/],
    [{ deep: 3 }, TypeError, /Unknown limit 'deep': expected one of depth, nodes/],
    [5, TypeError, /'limits' must be an object of limits, found the number 5/],
  ])("refuses %j before reading any input", (limits, type, message) => {
    const parse = () => safeParseSearchConditions({ Title: "x" }, { limits } as never);
    expect(parse).toThrow(type);
    expect(parse).toThrow(message);
    expect(() => new IncidentSet([], { limits } as never)).toThrow(message);
  });

  it("accepts every limit at its bounds, and undefined keeps the default", () => {
    expect(safeParseSearchConditions({ Title: "x" }, { limits: { depth: 1 } }).success).toBe(true);
    expect(safeParseSearchConditions({ Title: { $eq: "x" } }, { limits: { depth: 1 } }).success).toBe(false);
    expect(safeParseSearchConditions({ Title: "x" }, { limits: { nodes: 0 } }).success).toBe(false);
    const limits = { depth: MAX_CONDITION_DEPTH, nodes: 1_000_000, setSize: undefined } as never; // a JavaScript caller
    expect(safeParseSearchConditions({ Title: "x" }, { limits }).success).toBe(true);
  });

  it.each([
    ["nested $nor", nestedNor((MAX_CONDITION_DEPTH - 2) / 2), { IncidentId: 4 }],
    ["nested $not", nestedNot(MAX_CONDITION_DEPTH - 2), { IncidentId: 4 }],
    ["nested operator-form $elemMatch", ...nestedElemMatch(MAX_CONDITION_DEPTH - 2, "operator")],
    ["nested query-form $elemMatch", ...nestedElemMatch((MAX_CONDITION_DEPTH - 2) / 2, "query")],
  ])("a %s at the deepest configurable depth runs in every engine", (name, input, deepRecord) => {
    const limits = { depth: MAX_CONDITION_DEPTH, nodes: 100_000 };
    const condition = parseSearchConditions(input, { limits });
    const records = [
      { IncidentId: 1, Title: "x" },
      { IncidentId: 2, Title: "y" },
      { IncidentId: 3 },
      deepRecord,
    ];
    const expected = records.map((record) => evaluate(condition, record));
    // The deepest $elemMatch reaches its innermost element.
    if (name.includes("$elemMatch")) expect(expected[3]).toBe(true);
    const predicate = compile(condition, { cache: false });
    for (let round = 0; round < 2_100; round++) predicate(records[round % 4]!); // past the tier-up
    expect(records.map((record) => predicate(record))).toEqual(expected);
    expect(records.map((record) => compile(condition, { codegen: false })(record))).toEqual(expected);
    const set = new IncidentSet(records, { limits });
    expect(set.count(condition)).toBe(expected.filter(Boolean).length);
    expect(set.findAll(untyped(input)).map((record) => record.IncidentId)).toEqual(
      records.filter((_, index) => expected[index]).map((record) => record.IncidentId),
    );
    expect(parseSearchConditions(toSearchConditions(condition), { limits })).toEqual(condition);
    expect(explain(condition).length).toBeGreaterThan(0);
    expect(() => toMongoFilter(condition)).not.toThrow();
    expect(() => toSqlWhere(condition)).not.toThrow();
  });

  it("one level past the deepest configurable depth is an issue with its path, never a stack overflow", () => {
    const result = safeParseSearchConditions(nestedNot(MAX_CONDITION_DEPTH), {
      limits: { depth: MAX_CONDITION_DEPTH, nodes: 100_000 },
    });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]!.code).toBe("limit_exceeded");
      expect(result.issues[0]!.message).toBe("Expected the nesting depth to be at most 256, found more.");
      expect(result.issues[0]!.path).toHaveLength(MAX_CONDITION_DEPTH);
    }
  });
});
