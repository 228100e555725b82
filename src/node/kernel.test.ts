/**
 * The WebAssembly line kernel (assembly/line-kernel.ts, through src/node/kernel.ts) held to the JavaScript
 * scanner and to `JSON.parse`: every line of hostile NDJSON (escaped and repeated keys, keys inside nested
 * objects and strings, `\u0000`, surrogates, CRLF, byte order marks, numbers in every JSON form, invalid
 * UTF-8, lines past the kernel's limits) is read by a `LineScanner` with the kernel and by one without, with
 * the block cut at every byte, both as `match` reads a block (line by line) and as `fromNdjson` reads a chunk
 * (`open` scans); the answers must be the same, field for field, and a line answered `SCAN_OK` must be what
 * `JSON.parse` gives (docs/semantics.md 1.7, "The byte reader"). The compiled kernel is required: the global
 * setup builds it from source, and a missing kernel fails these tests.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { encoder, ndjsonBytes, shapedNdjsonBytes } from "../../test/support/hostile-ndjson.js";
import type { BlockKernel, BlockKernelFactory } from "../incidents/block-kernel.js";
import { ROW_OK, ROW_STATUS } from "../incidents/block-kernel.js";
import { ownDataValue } from "../incidents/columns.js";
import { IncidentSet } from "../incidents/incident-set.js";
import { FIELD_ASCII, LineScanner, SCAN_OK } from "../incidents/line-scanner.js";
import type { NdjsonByteReader } from "../incidents/ndjson.js";
import { type LineShapes, SHAPED } from "../incidents/record-shapes.js";
import { lineKernel, lineKernelUnavailable } from "./kernel.js";

const loaded = lineKernel();
if (loaded === undefined) throw new Error(`the line kernel is required here: ${lineKernelUnavailable()}`);
const factory: BlockKernelFactory = loaded;

/**
 * The fields read: plain, empty, non-ASCII, one with a quote (only escaped), one with a lone surrogate, and
 * one named twice (the scanner fills the first of the two).
 */
const FIELDS = ["Status", "Title", "n", "", "é", 'a"b', "\ud800", "Status"];

/**
 * Lines the kernel answered itself (its `ROW_OK` records), to show it ran; and lines an open scan read
 * with the kernel's cuts (`LineScanner.members`), and with an epoch shared with an earlier line.
 */
const answered = { rows: 0, ok: 0, referenceOk: 0, cut: 0, sharedEpoch: 0 };

/** The factory, counting the kernel's records. */
const counting: BlockKernelFactory = (keys) => {
  const kernel = factory(keys);
  if (kernel === undefined) return undefined;
  const counted: BlockKernel = {
    load: (b, start, end, filtered, cut) => kernel.load(b, start, end, filtered, cut),
    next: () => {
      const n = kernel.next();
      for (let i = 0; i < n; i++) {
        answered.rows++;
        if (kernel.results[i * kernel.stride + ROW_STATUS] === ROW_OK) answered.ok++;
      }
      return n;
    },
    get results() {
      return kernel.results;
    },
    get cuts() {
      return kernel.cuts;
    },
    stride: kernel.stride,
  };
  return counted;
};

/**
 * Where the top-level values of the valid JSON object `b[s, e)` start and end (pairs), found without the
 * scanner: the reference for `LineScanner.memberCuts`.
 */
function referenceCuts(b: Uint8Array, s: number, e: number): number[] {
  const blank = (c: number | undefined) => c === 32 || c === 9 || c === 13 || c === 10;
  const skip = (p: number) => {
    while (p < e && blank(b[p])) p++;
    return p;
  };
  const stringEnd = (p: number) => {
    for (p++; b[p] !== 0x22; p++) if (b[p] === 0x5c) p++;
    return p + 1;
  };
  const valueEnd = (p: number): number => {
    const c = b[p];
    if (c === 0x22) return stringEnd(p);
    if (c === 0x7b || c === 0x5b) {
      let depth = 0;
      for (;;) {
        const d = b[p];
        if (d === 0x22) p = stringEnd(p);
        else {
          if (d === 0x7b || d === 0x5b) depth++;
          else if (d === 0x7d || d === 0x5d) depth--;
          p++;
          if (depth === 0) return p;
        }
      }
    }
    while (p < e && !blank(b[p]) && b[p] !== 0x2c && b[p] !== 0x7d) p++;
    return p;
  };
  const cuts: number[] = [];
  let p = skip(s);
  expect(b[p]).toBe(0x7b);
  p = skip(p + 1);
  if (b[p] === 0x7d) return cuts;
  for (;;) {
    p = skip(stringEnd(p));
    expect(b[p]).toBe(0x3a);
    p = skip(p + 1);
    const end = valueEnd(p);
    cuts.push(p, end);
    p = skip(end);
    if (b[p] === 0x7d) return cuts;
    expect(b[p]).toBe(0x2c);
    p = skip(p + 1);
  }
}

/**
 * Checks the cuts an open scan gave for the line `b[start, lineEnd)` (`members`, `memberCuts`): the
 * reference's; and that lines of one epoch (`shapeEpoch`, in `epochs`) have the same bytes before, between
 * and after their first values (record-shapes.ts `encode` takes them as the same).
 */
function checkCuts(
  scanner: LineScanner,
  b: Uint8Array,
  start: number,
  epochs: Map<number, string[]>,
  fromKernel: boolean,
): void {
  const n = scanner.members;
  if (n < 0) return;
  const at = scanner.memberCutsAt;
  const cuts = Array.from(scanner.memberCuts.subarray(at, at + 2 * n));
  expect(
    cuts,
    `cuts of ${JSON.stringify(new TextDecoder().decode(b.subarray(start, scanner.lineEnd)))}`,
  ).toEqual(referenceCuts(b, start, scanner.lineEnd));
  if (fromKernel) answered.cut++;
  if (scanner.shapeEpoch < 0) return;
  const text = (from: number, to: number) => new TextDecoder().decode(b.subarray(from, to));
  const separators = cuts.length === 0 ? [] : [text(start, cuts[0]!)];
  for (let i = 1; i < n; i++) separators.push(text(cuts[2 * i - 1]!, cuts[2 * i]!));
  const before = epochs.get(scanner.shapeEpoch);
  if (before === undefined) epochs.set(scanner.shapeEpoch, separators);
  else {
    if (fromKernel) answered.sharedEpoch++;
    const common = Math.min(before.length, separators.length);
    expect(separators.slice(0, common), `epoch ${scanner.shapeEpoch}`).toEqual(before.slice(0, common));
    if (separators.length > before.length) epochs.set(scanner.shapeEpoch, separators);
  }
}

// A byte order mark at the start of a line is dropped, as the scanner drops it (TextDecoder's default).
const strict = new TextDecoder("utf-8", { fatal: true });

/** What a scan answered: the status, and on `SCAN_OK` the fields (and, for `open`, where the line ends). */
function outcome(scanner: LineScanner, b: Uint8Array, status: number, open: boolean): unknown[] {
  if (status !== SCAN_OK) return [status];
  const fields = FIELDS.map((_, k) => [
    scanner.kinds[k],
    scanner.kinds[k] === FIELD_ASCII ? [scanner.starts[k], scanner.ends[k]] : undefined,
    scanner.value(b, k),
  ]);
  return open ? [status, scanner.next, scanner.lineEnd, fields] : [status, fields];
}

/** Checks a `SCAN_OK` line against `JSON.parse` of its text. */
function agreesWithParse(scanner: LineScanner, b: Uint8Array, start: number, end: number): void {
  const text = strict.decode(b.subarray(start, end));
  const record = JSON.parse(text) as unknown;
  expect(typeof record === "object" && record !== null && !Array.isArray(record)).toBe(true);
  FIELDS.forEach((field, k) => {
    if (FIELDS.indexOf(field) !== k) return;
    expect(isDeepStrictEqual(scanner.value(b, k), ownDataValue(record as object, field)), field).toBe(true);
  });
}

/**
 * Reads `b` as two blocks cut at `cut`, with the kernel and without: line by line (`match`'s way) and by
 * `open` scans (`fromNdjson`'s way); every answer must agree.
 */
function compareAt(b: Uint8Array, cut: number, withKernel: LineScanner, reference: LineScanner): void {
  for (const [from, to] of [
    [0, cut],
    [cut, b.length],
  ] as const) {
    // As `match` reads a block: each line (a `\n`, one CR before it dropped), the last one to the block's end.
    withKernel.prepare(b, from, to);
    for (let p = from; p < to; ) {
      let nl = b.indexOf(10, p);
      if (nl < 0 || nl >= to) nl = to;
      let e = nl;
      if (e > p && b[e - 1] === 13) e--;
      if (e > p) {
        const got = withKernel.scanLine(b, p, e);
        const want = reference.scanLine(b, p, e);
        const where = `line at ${p}..${e} of ${JSON.stringify(new TextDecoder().decode(b))}, cut ${cut}`;
        expect(outcome(withKernel, b, got, false), where).toEqual(outcome(reference, b, want, false));
        if (want === SCAN_OK) answered.referenceOk++;
        if (got === SCAN_OK) agreesWithParse(withKernel, b, p, e);
      }
      p = nl + 1;
    }
    withKernel.release();
    // As `fromNdjson` reads a chunk: an open scan at each line's first non-blank byte, the kernel giving
    // the lines' cuts (`prepare` with `cut`).
    withKernel.prepare(b, from, to, true);
    const epochs = new Map<number, string[]>();
    for (let p = from; p < to; ) {
      while (p < to && (b[p] === 32 || b[p] === 9 || b[p] === 13)) p++;
      if (p >= to) break;
      const got = withKernel.scanLine(b, p, to, true);
      const want = reference.scanLine(b, p, to, true);
      const where = `open scan at ${p} of ${JSON.stringify(new TextDecoder().decode(b))}, cut ${cut}`;
      expect(outcome(withKernel, b, got, true), where).toEqual(outcome(reference, b, want, true));
      if (want === SCAN_OK) answered.referenceOk++;
      if (got === SCAN_OK) {
        agreesWithParse(withKernel, b, p, withKernel.lineEnd);
        checkCuts(withKernel, b, p, epochs, withKernel.memberCuts !== fastCuts.get(withKernel));
        p = withKernel.next;
      } else {
        const nl = b.indexOf(10, p);
        p = nl < 0 || nl >= to ? to : nl + 1;
      }
    }
    withKernel.release();
  }
}

/** What the set-level test reads of a compact set's records (src/incidents/record-store.ts). */
interface StoreInternals {
  flush(): void;
  chunks: Uint8Array[];
  chunkOf: Uint16Array;
  starts: Uint32Array;
  lengths: Uint32Array;
  shapes: LineShapes;
  chunkShapes: (LineShapes | undefined)[];
}

/** Each scanner's own `memberCuts` (its fast path's), to tell the kernel's cuts from them. */
const fastCuts = new WeakMap<LineScanner, Int32Array>();

/** Compares every cut of the NDJSON bytes `b`. */
function compareEveryCut(b: Uint8Array): void {
  const withKernel = new LineScanner(FIELDS, counting);
  fastCuts.set(withKernel, withKernel.memberCuts);
  expect(withKernel.hasKernel).toBe(true);
  const reference = new LineScanner(FIELDS);
  for (let cut = 0; cut <= b.length; cut++) compareAt(b, cut, withKernel, reference);
}

describe("the line kernel against the JavaScript scanner and JSON.parse", () => {
  it("answers as the scanner on hostile NDJSON, the block cut at every byte", () => {
    fc.assert(
      fc.property(ndjsonBytes, (b) => compareEveryCut(b)),
      fcOptions(100),
    );
    // The kernel answered most valid lines itself (else this would test the scanner against itself); it
    // leaves lines with escaped keys to the scanner. It cut many of them, and gave some an epoch of an
    // earlier line.
    expect(answered.ok).toBeGreaterThan(answered.referenceOk / 3);
    expect(answered.cut).toBeGreaterThan(answered.referenceOk / 10);
  });

  it("cuts lines of one list of keys as the reference, one epoch for their separators (property)", () => {
    const before = { ...answered };
    fc.assert(
      fc.property(shapedNdjsonBytes(false), (b) => compareEveryCut(b)),
      fcOptions(60),
    );
    // Lines the kernel read and cut, many of them under an epoch of an earlier line.
    expect(answered.cut - before.cut).toBeGreaterThan((answered.referenceOk - before.referenceOk) / 4);
    expect(answered.sharedEpoch - before.sharedEpoch).toBeGreaterThan((answered.cut - before.cut) / 10);
  });

  /** Lines past the kernel's limits, and the forms it leaves to the scanner, one by one. */
  const table: readonly (readonly [string, string])[] = [
    ["plain", '{"Status":"Open","Title":"t","n":1}'],
    ["repeated wanted key", '{"Status":"Open","Status":"Closed"}'],
    ["repeated key after the shape", '{"Status":"Open","x":1,"x":2}'],
    ["repeated nested key", '{"Status":"Open","o":{"a":1,"b":{"a":2},"a":3}}'],
    ["repeated nested key, escaped", '{"Status":"Open","o":{"a":1,"\\u0061":2}}'],
    ["escaped wanted key", '{"Sta\\u0074us":"Open"}'],
    ["key inside a string", '{"x":"\\"Status\\":\\"Open\\"","n":2}'],
    ["wanted key nested", '{"o":{"Status":"Open"},"n":3}'],
    ["NUL escape", '{"Status":"\\u0000","n":4}'],
    ["surrogate pair and lone surrogate", '{"Status":"\\ud83d\\ude00","Title":"\\udc00"}'],
    ["CRLF", '{"Status":"Open"}\r'],
    ["BOM", '\ufeff{"Status":"Open"}'],
    ["numbers", '{"n":-0.0e-0,"Title":1E+2,"Status":123456789012345678901}'],
    ["array top level", '[{"Status":"Open"}]'],
    ["empty object", "{}"],
    ["blanks", ' \t{ "Status" : "Open" , "n" : [ 1 , { } ] } \t'],
    ["many keys", `{${Array.from({ length: 300 }, (_, i) => `"k${i}":${i}`).join(",")},"Status":"Open"}`],
    [
      "many nested keys",
      `{"Status":"Open","o":{${Array.from({ length: 300 }, (_, i) => `"k${i}":${i}`).join(",")}}}`,
    ],
    ["deep nesting", `{"Status":"Open","n":${"[".repeat(1000)}${"]".repeat(1000)}}`],
    ["over-long string", `{"Status":"${"x".repeat(100_000)}","n":1}`],
  ];
  // Invalid UTF-8 of every kind inside a string value, a key and a nested string (0x01 stands for the bytes).
  const invalid: readonly (readonly [string, readonly number[]])[] = [
    ["a lone continuation byte", [0x80]],
    ["0xFF", [0xff]],
    ["an overlong 2-byte form", [0xc0, 0x80]],
    ["an overlong 2-byte form (C1)", [0xc1, 0xbf]],
    ["a truncated 2-byte form", [0xc3]],
    ["an overlong 3-byte form", [0xe0, 0x80, 0x80]],
    ["a surrogate", [0xed, 0xa0, 0x80]],
    ["a truncated 3-byte form", [0xe2, 0x82]],
    ["an overlong 4-byte form", [0xf0, 0x80, 0x80, 0x80]],
    ["past U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["a 5-byte lead", [0xf8, 0x88, 0x80, 0x80, 0x80]],
    ["a truncated 4-byte form", [0xf0, 0x9f, 0x98]],
  ];
  const valid: readonly (readonly [string, readonly number[]])[] = [
    ["U+0080", [0xc2, 0x80]],
    ["U+07FF", [0xdf, 0xbf]],
    ["U+0800", [0xe0, 0xa0, 0x80]],
    ["U+D7FF", [0xed, 0x9f, 0xbf]],
    ["U+E000", [0xee, 0x80, 0x80]],
    ["U+FFFF", [0xef, 0xbf, 0xbf]],
    ["U+10000", [0xf0, 0x90, 0x80, 0x80]],
    ["U+10FFFF", [0xf4, 0x8f, 0xbf, 0xbf]],
  ];
  const places = [
    '{"Status":"a\u0001b","n":1}',
    '{"Title":"\u0001","n":1}',
    '{"x\u0001":"Open","n":1}',
    '{"Status":"Open","o":{"k":["\u0001"]}}',
    '{"Status":"a long string past the first sixteen bytes \u0001 and on","n":1}',
  ];
  it.each([...invalid, ...valid])("answers as the scanner on %s in strings and keys", (_name, bytes) => {
    for (const place of places) {
      const line = Array.from(encoder.encode(place)).flatMap((byte) => (byte === 1 ? [...bytes] : [byte]));
      compareEveryCut(new Uint8Array([...encoder.encode('{"Status":"A","n":0}\n'), ...line, 10, ...line]));
    }
  });

  it.each(table)("answers as the scanner on a line of %s, the block cut at every byte", (_name, text) => {
    const line = encoder.encode(text);
    // The line after a line of the same keys (the kernel's shape) and alone.
    const b = new Uint8Array([...encoder.encode('{"Status":"A","n":0}\n'), ...line, 10, ...line]);
    if (b.length < 5_000) compareEveryCut(b);
    else {
      const withKernel = new LineScanner(FIELDS, counting);
      fastCuts.set(withKernel, withKernel.memberCuts);
      const reference = new LineScanner(FIELDS);
      for (const cut of [0, 1, 21, 22, b.length >> 1, b.length - 1, b.length])
        compareAt(b, cut, withKernel, reference);
    }
  });
});

describe("IncidentSet.fromNdjson on the line kernel", () => {
  /** Incident lines with hostile values, the fields a set indexes among them. */
  const lines = [
    '{"IncidentId":1,"Status":"Open","Severity":"High","Title":"plain title","CreatedUtcTime":"2024-01-01T00:00:00Z"}',
    '{"IncidentId":2,"Status":"Closed","Severity":"Low","Title":"t\\u00e9\\"q\\"","CreatedUtcTime":"2024-01-02T00:00:00Z"}',
    '{"IncidentId":3,"Status":"Open","Severity":"High","Title":"日本語 😀","CreatedUtcTime":"2024-01-03T00:00:00Z","o":{"Status":"x"}}',
    ' {"IncidentId" : -0.0e0 , "Status" : null , "Title" : ["a", {"b": 1}] }\r',
    '{"IncidentId":5,"Sta\\u0074us":"Open","Severity":"\\u0000","Title":"\\ud800"}',
    "",
    '{"IncidentId":6,"Status":"Open","Severity":"Critical","Title":"a long title of plain words, past sixteen bytes","CreatedUtcTime":"2024-01-06T00:00:00Z","Number":"n-6"}',
    '\ufeff{"IncidentId":7,"Status":"Open"}',
    '{"IncidentId":8,"Status":"Open","Severity":"High","Title":1e400,"CreatedUtcTime":true}',
  ];

  /** A byte reader (as a `FileHandle`) over `bytes`, `step` bytes a read at most. */
  function reader(bytes: Uint8Array, step: number): NdjsonByteReader {
    let at = 0;
    return {
      read: async (buffer, offset, length) => {
        const n = Math.min(length, step, bytes.length - at);
        buffer.set(bytes.subarray(at, at + n), offset);
        at += n;
        return { bytesRead: n };
      },
    };
  }

  /** The set's records and a few counts, or the error it rejects with. */
  async function build(
    source: Uint8Array[] | NdjsonByteReader,
    kernel: BlockKernelFactory | undefined,
  ): Promise<unknown> {
    try {
      const set = await IncidentSet.fromNdjson(source, {}, kernel === undefined ? {} : { kernel });
      return [
        set.findAll({}),
        set.count({ Status: "Open" }),
        set.count({ Severity: { $in: ["High", "Critical"] } }),
        set.count({ Title: { $regex: "title" } }),
      ];
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : error;
    }
  }

  /**
   * A built set's records as kept (their stored bytes, shaped or not) and as rebuilt (each line's bytes),
   * read from the records' store; its counts; or the error it rejects with.
   */
  async function stored(source: Uint8Array[], kernel: BlockKernelFactory | undefined): Promise<unknown> {
    let set: IncidentSet;
    try {
      set = await IncidentSet.fromNdjson(source, {}, kernel === undefined ? {} : { kernel });
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : error;
    }
    const records = (set as unknown as { records: StoreInternals }).records;
    records.flush();
    const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
    const kept: string[] = [];
    for (let row = 0; row < set.size; row++) {
      const chunk = records.chunks[records.chunkOf[row]!]!;
      const start = records.starts[row]!;
      const end = start + records.lengths[row]!;
      const shapes = records.chunkShapes[records.chunkOf[row]!] ?? records.shapes;
      const line =
        chunk[start] === SHAPED
          ? hex(shapes.out.subarray(0, shapes.decode(chunk, start, end, row)))
          : hex(chunk.subarray(start, end));
      kept.push(`${hex(chunk.subarray(start, end))} ${line}`);
    }
    return [kept, set.count({ Status: "Open" }), set.count({ Title: { $regex: "o" } }), set.footprint()];
  }

  it("keeps the same records, byte for byte, with and without the kernel: lines of one list of keys, chunks cut at every byte (property)", async () => {
    const before = answered.ok;
    await fc.assert(
      fc.asyncProperty(shapedNdjsonBytes(true), fc.nat(), async (bytes, offset) => {
        // Every byte of a short export; 200 cuts of a longer one.
        const step = Math.max(1, Math.ceil(bytes.length / 200));
        for (let cut = bytes.length <= 400 ? 0 : offset % step; cut <= bytes.length; cut += step) {
          const chunks = [bytes.slice(0, cut), bytes.slice(cut)];
          expect(await stored(chunks, counting), `cut at ${cut}`).toEqual(await stored(chunks, undefined));
        }
      }),
      // 12 runs of up to 200 cuts, each building two sets (about 3.5 s).
      fcOptions(12),
    );
    expect(answered.ok).toBeGreaterThan(before);
  });

  it.each([
    ["hostile but valid lines", lines],
    // The byte 0x01 below becomes 0xFF, invalid UTF-8 (a string cannot hold it).
    ["a line of invalid UTF-8", [...lines.slice(0, 3), '{"Status":"\u0001"}', ...lines.slice(3)]],
    ["a line that repeats a key", [...lines.slice(0, 3), '{"Status":"Open","o":{"a":1,"a":2}}']],
  ])(
    "builds the same set with and without the kernel from %s, chunks cut at every byte",
    async (_name, these) => {
      const bytes = encoder.encode(these.join("\n")).map((byte) => (byte === 1 ? 0xff : byte));
      const counted = { before: answered.ok };
      for (let cut = 0; cut <= bytes.length; cut++) {
        const chunks = [bytes.slice(0, cut), bytes.slice(cut)];
        expect(await build(chunks, counting), `cut at ${cut}`).toEqual(await build(chunks, undefined));
      }
      // As from a `FileHandle`: reads of a few bytes to all of them.
      for (const step of [1, 5, 64, 1 << 20]) {
        expect(await build(reader(bytes, step), counting), `reads of ${step}`).toEqual(
          await build(reader(bytes, step), undefined),
        );
      }
      expect(answered.ok).toBeGreaterThan(counted.before);
    },
  );
});
