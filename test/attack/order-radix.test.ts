/**
 * Attack on the creation order's radix sort (src/incidents/order.ts `sortRows`): long lists (past the
 * 2,048 rows it starts at) whose times are all equal (every digit skipped, one run of the whole list), differ
 * in one byte only, sit at the ends of the date range and past 2^53, mix -0 and +0, or are +Infinity
 * (undated); ids descending so that a run's order is decided by its id. Each list is sorted as the merge
 * sort (`mergeSortRows`, the order of docs/semantics.md 1.9) and as `Array.prototype.sort` with `before`.
 */

import { describe, expect, it } from "vitest";
import { mergeSortRows, before as rowBefore, sortRows } from "../../src/incidents/order.js";

const N = 3000;

const TABLE: [string, (i: number) => number][] = [
  ["all equal", () => 1.7e12],
  ["all +Infinity (undated)", () => Number.POSITIVE_INFINITY],
  ["-0 and +0", (i) => (i % 2 === 0 ? -0 : 0)],
  ["differ in the lowest byte only", (i) => 1.7e12 + (i % 7)],
  ["differ in the sign only", (i) => (i % 3 === 0 ? -1.7e12 : 1.7e12)],
  ["the ends of the date range", (i) => [8.64e15, -8.64e15, 0, 8.64e15 - 1][i % 4]!],
  ["past 2^53", (i) => 2 ** 53 + 2 * (i % 5)],
  ["negative fractions", (i) => -((i % 11) + 0.25)],
  ["tiny and huge", (i) => [5e-324, -5e-324, 1e308, -1e308, Number.MAX_VALUE][i % 5]!],
];

describe("sortRows past the radix threshold", () => {
  for (const [name, timeOf] of TABLE) {
    it(name, () => {
      const time = Float64Array.from({ length: N }, (_, i) => timeOf(i));
      // Ids descending, some equal and some undated: the runs are ordered by id, then by row.
      const id = Float64Array.from({ length: N }, (_, i) =>
        i % 13 === 0 ? Number.POSITIVE_INFINITY : (N - i) >> 1,
      );
      const rows = Int32Array.from({ length: N }, (_, i) => (i * 7919) % N);
      const expected = [...rows].sort((a, b) =>
        rowBefore(a, b, time, id) ? -1 : rowBefore(b, a, time, id) ? 1 : 0,
      );
      expect([...sortRows(rows.slice(), time, id)]).toEqual(expected);
      expect([...mergeSortRows(rows.slice(), time, id)]).toEqual(expected);
    });
  }
});
