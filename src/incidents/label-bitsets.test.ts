import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { type Bitset, emptyBitset, popcount } from "./bitset.js";
import { countLabels, denseLabels, type LabelExpression } from "./label-bitsets.js";
import { startBudget } from "./search-budget.js";

/** An expression tree as data: leaves name codes of the column (`codes`), nodes combine them. */
type Shape =
  | { kind: "codes"; codes: number[]; complement: boolean }
  | { kind: "and" | "or"; children: Shape[] }
  | { kind: "not"; child: Shape };

const CODES = 5;

const shapeArb: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({
      kind: fc.constant("codes" as const),
      codes: fc.uniqueArray(fc.integer({ min: 0, max: CODES - 1 }), { maxLength: 3 }),
      complement: fc.boolean(),
    }),
    fc.record({
      kind: fc.constantFrom("and" as const, "or" as const),
      children: fc.array(tie("shape"), { minLength: 1, maxLength: 4 }),
    }),
    fc.record({ kind: fc.constant("not" as const), child: tie("shape") }),
  ),
})).shape;

/** Row `i` against the shape, read from the codes themselves (no bitsets). */
function holds(shape: Shape, code: number): boolean {
  switch (shape.kind) {
    case "codes":
      return shape.codes.includes(code) !== shape.complement;
    case "and":
      return shape.children.every((child) => holds(child, code));
    case "or":
      return shape.children.some((child) => holds(child, code));
    case "not":
      return !holds(shape.child, code);
  }
}

function expression(shape: Shape, bits: readonly Bitset[]): LabelExpression {
  switch (shape.kind) {
    case "codes":
      return { kind: "codes", bits: shape.codes.map((code) => bits[code]!), complement: shape.complement };
    case "and":
    case "or":
      return { kind: shape.kind, children: shape.children.map((child) => expression(child, bits)) };
    case "not":
      return { kind: "not", child: expression(shape.child, bits) };
  }
}

/** The column's codes (one per row) and each code's bitset. */
function column(codes: readonly number[]): Bitset[] {
  const bits = Array.from({ length: CODES }, () => emptyBitset(codes.length));
  codes.forEach((code, i) => {
    bits[code]![i >>> 5]! |= 1 << (i & 31);
  });
  return bits;
}

describe("label expressions over per-code bitsets, block by block", () => {
  it("answer as the expression does on every row (sizes across blocks, complements, NOT at the tail)", () => {
    fc.assert(
      fc.property(
        // Up to three blocks of 8,192 rows and a ragged last word; runs of one code, so that whole blocks
        // of an AND come out empty.
        fc.integer({ min: 0, max: 3 * 8192 + 77 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: CODES - 1 }), fc.integer({ min: 1, max: 9000 })), {
          minLength: 1,
          maxLength: 12,
        }),
        shapeArb,
        (size, runs, shape) => {
          const codes: number[] = [];
          for (let r = 0; codes.length < size; r = (r + 1) % runs.length) {
            const [code, length] = runs[r]!;
            for (let k = 0; k < length && codes.length < size; k++) codes.push(code);
          }
          const expr = expression(shape, column(codes));
          const dense = denseLabels(expr, size, startBudget(undefined));
          expect(dense.length).toBe((size + 31) >>> 5);
          const expected = codes.map((code) => holds(shape, code));
          const got = codes.map((_, i) => (dense[i >>> 5]! & (1 << (i & 31))) !== 0);
          expect(got).toEqual(expected);
          // No bit past the rows (a complement or a NOT must not leak into the last word).
          expect(popcount(dense)).toBe(expected.filter(Boolean).length);
          expect(countLabels(expr, size, startBudget(undefined))).toBe(expected.filter(Boolean).length);
          // The blocks (no generated loop) answer the same.
          expect(denseLabels(expr, size, startBudget(undefined), false)).toEqual(dense);
          expect(countLabels(expr, size, startBudget(undefined), false)).toBe(
            expected.filter(Boolean).length,
          );
        },
      ),
      fcOptions(300),
    );
  });

  // Both paths: the generated loop (ticks once a chunk of 1,024 words: five chunks here) and the blocks.
  // (With 5 × 8,192 rows the generated loop ticks twice and never reaches the deadline: the test passed only
  // when an earlier test had filled the loop cache, so that the blocks ran.)
  it.each([true, false])(
    "ticks the budget as it goes: a search past its time stops with the typed error (codegen %s)",
    (codegen) => {
      const size = 5 * 32768;
      const bits = column(Array.from({ length: size }, (_, i) => i % CODES));
      const expr: LabelExpression = {
        kind: "or",
        children: [
          { kind: "codes", bits: [bits[0]!], complement: false },
          { kind: "not", child: { kind: "codes", bits: [bits[1]!, bits[2]!], complement: false } },
        ],
      };
      let now = 0;
      const budget = { maxTimeMS: 3, clock: () => now++ };
      expect(() => countLabels(expr, size, startBudget(budget), codegen)).toThrow("took longer than 3 ms");
      now = 0;
      expect(() => denseLabels(expr, size, startBudget(budget), codegen)).toThrow("took longer than 3 ms");
      // Code 0, or neither 1 nor 2: every row of codes 0, 3 and 4.
      expect(countLabels(expr, size, startBudget(undefined), codegen)).toBe((3 * size) / CODES);
    },
  );

  it("evaluates an expression of more bitsets than one generated loop reads by blocks, alike", () => {
    const size = 2 * 8192 + 5;
    const codes = Array.from({ length: size }, (_, i) => (i * 7) % CODES);
    const bits = column(codes);
    // 70 bitsets: an OR of 35 ANDs of two codes each (code k with code k + 1, cycling).
    const shape: Shape = {
      kind: "or",
      children: Array.from({ length: 35 }, (_, k) => ({
        kind: "and" as const,
        children: [
          { kind: "codes" as const, codes: [k % CODES], complement: k % 3 === 0 },
          { kind: "codes" as const, codes: [(k + 1) % CODES], complement: true },
        ],
      })),
    };
    const expected = codes.filter((code) => holds(shape, code)).length;
    expect(expected).toBeGreaterThan(0);
    expect(countLabels(expression(shape, bits), size, startBudget(undefined))).toBe(expected);
    expect(popcount(denseLabels(expression(shape, bits), size, startBudget(undefined)))).toBe(expected);
  });
});

/** Replaces the global `Function` by a constructor that refuses, as a CSP does; counts its calls. */
function forbidFunction(): { readonly calls: number } {
  const counter = { calls: 0 };
  vi.stubGlobal(
    "Function",
    class {
      constructor() {
        counter.calls++;
        throw new EvalError("Code generation from strings disallowed for this context");
      }
    },
  );
  return counter;
}

describe("label expressions where code generation is forbidden (a Content-Security-Policy)", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("answers by blocks, tries `new Function` once, and never with codegen off", async () => {
    vi.resetModules();
    const fresh = await import("./label-bitsets.js");
    const forbidden = forbidFunction();
    const size = 3000;
    const codes = Array.from({ length: size }, (_, i) => i % CODES);
    const bits = column(codes);
    const shape: Shape = {
      kind: "or",
      children: [
        { kind: "codes", codes: [0], complement: false },
        { kind: "not", child: { kind: "codes", codes: [1, 2], complement: false } },
      ],
    };
    const expected = codes.filter((code) => holds(shape, code)).length;
    expect(fresh.countLabels(expression(shape, bits), size, startBudget(undefined), false)).toBe(expected);
    expect(forbidden.calls).toBe(0);
    expect(fresh.countLabels(expression(shape, bits), size, startBudget(undefined))).toBe(expected);
    expect(forbidden.calls).toBe(1);
    expect(popcount(fresh.denseLabels(expression(shape, bits), size, startBudget(undefined)))).toBe(expected);
    expect(forbidden.calls).toBe(1); // refused once: not tried again
  });

  it("never tries `new Function` for a set whose compile option codegen is false", async () => {
    vi.resetModules();
    const { IncidentSet } = await import("./incident-set.js");
    const forbidden = forbidFunction();
    const incidents = Array.from({ length: 5000 }, (_, i) => ({
      IncidentId: i,
      Status: ["Open", "Closed", "On Hold"][i % 3],
      Severity: ["High", "Low"][i % 2],
    }));
    const query = {
      $or: [
        { Status: "Open", Severity: "High" },
        { Status: { $ne: "Closed" }, Severity: "Low" },
      ],
    };
    const expected = incidents.filter(
      (r) =>
        (r.Status === "Open" && r.Severity === "High") || (r.Status !== "Closed" && r.Severity === "Low"),
    );
    const set = new IncidentSet(incidents, { compile: { codegen: false } });
    expect(set.explain(query).count).toBe("columns: label bitsets");
    expect(set.count(query)).toBe(expected.length);
    expect(set.findAll(query)).toEqual(expected);
    expect(forbidden.calls).toBe(0);
  });
});
