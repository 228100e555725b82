/**
 * `IncidentSet.fromNdjson` from a byte reader (`NdjsonByteReader`, such as Node's `FileHandle`): the lines
 * are read into the set's own record chunks and kept where they lie (`readNdjsonInPlace`,
 * `CompactRecords.newChunk`). Checked against the same bytes as chunks (the splitter's path, itself checked
 * against `new IncidentSet` in ndjson-build.test.ts): generated records with blank lines, CRLF, byte order
 * marks and long lines, read in short reads of every size, by a reader that writes junk into the room it is
 * given before the real bytes (the room past what a read returned is not the input yet), lines longer
 * than a chunk, a real file, errors (the line named, a read that fails, a read that answers nonsense), and a
 * read still under way when a line fails.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fcOptions } from "../../test/support/fc.js";
import { chunksOf, expectSameSets, outcome } from "../../test/support/same-sets.js";
import { IncidentSet, type IncidentSetOptions } from "./incident-set.js";
import type { NdjsonByteReader } from "./ndjson.js";
import { CompactRecords } from "./record-store.js";

const encode = (text: string) => new TextEncoder().encode(text);

/** Junk a reader writes into the room it is given before the real bytes: line breaks and object ends. */
const JUNK = encode('\n}\n{"Severity":"High"}\n');

/**
 * A reader over `bytes`: read `k` returns at most `sizes[k % sizes.length]` bytes (at least 1). With `junk`,
 * it first fills all the room it is given with `JUNK`, then writes the real bytes only when it resolves,
 * a macrotask later: bytes past what a read returned are never the input.
 */
function readerOf(
  bytes: Uint8Array,
  sizes: readonly number[],
  junk = false,
): NdjsonByteReader & { reads: number } {
  let at = 0;
  // At most about 2,000 reads, so that a property run stays short.
  const least = Math.ceil(bytes.length / 2000);
  const reader = {
    reads: 0,
    async read(buffer: Uint8Array, offset: number, length: number, position: null) {
      expect(position).toBeNull();
      expect(offset + length).toBeLessThanOrEqual(buffer.length);
      const n = Math.min(
        length,
        Math.max(1, least, sizes[reader.reads++ % sizes.length]!),
        bytes.length - at,
      );
      if (junk) {
        // Past the bytes it returns too (a few KiB of it: the rest of the room stays as it was).
        const room = Math.min(length, n + 4096);
        for (let k = 0; k < room; k++) buffer[offset + k] = JUNK[k % JUNK.length]!;
        await new Promise((resolve) => setImmediate(resolve));
      }
      buffer.set(bytes.subarray(at, at + n), offset);
      at += n;
      return { bytesRead: n };
    },
  };
  return reader;
}

describe("fromNdjson from a byte reader, against the same bytes as chunks", () => {
  const record = fc.record(
    {
      IncidentId: fc.integer({ min: 0, max: 20 }),
      Number: fc.constantFrom("N-1", "N-3", "n-3", "N-\u00e9"),
      Severity: fc.constantFrom("High", "Low", "Medium", "H\u00efgh"),
      Title: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom("phish", "PHISH", "\ud800")),
      CreatedUtcTime: fc.constantFrom("2024-01-01T00:00:00Z", "2023-05-05T10:00:00.5Z", "bad"),
      // Long lines: a few reach past the first chunks (64 KiB, then 128 KiB, …), so that lines begun at a
      // chunk's end move to the next one.
      Other: fc.oneof(
        { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 40_000 }).map((n) => "y".repeat(n)) },
      ),
    },
    { requiredKeys: [] },
  );
  const line = fc.oneof(
    { weight: 12, arbitrary: record.map((r) => JSON.stringify(r)) },
    { weight: 1, arbitrary: record.map((r) => `\ufeff  ${JSON.stringify(r)}\t`) },
    { weight: 1, arbitrary: fc.constantFrom("", "   ", "\r") },
  );

  it("builds the same set, read in short reads of every size, with junk in the room past each read", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        fc.array(fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 300_000 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.boolean(),
        async (lines, newline, finalNewline, sizes, junk) => {
          const bytes = encode(lines.join(newline) + (finalNewline ? newline : ""));
          for (const options of [{}, { maxDictionary: 2 }] satisfies IncidentSetOptions[]) {
            const fromReader = await outcome(IncidentSet.fromNdjson(readerOf(bytes, sizes, junk), options));
            const fromChunks = await outcome(IncidentSet.fromNdjson(chunksOf(bytes, 4096), options));
            if (typeof fromChunks === "string") expect(fromReader).toBe(fromChunks);
            else {
              expect(typeof fromReader).toBe("object");
              expectSameSets(fromReader as IncidentSet, fromChunks);
            }
          }
        },
      ),
      fcOptions(60),
    );
  }, 300_000);

  it("names the line of an error as the chunks' path does, wherever the reads end", async () => {
    const good = '{"IncidentId":1,"Severity":"High"}';
    for (const bad of [
      '{"Severity":"High",}',
      '{"Severity":"Low","Severity":"High"}',
      "[1]",
      '{"a":"\ud800"',
    ]) {
      const bytes = encode(`${good}\n\n${good}\r\n${bad}\n${good}\n`);
      const expected = await outcome(IncidentSet.fromNdjson([bytes]));
      expect(typeof expected).toBe("string");
      for (const sizes of [[1], [3, 7], [1 << 20]]) {
        for (const junk of [false, true]) {
          expect(await outcome(IncidentSet.fromNdjson(readerOf(bytes, sizes, junk)))).toBe(expected);
        }
      }
    }
  });

  it("reads lines longer than a chunk (3 MB, after a 64 KiB first chunk), each kept whole", async () => {
    const long = (n: number, c: string) =>
      JSON.stringify({ IncidentId: n, Severity: "High", Other: c.repeat(3e6) });
    const text = `${long(1, "a")}\n{"IncidentId":2}\n${long(3, "b")}\n`;
    const bytes = encode(text);
    const set = await IncidentSet.fromNdjson(readerOf(bytes, [65_536, 1 << 20, 7]));
    expect(set.findAll({}).map((r) => (r as { IncidentId: number }).IncidentId)).toEqual([1, 2, 3]);
    expect((set.findFirst({ IncidentId: 3 }) as { Other: string }).Other).toBe("b".repeat(3e6));
    // A line begun at a chunk's end moves to a chunk at least twice its size: a bounded number of copies,
    // and at most a few times the input's bytes kept.
    expect(set.footprint().recordBytes).toBeLessThan(4 * bytes.length);
  }, 300_000);

  it("keeps a last line without a line break, and an input of blanks or nothing", async () => {
    const set = await IncidentSet.fromNdjson(readerOf(encode('{"IncidentId":1}\n  {"IncidentId":2}  '), [5]));
    expect(set.findAll({})).toEqual([{ IncidentId: 1 }, { IncidentId: 2 }]);
    for (const text of ["", "\n\n", " \r\n\t"]) {
      expect((await IncidentSet.fromNdjson(readerOf(encode(text), [2]))).size).toBe(0);
    }
  });
});

describe("fromNdjson from a FileHandle", () => {
  const dir = mkdtempSync(join(tmpdir(), "incident-query-reader-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("builds the set a stream of the same file builds, and leaves the handle open", async () => {
    const lines: string[] = [];
    for (let k = 0; k < 20_000; k++) {
      lines.push(
        JSON.stringify({
          IncidentId: k,
          Number: `N-${k % 7}`,
          Severity: ["High", "Low", "Medium"][k % 3],
          Title: `Suspicious ${k % 11 === 0 ? "phishing" : "login"} on host ${k}`,
          CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
        }),
      );
    }
    const path = join(dir, "incidents.ndjson");
    writeFileSync(path, lines.join("\n"));
    const handle = await open(path);
    try {
      const fromFile = await IncidentSet.fromNdjson(handle);
      expectSameSets(fromFile, await IncidentSet.fromNdjson([lines.join("\n")]));
      expect(fromFile.count({ Title: { $regex: "phishing" } })).toBe(Math.ceil(20_000 / 11));
      // Still open: the caller closes it.
      expect((await handle.stat()).size).toBeGreaterThan(0);
    } finally {
      await handle.close();
    }
  });
});

describe("fromNdjson from a byte reader: failures", () => {
  it.each<[string, unknown]>([
    ["a negative count", { bytesRead: -1 }],
    ["a fraction", { bytesRead: 1.5 }],
    ["a string", { bytesRead: "3" }],
    ["more than asked for", { bytesRead: 1e9 }],
    ["no object", undefined],
    ["null", null],
    ["an object without bytesRead", {}],
  ])("rejects a read that resolves with %s, with a TypeError that says so", async (_name, result) => {
    const reader = { read: async () => result } as unknown as NdjsonByteReader;
    const error = await IncidentSet.fromNdjson(reader).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      /^NDJSON reader: a read of up to \d+ bytes resolved with .+; expected \{ bytesRead \} from 0 to \d+\.$/,
    );
  });

  it("rejects with the read's own error", async () => {
    const failure = new Error("EIO: i/o error, read");
    let reads = 0;
    const reader: NdjsonByteReader = {
      async read(buffer, offset) {
        if (reads++ > 0) throw failure;
        const bytes = encode('{"IncidentId":1}\n{"Incid');
        buffer.set(bytes, offset);
        return { bytesRead: bytes.length };
      },
    };
    await expect(IncidentSet.fromNdjson(reader)).rejects.toBe(failure);
  });

  it("leaves no unhandled rejection when a line fails while the next read is under way and then fails", async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      let reads = 0;
      const reader: NdjsonByteReader = {
        async read(buffer, offset) {
          if (reads++ === 0) {
            const bytes = encode('{"IncidentId":1}\n{"IncidentId":\n');
            buffer.set(bytes, offset);
            return { bytesRead: bytes.length };
          }
          // The read issued before the bad line was handed out: it fails after the build has failed.
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error("EBADF: the caller closed the handle");
        },
      };
      await expect(IncidentSet.fromNdjson(reader)).rejects.toThrow(/^NDJSON line 2: /);
      expect(reads).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", listener);
    }
  });

  it("takes a stream with a read method for a stream, not a reader", async () => {
    const { Readable } = await import("node:stream");
    const stream = Readable.from([encode('{"IncidentId":1}\n{"IncidentId":2}\n')]);
    expect(typeof stream.read).toBe("function");
    expect((await IncidentSet.fromNdjson(stream)).size).toBe(2);
  });
});

describe("CompactRecords.newChunk", () => {
  it("keeps lines pushed from the chunk where they lie, and copies a line pushed over kept ones", () => {
    const records = new CompactRecords<object>();
    const chunk = records.newChunk(100);
    expect(chunk.length).toBeGreaterThanOrEqual(100);
    const text = '{"a":1}\n{"b":2}\n';
    chunk.set(encode(text));
    records.pushBytes(chunk, 0, 7);
    records.pushBytes(chunk, 8, 15);
    const before = records.bytes();
    // Below the last line kept: not where it lies (it would overlap), so it is copied after it.
    records.pushBytes(chunk, 0, 7);
    expect([0, 1, 2].map((row) => records.get(row))).toEqual([{ a: 1 }, { b: 2 }, { a: 1 }]);
    expect(records.bytes()).toBe(before); // the copy fits in the same chunk
    // A new chunk: the old one's lines stay readable.
    const next = records.newChunk(10);
    next.set(encode('{"c":3}'));
    records.pushBytes(next, 0, 7);
    expect([0, 1, 2, 3].map((row) => records.get(row))).toEqual([{ a: 1 }, { b: 2 }, { a: 1 }, { c: 3 }]);
  });
});
