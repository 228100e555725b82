/**
 * Defects of `match`'s readers, each with its failing case in a table:
 * - `$in` of `$date` operands dropped every line after the first (the byte prefilter; the reader's own
 *   table is src/incidents/line-matcher.test.ts), here end to end in every mode, on a file and a pipe;
 * - long lines on standard input and gzip were quadratic (the pending line joined with every chunk and
 *   searched again): the work is bounded by COUNTS of bytes searched and copied, never by seconds;
 * - with `--skip-invalid`, a line of invalid UTF-8 ended the run and hid the invalid lines after it: it is
 *   one invalid record, named with its line and first bad byte, and reading goes on (docs/cli.md,
 *   Encoding); the byte and text readers agree.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { StreamLines } from "../../src/node/stream-lines.js";
import { chunked } from "../support/chunked-stream.js";
import { runWith } from "../support/run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "iq-reader-defects-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function writeInput(bytes: Buffer): string {
  const path = join(dir, `input-${++files}.ndjson`);
  writeFileSync(path, bytes);
  return path;
}

const MODES = [["--count"], ["--all"], []] as const;

describe("an $in of $date operands matches every line it should (was: only the first)", () => {
  const day = "2024-01-01T00:00:00Z";
  const lines = [1, 2, 3].map((id) => JSON.stringify({ IncidentId: id, CreatedUtcTime: day }));
  const input = Buffer.from(`${lines.join("\n")}\n`);
  const table = [
    { name: "two dates", in: [{ $date: day }, { $date: "2024-01-02T00:00:00Z" }], count: "3\n" },
    { name: "one date", in: [{ $date: day }], count: "3\n" },
    { name: "a date and null", in: [{ $date: day }, null], count: "3\n" },
  ];
  it.each(table)("$name: --count, --all, first match; file and standard input, both readers", async (row) => {
    const conditions = JSON.stringify({ CreatedUtcTime: { $in: row.in } });
    const path = writeInput(input);
    const count = await runWith({}, "match", "--incidents", path, "--count", conditions);
    expect(count.out).toBe(row.count);
    for (const mode of MODES) {
      const text = await runWith({}, "match", "--incidents", path, "--reader", "text", ...mode, conditions);
      for (const threads of ["1", "2"]) {
        const args = ["--threads", threads, "--block-bytes", "40", ...mode, conditions];
        expect(await runWith({}, "match", "--incidents", path, ...args)).toEqual(text);
      }
      expect(
        await runWith({ stdin: chunked(input, 7) }, "match", "--incidents", "-", ...mode, conditions),
      ).toEqual(text);
    }
  });
});

describe("long lines cost work linear in the input (counts of bytes searched and copied)", () => {
  it("StreamLines searches each byte about once and copies a line cut by chunks once", () => {
    const table = [
      { line: 4 * 1024 * 1024, chunk: 1024, cap: 64 * 1024 * 1024 },
      { line: 1024 * 1024, chunk: 64 * 1024, cap: 64 * 1024 * 1024 },
      { line: 4 * 1024 * 1024, chunk: 1000, cap: 100_000 },
    ];
    for (const row of table) {
      const input = Buffer.concat([
        Buffer.from('{"a":1}\n'),
        Buffer.alloc(row.line, 0x61),
        Buffer.from('\n{"b":2}\n{"c":'),
        Buffer.alloc(row.line, 0x20),
        Buffer.from("3}\n"),
      ]);
      const lines = new StreamLines(row.cap);
      let judged = 0;
      let skipped = 0;
      let largestHeld = 0;
      for (let i = 0; i < input.length; i += row.chunk) {
        const cut = lines.push(input.subarray(i, i + row.chunk));
        for (const block of cut.blocks) judged += block.length;
        if (cut.overlong !== undefined) {
          const held = cut.overlong.reduce((n, piece) => n + piece.length, 0);
          largestHeld = Math.max(largestHeld, held);
          skipped++;
          // The caller skips the rest of the line: here, by dropping the bytes up to its `\n`.
          const rest = input.indexOf(10, i + row.chunk);
          i = Math.floor(rest / row.chunk) * row.chunk - row.chunk;
          const after = lines.push(input.subarray(rest + 1, Math.ceil((rest + 1) / row.chunk) * row.chunk));
          for (const block of after.blocks) judged += block.length;
          i += row.chunk;
        }
      }
      judged += lines.end()?.length ?? 0;
      const { searched, copied } = lines.work;
      expect({
        row,
        searchedPerByte: searched / input.length <= 2,
        copiedPerByte: copied / input.length <= 1,
      }).toEqual({
        row,
        searchedPerByte: true,
        copiedPerByte: true,
      });
      if (row.cap < row.line) {
        // Over the cap: the line is handed over, never held past the cap and a chunk.
        expect(skipped).toBe(2);
        expect(largestHeld).toBeLessThanOrEqual(row.cap + row.chunk);
      } else expect(judged).toBe(input.length);
    }
  });

  /** Bytes searched by `Buffer#indexOf`/`lastIndexOf` and copied by `Buffer.concat` while `run` runs. */
  async function countWork(run: () => Promise<unknown>): Promise<{ searched: number; copied: number }> {
    const work = { searched: 0, copied: 0 };
    const indexOf = Buffer.prototype.indexOf;
    const lastIndexOf = Buffer.prototype.lastIndexOf;
    const concat = Buffer.concat;
    vi.spyOn(Buffer.prototype, "indexOf").mockImplementation(function (this: Buffer, ...args: unknown[]) {
      const at = (indexOf as (...a: unknown[]) => number).apply(this, args);
      const from = typeof args[1] === "number" ? Math.max(0, args[1]) : 0;
      work.searched += (at < 0 ? this.length : at + 1) - from;
      return at;
    });
    vi.spyOn(Buffer.prototype, "lastIndexOf").mockImplementation(function (this: Buffer, ...args: unknown[]) {
      const at = (lastIndexOf as (...a: unknown[]) => number).apply(this, args);
      work.searched += this.length - Math.max(0, at);
      return at;
    });
    vi.spyOn(Buffer, "concat").mockImplementation((list, length) => {
      const out = concat(list, length);
      work.copied += out.length;
      return out;
    });
    try {
      await run();
    } finally {
      vi.restoreAllMocks();
    }
    return work;
  }
  afterEach(() => vi.restoreAllMocks());

  const long = 2 * 1024 * 1024;
  const table = [
    {
      name: "a long first line",
      lines: [`{"IncidentId":1,"Pad":"${"x".repeat(long)}"}`, '{"IncidentId":2}'],
    },
    {
      name: "a long later line",
      lines: ['{"IncidentId":1}', `{"IncidentId":2,"Pad":"${"x".repeat(long)}"}`],
    },
    {
      name: "a line over --max-line-length",
      lines: ['{"IncidentId":1}', `{"IncidentId":2,"Pad":"${"x".repeat(long)}"}`, '{"IncidentId":3}'],
      args: ["--max-line-length", "100000", "--skip-invalid"],
      count: 2,
    },
  ];
  it.each(table)("standard input and gzip in 1 KiB chunks: $name", async (row) => {
    const input = Buffer.from(`${row.lines.join("\n")}\n`);
    for (const bytes of [input, gzipSync(input)]) {
      const args = ["match", "--incidents", "-", "--count", ...(row.args ?? []), "{}"];
      let result: { code: number; out: string } | undefined;
      const work = await countWork(async () => {
        result = await runWith({ stdin: chunked(bytes, 1024) }, ...args);
      });
      expect(result?.out).toBe(`${row.count ?? row.lines.length}\n`);
      // Quadratic reading searched and copied about long²/(2·1 KiB) = 2 GiB here.
      expect({
        searched: work.searched <= 4 * input.length,
        copied: work.copied <= 4 * input.length,
      }).toEqual({
        searched: true,
        copied: true,
      });
    }
  });
});

describe("--skip-invalid skips a line of invalid UTF-8 like any invalid line, and goes on", () => {
  const good = (id: number) => `{"IncidentId":${id},"Status":"Open"}`;
  const bad = (id: number, bytes: number[]) =>
    Buffer.concat([Buffer.from(`{"IncidentId":${id},"Status":"Op`), Buffer.from(bytes), Buffer.from('en"}')]);
  /** Lines of the input (strings, or raw bytes for the invalid ones). */
  /** `invalid`: the lines of invalid UTF-8; `skipped`: the invalid records (default: those lines). */
  const table: {
    name: string;
    lines: (string | Buffer)[];
    found: number;
    invalid: number[];
    skipped?: number;
  }[] = [
    {
      name: "two invalid lines among valid ones",
      lines: [good(1), bad(2, [0xff]), good(3), bad(4, [0xe2, 0x82]), good(5)],
      found: 3,
      invalid: [2, 4],
    },
    {
      name: "an invalid line first (the text reader reads it all)",
      lines: [bad(1, [0xc3]), good(2), bad(3, [0xed, 0xa0, 0x80]), good(4)],
      found: 2,
      invalid: [1, 3],
    },
    {
      name: "an invalid last line without a line break, a sequence cut by the end",
      lines: [good(1), good(2), Buffer.from([0x7b, 0xf4, 0x90])],
      found: 2,
      invalid: [3],
    },
    {
      name: "a long invalid line and a BOM after the first line",
      lines: [
        good(1),
        Buffer.concat([Buffer.from(`{"Pad":"${"x".repeat(5000)}`), Buffer.from([0xff]), Buffer.from('"}')]),
        `\ufeff${good(3)}`,
        good(4),
        bad(5, [0xf4, 0x90, 0x80, 0x80]),
      ],
      found: 2,
      invalid: [2, 5],
      skipped: 3,
    },
  ];

  function inputOf(lines: (string | Buffer)[], trailing: boolean): Buffer {
    const parts: Buffer[] = [];
    lines.forEach((line, i) => {
      parts.push(typeof line === "string" ? Buffer.from(line) : line);
      if (i < lines.length - 1 || trailing) parts.push(Buffer.from("\n"));
    });
    return Buffer.concat(parts);
  }

  it.each(table)("$name: every reader, mode, thread count and input agree", async (row) => {
    const input = inputOf(row.lines, !Buffer.isBuffer(row.lines[row.lines.length - 1]));
    const path = writeInput(input);
    const gz = writeInput(gzipSync(input));
    for (const mode of MODES) {
      const args = [...mode, "--skip-invalid", '{"Status":"Open"}'];
      const text = await runWith({}, "match", "--incidents", path, "--reader", "text", ...args);
      expect(text.code).toBe(0);
      if (mode[0] === "--count") expect(text.out).toBe(`${row.found}\n`);
      for (const line of row.invalid)
        expect(text.err).toMatch(new RegExp(`line ${line}: not valid UTF-8 \\(byte \\d+ of the input\\)`));
      expect(text.err).toContain(`skipped ${row.skipped ?? row.invalid.length} invalid record`);
      const runs = [
        await runWith({}, "match", "--incidents", path, ...args),
        await runWith({}, "match", "--incidents", path, "--threads", "2", "--block-bytes", "64", ...args),
        await runWith({}, "match", "--incidents", path, "--max-line-length", "1000", ...args),
        await runWith({ stdin: chunked(input, 13) }, "match", "--incidents", "-", ...args),
        await runWith(
          { stdin: chunked(input, 13) },
          "match",
          "--incidents",
          "-",
          "--reader",
          "text",
          ...args,
        ),
      ];
      for (const run of runs.slice(0, 2)) expect(run).toEqual(text);
      // Over --max-line-length the long line is still named by its bad byte (it is not valid UTF-8).
      expect(runs[2]!.code).toBe(0);
      expect(runs[3]!.out).toBe(text.out);
      expect(runs[3]!.err.replaceAll("standard input", "X")).toBe(text.err.replaceAll(`'${path}'`, "X"));
      expect(runs[4]).toEqual(runs[3]);
      const zipped = await runWith({}, "match", "--incidents", gz, ...args);
      expect(zipped.out).toBe(text.out);
      expect(zipped.err.replaceAll(`'${gz}'`, "X")).toBe(text.err.replaceAll(`'${path}'`, "X"));
    }
  });

  it("without --skip-invalid, invalid UTF-8 still ends the input with its line and byte", async () => {
    const path = writeInput(inputOf(table[0]!.lines, true));
    for (const reader of ["bytes", "text"]) {
      const run = await runWith({}, "match", "--incidents", path, "--reader", reader, "--count", "{}");
      expect(run.code).toBe(65);
      expect(run.err).toMatch(/line 2 is not valid UTF-8 \(byte \d+ of the input\)/);
    }
  });
});
