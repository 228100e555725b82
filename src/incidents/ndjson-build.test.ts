/**
 * The build path of `IncidentSet.fromNdjson`: duplicate
 * keys refused with their line (docs/semantics.md 3.1, "Duplicate keys"), the scanner's results against
 * `JSON.parse` on generated lines (escapes, non-ASCII text, lone surrogates, nested values, repeated keys,
 * numbers in every JSON form, blanks, CRLF), compact sets against `new IncidentSet` on records split across
 * chunks at every byte, the byte readers of the columns (`isoUtcBytesMs`, `ValueIds`, the dictionary's
 * cache) against the string readers, and hostile lines (deep nesting, a huge line, invalid UTF-8).
 */

import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mutatedBytes } from "../../test/arbitraries/bytes.js";
import { fcOptions } from "../../test/support/fc.js";
import { isoUtcBytesMs, isoUtcMs } from "../conditions/dates.js";
import { findDuplicateKey } from "../conditions/json-duplicate-keys.js";
import { DictionaryColumn, ownDataValue, ValueIds } from "./columns.js";
import { IncidentSet } from "./incident-set.js";
import {
  FIELD_ASCII,
  FIELD_MISSING,
  LineScanner,
  SCAN_DUPLICATE,
  SCAN_FALLBACK,
  SCAN_OK,
} from "./line-scanner.js";
import { TextColumn } from "./text/index.js";

const encode = (text: string) => new TextEncoder().encode(text);

/** What fromNdjson must do with a line: its fields' values, "duplicate", or "error" (JSON.parse or UTF-8). */
function expected(bytes: Uint8Array, fields: readonly string[]): unknown[] | "duplicate" | "error" {
  let text: string;
  let record: unknown;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    record = JSON.parse(text);
  } catch {
    return "error";
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) return "error";
  if (findDuplicateKey(text) !== undefined) return "duplicate";
  return fields.map((field) => ownDataValue(record, field));
}

/** The scanner's answer for a line surrounded by other bytes (it must stay inside its range). */
function scanned(scanner: LineScanner, bytes: Uint8Array): unknown[] | "duplicate" | "fallback" {
  const padded = new Uint8Array(bytes.length + 4);
  padded.set(encode('"1,'), 0);
  padded.set(bytes, 3);
  padded[padded.length - 1] = 0x7d;
  const status = scanner.scanLine(padded, 3, 3 + bytes.length);
  if (status === SCAN_DUPLICATE) return "duplicate";
  if (status === SCAN_FALLBACK) return "fallback";
  expect(status).toBe(SCAN_OK);
  return scanner.fields.map((_, k) => scanner.value(padded, k));
}

/** Same values, -0 and NaN included (Object.is on scalars). */
function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  return isDeepStrictEqual(a, b) && a.every((v, k) => typeof v === "object" || Object.is(v, b[k]));
}

describe("fromNdjson: duplicate keys (docs/semantics.md 3.1)", () => {
  it.each([
    ["a repeated indexed key", '{"Severity":"Low","Severity":"High"}', "Severity", "Severity"],
    ["a repeated other key", '{"a":1,"Severity":"Low","a":2}', "a", "a"],
    ["one of the two escaped", '{"Type":"Phishing","\\u0054ype":"Malware"}', "Type", "Type"],
    ["in a nested object", '{"Details":{"x":1,"y":{"z":1,"z":2}}}', "z", "Details.y.z"],
    ["in an object in an array", '{"Tags":[{"a":1},{"b":1,"b":2}]}', "b", "Tags[1].b"],
    ["a non-ASCII key", '{"é":1,"é":2}', "é", "é"],
  ])("refuses %s, naming the line, the key and where it is", async (_name, line, key, path) => {
    const source = `{"IncidentId":1}\n\n${line}\n`;
    const error = await IncidentSet.fromNdjson([source]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyntaxError);
    expect((error as Error).message).toBe(
      `NDJSON line 3: the incident repeats the key '${key}' in one object (at ${path}): each key may appear once.`,
    );
  });

  it("cuts a path over 40 keys as the other readers do (the sentence is written once)", async () => {
    const keys = Array.from({ length: 45 }, (_, k) => `p${k}`);
    const line = `${keys.map((k) => `{"${k}":`).join("")}{"z":1,"z":2}${"}".repeat(keys.length)}`;
    const error = await IncidentSet.fromNdjson([line]).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `NDJSON line 1: the incident repeats the key 'z' in one object (at ${keys.slice(0, 40).join(".")}.…): each key may appear once.`,
    );
  });

  it("refuses a repeated key after lines with the same keys, and after lines with other keys", async () => {
    const good = '{"IncidentId":1,"Severity":"Low","Title":"a"}';
    for (const bad of [
      '{"IncidentId":1,"Severity":"Low","Title":"a","Severity":"High"}',
      '{"IncidentId":1,"Severity":"Low","IncidentId":2}',
      '{"Title":"a","Severity":"Low","Title":"b"}',
    ]) {
      const error = await IncidentSet.fromNdjson([`${good}\n${good}\n${bad}\n${good}`]).catch(
        (e: unknown) => e,
      );
      expect((error as Error).message).toMatch(/^NDJSON line 3: the incident repeats the key/);
    }
  });

  it("keeps JSON.parse's error first when a line is both invalid and repeats a key", async () => {
    const error = await IncidentSet.fromNdjson(['{"a":1,"a":2,}']).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^NDJSON line 1: /);
    expect((error as Error).message).not.toMatch(/repeats the key/);
  });

  it("accepts the same key in different objects", async () => {
    const set = await IncidentSet.fromNdjson(['{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"Severity":"High"}']);
    expect(set.count({ Severity: "High" })).toBe(1);
  });
});

describe("LineScanner against JSON.parse", () => {
  const fields = ["Severity", "IncidentId", "Title", "__proto__", "Tags", "é", "CreatedUtcTime", "\ud800"];
  const key = fc.oneof(
    fc.constantFrom(...fields, "Other", "Sev\u0065rity", "IncidentId ", "a"),
    fc.string({ maxLength: 4 }),
    fc.string({ unit: "binary", maxLength: 3 }),
  );
  const scalar = fc.oneof(
    fc.constantFrom("High", "é", "\uFEFF", "\ud800", "\udc00x", 'a"b', "\\", "\u0000", "😀", ""),
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.double(),
    fc.integer(),
    fc.constantFrom(-0, 1e21, 0.1, 2 ** 53 + 1, 1e-7, 123456789012345680),
    fc.boolean(),
    fc.constant(null),
  );
  /** JSON text of a value, with keys that may repeat, written with or without escapes. */
  const json: fc.Memo<string> = fc.memo((depth) =>
    depth <= 1
      ? scalar.map((v) => JSON.stringify(v) ?? "null")
      : fc.oneof(
          { weight: 3, arbitrary: scalar.map((v) => JSON.stringify(v) ?? "null") },
          fc.array(json(depth - 1), { maxLength: 3 }).map((items) => `[${items.join(",")}]`),
          fc
            .array(fc.tuple(key, fc.boolean(), json(depth - 1)), { maxLength: 4 })
            .map((pairs) => `{${pairs.map(([k, esc, v]) => `${keyText(k, esc)}:${v}`).join(",")}}`),
        ),
  );
  const numberText = fc
    .tuple(
      fc.boolean(),
      fc.constantFrom("0", "7", "12345678901234567890", "900719925474099312"),
      fc.constantFrom("", ".5", ".000001"),
      fc.constantFrom("", "e5", "E-3", "e+400", "e-400"),
    )
    .map(([minus, int, frac, exp]) => `${minus ? "-" : ""}${int}${frac}${exp}`);
  const line = fc
    .tuple(
      fc.array(fc.tuple(key, fc.boolean(), fc.oneof(json(3), numberText)), { maxLength: 7 }),
      // Any JSON blank but \n, which ends an NDJSON line (CRLF lines are in the set-level property below).
      fc.constantFrom("", " ", "\t", "\r", " \r\t "),
      fc.boolean(),
    )
    .map(([pairs, blank, bom]) => {
      const body = pairs.map(([k, esc, v]) => `${keyText(k, esc)}${blank}:${blank}${v}`);
      return encode(`${bom ? "\uFEFF" : ""}{${blank}${body.join(`,${blank}`)}${blank}}`);
    });
  const mutated = mutatedBytes(line);

  it("reads exactly what JSON.parse gives, and finds every repeated key, line after line", () => {
    // One scanner for all lines: the remembered key order of the previous line must never mislead it.
    const scanner = new LineScanner(fields);
    fc.assert(
      fc.property(fc.array(fc.oneof(line, line, mutated), { minLength: 1, maxLength: 4 }), (lines) => {
        for (const bytes of lines) {
          // The splitter never hands over a line holding `\n` (it ends the line there).
          if (bytes.includes(10)) continue;
          const want = expected(bytes, fields);
          const got = scanned(scanner, bytes);
          if (got === "fallback") {
            // Only lines that JSON.parse or the decoder refuse go to them.
            if (want !== "error") return false;
          } else if (got === "duplicate") {
            if (want !== "duplicate") return false;
          } else if (want === "error" || want === "duplicate" || !sameValues(got, want)) return false;
        }
        return true;
      }),
      fcOptions(4000),
    );
  });

  it("reports plain ASCII strings by their bytes, and every other value decoded", () => {
    const scanner = new LineScanner(["a", "b", "c", "d"]);
    const bytes = encode('{"a":"High","b":"é","c":"x\\ny","e":1}');
    expect(scanner.scanLine(bytes, 0, bytes.length)).toBe(SCAN_OK);
    expect(scanner.kinds[0]).toBe(FIELD_ASCII);
    expect(new TextDecoder().decode(bytes.subarray(scanner.starts[0], scanner.ends[0]))).toBe("High");
    expect([scanner.value(bytes, 1), scanner.value(bytes, 2)]).toEqual(["é", "x\ny"]);
    expect(scanner.kinds[3]).toBe(FIELD_MISSING);
  });
});

describe("fromNdjson against new IncidentSet", () => {
  const record = fc.record(
    {
      IncidentId: fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom(1.5, -0, "7", null)),
      Number: fc.oneof(fc.constantFrom("N-1", "N-2", "n-1", "N-\u00e9", "N\\1", ""), fc.integer({ max: 3 })),
      Type: fc.oneof(
        fc.constantFrom("High", "Low", "Hig", "Medium", "Meqium", "H\u00efgh", 'Hi"gh', "😀", ""),
        fc.constantFrom(1, true, null),
        fc.constant(["High"]),
      ),
      Title: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("phish", "Phish", "ph\u0130sh", "\ud800")),
      CreatedUtcTime: fc.oneof(
        fc.constantFrom(
          "2024-01-01T00:00:00Z",
          "2024-02-29T23:59:59Z",
          "2023-02-29T00:00:00Z",
          "2024-01-01T00:00:00.123Z",
          "2024-01-01T00:00:60Z",
          "2024-01-01 00:00:00Z",
          "2024-13-01T00:00:00Z",
          "",
        ),
        fc.integer(),
      ),
      Other: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  );
  const queries = [
    {},
    { Type: "High" },
    { Type: { $in: ["Low", "Hig", "😀", "Meqium"] } },
    { Number: "N-1" },
    { Number: { $in: ["N-2", "N\\1"] } },
    { IncidentId: { $gt: 3 } },
    { Title: { $regex: "ph", $options: "i" } },
    { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } } },
    { CreatedUtcTime: { $exists: false } },
  ];

  it("agrees on every query, the lines split across chunks at every byte", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom("\n", "\r\n", "\n\n"),
        async (records, size, newline) => {
          const text = records.map((r) => JSON.stringify(r)).join(newline);
          const bytes = encode(text);
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size));
          // Small dictionaries: text columns and dropped columns are exercised too.
          for (const options of [{}, { maxDictionary: 2 }, { maxDictionary: 2, textIndex: false }]) {
            const compact = await IncidentSet.fromNdjson(chunks, options);
            const reference = new IncidentSet(
              JSON.parse(`[${records.map((r) => JSON.stringify(r))}]`),
              options,
            );
            for (const query of queries) {
              expect(compact.count(query)).toBe(reference.count(query));
              expect(compact.findAll(query)).toEqual(reference.findAll(query));
            }
          }
        },
      ),
      fcOptions(150),
    );
  });
});

describe("the byte readers of the columns", () => {
  it("isoUtcBytesMs reads what isoUtcMs reads", () => {
    const date = fc.oneof(
      fc
        .date({ min: new Date(-62167219200000), max: new Date(253402300799999), noInvalidDate: true })
        .map((d) => d.toISOString()),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, "Z")),
    );
    const mutated = fc.tuple(date, fc.nat(), fc.integer({ min: 0x20, max: 0x7e })).map(([text, at, c]) => {
      const i = at % text.length;
      return text.slice(0, i) + String.fromCharCode(c) + text.slice(i + 1);
    });
    fc.assert(
      fc.property(fc.oneof(date, mutated, fc.string({ maxLength: 24 })), (text) => {
        if (!isAscii(text)) return true;
        const bytes = encode(`x${text}y`);
        return Object.is(isoUtcBytesMs(bytes, 1, bytes.length - 1), isoUtcMs(text));
      }),
      fcOptions(3000),
    );
  });

  it("ValueIds finds values as a Map does, strings also by their bytes", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(
          fc.oneof(
            fc.string({ maxLength: 3 }),
            fc.integer({ min: -2, max: 2 }),
            fc.constantFrom(-0, true, "0", "é", "aé"),
          ),
          {
            maxLength: 300,
          },
        ),
        (pooled, items) => {
          const values: unknown[] = [];
          const ids = new ValueIds(values, pooled);
          const map = new Map<unknown, number>();
          for (const item of items) {
            const ascii = typeof item === "string" && isAscii(item);
            const known = ascii
              ? ids.getAscii(encode(` ${item}`), 1, item.length + 1)
              : (ids.get(item) ?? -1);
            if (known !== (map.get(item) ?? -1)) return false;
            if (known < 0) {
              map.set(item, values.length);
              values.push(item);
              if (ascii) ids.setMissed(item as string, values.length - 1);
              else ids.set(item, values.length - 1);
            }
          }
          return [...map].every(([value, id]) => ids.get(value) === id) && ids.size === map.size;
        },
      ),
      fcOptions(500),
    );
  });

  it("a text column's queued rows get the ids, counts and rows that set gives them one by one", () => {
    // Runs of rows from one buffer (as lines of one chunk), each row queued by its bytes or, for a value the
    // scanner leaves decoded, set directly; a buffer's rows are flushed at its end or left for the next
    // buffer (or `set`) to flush. Over 256 rows, so the queue also flushes when full.
    const value = fc.oneof(
      fc.constantFrom("phish", "Phish", "malware on srv-1", "", "é", "aé"),
      fc.string({ maxLength: 4 }),
      fc.integer({ min: 0, max: 3 }).map((n) => `title ${n}`),
      fc.nat().map((n) => `unique ${n}`),
      fc.constantFrom(7, true, null, undefined, ["x"]),
    );
    const run = fc.record({ values: fc.array(value, { maxLength: 400 }), flush: fc.boolean() });
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 4 }), (runs) => {
        const queued = new TextColumn("Title", 4, { remaining: 1 << 20 });
        const direct = new TextColumn("Title", 4, { remaining: 1 << 20 });
        const decode = (b: Uint8Array, start: number, end: number) =>
          String.fromCharCode(...b.subarray(start, end));
        let row = 0;
        for (const { values, flush } of runs) {
          const texts = values.map((v) => (typeof v === "string" && isAscii(v) ? v : ""));
          const bytes = encode(texts.join(""));
          let at = 0;
          for (let i = 0; i < values.length; i++, row++) {
            const v = values[i];
            const capacity = row + 1;
            direct.set(row, v, capacity);
            if (typeof v === "string" && isAscii(v))
              queued.queueAscii(row, bytes, at, at + v.length, capacity, decode);
            else queued.set(row, v, capacity);
            at += texts[i]!.length;
          }
          if (flush) queued.flushAscii();
        }
        queued.flushAscii();
        expect(queued.values).toEqual(direct.values);
        expect(queued.counts).toEqual(direct.counts);
        expect(queued.ids.subarray(0, row)).toEqual(direct.ids.subarray(0, row));
        expect([queued.rows, queued.missingCount, queued.nullCount]).toEqual([
          direct.rows,
          direct.missingCount,
          direct.nullCount,
        ]);
        expect(queued.complexRows).toEqual(direct.complexRows);
      }),
      fcOptions(200),
    );
  });

  it("a dictionary column finds a code by the value's exact bytes", () => {
    const column = new DictionaryColumn("Severity", 4, 100);
    const medium = encode("Medium");
    expect(column.codeOfAscii(medium, 0, 6)).toBe(-1);
    column.set(0, "Medium", 4);
    const code = column.codeOfAscii(medium, 0, 6);
    expect(column.values[code]).toBe("Medium");
    for (const other of ["Meqium", "Mediu", "medium", "Medium "]) {
      expect(column.codeOfAscii(encode(other), 0, other.length)).toBe(-1);
    }
    column.setCode(1, code, 4);
    expect(column.counts[code]).toBe(2);
    column.set(2, 1, 4);
    expect(column.codeOf(1)).toBe(code + 1);
    expect(column.codeOfAscii(encode("1"), 0, 1)).toBe(-1);
  });
});

describe("fromNdjson on hostile lines", () => {
  it("reads deep nesting without recursion, and refuses an unclosed one with its line", async () => {
    const deep = `{"Other":${"[".repeat(100_000)}${"]".repeat(100_000)},"Severity":"High"}`;
    const set = await IncidentSet.fromNdjson([`{"a":1}\n${deep}\n`]);
    expect(set.count({ Severity: "High" })).toBe(1);
    const unclosed = `{"Other":${'[{"a":'.repeat(50_000)}`;
    await expect(IncidentSet.fromNdjson([`{"a":1}\n${unclosed}`])).rejects.toThrow(/^NDJSON line 2: /);
  });

  it("reads a line of 100 MB, and names the line of an error in it", async () => {
    const title = "x".repeat(100 * 1024 * 1024);
    const bytes = encode(`{"a":1}\n{"Title":"${title}","Severity":"High"}\n`);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 1 << 20) chunks.push(bytes.subarray(at, at + (1 << 20)));
    const set = await IncidentSet.fromNdjson(chunks);
    expect(set.count({ Severity: "High" })).toBe(1);
    bytes[bytes.length - 3] = 0x2c; // '{"Title":"xx…","Severity":"High",'
    await expect(IncidentSet.fromNdjson([bytes])).rejects.toThrow(/^NDJSON line 2: /);
  }, 300_000);

  it("refuses invalid UTF-8 in a key, a value or a skipped field, with its line", async () => {
    for (const bad of [
      [...encode('{"'), 0xc3, ...encode('":1}')],
      [...encode('{"Severity":"'), 0xed, 0xa0, 0x80, ...encode('"}')],
      [...encode('{"Other":["'), 0xff, ...encode('"]}')],
    ]) {
      const bytes = new Uint8Array([...encode('{"a":1}\n'), ...bad]);
      await expect(IncidentSet.fromNdjson([bytes])).rejects.toThrow(/^NDJSON line 2: /);
    }
  });
});

function keyText(key: string, escaped: boolean): string {
  if (!escaped) return JSON.stringify(key);
  let out = '"';
  for (let i = 0; i < key.length; i++) out += `\\u${key.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return `${out}"`;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

describe("what a built set keeps outside the heap", () => {
  /** A byte reader over `bytes`, `FileHandle.read`-style, at most `step` bytes a read. */
  function reader(bytes: Uint8Array, step: number) {
    let at = 0;
    return {
      read(buffer: Uint8Array, offset: number, length: number) {
        const n = Math.min(length, step, bytes.length - at);
        buffer.set(bytes.subarray(at, at + n), offset);
        at += n;
        return Promise.resolve({ bytesRead: n });
      },
    };
  }

  it("is what footprint() reports: no buffer of the reader outlives the build", async () => {
    // 60,000 lines of about 330 bytes (19 MiB): the records' chunks double from 64 KiB, so the last one
    // (16 MiB) holds the last 3 MiB, and the build trims it to a copy. Before the fix two closures kept the
    // reader's scanner alive, and with it the untrimmed chunk (16 MiB beyond the footprint): a hash index's
    // verifier made inside fromNdjson, and a text column's decoder of queued lines (either one alone fails).
    const lines: string[] = [];
    for (let k = 0; k < 60_000; k++) {
      lines.push(
        JSON.stringify({
          IncidentId: k + 1,
          Number: `INC-${k}`,
          Title: `Suspicious sign-in number ${k} from host-${k % 977}`,
          Severity: ["Low", "Medium", "High", "Critical"][k % 4],
          Status: k % 3 === 0 ? "Open" : "Closed",
          CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
          Description: `generated incident ${k} `.repeat(4),
        }),
      );
    }
    const bytes = encode(`${lines.join("\n")}\n`);
    const { arrayBuffersAfterGc } = await import("../../test/support/heap.js");
    const before = arrayBuffersAfterGc();
    const set = await IncidentSet.fromNdjson(reader(bytes, 1 << 20), { textIndex: { maxBytes: 0 } });
    // The report first: it builds the equality indexes' buckets the build leaves to their first lookup
    // (docs/semantics.md, "Built when first needed"), which it counts.
    const footprint = set.footprint();
    const after = arrayBuffersAfterGc();
    expect(set.size).toBe(60_000);
    // The footprint counts 8 bytes of heap per distinct text value (60,000 distinct titles): not outside.
    const accounted = footprint.typedArrayBytes + footprint.recordBytes - 8 * 60_000;
    // The lines are kept shaped (record-shapes.ts): at least each line's distinct Description, less than the lines.
    let descriptions = 0;
    for (let k = 0; k < 60_000; k++) descriptions += `generated incident ${k} `.repeat(4).length;
    expect(footprint.recordBytes).toBeGreaterThanOrEqual(descriptions);
    expect(footprint.recordBytes).toBeLessThan(bytes.length);
    // What is alive outside the heap is what the footprint reports, within 256 KiB (Node's own buffers). The
    // text column is kept but builds no index (`maxBytes: 0`): an index's corpus of distinct values is a
    // string on the heap, which the footprint counts too.
    expect(Math.abs(after - before - accounted)).toBeLessThan(1 << 18);
    expect(set.count({ Status: "Open" })).toBe(20_000);
  });
});
