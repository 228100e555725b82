import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { multicollision } from "../../test/support/fnv-multicollision.js";
import { MAX_VALUE_PROBES, ValueIds } from "./columns.js";
import { PACKED_CHARS, packValues, unpackValues } from "./ndjson-parts.js";

// A text column's values as a parallel build's part carries them to the thread that appends it: packed into
// a few long strings, read back as slices. Every value must come back equal, in order, with its hash.

const SEED = 20261208;

/** Strings of any UTF-16 code units (lone surrogates included), empty ones, numbers and booleans. */
const value = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
  fc.constant(""),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
);

function roundTrip(values: readonly unknown[], maxChars: number): unknown[] {
  const packed = packValues(values, maxChars);
  // What crosses to another thread: a structured clone.
  return unpackValues(structuredClone(packed));
}

describe("packValues / unpackValues", () => {
  it("gives back every value, in order, with its hash (texts cut at every size)", () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (values, maxChars) => {
        const packed = packValues(values, maxChars);
        const back = unpackValues(structuredClone(packed));
        expect(back).toEqual(values);
        expect(back.map((v) => Object.is(v, -0))).toEqual(values.map((v) => Object.is(v, -0)));
        expect([...packed.hashes]).toEqual(values.map((v) => ValueIds.hashOf(v)));
        // No text is longer than the bound unless it holds one longer string alone.
        for (const text of packed.texts) {
          if (text.length > maxChars) expect(values).toContain(text);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it("cuts texts where a string would pass the bound, and keeps a longer string alone", () => {
    const values = ["aaaa", "", "bb", "cccccccccc", "", "d", 7, true, "", "eeee"];
    const packed = packValues(values, 5);
    expect(packed.texts).toEqual(["aaaa", "bb", "cccccccccc", "deeee"]);
    expect([...packed.lengths]).toEqual([4, 0, 2, 10, 0, 1, -1, -2, 0, 4]);
    expect(packed.others).toEqual([7, true]);
    expect(roundTrip(values, 5)).toEqual(values);
    expect(roundTrip([], 5)).toEqual([]);
    expect(roundTrip(["", "", ""], 1)).toEqual(["", "", ""]);
    expect(PACKED_CHARS).toBeLessThan(2 ** 29);
  });

  it("refuses a packing whose lengths run past its texts", () => {
    const packed = packValues(["abc", "de"], 3);
    expect(() => unpackValues({ ...packed, lengths: Int32Array.of(3, 4) })).toThrow(/past its texts/);
    expect(() => unpackValues({ ...packed, texts: ["abc"] })).toThrow(/past its texts/);
  });

  it("takes each string's hash from the value table, overflowed strings included", () => {
    // 128 strings of one hash: past `MAX_VALUE_PROBES` slots they go to the table's overflow map.
    const values: unknown[] = [...multicollision(7, "t"), "plain", 42, true, "", "é€"];
    expect(multicollision(7, "t").length).toBeGreaterThan(MAX_VALUE_PROBES);
    const ids = new ValueIds(values);
    for (const [id, value] of values.entries()) ids.set(value, id);
    const hashes = ids.hashesById(values.length);
    expect([...hashes]).toEqual(values.map((v) => ValueIds.hashOf(v)));
    expect(unpackValues(structuredClone(packValues(values, 50, hashes)))).toEqual(values);
  });
});
