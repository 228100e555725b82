/**
 * The byte reader of `match` (docs/cli.md, "Fast path") against the text reader, which parses
 * every record with `JSON.parse` (`--reader text`): on hostile NDJSON (escaped and repeated keys, keys in
 * nested objects and inside strings, `\u0000`, surrogates, CRLF, blank and white lines, byte order marks,
 * numbers in every JSON form, invalid lines, lines over `--max-line-length`, invalid UTF-8), for every mode
 * (`--count`, the first match, `--all`, `--limit`) and the problem options, both runs print the same bytes
 * on stdout and stderr and exit with the same code. In this thread (files and standard input cut anywhere)
 * and, through the built executable, in worker threads over blocks of a few bytes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fcOptions } from "../support/fc.js";
import { runWith } from "../support/run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "iq-match-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Valid incident lines, in several spellings. */
const VALID = [
  '{"IncidentId":1,"Status":"Open","Type":"Phishing","CreatedUtcTime":"2024-03-02T10:00:00Z","Title":"Phishing mail"}',
  '{"IncidentId":2,"Status":"Closed","Type":"Malware","CreatedUtcTime":"2024-01-02T10:00:00Z","Title":"ransomware found"}',
  '{"IncidentId":3,"Status":"Open","Type":"Malware","CreatedUtcTime":"2023-12-31T23:59:59Z","Title":"Ransomware"}',
  '{ "IncidentId" : 4 , "Status" : "Open" , "Type" : "Phishing" , "CreatedUtcTime" : "2024-03-02T10:00:00.000Z" }',
  '{"Type":"Phishing","Status":"Open","IncidentId":5e0,"CreatedUtcTime":"2024-03-02T10:00:00Z"}',
  '{"IncidentId":-0,"Status":"Open","Type":"Phishing"}',
  '{"IncidentId":10000000000000000000,"Status":"Open","Type":"Malware","CreatedUtcTime":"2024-02-30T00:00:00Z"}',
  '{"IncidentId":"7","Status":"Open","Type":"Phishing","CreatedUtcTime":"2024-03-02T10:00:00+01:00"}',
  '{"IncidentId":8.5,"Status":["Open","Closed"],"Type":null}',
  '{"IncidentId":9,"Status":"\\u004fpen","Type":"Ph\\u0069shing","Title":"\\ud83d\\ude00 phishing"}',
  '{"IncidentId":10,"St\\u0061tus":"Open","Type":"Phishing"}',
  '{"IncidentId":11,"x":{"Status":"Open","Type":"Phishing"},"y":"\\"Status\\":\\"Open\\""}',
  '{"IncidentId":12,"Status":"Öpen","Title":"фишинг ransomware","Type":"Malware"}',
  '{"IncidentId":13,"Status":"Open\\u0000","Type":"Phishing","Title":"\\ud800"}',
  '{"IncidentId":14,"Status":"Open","Type":"Phishing","Custom":{"Owner":"a","Deep":[[[[{"k":[1,{"z":null}]}]]]]}}',
  '{"IncidentId":15,"Status":"Open","Type":"Phishing","CreatedUtcTime":null,"Title":true}',
  '{"IncidentId":16,"Status":123,"Type":{"$in":"x"},"CreatedUtcTime":1704067200000}',
  "{}",
  '{"IncidentId":18,"Status":"Open","Type":"Phishing","CreatedUtcTime":"2024-01-01T00:00:00Z"}',
  '{"IncidentId":19,"Status":"Open","Type":"Malware","CreatedUtcTime":"2024-04-01T00:00:00.000Z"}',
  '{"IncidentId":17,"Status":"Open","Type":"Malware","Title":"Phishing \\t tab","CreatedUtcTime":"2024-05-05T05:05:05Z"}\t ',
];
/** Lines that are no valid incident, or no record at all. */
const HOSTILE = [
  "",
  "   ",
  "\t",
  "\u00a0",
  "\ufeff",
  '\ufeff{"IncidentId":20,"Status":"Open"}',
  '{"IncidentId":21,"Status":"Closed","Status":"Open"}',
  '{"IncidentId":22,"x":{"a":1,"a":2},"Status":"Open"}',
  '{"IncidentId":23,"Status":"Open"',
  "garbage",
  "[1,2]",
  "5",
  "null",
  '"text"',
  '{"IncidentId":24,"Status":"Op\nen"}',
  '{"IncidentId":25,"Status":"Open",}',
  '{"IncidentId":26,"Status":"Open"} {"IncidentId":27}',
  '{"IncidentId":28,"Status":"Open","Note":"\\x"}',
  `{"IncidentId":29,"Status":"Open","Type":"Phishing","Pad":"${"p".repeat(300)}"}`,
  `{"IncidentId":30,"Status":"Open","Type":"Phishing","Pad":"${"é".repeat(150)}"}`,
  '{"IncidentId":31,"Status":"Open","Type":"Phishing","n":01}',
  '{"IncidentId":32,"Status":"Open","Type":"Phishing","n":1.}',
  '{"IncidentId":33,"Status":"Open","Type":"Phishing","n":-}',
  '{"IncidentId":34,"Status":"Open","t":tru}',
  '{"sites":[],"users":[]}',
];

const CONDITIONS = [
  { Status: "Open" },
  { Status: "Open", Type: { $in: ["Phishing", "Malware"] } },
  { CreatedUtcTime: { $gte: { $date: "2024-01-01T00:00:00Z" }, $lt: { $date: "2024-04-01T00:00:00Z" } } },
  { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" }, $lte: { $date: "2024-04-01T00:00:00Z" } } },
  { Title: { $regex: "ransomware" } },
  { Title: { $regex: "phish", $options: "i" }, Status: { $ne: "Closed" } },
  { "x.Status": "Open" },
  { "Custom.Owner": { $exists: true } },
  { Type: null },
  { IncidentId: { $gt: 3 } },
  [{ Status: "Closed" }, { Type: "Phishing" }],
  { Status: { $type: "array" } },
  { IncidentId: { $mod: [2, 1] } },
  { Status: { $elemMatch: { $eq: "Open" } } },
  { "Custom.Deep": { $elemMatch: { $type: "array" } } },
];

const MODES: string[][] = [
  ["--count"],
  [],
  ["--all"],
  ["--all", "--limit", "2"],
  ["--count", "--skip-invalid"],
  ["--all", "--skip-invalid", "--max-errors", "1"],
  ["--skip-invalid", "--max-errors", "0"],
];

/** The lines as one NDJSON text, with `\n` or `\r\n` ends and, or not, a last line break. */
function ndjson(lines: readonly string[], crlf: boolean, trailing: boolean): Buffer {
  const text = lines.join(crlf ? "\r\n" : "\n") + (trailing ? (crlf ? "\r\n" : "\n") : "");
  return Buffer.from(text, "utf8");
}

function writeInput(bytes: Uint8Array): string {
  const path = join(dir, `input-${files++}.ndjson`);
  writeFileSync(path, bytes);
  return path;
}

/** Standard input delivering `bytes` in chunks cut at `cuts` (fractions of the length). */
function stdinOf(bytes: Buffer, cuts: readonly number[]): NodeJS.ReadableStream {
  const points = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const point of points) {
    if (point > at) chunks.push(bytes.subarray(at, point));
    at = Math.max(at, point);
  }
  chunks.push(bytes.subarray(at));
  return Readable.from(chunks.filter((c) => c.length > 0));
}

const MAX_LINE = ["--max-line-length", "200"];

async function bothReaders(
  input: Buffer,
  conditions: unknown,
  mode: readonly string[],
  cuts: readonly number[],
): Promise<void> {
  const path = writeInput(input);
  const args = ["match", ...MAX_LINE, ...mode, JSON.stringify(conditions)];
  const text = await runWith(
    {},
    ...args.slice(0, 1),
    "--incidents",
    path,
    "--reader",
    "text",
    ...args.slice(1),
  );
  const bytes = await runWith({}, ...args.slice(0, 1), "--incidents", path, ...args.slice(1));
  expect(bytes).toEqual(text);
  const piped = await runWith({ stdin: stdinOf(input, cuts) }, "match", "--incidents", "-", ...args.slice(1));
  const pipedText = await runWith(
    { stdin: stdinOf(input, []) },
    "match",
    "--incidents",
    "-",
    "--reader",
    "text",
    ...args.slice(1),
  );
  expect(piped).toEqual(pipedText);
}

describe("match: the byte reader answers as the text reader", () => {
  it("on every valid and hostile line after a valid first record, in every mode", async () => {
    const lines = [VALID[0]!, ...VALID.slice(1), ...HOSTILE, ...VALID];
    for (const conditions of CONDITIONS) {
      for (const mode of MODES) await bothReaders(ndjson(lines, false, true), conditions, mode, [0.31, 0.5]);
    }
  });

  it("with CRLF and without a last line break", async () => {
    const lines = [VALID[1]!, ...HOSTILE.slice(0, 12), ...VALID];
    for (const conditions of CONDITIONS.slice(0, 4)) {
      await bothReaders(ndjson(lines, true, false), conditions, ["--all"], [0.2, 0.21, 0.9]);
      await bothReaders(ndjson(lines, true, true), conditions, [], [0.5]);
    }
  });

  it("when the first record is no incident line (the text reader reads it all)", async () => {
    for (const first of ["[", '{"sites":[]}', "{", "garbage", '{"a":1,"a":2}', "\ufeff\ufeff{}", "5"]) {
      await bothReaders(
        ndjson([first, ...VALID.slice(0, 3)], false, true),
        CONDITIONS[0],
        ["--count"],
        [0.5],
      );
      await bothReaders(ndjson([first, ...VALID.slice(0, 3)], false, true), CONDITIONS[0], ["--all"], [0.1]);
    }
  });

  it("a byte order mark that begins the input is dropped, as the text reader drops it", async () => {
    const input = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ndjson(VALID, false, true)]);
    for (const mode of MODES) await bothReaders(input, CONDITIONS[1], mode, [0.0001, 0.5]);
  });

  it("invalid UTF-8 ends the input with the same message; --all has printed the matches before its line", async () => {
    const bad = [
      Buffer.from([0xff]),
      Buffer.from([0xc3]),
      Buffer.from([0xe2, 0x82]),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from([0xf4, 0x90, 0x80, 0x80]),
    ];
    const good = ndjson(VALID.slice(0, 4), false, true);
    for (const b of bad) {
      for (const where of ["value", "line", "long"]) {
        const middle =
          where === "value"
            ? Buffer.concat([Buffer.from('{"IncidentId":40,"Status":"Op'), b, Buffer.from('en"}\n')])
            : where === "line"
              ? Buffer.concat([b, Buffer.from("\n")])
              : Buffer.concat([Buffer.from(`{"Pad":"${"x".repeat(900)}`), b, Buffer.from('"}\n')]);
        const input = Buffer.concat([good, middle, good]);
        for (const mode of [["--count"], ["--all"], []]) {
          const args = [...MAX_LINE, ...mode, JSON.stringify(CONDITIONS[0])];
          const path = writeInput(input);
          const bytes = await runWith({}, "match", "--incidents", path, ...args);
          const text = await runWith({}, "match", "--incidents", path, "--reader", "text", ...args);
          expect({ code: bytes.code, err: bytes.err }).toEqual({ code: text.code, err: text.err });
          expect(bytes.code).toBe(65);
          // The text reader decodes a chunk at a time (what it printed depends on where chunks end); the
          // byte reader prints every match of the lines before the bad one, wherever the chunks end.
          const before = await runWith(
            {},
            "match",
            "--incidents",
            writeInput(good),
            "--reader",
            "text",
            ...args,
          );
          expect(bytes.out).toBe(mode[0] === "--all" ? before.out : "");
          const piped = await runWith(
            { stdin: stdinOf(input, [0.3, 0.6]) },
            "match",
            "--incidents",
            "-",
            ...args,
          );
          expect(piped).toEqual({
            ...bytes,
            err: bytes.err.replace(`'${path}'`, "standard input").replace("Standard", "standard"),
          });
        }
      }
    }
  });

  it("fast-check: random lines from the pools, random cuts (seed printed on failure)", async () => {
    const line = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...VALID) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE) },
      {
        weight: 1,
        arbitrary: fc
          .record({ s: fc.string({ unit: "binary", maxLength: 12 }), id: fc.integer() })
          .map(({ s, id }) => JSON.stringify({ IncidentId: id, Status: s, Title: s })),
      },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...VALID.slice(0, 5)),
        fc.array(line, { maxLength: 30 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(...CONDITIONS),
        fc.constantFrom(...MODES),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
        async (first, rest, crlf, trailing, conditions, mode, cuts) => {
          await bothReaders(ndjson([first, ...rest], crlf, trailing), conditions, mode, cuts);
        },
      ),
      fcOptions(60),
    );
  });
});

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

function runBuilt(args: readonly string[]): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", timeout: 300_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe.skipIf(!existsSync(MAIN))(
  "match: worker threads over blocks of a file (the built executable)",
  () => {
    it("answers as the text reader with blocks smaller than a line, and with long lines past the blocks, with 1 to 3 threads", () => {
      const lines: string[] = [VALID[0]!];
      for (let i = 0; i < 40; i++) lines.push(...VALID, ...HOSTILE.filter((l) => !l.includes("\n")));
      lines.push(`{"IncidentId":99,"Pad":"${"y".repeat(5000)}","Status":"Open"}`, ...VALID);
      const path = writeInput(ndjson(lines, false, false));
      for (const conditions of CONDITIONS.slice(0, 3)) {
        for (const mode of [
          ["--count"],
          [],
          ["--all"],
          ["--all", "--limit", "7"],
          ["--skip-invalid", "--max-errors", "1"],
        ]) {
          const args = ["match", "--incidents", path, ...MAX_LINE, ...mode, JSON.stringify(conditions)];
          const text = runBuilt([...args, "--reader", "text"]);
          // This thread and one worker; for the first conditions also one thread (this one, by position)
          // and this one with two workers.
          const variants =
            conditions === CONDITIONS[0]
              ? ([
                  ["1", "64"],
                  ["2", "64"],
                  ["2", "70000"],
                  ["3", "64"],
                ] as const)
              : ([
                  ["2", "64"],
                  ["2", "70000"],
                ] as const);
          for (const [threads, block] of variants) {
            expect(runBuilt([...args, "--threads", threads, "--block-bytes", block])).toEqual(text);
          }
        }
      }
    }, 300_000);

    it("invalid UTF-8 in a later block is named at its line and byte", () => {
      const good = ndjson(
        Array.from({ length: 200 }, (_, i) => VALID[i % 5]!),
        false,
        true,
      );
      const path = writeInput(Buffer.concat([good, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]), good]));
      const goodPath = writeInput(good);
      for (const mode of [["--count"], ["--all"], []]) {
        const args = [...mode, '{"Status":"Open"}'];
        const threads = runBuilt([
          "match",
          "--incidents",
          path,
          ...args,
          "--threads",
          "2",
          "--block-bytes",
          "512",
        ]);
        const text = runBuilt(["match", "--incidents", path, ...args, "--reader", "text"]);
        expect({ code: threads.code, err: threads.err }).toEqual({ code: text.code, err: text.err });
        expect(threads.err).toContain("line 201 is not valid UTF-8 (byte");
        const before = runBuilt(["match", "--incidents", goodPath, ...args, "--reader", "text"]);
        expect(threads.out).toBe(mode[0] === "--all" ? before.out : "");
      }
    });
  },
);
