/**
 * The line kernel's filter (assembly/line-kernel.ts `setFilter`; `BlockKernel.filter`, set by
 * `LineMatcher.loadRows`): a line whose plain ASCII value fails a byte test (an equality or `$in`, a date
 * range, a `$regex` literal) is judged in the kernel and gets no record. Held three ways on NDJSON whose
 * tested fields hold hostile values (instants of every form and impossible ones, bounds to the millisecond,
 * escapes, non-ASCII, numbers, containers, repeated keys, CRLF, a byte order mark, invalid UTF-8): the block
 * loop with the kernel against the JavaScript scanner alone (`BlockScanner` with no kernel, the reference),
 * block by block with a block boundary at every byte and a cut at every line boundary, in every mode; and
 * the count against `JSON.parse` with the duplicate-key rule then `evaluate` (docs/semantics.md 1.7,
 * "The byte reader").
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { countingKernel } from "../../test/support/counting-kernel.js";
import { fcOptions } from "../../test/support/fc.js";
import { badBytes, encoder } from "../../test/support/hostile-ndjson.js";
import { evaluate } from "../conditions/evaluate.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { BlockScanner, type MatchMode, overlongBytes, type ScanOptions } from "./block-scanner.js";
import { blockCount, FileBlocks } from "./file-blocks.js";
import { MATCH_RULES, parseRecord } from "./record-rules.js";

const { counting, seen } = countingKernel();

/** Instants around the bounds of `CONDITIONS`, in both forms, and strings that are no instant. */
const DATES = [
  "2024-03-01T00:00:00Z",
  "2024-03-01T00:00:00.000Z",
  "2024-03-01T00:00:00.001Z",
  "2024-02-29T23:59:59.999Z",
  "2024-02-29T23:59:59Z",
  "2024-04-01T00:00:00Z",
  "2024-03-31T23:59:59.999Z",
  "2024-04-01T00:00:00.001Z",
  "2024-03-15T12:34:56Z",
  "2024-01-01T00:00:00Z",
  "2024-07-01T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "0000-02-29T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "2000-02-29T00:00:00Z",
  "1900-02-29T00:00:00Z",
  "2023-02-29T00:00:00Z",
  "2024-02-30T00:00:00Z",
  "2024-04-31T00:00:00Z",
  "2024-13-01T00:00:00Z",
  "2024-00-10T00:00:00Z",
  "2024-03-00T00:00:00Z",
  "2024-03-01T24:00:00Z",
  "2024-03-01T23:60:00Z",
  "2024-03-01T23:59:60Z",
  "2024-03-01 00:00:00Z",
  "2024-03-01T00:00:00z",
  "2024-03-01T00:00:00.5Z",
  "2024-03-01T00:00:00.50Z",
  "2024-03-01T00:00:00,000Z",
  "2024-03-01T00:00:00.0a0Z",
  "2024-03-01T00:00:00+00:00",
  "2024-3-01T00:00:00Z",
  "2024-03-15T12:00:00Z ",
  "x024-03-15T12:00:00Z",
  "2024-03-15",
  "",
];

/** Labels and titles, plain ASCII. */
const WORDS = [
  '"Open"',
  '"Closed"',
  '"open"',
  '"Open "',
  '"Ope"',
  '"Phishing"',
  '"Malware"',
  '"Webhook"',
  '"Schedule Job"',
  '"High"',
  '"Critical"',
  '"Ransomware"',
  '"ransomware"',
  '"RANSOMWARE on host-1"',
  '"a ransomware title, past sixteen bytes of the vector loop"',
  '"a phishing title, past sixteen bytes and thirty-two bytes of it"',
  '"ransomwar"',
  '"ansomware"',
  '"r"',
  '"ransomware"',
  '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxransomware"',
  '"ransomwareransomware"',
  '"RansomWare"',
];

/** Values the kernel leaves to the JavaScript side: escapes, non-ASCII, other JSON. */
const OTHERS = [
  '"\\u004fpen"',
  '"Op\\u0065n"',
  '"2024-03-15T12:34:56\\u005a"',
  '"ransom\\u0077are"',
  '"ransomware é"',
  '"Öpen"',
  '"２０２４-03-15T12:34:56Z"',
  '"\\ud800"',
  '"\\u0000"',
  "1709294400000",
  "-0",
  "1e400",
  "null",
  "true",
  '["Open"]',
  '{"Status":"Open"}',
  '["2024-03-15T12:34:56Z"]',
];

/** Values of the tested fields: labels, titles, instants (plain, escaped, non-ASCII) and other JSON. */
const value = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...DATES).map((date) => JSON.stringify(date)) },
  { weight: 8, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 4, arbitrary: fc.constantFrom(...OTHERS) },
);

const KEYS = ["Status", "Type", "Title", "CreatedUtcTime", "IngestionType", "Severity", "IncidentId", "n"];

/** A line: an object of the keys (sometimes repeated), perhaps with a byte order mark, a CR, bad bytes. */
const line = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...KEYS), value), { maxLength: 7 }),
    fc.constantFrom("", "", "", "", "\ufeff", " "),
    fc.constantFrom("", "", "\r", " \r"),
    fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, fc.tuple(fc.nat(), fc.constantFrom(...badBytes))),
  )
  .map(([members, before, after, splice]) => {
    let bytes = encoder.encode(`${before}{${members.map(([k, v]) => `"${k}":${v}`).join(",")}}${after}`);
    if (splice !== null) {
      const at = splice[0] % (bytes.length + 1);
      bytes = new Uint8Array([...bytes.subarray(0, at), ...splice[1], ...bytes.subarray(at)]);
    }
    return bytes;
  });

const ndjson = fc.tuple(fc.array(line, { minLength: 1, maxLength: 6 }), fc.boolean()).map(([lines, last]) => {
  const parts: number[] = [];
  lines.forEach((bytes, i) => {
    parts.push(...bytes);
    if (i < lines.length - 1 || last) parts.push(10);
  });
  return new Uint8Array(parts);
});

const march = { $gte: { $date: "2024-03-01T00:00:00Z" }, $lt: { $date: "2024-04-01T00:00:00Z" } };

/** Conditions whose byte tests the kernel makes (and some it must leave to the JavaScript side). */
const CONDITIONS: unknown[] = [
  { Status: "Open" },
  { Status: "Open", Type: { $in: ["Phishing", "Malware"] } },
  { Status: "Open|Closed" },
  { Title: { $in: ["Open", "Öpen", "", "ransomware"] } },
  { CreatedUtcTime: march },
  { CreatedUtcTime: { $gt: { $date: "2024-03-01T00:00:00Z" }, $lte: { $date: "2024-04-01T00:00:00Z" } } },
  {
    CreatedUtcTime: {
      $gt: { $date: "2024-02-29T23:59:59.999Z" },
      $lt: { $date: "2024-03-01T00:00:00.001Z" },
    },
  },
  { CreatedUtcTime: { $gte: { $date: "2024-03-01T00:00:00.001Z" } } },
  { CreatedUtcTime: { $lt: { $date: "2024-03-01T00:00:00Z" } } },
  {
    CreatedUtcTime: { $gte: { $date: "0000-01-01T00:00:00Z" }, $lte: { $date: "9999-12-31T23:59:59.999Z" } },
  },
  { CreatedUtcTime: { $gt: { $date: "9999-12-31T23:59:59.999Z" } } },
  { CreatedUtcTime: { $date: "2024-03-01T00:00:00Z" } },
  { CreatedUtcTime: { $in: [{ $date: "2024-03-01T00:00:00Z" }, { $date: "2024-03-15T12:34:56Z" }] } },
  { Title: { $regex: "ransomware" } },
  { Title: { $regex: "RansomWare", $options: "i" } },
  { Title: { $regex: "^ransomware" } },
  { Title: { $regex: "ransomware$" } },
  { Title: { $regex: "r" } },
  { Title: { $regex: "é" } },
  { Title: { $regex: "ransomware" }, Status: { $ne: "Closed" } },
  {
    IngestionType: "Webhook|Schedule Job",
    Title: { $regex: "phishing" },
    Severity: { $in: ["High", "Critical"] },
    CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" }, $lt: { $date: "2024-07-01T00:00:00Z" } },
  },
  { $or: [{ Status: "Open" }, { Title: { $regex: "ransomware" } }] },
  { Status: { $ne: "Open" } },
];

const dir = mkdtempSync(join(tmpdir(), "iq-kernel-filter-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

interface Case {
  readonly b: Uint8Array;
  readonly condition: unknown;
  readonly options: ScanOptions;
}

const cases = fc.record({
  b: ndjson,
  condition: fc.constantFrom(...CONDITIONS),
  options: fc.record({
    mode: fc.constantFrom<MatchMode>("count", "first", "all"),
    maxLineLength: fc.constantFrom(16, 40, 64, 1_000_000),
    maxErrors: fc.constantFrom(1, 100),
    skipInvalid: fc.boolean(),
  }),
});

/** The matches of `b` by `JSON.parse` (with the duplicate-key rule) then `evaluate`, line by line. */
function parsedMatches(b: Uint8Array, condition: unknown): number {
  const parsed = parseSearchConditions(condition);
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let found = 0;
  let start = 0;
  while (start <= b.length) {
    let end = b.indexOf(10, start);
    if (end < 0) end = b.length;
    let e = end;
    if (e > start && b[e - 1] === 13) e--;
    try {
      const item = parseRecord(strict.decode(b.subarray(start, e)), 1, 1);
      const value = item.ok ? item.value : undefined;
      if (typeof value === "object" && value !== null && !Array.isArray(value) && evaluate(parsed, value))
        found++;
    } catch {
      // Invalid UTF-8: no match.
    }
    start = end + 1;
  }
  return found;
}

describe("the line kernel's filter, against the JavaScript scanner and JSON.parse", () => {
  it("gives every block the same result, a block boundary at every byte and a cut at every line", () => {
    const before = { ...seen };
    fc.assert(
      fc.property(cases, (c: Case) => {
        const condition = parseSearchConditions(c.condition);
        const withKernel = new BlockScanner(condition, c.options, MATCH_RULES, counting);
        const reference = new BlockScanner(condition, c.options, MATCH_RULES, null);
        const text = JSON.stringify(new TextDecoder().decode(c.b));
        // The whole buffer, at an offset in a larger one, cut in two at every line boundary.
        const at = 3;
        const big = new Uint8Array(c.b.length + 2 * at).fill(0x7b);
        big.set(c.b, at);
        for (let cut = at; cut <= at + c.b.length; cut++) {
          if (cut > at && big[cut - 1] !== 10) continue;
          for (const [from, to] of [
            [at, cut],
            [cut, at + c.b.length],
          ] as const)
            expect(withKernel.scan(big, from, to, 7), `${from - at}..${to - at} of ${text}`).toEqual(
              reference.scan(big, from, to, 7),
            );
        }
        // As a file read in blocks of every size.
        const path = join(dir, `case-${files++}.ndjson`);
        writeFileSync(path, c.b);
        const cap = overlongBytes(c.options.maxLineLength);
        for (let blockBytes = 1; blockBytes <= c.b.length; blockBytes++) {
          const plan = { path, from: 0, size: c.b.length, blockBytes };
          const mine = new FileBlocks(plan, withKernel, cap, c.options.skipInvalid);
          const theirs = new FileBlocks(plan, reference, cap, c.options.skipInvalid);
          try {
            for (let i = 0; i < blockCount(plan); i++)
              expect(mine.judge(i), `block ${i} of ${blockBytes} bytes of ${text}`).toEqual(theirs.judge(i));
          } finally {
            mine.close();
            theirs.close();
          }
        }
        rmSync(path);
        // Counted as JSON.parse and `evaluate` count (every invalid line is a problem, not a match).
        if (c.options.maxLineLength === 1_000_000 && c.options.skipInvalid) {
          const whole = withKernel.scan(c.b, 0, c.b.length, 0);
          expect(whole.found, text).toBe(parsedMatches(c.b, c.condition));
        }
      }),
      fcOptions(120),
    );
    // The filter judged lines itself, and left others to the JavaScript side.
    expect(seen.skipped - before.skipped).toBeGreaterThan(100);
    expect(seen.rows - before.rows).toBeGreaterThan(100);
  });

  it("gives every value of every tested field the same answer, for every condition (a table)", () => {
    const values = [...DATES.map((date) => JSON.stringify(date)), ...WORDS, ...OTHERS];
    const lines: string[] = [];
    for (const key of KEYS) for (const v of values) lines.push(`{"${key}":${v}}`);
    // The spec sample's fields together, one value of each kind in turn.
    values.forEach((v, i) => {
      const w = values[(i * 7) % values.length]!;
      lines.push(`{"IngestionType":"Webhook","Title":${v},"Severity":"High","CreatedUtcTime":${w}}`);
      lines.push(`{"Status":"Open","Type":${v},"Title":"phishing ${i}","CreatedUtcTime":${v}}\r`);
    });
    const b = encoder.encode(lines.join("\n"));
    for (const condition of CONDITIONS) {
      const parsed = parseSearchConditions(condition);
      for (const mode of ["count", "all"] as const) {
        const options: ScanOptions = { mode, maxLineLength: 1_000_000, maxErrors: 1000, skipInvalid: false };
        const got = new BlockScanner(parsed, options, MATCH_RULES, counting).scan(b, 0, b.length, 0);
        const want = new BlockScanner(parsed, options, MATCH_RULES, null).scan(b, 0, b.length, 0);
        expect(got, JSON.stringify(condition)).toEqual(want);
        expect(got.found, JSON.stringify(condition)).toBe(parsedMatches(b, condition));
      }
    }
  });

  it("judges in the kernel the lines whose tested values fail, and counts them in order", () => {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const day = String(1 + (i % 28)).padStart(2, "0");
      const month = String(1 + (i % 12)).padStart(2, "0");
      lines.push(
        i % 1000 === 999
          ? "not json"
          : `{"IncidentId":${i},"Status":"${i % 3 === 0 ? "Open" : "Closed"}","Type":"${i % 5 === 0 ? "Malware" : "Other"}","Title":"title ${i}${i % 7 === 0 ? " ransomware" : ""}","CreatedUtcTime":"2024-${month}-${day}T00:00:00Z"}`,
      );
    }
    const b = encoder.encode(`${lines.join("\n")}\n`);
    for (const condition of CONDITIONS) {
      for (const mode of ["count", "first", "all"] as const) {
        const options: ScanOptions = { mode, maxLineLength: 1_000_000, maxErrors: 3, skipInvalid: false };
        const parsed = parseSearchConditions(condition);
        const before = seen.skipped;
        const got = new BlockScanner(parsed, options, MATCH_RULES, counting).scan(b, 0, b.length, 0);
        const want = new BlockScanner(parsed, options, MATCH_RULES, null).scan(b, 0, b.length, 0);
        expect(got, JSON.stringify(condition)).toEqual(want);
        if (mode === "count") expect(got.found).toBe(parsedMatches(b, condition));
        // Labels, a month and a literal: most lines are judged in the kernel.
        if (condition === CONDITIONS[1] || condition === CONDITIONS[4] || condition === CONDITIONS[14])
          expect(seen.skipped - before).toBeGreaterThan(5000);
      }
    }
  });
});
