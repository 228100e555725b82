/**
 * Shaped lines (record-shapes.ts) read back as they were read: every JSON form (escapes, surrogates, numbers
 * in every form, repeated values, huge strings, nested objects, key orders, blanks between tokens) rebuilt
 * byte for byte, records equal to `JSON.parse` of the original line with the same key order, through a
 * store alone and through `IncidentSet.fromNdjson` (where a text column's values are left out of the line);
 * a fast-check property over generated lines with a fixed seed.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FC_SEED, fcOptions } from "../../test/support/fc.js";
import { IncidentSet } from "./incident-set.js";
import { LineShapes, SHAPED } from "./record-shapes.js";
import { CompactRecords } from "./record-store.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Hostile lines: each a JSON object as written by someone other than `JSON.stringify`. */
const LINES: readonly string[] = [
  "{}",
  "{ }",
  ' {"a":1} ',
  '{"a":1,"a2":-0,"b":-0.0,"c":1e5,"d":1E+5,"e":1.5e-7,"f":0.1,"g":123456789012345678901234567890}',
  '{"n":-1.0e-0,"m":9007199254740993,"z":0,"big":1e400,"tiny":-1e-400}',
  '{"s":"plain","t":"\\"quoted\\"","u":"\\u0041\\u00e9\\ud83d\\ude00","v":"\\/\\b\\f\\n\\r\\t\\\\"}',
  '{"lone":"\\ud800","low":"\\udc00x","nul":"\\u0000"}',
  '{"raw":"é😀中文","mixed":"a\\u00e9b","emoji😀key":"v"}',
  '{"k\\u0065y":"escaped key","Title":"\\u0054itle by escape"}',
  '{"__proto__":{"polluted":true},"constructor":"c","toString":1}',
  '{"2":"two","1":"one","b":"b","a":"a","10":"ten"}',
  '{"nested":{"a":[1,{"b":[{"c":"}"}]}],"s":"]"},"arr":[[],{},[[[]]]],"after":true}',
  '{"t":true,"f":false,"n":null,"e":"","ea":[],"eo":{}}',
  '{ "spaced" : "out" ,\t"tabs"\t:\t[ 1 , 2 ]\r, "x": {"y" :"z"} }',
  '{"Title":"Suspicious login","Status":"Open","Severity":"High"}',
  '{"Status":"Open","Title":"Suspicious login","Severity":"High"}',
  '{"Title":"Suspicious login","Title2":"Suspicious login"}',
  '{"Title":123,"Status":["Open"]}',
  '{"Title":"tab\\there","Status":"Open"}',
  '{"Title":"quote \\" in","Status":"Closed"}',
  '{"Title":"del \u007f char","Status":"Closed"}',
  `{"Title":"${"y".repeat(70_000)}","Status":"Open"}`,
  `{"Title":"${"z".repeat(60_000)}","Status":"Open","n":1}`,
  `{"huge":"${"\\u00e9".repeat(20_000)}","Status":"Open"}`,
  `{${Array.from({ length: 300 }, (_, i) => `"k${i}":${i % 7 === 0 ? '"label"' : i}`).join(",")}}`,
];

/** Every line of `lines`, repeated so that shapes and dictionaries are reused. */
function repeated(lines: readonly string[], times: number): string[] {
  const out: string[] = [];
  for (let t = 0; t < times; t++) out.push(...lines);
  return out;
}

/** The same record: equal values and the same key order at every depth. */
function expectSame(record: unknown, line: string): void {
  const expected = JSON.parse(line) as unknown;
  expect(record).toEqual(expected);
  expect(JSON.stringify(record)).toBe(JSON.stringify(expected));
  expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
}

describe("LineShapes", () => {
  it("rebuilds every hostile line byte for byte, repeated (shapes and dictionaries reused)", () => {
    const shapes = new LineShapes();
    const kept: Uint8Array[] = [];
    for (const [row, line] of repeated(LINES, 3).entries()) {
      const bytes = enc.encode(line);
      const n = shapes.encode(bytes, 0, bytes.length, row);
      kept.push(n < 0 ? bytes : shapes.out.slice(0, n));
    }
    const all = repeated(LINES, 3);
    let shaped = 0;
    for (let row = 0; row < kept.length; row++) {
      const bytes = kept[row]!;
      if (bytes[0] !== SHAPED) {
        expect(dec.decode(bytes)).toBe(all[row]);
        continue;
      }
      shaped++;
      const n = shapes.decode(bytes, 0, bytes.length, row);
      expect(shapes.text(n)).toBe(all[row]);
    }
    // Most lines are shaped once their shape and values are known (the rest save less than a quarter).
    expect(shaped).toBeGreaterThan(LINES.length);
  });

  it("keeps as it is a line with a byte order mark", () => {
    const shapes = new LineShapes();
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode('{"a":"b"}')]);
    expect(shapes.encode(bytes, 0, bytes.length, 0)).toBe(-1);
  });
});

describe("CompactRecords with shapes", () => {
  it("returns JSON.parse of each line, fresh objects, and single fields as the line holds them", () => {
    const records = new CompactRecords<Record<string, unknown>>({ shapes: true });
    const all = repeated(LINES, 4);
    for (const line of all) {
      const bytes = enc.encode(line);
      records.pushBytes(bytes, 0, bytes.length);
    }
    records.trim();
    for (let row = 0; row < all.length; row++) {
      const record = records.get(row);
      expectSame(record, all[row]!);
      // A record's objects and arrays are its own: changing them changes no other read.
      for (const value of Object.values(record))
        if (typeof value === "object" && value !== null) (value as Record<string, unknown>).changed = 1;
      expectSame(records.get(row), all[row]!);
      expect(records.get(row)).not.toBe(record);
      const parsed = JSON.parse(all[row]!) as Record<string, unknown>;
      for (const key of ["Title", "Status", "a", "n", "__proto__"])
        expect(records.field(row, key)).toEqual(Object.hasOwn(parsed, key) ? parsed[key] : undefined);
    }
  });
});

describe("fromNdjson keeps lines shaped", () => {
  it("reads back every hostile line, with Title a text column (values left out of the lines)", async () => {
    // maxDictionary 2: Title becomes a text column at its third distinct value, and the rows after leave it out.
    const titles = Array.from(
      { length: 40 },
      (_, i) => `{"Title":"title ${i}","Status":"Open","IncidentId":${i}}`,
    );
    const all = [...titles, ...repeated(LINES, 2), ...titles];
    const set = await IncidentSet.fromNdjson([`${all.join("\n")}\n`], { maxDictionary: 2 });
    const found = set.findAll({});
    expect(found.length).toBe(all.length);
    // findAll({}) is in creation order: records without a CreatedUtcTime, by IncidentId then row (stable).
    const byRow = new Map<string, number>();
    for (const line of all)
      byRow.set(JSON.stringify(JSON.parse(line)), (byRow.get(JSON.stringify(JSON.parse(line))) ?? 0) + 1);
    for (const record of found) {
      const key = JSON.stringify(record);
      expect(byRow.get(key)).toBeGreaterThan(0);
      byRow.set(key, byRow.get(key)! - 1);
    }
    expect(set.count({ Title: { $regex: "^title 3" } })).toBe(2 * 11);
    expect(set.findFirst({ IncidentId: 39 })).toEqual(JSON.parse(titles[39]!));
    expect(set.count({ Title: "Suspicious login" })).toBe(6);
    expect(set.count({ Title: 'quote " in' })).toBe(2);
  });

  it("reads back every form of a date field, left out of the line only when the date column writes it exactly", async () => {
    const dates = [
      "2024-01-01T00:00:00Z",
      "2024-01-01T00:00:00.000Z",
      "2024-01-01T00:00:00.123Z",
      "2024-01-01T00:00:00.5Z",
      "2024-01-01T00:00:00.1234Z",
      "2024-02-29T12:00:00Z",
      "2023-02-29T00:00:00Z",
      "2024-01-01T23:59:60Z",
      "1969-12-31T23:59:59.999Z",
      "1970-01-01T00:00:00Z",
      "0001-01-01T00:00:00Z",
      "0000-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z",
      "+012024-01-01T00:00:00Z",
      "2024-01-01T00:00:00+00:00",
      "2024-01-01t00:00:00z",
      "2024-01-01T00:00Z",
      "2024-13-01T00:00:00Z",
      "2024-01-01T00:00:00\u005a",
      "not a date",
      "",
    ];
    const lines = dates.flatMap((date, i) => [
      `{"IncidentId":${i},"CreatedUtcTime":"${date}","Status":"Open"}`,
      `{"IncidentId":${i},"Status":"Open","CreatedUtcTime":"${date}"}`,
    ]);
    lines.push('{"IncidentId":99,"CreatedUtcTime":null}', '{"IncidentId":98,"CreatedUtcTime":1704067200000}');
    const set = await IncidentSet.fromNdjson([`${lines.join("\n")}\n`]);
    const found = set
      .findAll({})
      .map((r) => JSON.stringify(r))
      .sort();
    expect(found).toEqual(lines.map((line) => JSON.stringify(JSON.parse(line))).sort());
    for (const [i, date] of dates.entries())
      for (const record of set.findAll({ IncidentId: i }))
        expect((record as { CreatedUtcTime: unknown }).CreatedUtcTime).toBe(JSON.parse(`"${date}"`));
  });

  it("property: generated lines, written with and without blanks, read back as JSON.parse reads them", async () => {
    const key = fc.oneof(
      fc.constantFrom("Title", "Status", "Severity", "IncidentId", "Number", "__proto__", "1", "a"),
      fc.string({ maxLength: 6, unit: "binary" }),
    );
    const scalar = fc.oneof(
      fc.constantFrom("Open", "Closed", "High", "", "Suspicious login"),
      fc.string({ maxLength: 12, unit: "binary" }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 3 }),
      fc.dictionary(key, scalar, { maxKeys: 3 }),
    );
    const record = fc.dictionary(key, value, { maxKeys: 8 });
    const spaced = (text: string) => text.replace(/([,:{}[\]])/g, "$1 ");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(record, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 60 }),
        async (rows) => {
          const lines = rows.map(([r, blank, escaped]) => {
            let text = JSON.stringify(r);
            // Escaped forms JSON.stringify never writes: \u escapes of ASCII letters and of `/`.
            if (escaped) text = text.replace(/a/g, "\\u0061").replace(/\//g, "\\/");
            if (blank && !escaped) text = spaced(text);
            return text;
          });
          // A line whose escapes landed inside a key or number is no longer JSON: left out.
          const valid = lines.filter((line) => {
            try {
              JSON.parse(line);
              return true;
            } catch {
              return false;
            }
          });
          const text = `${[...valid, ...valid].join("\n")}\n`;
          const records = new CompactRecords<Record<string, unknown>>({ shapes: true });
          for (const line of [...valid, ...valid]) {
            const bytes = enc.encode(line);
            records.pushBytes(bytes, 0, bytes.length);
          }
          for (let row = 0; row < records.length; row++)
            expectSame(records.get(row), [...valid, ...valid][row]!);
          const set = await IncidentSet.fromNdjson([text], { maxDictionary: 3 }).catch(
            (error: unknown) => error,
          );
          if (set instanceof Error) {
            // Only lines repeating a key in one object are refused, as a set built from objects cannot be.
            expect(set.message).toMatch(/repeats the key/);
            return;
          }
          const all = (set as IncidentSet)
            .findAll({})
            .map((r) => JSON.stringify(r))
            .sort();
          const expected = [...valid, ...valid].map((line) => JSON.stringify(JSON.parse(line))).sort();
          expect(all).toEqual(expected);
        },
      ),
      { ...fcOptions(60), seed: FC_SEED },
    );
  }, 120_000);
});
