/**
 * The packed trigram lists (gram-index.ts): every list read back (`idsOf`, `metaOf`) equals the list
 * computed by brute force from the values: the ids holding the trigram, ascending, and per id where the
 * trigram first occurs (255 past 254) and how its three characters are written. Gaps of one to three varint
 * bytes, offsets past 127 and 255 (two-byte `meta`), upper case, non-ASCII and non-string values; a
 * fast-check property with a fixed seed.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../../test/support/fc.js";
import { buildTextIndex } from "./corpus-index.js";
import { getFoldTable, getVariantTable, OPAQUE } from "./fold.js";

/** Per trigram key: the ids holding it and their `meta`, by brute force over `values`. */
function reference(values: readonly unknown[]): Map<number, { ids: number[]; meta: number[] }> {
  const fold = getFoldTable();
  const variant = getVariantTable();
  const lists = new Map<number, { ids: number[]; meta: number[] }>();
  values.forEach((value, id) => {
    if (typeof value !== "string") return;
    const seen = new Set<number>();
    for (let k = 2; k < value.length; k++) {
      const [ua, ub, uc] = [value.charCodeAt(k - 2), value.charCodeAt(k - 1), value.charCodeAt(k)];
      const [a, b, c] = [fold[ua]!, fold[ub]!, fold[uc]!];
      if (a === OPAQUE || b === OPAQUE || c === OPAQUE) continue;
      const key = (a << 12) | (b << 6) | c;
      if (seen.has(key)) continue;
      seen.add(key);
      const list = lists.get(key) ?? { ids: [], meta: [] };
      list.ids.push(id);
      list.meta.push(
        Math.min(k - 2, 255) | ((variant[ua]! | (variant[ub]! << 2) | (variant[uc]! << 4)) << 8),
      );
      lists.set(key, list);
    }
  });
  return lists;
}

function expectLists(values: readonly unknown[]): void {
  const index = buildTextIndex(values, { remaining: 1 << 30 }, false);
  expect(index).not.toBeNull();
  const grams = index!.grams;
  const expected = reference(values);
  let total = 0;
  for (const [key, list] of expected) {
    expect(grams.length(key)).toBe(list.ids.length);
    expect([...grams.idsOf(key)]).toEqual(list.ids);
    expect([...grams.metaOf(key)!]).toEqual(list.meta);
    total += list.ids.length;
  }
  // No list holds more than the brute force finds.
  expect(grams.offsets[grams.offsets.length - 1]).toBe(total);
}

describe("GramIndex packed lists", () => {
  it("read back gaps of one, two and three varint bytes, and offsets past 127 and 255", () => {
    const values: unknown[] = Array.from({ length: 40_000 }, (_, i) => `v${i % 97}`);
    // "zqx" at ids 0, 1, 129 (gap 128: 2 bytes), 16_513 (gap 16_384: 3 bytes), 39_999.
    for (const id of [0, 1, 129, 16_513, 39_999]) values[id] = `${"a".repeat(id % 300)}ZqX tail`;
    values[5] = `${"b".repeat(130)}zqx and ${"c".repeat(200)}QQQ`;
    values[6] = 42;
    values[7] = "é€😀 zqx";
    expectLists(values);
  });

  it("property: any values read back as the brute force lists them", () => {
    const text = fc.string({
      maxLength: 300,
      unit: fc.constantFrom("a", "b", "Z", "1", "-", " ", "é", "K", "\u212a", "😀"),
    });
    fc.assert(
      fc.property(fc.array(fc.oneof(text, text, fc.integer()), { maxLength: 80 }), (values) => {
        expectLists(values);
      }),
      fcOptions(100),
    );
  });
});
