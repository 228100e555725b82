/**
 * `IncidentSet.fromNdjson` (issue 14): the NDJSON reader (lines split across chunks, CRLF, a byte order
 * mark, blank lines, a last line without a newline), its errors (each names the line), compact records
 * (fresh objects on every read, the JSON form kept by `add`, the bytes reported by `footprint`), and the
 * `textIndex` option's validation. Agreement with `new IncidentSet` on every conformance case is in
 * `test/conformance/incident-set-ndjson.test.ts`.
 */
import { describe, expect, it } from "vitest";
import { IncidentSet } from "./incident-set.js";
import { ndjsonLines } from "./ndjson.js";

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
