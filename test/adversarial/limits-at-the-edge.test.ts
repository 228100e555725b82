/**
 * Attacks on the limits of docs/semantics.md 1.7 and SECURITY.md ("Every limit … is checked before
 * descending"; "A program budget, known before the program is built"): each default at the limit and one
 * past it, and refusal at a cost that does not grow with the input (limits raised through `options.limits`: src/conditions/options.test.ts).
 */
import { describe, expect, it } from "vitest";
import { safeParseSearchConditions } from "../../src/index.js";
import { countingReads } from "../support/read-counter.js";
import { countingInstructions, countingParses } from "../support/regex-work.js";

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

describe("refusal costs the same whatever the size past the limit (docs/semantics.md 1.7)", () => {
  // Counts and ratios, not milliseconds, so that a busy machine cannot fail them: a structure past a limit
  // is refused after a bounded number of reads (a counting proxy), and a string past a limit is refused in
  // no more time at 100 times its size than at its own (the fastest of five runs each), give or take the
  // time of a thousand trivial parses.
  it.each([
    ["1,000,000 values in $in", () => ({ Tags: { $in: Array.from({ length: 1_000_000 }, (_, i) => i) } })],
    ["1,000,000 branches of $or", () => ({ $or: Array.from({ length: 1_000_000 }, () => ({ Title: "x" })) })],
    ["100,000 nested $and", () => nestedAnd(100_000, { Title: "x" })],
    [
      "a 100,000-key object",
      () => Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`F${i}`, i])),
    ],
  ])("%s: refused after at most 1,000 reads", (_name, build) => {
    const counted = countingReads(build());
    expect(safeParseSearchConditions(counted.proxy).success).toBe(false);
    expect(counted.reads()).toBeLessThanOrEqual(1_000);
  });

  /** The fewest milliseconds of five runs (the minimum is what the code costs on a shared machine). */
  const fastest = (run: () => unknown): number => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) best = Math.min(best, timed(run).ms);
    return best;
  };

  it.each([
    ["a string", (n: number) => ({ Title: "x".repeat(n) })],
    ["a pattern", (n: number) => ({ Title: { $regex: "a".repeat(n) } })],
    ["$options", (n: number) => ({ Title: { $regex: "a", $options: "i".repeat(n) } })],
    ["a field name", (n: number) => ({ ["k".repeat(n)]: 1 })],
    ["a field name of dotted segments", (n: number) => ({ [`${"a.".repeat(n / 2)}a`]: 1 })],
    ["a pattern of .{1000} repeated", (n: number) => ({ Title: { $regex: ".{1000}".repeat(n / 7_000) } })],
  ])("%s of 10 MB costs at most 10 times one of 100 KB (both past the limit)", (_name, build) => {
    const small = build(100_000);
    const large = build(10_000_000);
    expect(safeParseSearchConditions(small).success).toBe(false);
    expect(safeParseSearchConditions(large).success).toBe(false);
    const unit = fastest(() => safeParseSearchConditions({ Title: "x" }));
    expect(fastest(() => safeParseSearchConditions(large))).toBeLessThan(
      10 * fastest(() => safeParseSearchConditions(small)) + 1_000 * unit,
    );
  });

  it("(?i)\\pL{1000}: refused without building its program (it would build a huge one)", () => {
    const input = { Title: { $regex: "(?i)\\pL{1000}" } };
    // The engine's work as a count, which a busy machine cannot fail: no instruction of a program added,
    // and at most one parse (the measuring).
    const counted = countingParses(() => countingInstructions(() => safeParseSearchConditions(input)));
    expect(counted.result.result.success).toBe(false);
    expect(counted.result.added).toBe(0);
    expect(counted.parses).toBeLessThanOrEqual(1);
  });
});
