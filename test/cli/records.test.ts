/**
 * The record readers (src/cli/records.ts): a JSON array and NDJSON give the same records with the same
 * 1-based positions, wherever the input is cut into chunks (a property test); broken arrays, long lines,
 * repeated keys and documents of the wrong shape; where invalid UTF-8 is.
 */
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CliError, EXIT } from "../../src/cli/exit-codes.js";
import { type ReadItem, readRecords } from "../../src/cli/records.js";
import type { InputSource } from "../../src/node/source.js";
import { firstInvalidUtf8, InvalidUtf8Error, openInput } from "../../src/node/source.js";
import { fcOptions } from "../support/fc.js";

function source(chunks: readonly string[]): InputSource {
  return {
    label: "'test'",
    size: undefined,
    gzip: false,
    bytesRead: () => 0,
    text: {
      async *[Symbol.asyncIterator]() {
        yield* chunks;
      },
    },
    bytes: {
      async *[Symbol.asyncIterator]() {
        for (const chunk of chunks) yield Buffer.from(chunk);
      },
    },
    path: undefined,
    close: () => {},
  };
}

async function read(chunks: readonly string[] | InputSource, maxLineLength = 1 << 20): Promise<ReadItem[]> {
  const items: ReadItem[] = [];
  const input = Array.isArray(chunks) ? source(chunks) : (chunks as InputSource);
  for await (const batch of readRecords(input, { maxLineLength, expected: "records" })) {
    items.push(...batch);
  }
  return items;
}

/** Cuts `text` at the given fractions. */
function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = 0;
  for (const p of points) {
    parts.push(text.slice(start, p));
    start = p;
  }
  parts.push(text.slice(start));
  return parts;
}

const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const tricky = fc.constantFrom<unknown>(
  'a\\"b',
  'quote " inside',
  "back\\slash\\",
  "\\\\",
  { 'k"]': ["}", "{", "[", "]", ","] },
  "é ü 李 😀",
  [],
  {},
  0,
  -1.5e10,
  null,
  true,
);
const records = fc.array(fc.oneof(value, tricky), { maxLength: 12 });
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 });

describe("readRecords", () => {
  it("reads the same records from NDJSON and JSON arrays (compact and pretty), however chunked (property)", async () => {
    await fc.assert(
      fc.asyncProperty(records, cuts, async (values, at) => {
        const ndjson = values.map((v) => JSON.stringify(v)).join("\n");
        const compact = JSON.stringify(values);
        const pretty = JSON.stringify(values, null, 2);
        const expected = values.map((v, i) => ({ ok: true, value: v, record: i + 1 }));
        // An input whose first record is an array reads as a JSON array, so NDJSON starts otherwise.
        if (values.length > 0 && !Array.isArray(values[0])) {
          const fromNdjson = await read(cut(ndjson, at));
          expect(fromNdjson.map(({ line: _, ...rest }) => rest)).toEqual(expected);
          expect(fromNdjson.map((item) => item.line)).toEqual(values.map((_, i) => i + 1));
        }
        const fromCompact = await read(cut(compact, at));
        expect(fromCompact.map(({ line: _, ...rest }) => rest)).toEqual(expected);
        expect(fromCompact.every((item) => item.line === 1)).toBe(true);
        const fromPretty = await read(cut(pretty, at));
        expect(fromPretty.map(({ line: _, ...rest }) => rest)).toEqual(expected);
        // Each record's line is where its text starts in the pretty-printed array.
        const lines = pretty.split("\n");
        for (const item of fromPretty) {
          const text = lines[item.line - 1]!.trim();
          const first = JSON.stringify(values[item.record - 1], null, 2).split("\n")[0]!;
          expect(text.startsWith(first)).toBe(true);
        }
      }),
      fcOptions(300),
    );
  });

  it("reports invalid lines with their 1-based line and record numbers and goes on", async () => {
    const items = await read(['{"a": 1}\n\n  \r\n{"a": \n', '[1,\n2]\r\n{"b": 2}']);
    expect(items.map((i) => [i.ok, i.line, i.record])).toEqual([
      [true, 1, 1],
      [false, 4, 2],
      [false, 5, 3],
      [false, 6, 4],
      [true, 7, 5],
    ]);
  });

  it.each([
    ["{bad", [[false, 1, 1]]],
    ['{"a": 1}\r{"a": 2}', [[false, 1, 1]]],
    [
      '{bad\n{"a": 1}',
      [
        [false, 1, 1],
        [true, 2, 2],
      ],
    ],
    [
      '{"a": \n{bad',
      [
        [false, 1, 1],
        [false, 2, 2],
      ],
    ],
    [
      '{"a": 1}\n{bad',
      [
        [true, 1, 1],
        [false, 2, 2],
      ],
    ],
  ])("reports a last line without a newline once, as it reports it with one: %j", async (text, expected) => {
    for (const input of [text, `${text}\n`]) {
      for (const chunks of [[input], [...input]]) {
        const items = await read(chunks);
        expect(items.map((i) => [i.ok, i.line, i.record])).toEqual(expected);
      }
    }
  });

  it("refuses a line or element longer than maxLineLength, as an invalid record, and goes on", async () => {
    const long = `{"x": "${"y".repeat(100)}"}`;
    const ndjson = await read([`{"a": 1}\n${long.slice(0, 50)}`, `${long.slice(50)}\n{"a": 2}\n`], 64);
    expect(ndjson.map((i) => [i.ok, i.line, i.ok ? i.value : i.message])).toEqual([
      [true, 1, { a: 1 }],
      [false, 2, "longer than 64 characters (--max-line-length)"],
      [true, 3, { a: 2 }],
    ]);
    const array = await read([`[{"a": 1}, ${long.slice(0, 50)}`, `${long.slice(50)}, {"a": 2}]`], 64);
    expect(array.map((i) => [i.ok, i.record])).toEqual([
      [true, 1],
      [false, 2],
      [true, 3],
    ]);
  });

  it.each([
    ['[{"a": 1} {"a": 2}]', "expected ',' or ']' after record 1"],
    ['[{"a": 1},]', "expected a record after ',', found ']'"],
    ['[{"a": 1}', "expected the closing ']'"],
    ['[{"a": "x]', "expected record 1 (line 1) to end"],
    ["[1] 2", "nothing after the closing ']'"],
  ])("ends a broken array %j with a data error", async (text, message) => {
    const error = await read([text]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.dataError);
    expect((error as CliError).message).toContain(message);
  });

  it("says that a pretty-printed JSON object is one document of the wrong shape", async () => {
    const error = await read([JSON.stringify({ sites: [], incidents: [{ a: 1 }] }, null, 2)]).catch(
      (e: unknown) => e,
    );
    expect((error as CliError).message).toBe(
      "'test' holds one JSON document, a JSON object with the keys sites, incidents; expected records: a JSON array or NDJSON (one per line).",
    );
    // A broken first line that is not the start of one document stays an invalid record, and reading goes on.
    const items = await read(['{"a": \n{"b": 1}\n']);
    expect(items.map((i) => [i.ok, i.line])).toEqual([
      [false, 1],
      [true, 2],
    ]);
  });
});

describe("readRecords: the edges of docs/cli.md, Inputs", () => {
  it("refuses a record that repeats a key in one of its objects (docs/semantics.md 3.1), and goes on", async () => {
    const message =
      "the record repeats the key 'Type' in one object (at a[0].Type): each key may appear once.";
    const ndjson = await read(['{"a": [{"Type": 1, "\\u0054ype": 2}]}\n{"Type": 1}\n']);
    expect(ndjson.map((i) => [i.ok, i.line, i.ok ? i.value : i.message])).toEqual([
      [false, 1, message],
      [true, 2, { Type: 1 }],
    ]);
    const array = await read(['[{"a": [{"Type": 1, "Type": 2}]},\n{"Type": 1}]']);
    expect(array.map((i) => [i.ok, i.line, i.ok ? i.value : i.message])).toEqual([
      [false, 1, message],
      [true, 2, { Type: 1 }],
    ]);
    // A first line that repeats a key is JSON: refused as a record, not read as the start of a document.
    const first = await read(['{"a": 1, "a": 2}\n']);
    expect(first.map((i) => [i.ok, i.line])).toEqual([[false, 1]]);
  });

  it("accepts a CRLF line of exactly maxLineLength wherever the chunks are cut (docs/cli.md, Record size)", async () => {
    const text = '{"a":1}\r\n{"b":2}\r\n{"c":34}\r\n';
    for (let at = 0; at <= text.length; at++) {
      const items = await read([text.slice(0, at), text.slice(at)], 7);
      expect(items.map((i) => [i.ok, i.line])).toEqual([
        [true, 1],
        [true, 2],
        [false, 3],
      ]);
    }
  });

  it("reads NDJSON after a first line such as '{' as NDJSON from its first record, however chunked", async () => {
    const text = '{\n{"a": 1}\n{"a": 2}\n';
    for (const chunks of [[text], [...text]]) {
      const items = await read(chunks);
      expect(items.map((i) => [i.ok, i.line, i.record])).toEqual([
        [false, 1, 1],
        [true, 2, 2],
        [true, 3, 3],
      ]);
    }
    // The records come with the chunk that holds them: the rest of the input is not read first.
    let pulled = 0;
    const endless: InputSource = {
      ...source([]),
      text: {
        async *[Symbol.asyncIterator]() {
          yield '{"a": [\n';
          for (;;) {
            pulled++;
            yield '{"b": 1}\n'.repeat(100);
          }
        },
      },
    };
    for await (const batch of readRecords(endless, { maxLineLength: 1 << 20, expected: "records" })) {
      expect(batch.map((i) => i.ok)).toContain(true);
      break;
    }
    expect(pulled).toBe(1);
  });

  it("still says that a pretty-printed object cut anywhere is one document (docs/cli.md, Wrong shape)", async () => {
    const text = JSON.stringify(
      { sites: [{ a: 'x"}{' }], incidents: [{ b: [1, -2.5e3, true, null] }] },
      null,
      2,
    );
    for (const chunks of [[text], [...text], cut(text, [0.3, 0.6])]) {
      const error = await read(chunks).catch((e: unknown) => e);
      expect((error as CliError).message).toContain(
        "holds one JSON document, a JSON object with the keys sites",
      );
    }
  });

  it("names the line of invalid UTF-8 while it reads what may be one document", async () => {
    const throwing: InputSource = {
      ...source([]),
      text: {
        async *[Symbol.asyncIterator]() {
          yield '{\n  "a": [\n    1,\n';
          yield "    2,\n";
          throw new InvalidUtf8Error("'test'", 99, 1);
        },
      },
    };
    const error = await read(throwing).catch((e: unknown) => e);
    expect((error as CliError).message).toBe("'test' line 6 is not valid UTF-8 (byte 99 of the input).");
  });
});

describe("openInput: invalid UTF-8", () => {
  async function decode(chunks: readonly number[][]): Promise<unknown> {
    const input = await openInput("-", { stdin: Readable.from(chunks.map((c) => Buffer.from(c))) });
    try {
      for await (const _ of input.text) {
      }
    } catch (error) {
      return error;
    }
    return undefined;
  }

  it("names the first byte of a sequence cut by the end of the input, or broken in the next chunk", async () => {
    const a = [0x61, 0x62];
    for (const chunks of [
      [[...a, 0xe2, 0x82]],
      [[...a, 0xe2], [0x82]],
      [[...a], [0xe2], [0x82]],
      [[...a, 0xe2, 0x82], [0x41]],
      [[...a, 0xe2], [0x82], [0x41]],
      [[...a, 0xe2, 0x82, 0x41]],
    ]) {
      expect({ chunks, byte: ((await decode(chunks)) as InvalidUtf8Error).byte }).toEqual({
        chunks,
        byte: 3,
      });
    }
    // A chunk that starts after a whole 4-byte character is judged from its own first byte.
    const emoji = [0xf0, 0x9f, 0x98, 0x80];
    expect(((await decode([emoji, [0x41, 0xff]])) as InvalidUtf8Error).byte).toBe(6);
    expect(await decode([emoji.slice(0, 1), emoji.slice(1), [0x41]])).toBeUndefined();
  });
});

describe("firstInvalidUtf8", () => {
  it.each([
    [[0x61, 0x62], 2],
    [[0xc3, 0xa9], 2],
    [[0x61, 0xe9, 0x62], 1],
    [[0xc0, 0x80], 0],
    [[0xed, 0xa0, 0x80], 0],
    [[0xf4, 0x90, 0x80, 0x80], 0],
    [[0xf0, 0x9f, 0x98, 0x80, 0xff], 4],
  ])("%j → %d", (bytes, at) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(at);
  });

  it("agrees with TextDecoder's fatal mode on whether bytes are valid (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
        let valid = true;
        try {
          new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
        } catch {
          valid = false;
        }
        expect(firstInvalidUtf8(bytes) === bytes.length).toBe(valid);
      }),
      fcOptions(3000),
    );
  });
});
