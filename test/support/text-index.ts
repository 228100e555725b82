/**
 * Test helpers of the text index (src/incidents/text-index.test.ts, src/incidents/text/text-column.test.ts).
 */
import { TextColumn, type TextIndex } from "../../src/incidents/text/index.js";

/** A text column over `values` (one row each) with its text index built, under a budget of `bytes`. */
export function indexed(
  values: readonly unknown[],
  bytes = 1 << 26,
): { column: TextColumn; index: TextIndex } {
  const column = new TextColumn("Title", values.length, { remaining: bytes });
  values.forEach((value, row) => {
    column.set(row, value, values.length);
  });
  const index = column.buildIndex();
  if (index === undefined) throw new Error("no index");
  return { column, index };
}
