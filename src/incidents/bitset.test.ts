import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import {
  and,
  andNot,
  bitsToRows,
  clearTail,
  emptyBitset,
  fullBitset,
  not,
  or,
  popcount,
  rowsToBits,
  setBit,
} from "./bitset.js";

describe("bitsets", () => {
  it("popcount and bitsToRows agree with the rows set", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.array(fc.nat(), { maxLength: 120 }), (size, picks) => {
        const bits = emptyBitset(size);
        const rows = new Set<number>();
        for (const pick of picks) {
          if (size === 0) break;
          setBit(bits, pick % size);
          rows.add(pick % size);
        }
        expect(popcount(bits)).toBe(rows.size);
        expect([...bitsToRows(bits)]).toEqual([...rows].sort((a, b) => a - b));
      }),
      fcOptions(300),
    );
  });

  it.each([0, 1, 31, 32, 33, 64, 100])("fullBitset(%i) sets exactly the rows below the size", (size) => {
    expect(popcount(fullBitset(size))).toBe(size);
    const bits = fullBitset(size);
    for (let w = 0; w < bits.length; w++) bits[w] = 0xffffffff;
    clearTail(bits, size);
    expect(popcount(bits)).toBe(size);
  });
});

describe("bitset operations", () => {
  const rowsArb = (size: number) => fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, size - 1) }));
  it("and, or, andNot and not are the set operations on the rows", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 200 })
          .chain((size) => fc.tuple(fc.constant(size), rowsArb(size), rowsArb(size))),
        ([size, xs, ys]) => {
          const a = rowsToBits(xs, size);
          const b = rowsToBits(ys, size);
          const inA = new Set(xs);
          const inB = new Set(ys);
          const all = Array.from({ length: size }, (_, i) => i);
          expect([...bitsToRows(and(a, b))]).toEqual(all.filter((i) => inA.has(i) && inB.has(i)));
          expect([...bitsToRows(or(a, b))]).toEqual(all.filter((i) => inA.has(i) || inB.has(i)));
          expect([...bitsToRows(andNot(a, b))]).toEqual(all.filter((i) => inA.has(i) && !inB.has(i)));
          expect([...bitsToRows(not(a, size))]).toEqual(all.filter((i) => !inA.has(i)));
          // Inputs are never modified.
          expect([...bitsToRows(a)]).toEqual([...xs].sort((p, q) => p - q));
        },
      ),
      fcOptions(200),
    );
  });
});
