/**
 * Attacks on the limits of docs/semantics.md 1.7 and SECURITY.md ("Every limit … is checked before
 * descending"; "A program budget, known before the program is built"): each default at the limit and one
 * past it, and refusal in milliseconds (limits raised through `options.limits`: src/conditions/options.test.ts).
 */
import { describe, expect, it } from "vitest";
import { safeParseSearchConditions } from "../../src/index.js";

function nestedAnd(levels: number, leaf: object): object {
  let condition: object = leaf;
  for (let i = 0; i < levels; i++) condition = { $and: [condition] };
  return condition;
}

function timed<T>(run: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = run();
  return { value, ms: performance.now() - started };
}

function codes(input: unknown): string[] {
  const result = safeParseSearchConditions(input);
  return result.success ? [] : result.issues.map((issue) => issue.code);
}

describe("each default limit of docs/semantics.md 1.7 at the limit and one past it", () => {
  it("depth 32: an operator object at depth 32 is accepted, one at 33 refused", () => {
    // root 1 + ($and array, object) × 15 = 31; the operator object is 32, $in's array 33.
    expect(codes(nestedAnd(15, { Title: { $eq: "x" } }))).toEqual([]);
    expect(codes(nestedAnd(15, { Title: { $in: ["x"] } }))).toEqual(["limit_exceeded"]);
    expect(codes(nestedAnd(14, { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } }))).toEqual([]);
    expect(codes(nestedAnd(15, { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } }))).toEqual([
      "limit_exceeded",
    ]);
  });

  it("$in, $nin and $all: 10,000 values accepted, 10,001 refused", () => {
    for (const op of ["$in", "$nin", "$all"]) {
      expect(codes({ Tags: { [op]: Array.from({ length: 10_000 }, (_, i) => i) } })).toEqual([]);
      expect(codes({ Tags: { [op]: Array.from({ length: 10_001 }, (_, i) => i) } })).toEqual([
        "limit_exceeded",
      ]);
    }
  });

  it("a string of 10,000 characters in $in accepted, 10,001 refused; a pipe string counts whole", () => {
    expect(codes({ Title: { $in: ["x".repeat(10_000)] } })).toEqual([]);
    expect(codes({ Title: { $in: ["x".repeat(10_001)] } })).toEqual(["limit_exceeded"]);
    expect(codes({ Title: Array.from({ length: 2_000 }, (_, i) => `a${i}`).join("|") })).toEqual([
      "limit_exceeded",
    ]);
  });

  it("a program of 1,000 instructions accepted, 1,001 refused; 4,000 in all accepted, 4,001 refused", () => {
    for (const pattern of ["a{1000}", "a{999}b", "[ab]{1000}", "(?:a?){500}", ".{1000}"]) {
      expect({ pattern, codes: codes({ Title: { $regex: pattern } }) }).toEqual({ pattern, codes: [] });
    }
    for (const pattern of [
      "a{1000}b",
      "^a{1000}",
      "[ab]{1000}c",
      "[^a]{1000}",
      "(?:a?){1000}",
      "(a|b){500}",
    ]) {
      expect({ pattern, codes: codes({ Title: { $regex: pattern } }) }).toEqual({
        pattern,
        codes: ["regex_program_too_large"],
      });
    }
    const four = [1, 2, 3, 4].map(() => ({ Title: { $regex: "a{1000}" } }));
    expect(codes({ $and: four })).toEqual([]);
    expect(codes({ $and: [...four, { Title: { $regex: "b" } }] })).toEqual(["regex_programs_too_large"]);
  });
});

describe("refusal costs milliseconds, whatever the size past the limit (docs/semantics.md 1.7)", () => {
  it.each([
    ["a 100 MB string", () => ({ Title: "x".repeat(100_000_000) })],
    ["a 10 MB pattern", () => ({ Title: { $regex: "a".repeat(10_000_000) } })],
    ["10 MB of $options", () => ({ Title: { $regex: "a", $options: "i".repeat(10_000_000) } })],
    ["a 10 MB field name", () => ({ ["k".repeat(10_000_000)]: 1 })],
    ["a field name of 1,000,000 dotted segments", () => ({ [`${"a.".repeat(1_000_000)}a`]: 1 })],
    ["1,000,000 values in $in", () => ({ Tags: { $in: Array.from({ length: 1_000_000 }, (_, i) => i) } })],
    ["1,000,000 branches of $or", () => ({ $or: Array.from({ length: 1_000_000 }, () => ({ Title: "x" })) })],
    ["100,000 nested $and", () => nestedAnd(100_000, { Title: "x" })],
    ["a pattern of .{1000} 141 times", () => ({ Title: { $regex: ".{1000}".repeat(141) } })],
    ["(?i)\\pL{1000}", () => ({ Title: { $regex: "(?i)\\pL{1000}" } })],
  ])("%s", (_name, build) => {
    const input = build();
    const { value, ms } = timed(() => safeParseSearchConditions(input));
    expect(value.success).toBe(false);
    // A bound loose enough for a loaded CI machine, far below what reading the input whole would cost.
    expect(ms).toBeLessThan(500);
  });
});
