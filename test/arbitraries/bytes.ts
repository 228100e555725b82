import fc from "fast-check";

/**
 * `lines` with one byte inserted, replaced or deleted at a random place: near-valid input for byte-level
 * readers (the NDJSON scanner), whose answers must then still equal `JSON.parse`'s.
 */
export function mutatedBytes(lines: fc.Arbitrary<Uint8Array>): fc.Arbitrary<Uint8Array> {
  return fc
    .tuple(lines, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom("insert", "replace", "delete"))
    .map(([bytes, at, byte, how]) => {
      const i = bytes.length === 0 ? 0 : at % bytes.length;
      const list = [...bytes];
      if (how === "insert") list.splice(i, 0, byte);
      else if (how === "replace") list[i] = byte;
      else list.splice(i, 1);
      return new Uint8Array(list);
    });
}
