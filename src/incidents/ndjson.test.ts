/**
 * `IncidentSet.fromNdjson`: the NDJSON reader (lines split across chunks, CRLF, a byte order
 * mark, blank lines, a last line without a newline), its errors (each names the line), compact records
 * (fresh objects on every read, the JSON form kept by `add`, the bytes reported by `footprint`), and the
 * `textIndex` option's validation; the byte-level field reader (`LineScanner`) against `JSON.parse` on valid,
 * mutated and hostile lines; the splitter on huge lines and reused chunk buffers. Agreement with `new
 * IncidentSet` on every conformance case is in `test/conformance/incident-set-ndjson.test.ts`.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mutatedBytes } from "../../test/arbitraries/bytes.js";
import { fcOptions } from "../../test/support/fc.js";
import { ownDataValue } from "./columns.js";
import { IncidentSet } from "./incident-set.js";
import { LineScanner } from "./line-scanner.js";
import { NdjsonSplitter, ndjsonLines } from "./ndjson.js";

const encode = (text: string) => new TextEncoder().encode(text);

async function* stream(chunks: readonly (string | Uint8Array)[]) {
  for (const chunk of chunks) yield chunk;
}

describe("ndjsonLines", () => {
  it("splits lines across chunks, drops CR, a BOM and blank lines, keeps a last line without newline", async () => {
    const bytes = encode('\uFEFF{"a":1}\r\n\n  \n{"b":"é"}\n{"c":3}');
    // Split inside the BOM, inside "é" (two bytes) and inside a line.
    const chunks = [bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9, 25), bytes.subarray(25)];
    const lines: [string, number][] = [];
    for await (const { bytes: line, line: number } of ndjsonLines(stream(chunks))) {
      lines.push([new TextDecoder().decode(line), number]);
    }
    expect(lines).toEqual([
      ['{"a":1}', 1],
      ['{"b":"é"}', 4],
      ['{"c":3}', 5],
    ]);
  });

  it("joins a huge line split into many chunks in linear time", async () => {
    // 8 MiB in 1 KiB chunks: joining the carry chunk by chunk would copy about 32 GiB.
    const title = "x".repeat(8 * 1024 * 1024);
    const bytes = encode(`{"a":1}\n{"Title":"${title}"}\n{"b":2}`);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 1024) chunks.push(bytes.subarray(at, at + 1024));
    const lengths: number[] = [];
    for await (const { bytes: line } of ndjsonLines(chunks)) lengths.push(line.length);
    expect(lengths).toEqual([7, title.length + 12, 7]);
    const set = await IncidentSet.fromNdjson(chunks);
    expect(set.size).toBe(3);
    expect((set.findFirst({ Title: { $exists: true } }) as { Title: string }).Title).toBe(title);
  }, 300_000);

  it("copies what it keeps of a chunk, so that the caller may reuse its buffer", async () => {
    const buffer = new Uint8Array(8);
    async function* reused() {
      for (const part of ['{"Sever', 'ity":"Hi', 'gh"}\n{"a', '":1}']) {
        buffer.fill(32);
        buffer.set(encode(part));
        yield buffer.subarray(0, part.length);
      }
    }
    const set = await IncidentSet.fromNdjson(reused());
    expect(set.size).toBe(2);
    expect(set.findAll({ Severity: "High" })).toEqual([{ Severity: "High" }]);
    expect(set.findAll({ a: 1 })).toEqual([{ a: 1 }]);
  });

  it("reads Node Buffers and plain views alike, with and without a final newline", () => {
    const lines: string[] = [];
    const splitter = new NdjsonSplitter();
    const sink = (b: Uint8Array, start: number, end: number, line: number) => {
      lines.push(`${line}:${new TextDecoder().decode(b.subarray(start, end))}`);
    };
    splitter.push(Buffer.from('{"a":1}\r\n\r\n\t{"b":2} \n'), sink);
    splitter.push(new Uint8Array(Buffer.from('{"c"')), sink);
    splitter.push(":3}", sink);
    splitter.end(sink);
    expect(lines).toEqual(['1:{"a":1}', '3:{"b":2}', '4:{"c":3}']);
  });

  it("refuses a chunk that is neither text nor bytes", async () => {
    await expect(async () => {
      for await (const _ of ndjsonLines([42 as unknown as string])) void _;
    }).rejects.toThrow(TypeError);
  });
});

describe("IncidentSet.fromNdjson", () => {
  const lines = [
    {
      IncidentId: 2,
      Number: "N-2",
      Title: "Phishing email",
      Severity: "High",
      CreatedUtcTime: "2024-01-02T00:00:00Z",
    },
    {
      IncidentId: 1,
      Number: "N-1",
      Title: "Malware",
      Severity: "Low",
      CreatedUtcTime: "2024-01-03T00:00:00Z",
    },
    {
      IncidentId: 3,
      Number: "N-3",
      Title: "phishing link",
      Severity: "High",
      CreatedUtcTime: "2024-01-01T00:00:00Z",
    },
  ];
  const text = lines.map((line) => JSON.stringify(line)).join("\n");

  it("answers as new IncidentSet does, with fresh objects on every read", async () => {
    const set = await IncidentSet.fromNdjson(stream([text.slice(0, 50), text.slice(50)]));
    const reference = new IncidentSet(lines);
    for (const raw of [{ Severity: "High" }, { Title: { $regex: "phish", $options: "i" } }, {}]) {
      expect(set.findAll(raw)).toEqual(reference.findAll(raw));
      expect(set.count(raw)).toBe(reference.count(raw));
      expect(set.findFirst(raw)).toEqual(reference.findFirst(raw));
    }
    const first = set.findFirst({ Severity: "High" });
    expect(first).toEqual(lines[2]);
    expect(set.findFirst({ Severity: "High" })).not.toBe(first);
    expect(set.footprint().recordBytes).toBeGreaterThan(text.length);
    expect(reference.footprint().recordBytes).toBe(0);
  });

  it("drops a byte order mark at the start of any line, CRs, blanks, and reads a last line without newline", async () => {
    const source = '\uFEFF{"IncidentId":1}\r\n\r\n \uFEFF{"IncidentId":2,"Number":"N-2"}\t\n{"IncidentId":3}';
    const set = await IncidentSet.fromNdjson([encode(source)]);
    expect(set.findAll({})).toEqual([{ IncidentId: 1 }, { IncidentId: 2, Number: "N-2" }, { IncidentId: 3 }]);
    expect(set.findFirst({ Number: "N-2" })).toEqual({ IncidentId: 2, Number: "N-2" });
    const error = await IncidentSet.fromNdjson([`${source}\n\n{"a":}`]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^NDJSON line 6: /);
  });

  it.each([
    ["a byte order mark alone", "\uFEFF", 2],
    ["a byte order mark, then blanks", "\uFEFF \t\r\n", 3],
    ["a byte order mark on a blank line between records", '{"IncidentId":1}\n\uFEFF\n{"IncidentId":2}\n', 5],
  ])("skips %s as a blank line (counted), as the CLI's reader does", async (_name, source, badLine) => {
    const set = await IncidentSet.fromNdjson([encode(source)]);
    expect(set.size).toBe(source.split("IncidentId").length - 1);
    const error = await IncidentSet.fromNdjson([encode(`${source}\n{"a":}`)]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(new RegExp(`^NDJSON line ${badLine}: `));
  });

  it("finds keys added after the build through the compact hash index", async () => {
    const set = await IncidentSet.fromNdjson([text]);
    for (let i = 0; i < 3000; i++) set.add({ IncidentId: 100 + i, Number: `A-${i}` });
    expect(set.findFirst({ Number: "A-2999" })).toEqual({ IncidentId: 3099, Number: "A-2999" });
    // Dated incidents first (docs/semantics.md 1.9).
    expect(set.findAll({ Number: { $in: ["N-1", "A-0"] } })).toEqual([
      lines[1],
      { IncidentId: 100, Number: "A-0" },
    ]);
    expect(set.count({ IncidentId: 1 })).toBe(1);
  });

  it("keeps the JSON form of an added incident", async () => {
    const set = await IncidentSet.fromNdjson([text]);
    set.add({ IncidentId: 4, CreatedUtcTime: new Date("2023-01-01T00:00:00Z"), Gone: undefined });
    expect(set.findFirst({})).toEqual({ IncidentId: 4, CreatedUtcTime: "2023-01-01T00:00:00.000Z" });
    expect(set.size).toBe(4);
  });

  it.each([
    ["a line that is not JSON", '{"a":1}\n{"a":', SyntaxError, /NDJSON line 2: /],
    [
      "a line holding an array",
      '{"a":1}\n\n[1]\n',
      TypeError,
      /NDJSON line 3: expected an incident object, found an array/,
    ],
    ["a line holding null", "null", TypeError, /NDJSON line 1: expected an incident object, found null/],
  ])("rejects %s, naming the line", async (_name, source, type, message) => {
    const error = await IncidentSet.fromNdjson([source]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });

  it("rejects invalid UTF-8, naming the line", async () => {
    const bytes = new Uint8Array([...encode('{"a":1}\n{"a":"'), 0xff, ...encode('"}\n')]);
    await expect(IncidentSet.fromNdjson([bytes])).rejects.toThrow(/NDJSON line 2: /);
  });

  it("validates its options as the constructor does", async () => {
    await expect(IncidentSet.fromNdjson([text], { textIndex: { maxBytes: -1 } })).rejects.toThrow(RangeError);
  });
});

describe("IncidentSet.fromNdjson: sources that are not chunks", () => {
  // A path is the first thing a user passes: it used to be read as NDJSON, one character per chunk, and
  // fail with `SyntaxError: NDJSON line 1: Unexpected token '/'`.
  it.each([
    ["a path", "/path/to/export.ndjson"],
    ["NDJSON text itself", '{"IncidentId":1}\n'],
    ["the empty string", ""],
    ["a String object", new String("/path/to/export.ndjson")],
  ])("refuses %s with a TypeError that shows how to open the file", async (_, source) => {
    const attempt = IncidentSet.fromNdjson(source as unknown as string[]);
    await expect(attempt).rejects.toThrow(TypeError);
    await expect(attempt).rejects.toThrow(/is a string, not a source of NDJSON chunks/);
    await expect(attempt).rejects.toThrow(/await open\(path\)/);
    await expect(attempt).rejects.toThrow(/\[text\]/);
  });

  it("names the path it was given, shortened past 100 characters", async () => {
    await expect(IncidentSet.fromNdjson("/data/x.ndjson" as unknown as string[])).rejects.toThrow(
      'IncidentSet.fromNdjson: the source "/data/x.ndjson" is a string',
    );
    const long = "p".repeat(500);
    const error = await IncidentSet.fromNdjson(long as unknown as string[]).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`"${"p".repeat(100)}…"`);
    expect((error as Error).message).not.toContain("p".repeat(101));
  });

  it("refuses one Uint8Array (an iterable of numbers) with a TypeError that says to wrap it", async () => {
    const attempt = IncidentSet.fromNdjson(encode('{"IncidentId":1}') as unknown as Uint8Array[]);
    await expect(attempt).rejects.toThrow(TypeError);
    await expect(attempt).rejects.toThrow(/a single Uint8Array.*\[bytes\]/);
  });

  it("still reads NDJSON text wrapped in an array, and a stream of strings", async () => {
    expect((await IncidentSet.fromNdjson(['{"IncidentId":1}\n{"IncidentId":2}'])).size).toBe(2);
    expect((await IncidentSet.fromNdjson(stream(['{"IncidentId":1}\n']))).size).toBe(1);
  });
});

describe("the textIndex option", () => {
  it.each<[string, unknown, ErrorConstructor, RegExp]>([
    [
      "not a boolean or object",
      "yes",
      TypeError,
      /'textIndex' must be a boolean or an object \(\{ maxBytes \}\), found the string "yes"/,
    ],
    [
      "an unknown key",
      { maxBytez: 1 },
      TypeError,
      /Unknown textIndex option 'maxBytez': expected one of maxBytes\./,
    ],
    ["maxBytes not a number", { maxBytes: "1" }, TypeError, /'textIndex.maxBytes' must be a number of bytes/],
    [
      "maxBytes negative",
      { maxBytes: -1 },
      RangeError,
      /'textIndex.maxBytes' must be an integer ≥ 0, found -1/,
    ],
    ["maxBytes fractional", { maxBytes: 1.5 }, RangeError, /integer ≥ 0, found 1.5/],
  ])("refuses %s", (_name, textIndex, type, message) => {
    expect(() => new IncidentSet([], { textIndex } as never)).toThrow(type);
    expect(() => new IncidentSet([], { textIndex } as never)).toThrow(message);
  });

  it("accepts true, false and a bound", () => {
    for (const textIndex of [true, false, { maxBytes: 0 }, {}]) {
      expect(() => new IncidentSet([], { textIndex })).not.toThrow();
    }
  });
});

/** What fromNdjson's reference path gives for a line: the fields' values, or the error it throws. */
function reference(bytes: Uint8Array, fields: readonly string[]): unknown[] | "error" {
  let record: unknown;
  try {
    record = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return "error";
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) return "error";
  return fields.map((field) => ownDataValue(record, field));
}

/** Asserts that the scanner either leaves the line to JSON.parse or reads exactly its values. */
function agrees(scanner: LineScanner, bytes: Uint8Array): boolean {
  // Surrounded by other bytes: the scanner must stay inside [start, end).
  const padded = new Uint8Array(bytes.length + 4);
  padded.set(encode('"1,'), 0);
  padded.set(bytes, 3);
  padded[padded.length - 1] = 0x7d;
  const out: unknown[] = [];
  const ok = scanner.scan(padded, 3, 3 + bytes.length, out);
  if (!ok) return true;
  const expected = reference(bytes, scanner.fields);
  return (
    expected !== "error" &&
    isDeepStrictEqual(out, expected) &&
    out.every((v, k) => typeof v === "object" || Object.is(v, expected[k]))
  );
}

describe("LineScanner", () => {
  const fields = ["Severity", "IncidentId", "Title", "__proto__", "Tags", "é", "CreatedUtcTime"];

  it.each<[string, string, unknown[] | "to JSON.parse"]>([
    [
      "a flat object",
      '{"Severity":"High","IncidentId":7,"Other":[1,{"x":"}"}]}',
      ["High", 7, undefined, undefined, undefined, undefined, undefined],
    ],
    [
      "blanks everywhere",
      ' {\t"Title" :\r "a b" , "Tags":[ ] } ',
      [undefined, undefined, "a b", undefined, [], undefined, undefined],
    ],
    ["duplicate keys (refused by fromNdjson)", '{"Severity":"Low","Severity":"High"}', "to JSON.parse"],
    [
      "an own __proto__",
      '{"__proto__":{"a":1}}',
      [undefined, undefined, undefined, { a: 1 }, undefined, undefined, undefined],
    ],
    [
      "escapes in a value",
      '{"Title":"a\\"b\\u00e9\\ud83d"}',
      [undefined, undefined, 'a"bé\ud83d', undefined, undefined, undefined, undefined],
    ],
    [
      "numbers",
      '{"IncidentId":-0,"Severity":1e400,"Title":12345678901234567890}',
      [Number.POSITIVE_INFINITY, -0, 12345678901234567000, undefined, undefined, undefined, undefined],
    ],
    [
      "literals",
      '{"Severity":true,"IncidentId":null,"Title":false}',
      [true, null, false, undefined, undefined, undefined, undefined],
    ],
    [
      "UTF-8 keys and values",
      '{"é":"ü","Title":"\uFEFFx"}',
      [undefined, undefined, "\uFEFFx", undefined, undefined, "ü", undefined],
    ],
    ["an empty object", "{}", [undefined, undefined, undefined, undefined, undefined, undefined, undefined]],
    [
      "an escaped key",
      '{"Sev\\u0065rity":"High"}',
      ["High", undefined, undefined, undefined, undefined, undefined, undefined],
    ],
    [
      "a byte order mark",
      '\uFEFF{"Severity":"High"}',
      ["High", undefined, undefined, undefined, undefined, undefined, undefined],
    ],
    ["an array", '[{"Severity":"High"}]', "to JSON.parse"],
    ["a line break between tokens (it ends an NDJSON line)", '{"Severity":\n"High"}', "to JSON.parse"],
    ["a trailing comma", '{"Severity":"High",}', "to JSON.parse"],
    ["trailing bytes", '{"Severity":"High"}x', "to JSON.parse"],
    ["a raw control character", '{"Title":"a\tb"}', "to JSON.parse"],
    ["a bad escape", '{"Other":"\\x"}', "to JSON.parse"],
    ["a short unicode escape", '{"Other":"\\u12"}', "to JSON.parse"],
    ["a leading zero", '{"Other":01}', "to JSON.parse"],
    ["a bare fraction", '{"Other":1.}', "to JSON.parse"],
    ["an unclosed nested value", '{"Other":[1,{"a":2]}', "to JSON.parse"],
    ["a truncated literal", '{"Other":tru}', "to JSON.parse"],
  ])("%s", (_name, line, expected) => {
    const scanner = new LineScanner(fields);
    const out: unknown[] = [];
    const ok = scanner.scan(encode(line), 0, encode(line).length, out);
    if (expected === "to JSON.parse") expect(ok).toBe(false);
    else {
      expect(ok).toBe(true);
      expect(out).toEqual(expected);
      out.forEach((value, k) => {
        if (typeof value !== "object") expect(Object.is(value, expected[k])).toBe(true);
      });
    }
    expect(agrees(scanner, encode(line))).toBe(true);
  });

  it("leaves invalid UTF-8 to the decoder, wherever it is", () => {
    const scanner = new LineScanner(fields);
    for (const bytes of [
      [...encode('{"Title":"'), 0xff, ...encode('"}')],
      [...encode('{"Other":"'), 0xc3, ...encode('"}')],
      [...encode('{"'), 0xed, 0xa0, 0x80, ...encode('":1}')],
    ]) {
      expect(scanner.scan(new Uint8Array(bytes), 0, bytes.length, [])).toBe(false);
    }
  });

  it("reads a repeated label as the same value, and a new one when it changes", () => {
    const scanner = new LineScanner(["Severity"]);
    const out: unknown[] = [];
    const seen: unknown[] = [];
    for (const value of ["High", "High", "Hig", "High", "Hi\u0067h"]) {
      const line = encode(`{"Severity":"${value}"}`);
      expect(scanner.scan(line, 0, line.length, out)).toBe(true);
      seen.push(out[0]);
    }
    expect(seen).toEqual(["High", "High", "Hig", "High", "High"]);
  });

  it("agrees with JSON.parse on generated lines and their mutations", () => {
    const key = fc.oneof(
      fc.constantFrom(...fields, "Other", "Sev\u0065rity", "IncidentId "),
      fc.string({ maxLength: 4 }),
    );
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom("High", "é", "\uFEFF", "\ud800", -0, 1e21, 0.1, 2 ** 53 + 1),
    );
    const line = fc
      .tuple(fc.array(fc.tuple(key, value), { maxLength: 6 }), fc.constantFrom("", " ", "\t", "\r\n"))
      .map(([pairs, blank]) => {
        const body = pairs.map(([k, v]) => `${JSON.stringify(k)}${blank}:${blank}${JSON.stringify(v)}`);
        return encode(`{${blank}${body.join(`,${blank}`)}${blank}}`);
      });
    const mutated = mutatedBytes(line);
    const scanner = new LineScanner(fields);
    fc.assert(
      fc.property(fc.oneof(line, mutated), (bytes) => agrees(scanner, bytes)),
      fcOptions(3000),
    );
  });

  it("reads compact lines with the previous line's keys or the first of them (the fast path), as JSON.parse does", () => {
    const keys = ["IncidentId", "Severity", "Other", "Title", "CreatedUtcTime", "Tags"];
    const plain = fc.oneof(
      fc.stringMatching(/^[ -!#-[\]-~]{0,12}$/),
      fc.integer(),
      fc.constantFrom(true, false, null, -0, 1.5e-7),
    );
    // A run of lines: each takes the first `n` keys (the whole shape most of the time), some a mutation.
    const run = fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: keys.length }),
        fc.array(plain, { minLength: keys.length, maxLength: keys.length }),
      ),
      { minLength: 1, maxLength: 12 },
    );
    fc.assert(
      fc.property(run, (lines) => {
        const scanner = new LineScanner(fields);
        for (const [n, values] of lines) {
          const record = Object.fromEntries(keys.slice(0, n).map((key, i) => [key, values[i]]));
          const bytes = encode(JSON.stringify(record));
          const out: unknown[] = [];
          // Every such line is read (none is left to JSON.parse), and as JSON.parse reads it.
          if (!scanner.scan(bytes, 0, bytes.length, out)) return false;
          if (!agrees(scanner, bytes)) return false;
        }
        return true;
      }),
      fcOptions(500),
    );
  });
});
