/**
 * Hostile inputs for the build of a compact set: `IncidentSet.fromNdjson` against
 * `new IncidentSet(parsed lines)` (the text columns' state, and count/findAll/findFirst of many queries,
 * each also counted by the reference `evaluate`), on what the build's batching could get wrong:
 * - the queued text column (`TextColumn.queueAscii` / `flushAscii`): non-ASCII, escaped, scalar, complex
 *   and missing titles between queued ASCII ones (they go through `set`), more than 256 rows in a chunk,
 *   new titles repeated within one batch, a dictionary overflowing into a text column mid-chunk, chunks of
 *   one byte to the whole input, strings, Buffers and streams, a source that reuses (and overwrites) one
 *   buffer, errors after queued rows (the line named), a 20 MB title, `add` after the build;
 * - `CompactRecords.trim`: the 8 MiB boundary, lines pushed after a trim, a set's record bytes and every
 *   record read back (20 MB by default; `HOSTILE_BIG_MB=20,70,300` for larger sets);
 * - `CompactHashIndex.prepare`: its buckets against `HashIndex` at random preparation points and at the
 *   radix sort's pass boundaries.
 */
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { untyped } from "../../test/support/conditions-input.js";
import { fcOptions } from "../../test/support/fc.js";
import { evaluate } from "../conditions/evaluate.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { HashIndex } from "./columns.js";
import { IncidentSet, type IncidentSetOptions } from "./incident-set.js";
import { CompactHashIndex, CompactRecords } from "./record-store.js";

const enc = new TextEncoder();

// ------------------------------------------------------------------------------------------------------
// Sources

type Kind = "u8" | "string" | "buffer" | "reuse" | "reuse-same" | "stream";

/** Byte cut points: whole, 1 byte, a fixed size, or a list of sizes. */
function cuts(length: number, sizes: readonly number[]): number[] {
  const out = [0];
  let k = 0;
  let at = 0;
  while (at < length) {
    at = Math.min(length, at + Math.max(1, sizes[k++ % sizes.length]!));
    out.push(at);
  }
  return out;
}

/** A source that reuses one buffer for every chunk and overwrites it with `x` once the next chunk is asked for. */
async function* reusing(bytes: Uint8Array, points: number[], sameObject: boolean, log?: string[]) {
  let max = 1;
  for (let i = 1; i < points.length; i++) max = Math.max(max, points[i]! - points[i - 1]!);
  const buffer = new Uint8Array(max);
  for (let i = 1; i < points.length; i++) {
    const n = points[i]! - points[i - 1]!;
    buffer.fill(0x78);
    buffer.set(bytes.subarray(points[i - 1]!, points[i]!));
    log?.push(`yield ${i}`);
    // sameObject: the very same Uint8Array (the chunk is the whole buffer: bytes beyond n are spaces)
    if (sameObject) {
      buffer.fill(0x20, n);
      yield buffer;
    } else yield buffer.subarray(0, n);
    log?.push(`resumed ${i}`);
    buffer.fill(0x78); // poison: the consumer asked for the next chunk
  }
}

function source(
  text: string,
  kind: Kind,
  sizes: readonly number[],
): AsyncIterable<Uint8Array | string> | (Uint8Array | string)[] {
  const bytes = enc.encode(text);
  if (kind === "string") {
    // cut at code point boundaries (sizes in code points)
    const cps = Array.from(text);
    const p = cuts(cps.length, sizes);
    const out: string[] = [];
    for (let i = 1; i < p.length; i++) out.push(cps.slice(p[i - 1], p[i]).join(""));
    return out;
  }
  const p = cuts(bytes.length, sizes);
  if (kind === "reuse" || kind === "reuse-same") {
    if (kind === "reuse-same") {
      // Same object every time: spaces pad each chunk, so only cut where padding is harmless (after a \n).
      const lp = [0];
      for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) lp.push(i + 1);
      if (lp[lp.length - 1] !== bytes.length) lp.push(bytes.length);
      // group lines into chunks of roughly `sizes[0]` bytes
      const grouped = [0];
      for (const q of lp.slice(1))
        if (q - grouped[grouped.length - 1]! >= sizes[0]! || q === bytes.length) grouped.push(q);
      return reusing(bytes, grouped, true);
    }
    return reusing(bytes, p, false);
  }
  const chunks: Uint8Array[] = [];
  for (let i = 1; i < p.length; i++) {
    const slice = bytes.slice(p[i - 1], p[i]);
    chunks.push(kind === "buffer" || kind === "stream" ? Buffer.from(slice) : slice);
  }
  if (kind === "stream") return Readable.from(chunks, { objectMode: false });
  return chunks;
}

// ------------------------------------------------------------------------------------------------------
// Comparison

const QUERIES: unknown[] = [
  {},
  { Title: "phish" },
  { Title: "Phish" },
  { Title: "" },
  { Title: "é" },
  { Title: "aé" },
  { Title: 'a"b' },
  { Title: "a\\b" },
  { Title: "u1" },
  { Title: "u7" },
  { Title: "xxxxx" },
  { Title: { $in: ["phish", "aé", "u3", "", 'a"b', "malware on srv-1"] } },
  { Title: { $nin: ["phish", "u2"] } },
  { Title: { $ne: "phish" } },
  { Title: { $regex: "ph" } },
  { Title: { $regex: "ph", $options: "i" } },
  { Title: { $regex: "PH", $options: "i" } },
  { Title: { $regex: "^u1" } },
  { Title: { $regex: "é" } },
  { Title: { $regex: "É", $options: "i" } },
  { Title: { $regex: "^$" } },
  { Title: { $regex: "x" } },
  { Title: { $regex: "\\d$" } },
  { Title: { $exists: true } },
  { Title: { $exists: false } },
  { Title: null },
  { Title: 7 },
  { Title: true },
  { Type: "phish" },
  { Type: { $in: ["u1", "aé", "phish"] } },
  { Type: { $regex: "H", $options: "i" } },
  { Type: { $exists: false } },
  { CustomField1: "u2" },
  { CustomField1: { $regex: "^u" } },
  { Severity: "High" },
  { Number: "N-1" },
  { Number: { $in: ["phish", "u1"] } },
  { IncidentId: { $gt: 3 } },
  { IncidentId: 5 },
  { $or: [{ Title: "phish" }, { Type: { $regex: "a" } }] },
  { $and: [{ Title: { $regex: "h" } }, { Type: { $exists: true } }] },
];

function answer(f: () => unknown): unknown {
  try {
    return { ok: f() };
  } catch (error) {
    return { error: String(error) };
  }
}

type AnySet = IncidentSet<Record<string, unknown>>;

/** Column state of the text columns (private fields read through a cast). */
function textState(set: AnySet) {
  const texts = (set as unknown as { texts: Map<string, Record<string, unknown>> }).texts;
  const out: Record<string, unknown> = {};
  for (const [field, column] of texts) {
    const rows = column.rows as number;
    out[field] = {
      values: column.values,
      counts: column.counts,
      ids: Array.from((column.ids as Int32Array).subarray(0, rows)),
      rows,
      missing: column.missingCount,
      nulls: column.nullCount,
      complex: column.complexRows,
    };
  }
  return out;
}

function compare(compact: AnySet, reference: AnySet, records: object[], queries = QUERIES) {
  expect(compact.size ?? compact.count({})).toBe(reference.size ?? reference.count({}));
  expect(textState(compact)).toEqual(textState(reference));
  for (const query of queries) {
    const r = answer(() => reference.count(untyped(query)));
    expect(
      answer(() => compact.count(untyped(query))),
      JSON.stringify(query),
    ).toEqual(r);
    expect(
      answer(() => compact.findAll(untyped(query))),
      JSON.stringify(query),
    ).toEqual(answer(() => reference.findAll(untyped(query))));
    expect(
      answer(() => compact.findFirst(untyped(query))),
      JSON.stringify(query),
    ).toEqual(answer(() => reference.findFirst(untyped(query))));
    if ("ok" in (r as object)) {
      const condition = parseSearchConditions(query);
      const byEvaluate = records.filter((rec) => evaluate(condition, rec)).length;
      expect(byEvaluate, JSON.stringify(query)).toBe((r as { ok: number }).ok);
    }
  }
}

// ------------------------------------------------------------------------------------------------------
// Lines

const ASCII_POOL = ["phish", "Phish", "malware on srv-1", "", "a", "PH", "u1", "u2", "xxxxx"];
/** JSON text of every char as \uXXXX (decodes to the same string, but is not a plain ASCII field). */
const escapedAll = (s: string) =>
  `"${Array.from(s, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`;

const valueText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ASCII_POOL).map((s) => JSON.stringify(s)) },
  { weight: 6, arbitrary: fc.nat({ max: 2000 }).map((n) => `"u${n}"`) },
  { weight: 2, arbitrary: fc.constantFrom(...ASCII_POOL).map(escapedAll) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom("é", "aé", "ph\u0130sh", "😀", "\u00e9t\u00e9", "PHÉ")
      .map((s) => JSON.stringify(s)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '"a\\"b"',
      '"a\\\\b"',
      '"\\u00e9"',
      '"a\\nb"',
      '"\\/"',
      '"ph\\u0069sh"',
      '"\\ud800"',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom("7", "-0", "1e2", "true", "false", "null", "7.0") },
  { weight: 1, arbitrary: fc.constantFrom('["x"]', '{"a":1}', "[]", '["phish"]', "{}") },
  { weight: 2, arbitrary: fc.string({ maxLength: 6, unit: "binary" }).map((s) => JSON.stringify(s)) },
);

const lineArb = fc
  .record(
    {
      Title: valueText,
      Type: valueText,
      CustomField1: valueText,
      Number: fc.oneof(fc.constantFrom('"N-1"', '"N-2"', '"phish"', '"u1"'), valueText),
      Severity: fc.constantFrom('"High"', '"Low"', '"Medium"', "1", '"H\\u0069gh"'),
      IncidentId: fc.oneof(
        fc.integer({ min: -5, max: 50 }).map(String),
        fc.constantFrom("1.5", '"7"', "null"),
      ),
      Other: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    },
    { requiredKeys: [] },
  )
  .chain((r) =>
    fc
      .tuple(
        fc.shuffledSubarray(Object.keys(r), { minLength: Object.keys(r).length }),
        fc.constantFrom("", "", "", "\uFEFF", " \t"),
      )
      .map(([keys, prefix]) => {
        return `${prefix}{${keys.map((k) => `"${k}":${(r as Record<string, string>)[k]}`).join(",")}}`;
      }),
  );

/** Many rows of mostly plain ASCII titles (queued), the other kinds mixed in, runs of repeats. */
const bigLinesArb = fc
  .array(
    fc.oneof(
      { weight: 1, arbitrary: fc.array(lineArb, { minLength: 1, maxLength: 10 }) },
      {
        weight: 1,
        // runs of plain ASCII titles (new titles repeated inside one 256-row batch)
        arbitrary: fc
          .array(fc.nat({ max: 400 }), { minLength: 50, maxLength: 400 })
          .map((ns) => ns.map((n) => `{"Title":"r${n % 37 === 0 ? n : n % 23}","IncidentId":${n % 9}}`)),
      },
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((groups) => groups.flat());

const OPTIONS: IncidentSetOptions[] = [
  {},
  { maxDictionary: 2 },
  { maxDictionary: 0 },
  { maxDictionary: 2, textIndex: false },
];

const sizesArb = fc.oneof(
  fc.constant([1 << 30]),
  fc.constant([1]),
  fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
  fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 8 }),
);

async function check(
  lines: string[],
  newline: string,
  kind: Kind,
  sizes: readonly number[],
  options: IncidentSetOptions,
) {
  const text = lines.join(newline) + (lines.length % 2 === 0 ? newline : "");
  const records = lines.map((l) => JSON.parse(l.replace(/^\uFEFF/, "")) as Record<string, unknown>);
  const compact = (await IncidentSet.fromNdjson(source(text, kind, sizes), options)) as AnySet;
  const reference = new IncidentSet(records, options) as AnySet;
  compare(compact, reference, records);
  // add after the build: the column's set path after queued rows
  const extra = [
    { Title: "phish" },
    { Title: "u1" },
    { Title: "new-after" },
    { Title: 7 },
    { Type: "u2", Title: "é" },
  ];
  for (const e of extra) {
    compact.add(e);
    reference.add(e);
  }
  compare(compact, reference, [...records, ...extra], [...QUERIES.slice(0, 12), { Title: "new-after" }]);
}

describe("queued text column through fromNdjson", () => {
  // Every kind of source is used by the tests below; these properties take the most hostile ones.
  for (const kind of ["u8", "reuse-same", "stream"] as Kind[]) {
    it(`small random lines, ${kind} chunks`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(lineArb, { minLength: 1, maxLength: 30 }),
          sizesArb,
          fc.constantFrom("\n", "\r\n", "\n\n", " \n\t"),
          async (lines, sizes, newline) => {
            for (const options of OPTIONS) await check(lines, newline, kind, sizes, options);
          },
        ),
        fcOptions(15),
      );
    }, 600_000);

    it(`many rows (> 256 per chunk), ${kind} chunks`, async () => {
      await fc.assert(
        fc.asyncProperty(bigLinesArb, sizesArb, async (lines, sizes) => {
          for (const options of OPTIONS) await check(lines, "\n", kind, sizes, options);
        }),
        fcOptions(kind === "stream" ? 5 : 8),
      );
    }, 600_000);
  }

  it("default options, Title overflowing 4096 mid-chunk, 20k rows, in reused chunks", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const t =
        i % 97 === 0
          ? JSON.stringify(`é${i % 500}`)
          : i % 89 === 0
            ? escapedAll(`u${i % 300}`)
            : i % 83 === 0
              ? "null"
              : i % 79 === 0
                ? "7"
                : `"u${(i * 7919) % 9000}"`;
      lines.push(
        i % 71 === 0 ? `{"IncidentId":${i}}` : `{"IncidentId":${i},"Title":${t},"Type":"t${i % 5000}"}`,
      );
    }
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const reference = new IncidentSet(records) as AnySet;
    const queries = [
      ...QUERIES,
      { Title: "u0" },
      { Title: "u8999" },
      { Title: "é3" },
      { Title: { $in: ["u1", "u2", "u4000", "é7"] } },
      { Type: "t4999" },
      { Type: { $regex: "^t49" } },
    ];
    for (const [kind, sizes] of [["reuse", [4096, 100, 65536]]] as [Kind, number[]][]) {
      const text = `${lines.join("\n")}\n`;
      const compact = (await IncidentSet.fromNdjson(source(text, kind, sizes))) as AnySet;
      compare(compact, reference, records, queries);
    }
  }, 600_000);

  it("60k rows (eager text index at the end), Title past 4096 distinct, reused buffer", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++)
      lines.push(
        i % 501 === 0
          ? `{"IncidentId":${i},"Title":"\\u0070hish ${i % 7}"}`
          : `{"IncidentId":${i},"Title":"t${(i * 31) % 12000} phish"}`,
      );
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const reference = new IncidentSet(records) as AnySet;
    const text = `${lines.join("\n")}\n`;
    for (const [kind, sizes] of [
      ["reuse", [65536, 333]],
      ["u8", [1 << 30]],
    ] as [Kind, number[]][]) {
      const compact = (await IncidentSet.fromNdjson(source(text, kind, sizes))) as AnySet;
      compare(compact, reference, records, [
        { Title: "phish 3" },
        { Title: "t31 phish" },
        { Title: { $regex: "^phish" } },
        { Title: { $regex: "^T1.*PHISH$", $options: "i" } },
        { Title: { $in: ["t0 phish", "t62 phish", "phish 0"] } },
        { Title: { $regex: "x" } },
      ]);
    }
  }, 600_000);

  it("a source reusing one buffer: the engine does not read a chunk after asking for the next", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `{"IncidentId":${i},"Title":"v${i % 700}"}`);
    const text = `${lines.join("\n")}\n`;
    const bytes = enc.encode(text);
    const log: string[] = [];
    const compact = (await IncidentSet.fromNdjson(reusing(bytes, cuts(bytes.length, [5000]), false, log), {
      maxDictionary: 2,
    })) as AnySet;
    const records = lines.map((l) => JSON.parse(l));
    compare(compact, new IncidentSet(records, { maxDictionary: 2 }) as AnySet, records, [
      { Title: "v1" },
      { Title: { $regex: "x" } },
      { Title: { $regex: "^v69" } },
    ]);
    expect(compact.count({ Title: { $regex: "x" } })).toBe(0);
  }, 300_000);

  it("errors midway name the line (queued rows pending)", async () => {
    for (const [bad, kind] of [
      ['{"Title":"u1",}', "SyntaxError"],
      ["[1]", "TypeError"],
      ['{"Title":"a","Title":"b"}', "SyntaxError"],
      ['{"Title":"\xff"}', "SyntaxError"],
    ] as [string, string][]) {
      for (const before of [5, 255, 256, 257, 1000]) {
        const lines = Array.from({ length: before }, (_, i) => `{"IncidentId":${i},"Title":"q${i}"}`);
        const text = `${lines.join("\n")}\n\n${bad}\n{"Title":"after"}\n`;
        const bytes = bad.includes("\xff")
          ? (() => {
              const t = enc.encode(text);
              // replace the UTF-8 of \xff (c3 bf) by a lone ff byte
              const i = t.findIndex((b, k) => b === 0xc3 && t[k + 1] === 0xbf);
              return new Uint8Array([...t.subarray(0, i), 0xff, ...t.subarray(i + 2)]);
            })()
          : enc.encode(text);
        for (const size of [1 << 30, 7, 4096]) {
          const chunks: Uint8Array[] = [];
          for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size));
          const error = await IncidentSet.fromNdjson(chunks, { maxDictionary: 0 }).then(
            () => undefined,
            (e: unknown) => e as Error,
          );
          expect(error?.constructor.name, `${bad} ${before} ${size}`).toBe(kind);
          expect(error?.message, `${bad} ${before} ${size}`).toMatch(
            new RegExp(`^NDJSON line ${before + 2}: `),
          );
        }
      }
    }
  }, 300_000);

  it("a 20 MB title among others, split into 64 KiB chunks", async () => {
    const huge = `H${"ab".repeat(10_000_000)}Z`;
    const lines = [
      '{"IncidentId":1,"Title":"phish"}',
      `{"IncidentId":2,"Title":"${huge}"}`,
      '{"IncidentId":3,"Title":"u1"}',
      `{"IncidentId":4,"Title":"${huge}"}`,
      '{"IncidentId":5,"Title":"é"}',
    ];
    const text = `${lines.join("\n")}\n`;
    const bytes = enc.encode(text);
    for (const size of [65536]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.slice(at, at + size));
      const set = (await IncidentSet.fromNdjson(chunks, { maxDictionary: 1 })) as AnySet;
      expect(
        set.findAll({ Title: { $regex: "^H" } }).map((r) => (r as { Title: string }).Title === huge),
      ).toEqual([true, true]);
      expect(set.count({ Title: { $regex: "^Hab" } })).toBe(2);
      expect(set.count({ Title: { $regex: "bZ$" } })).toBe(2);
      expect(set.count({ Title: { $in: ["phish", "u1", "é"] } })).toBe(3);
      expect((set.findFirst({ IncidentId: 4 }) as { Title: string }).Title).toBe(huge);
      const { recordBytes } = set.footprint();
      expect(recordBytes).toBeLessThan(bytes.length + 64 * 10 + 9 * 1024 * 1024);
      const state = textState(set) as Record<string, { counts: number[] }>;
      expect(state.Title?.counts.reduce((a, b) => a + b, 0)).toBe(5);
    }
  }, 300_000);
});

// ------------------------------------------------------------------------------------------------------
// CompactRecords.trim

/** A line of exactly `size` bytes. */
function lineOf(i: number, size: number): string {
  const head = `{"IncidentId":${i},"t":"`;
  const tail = `"}`;
  return head + "y".repeat(size - head.length - tail.length) + tail;
}

describe("CompactRecords.trim", () => {
  it("boundary: exactly 8 MiB unused is kept, 8 MiB + 1 KiB unused is trimmed; reads and pushes after", () => {
    // 1 KiB lines fill the 64 KiB..8 MiB chunks exactly (16 MiB - 64 KiB), then a 16 MiB chunk.
    const before = (16 * 1024 * 1024 - 64 * 1024) / 1024;
    for (const [inLast, trimmed] of [
      [8192, false],
      [8191, true],
      [1, true],
      [16384, false],
    ] as [number, boolean][]) {
      const records = new CompactRecords<{ IncidentId: number; t: string }>();
      const n = before + inLast;
      const bytes = enc.encode(lineOf(0, 1024));
      for (let i = 0; i < n; i++) records.pushBytes(bytes, 0, 1024);
      records.flush();
      const untrimmed = records.bytes();
      records.trim();
      const after = records.bytes();
      if (trimmed) expect(after).toBe(untrimmed - (16 * 1024 * 1024 - inLast * 1024));
      else expect(after).toBe(untrimmed);
      expect(records.get(n - 1)).toEqual(JSON.parse(lineOf(0, 1024)));
      records.push({ IncidentId: -1, t: "after" });
      records.push({ IncidentId: -2, t: "after2" });
      expect(records.get(n)).toEqual({ IncidentId: -1, t: "after" });
      expect(records.get(n + 1)).toEqual({ IncidentId: -2, t: "after2" });
      expect(records.get(n - 1).IncidentId).toBe(0);
      expect(records.field(n - 1, "IncidentId")).toBe(0);
    }
  }, 300_000);

  it("pushBytes from one source across trim (pending coalescing), then more lines of the same buffer", () => {
    const records = new CompactRecords<{ IncidentId: number; t: string }>();
    const text = Array.from({ length: 20_000 }, (_, i) => lineOf(i, 1000)).join("\n");
    const buf = enc.encode(text);
    const ends: [number, number][] = [];
    for (let at = 0, i = 0; i < 20_000; i++) {
      ends.push([at, at + 1000]);
      at += 1001;
    }
    for (let i = 0; i < 10_000; i++) records.pushBytes(buf, ends[i]![0], ends[i]![1]);
    records.trim();
    for (let i = 10_000; i < 20_000; i++) records.pushBytes(buf, ends[i]![0], ends[i]![1]);
    records.trim();
    for (let i = 0; i < 20_000; i += 1) expect(records.get(i).IncidentId).toBe(i);
  }, 300_000);

  const big = (process.env.HOSTILE_BIG_MB ?? "20").split(",").map(Number);
  for (const mb of big) {
    it(`fromNdjson of ${mb} MB of records: footprint counts the lines, every record reads back, add after`, async () => {
      const size = 9973; // lines of 9973 bytes (+1 newline)
      const n = Math.ceil((mb * 1e6) / (size + 1));
      const lineBytes = (i: number) => enc.encode(`${lineOf(i, size)}\n`);
      async function* gen() {
        // chunks of ~1 MiB, lines split across chunks
        let pending: Uint8Array[] = [];
        let length = 0;
        for (let i = 0; i < n; i++) {
          const b = lineBytes(i);
          pending.push(b);
          length += b.length;
          if (length >= 1_000_000) {
            const all = Buffer.concat(pending);
            yield all.subarray(0, 700_001);
            yield all.subarray(700_001);
            pending = [];
            length = 0;
          }
        }
        if (pending.length > 0) yield Buffer.concat(pending);
      }
      const set = (await IncidentSet.fromNdjson(gen())) as AnySet;
      expect(set.count({})).toBe(n);
      let capacity = 64;
      while (capacity < n) capacity *= 2;
      const offsets = 10 * capacity;
      const used = n * size;
      const { recordBytes } = set.footprint();
      // each full chunk may leave < one line unused at its end; the last chunk at most 8 MiB
      expect(recordBytes).toBeGreaterThanOrEqual(used + offsets);
      expect(recordBytes).toBeLessThanOrEqual(used + offsets + 14 * size + 8 * 1024 * 1024);
      console.log(
        `${mb} MB: n=${n} used=${used} recordBytes=${recordBytes} slack=${recordBytes - used - offsets}`,
      );
      // read back every record (in windows), checking its exact bytes
      const expectedT = "y".repeat(size - `{"IncidentId":,"t":""}`.length);
      for (let lo = 0; lo < n; lo += 2000) {
        const got = set.findAll({
          $and: [{ IncidentId: { $gte: lo } }, { IncidentId: { $lt: lo + 2000 } }],
        }) as {
          IncidentId: number;
          t: string;
        }[];
        expect(got.length).toBe(Math.min(2000, n - lo));
        for (const r of got) {
          const tLen = size - `{"IncidentId":${r.IncidentId},"t":""}`.length;
          if (r.t.length !== tLen || r.t !== expectedT.slice(0, tLen))
            throw new Error(`record ${r.IncidentId} differs`);
        }
      }
      set.add({ IncidentId: -1, Title: "added" });
      set.add({ IncidentId: -2, Title: "added2", t: "z".repeat(20_000_000) });
      expect(set.findFirst({ IncidentId: -1 })).toEqual({ IncidentId: -1, Title: "added" });
      expect((set.findFirst({ IncidentId: -2 }) as { t: string }).t.length).toBe(20_000_000);
      expect(set.findFirst({ IncidentId: n - 1 })).toEqual(JSON.parse(lineOf(n - 1, size)));
      expect(set.count({ Title: { $regex: "^added" } })).toBe(2);
    }, 900_000);
  }
});

// ------------------------------------------------------------------------------------------------------
// CompactHashIndex.prepare

describe("CompactHashIndex against HashIndex", () => {
  const valueArb = fc.oneof(
    fc.nat({ max: 50 }).map((n) => `v${n}`),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom(true, false, null, undefined, -0, 0.5, Number.NaN, "", "é", ["v1"], { a: 1 }),
    fc.string({ maxLength: 3 }),
  );

  function compareIndexes(values: unknown[], probes: unknown[], steps: number[]) {
    const compact = new CompactHashIndex("f", (row) => values[row]);
    const plain = new HashIndex("f");
    let row = 0;
    for (const step of steps) {
      for (let k = 0; k < step && row < values.length; k++, row++) {
        compact.set(row, values[row]);
        plain.set(row, values[row]);
      }
      for (const p of probes) {
        const rows = compact.rowsOf(p);
        expect([...rows].sort((a, b) => a - b)).toEqual([...plain.rowsOf(p)]);
        const probed = compact.probe(p);
        expect(new Set(probed).size).toBe(probed.length);
        for (const r of plain.rowsOf(p)) expect(probed).toContain(r);
      }
    }
    for (; row < values.length; row++) {
      compact.set(row, values[row]);
      plain.set(row, values[row]);
    }
    compact.prepare();
    for (const p of probes) {
      expect([...compact.rowsOf(p)]).toEqual([...plain.rowsOf(p)]);
    }
    expect(compact.arrayRows).toEqual(plain.arrayRows);
    return { compact, plain };
  }

  it("random values, prepared at random points", () => {
    fc.assert(
      fc.property(
        fc.array(valueArb, { maxLength: 3000 }),
        fc.array(fc.nat({ max: 3000 }), { maxLength: 4 }),
        (values, steps) => {
          const probes = [
            ...new Set(values.filter((v) => typeof v !== "object" && v !== undefined)),
            "nope",
            99,
          ];
          compareIndexes(values, probes.slice(0, 60), steps);
        },
      ),
      fcOptions(100),
    );
  });

  it("sizes around the radix pass boundaries (2^8, 2^16, 2^24 rows)", () => {
    for (const n of [0, 1, 2, 3, 255, 256, 257, 65535, 65536, 65537, 300_000]) {
      const values = Array.from({ length: n }, (_, i) =>
        i % 7 === 0 ? null : i % 3 === 0 ? `s${i % 1000}` : i % 5000,
      );
      const compact = new CompactHashIndex("f", (row) => values[row]);
      const plain = new HashIndex("f");
      for (let i = 0; i < n; i++) {
        compact.set(i, values[i]);
        plain.set(i, values[i]);
      }
      compact.prepare();
      for (const p of ["s3", "s999", 1, 4999, 0, 2, "nope", null]) {
        expect([...compact.rowsOf(p)], `${n} ${p}`).toEqual([...plain.rowsOf(p)]);
      }
      expect(compact.size).toBe(plain.size);
    }
  }, 300_000);

  it("20M rows: 3-4 radix passes (bits 25)", () => {
    const n = 20_000_000;
    const compact = new CompactHashIndex("f", (row) => row % 1_000_003);
    for (let i = 0; i < n; i++) compact.set(i, i % 1_000_003);
    compact.prepare();
    for (const p of [0, 1, 7, 1_000_002, 999_999, 1_000_003]) {
      const expected: number[] = [];
      for (let r = p; r < n && p < 1_000_003; r += 1_000_003) expected.push(r);
      expect([...compact.rowsOf(p)]).toEqual(expected);
    }
    expect(compact.size).toBe(1_000_003);
  }, 300_000);

  it("a fromNdjson set with Title as a hash field answers as the constructor's", async () => {
    await fc.assert(
      fc.asyncProperty(bigLinesArb, sizesArb, async (lines, sizes) => {
        const options = { hashFields: ["Title", "IncidentId", "Number"] };
        const records = lines.map((l) => JSON.parse(l.replace(/^\uFEFF/, "")));
        const compact = (await IncidentSet.fromNdjson(
          source(`${lines.join("\n")}\n`, "u8", sizes),
          options,
        )) as AnySet;
        compare(compact, new IncidentSet(records, options) as AnySet, records, [
          ...QUERIES,
          { Title: "r1" },
          { Title: { $in: ["r2", "r3", "u1", 7] } },
        ]);
      }),
      fcOptions(40),
    );
  }, 600_000);
});
