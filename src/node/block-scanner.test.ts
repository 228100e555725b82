/**
 * The block loop driven by the line kernel's records (`BlockScanner.scan` with the kernel: one pass over
 * its line records, lines it leaves to the JavaScript scanner judged as before) held to the JavaScript
 * scanner alone (`BlockScanner` with no kernel, the reference): hostile NDJSON (test/support/
 * hostile-ndjson.ts) read as a regular file in blocks of every size from one byte to the whole input, so
 * that a block boundary falls at every byte (`FileBlocks`, which reads the blocks straight into the
 * kernel's memory), and as a buffer cut at every line boundary (the block copied into the kernel), in every
 * mode, with and without `skipInvalid`, short and long line limits. Every block's result (lines, records,
 * matches, the first match, problems with their positions and words, where invalid UTF-8 stops the input)
 * must be the same, field for field (docs/semantics.md 1.7, "The byte reader").
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { countingKernel } from "../../test/support/counting-kernel.js";
import { fcOptions } from "../../test/support/fc.js";
import { encoder, ndjsonBytes } from "../../test/support/hostile-ndjson.js";
import { parseSearchConditions } from "../conditions/parse.js";
import {
  type BlockResult,
  BlockScanner,
  type MatchMode,
  overlongBytes,
  type ScanOptions,
} from "./block-scanner.js";
import { blockCount, FileBlocks } from "./file-blocks.js";
import { MATCH_RULES } from "./record-rules.js";

const { counting, seen } = countingKernel();

/** Conditions on the fields the hostile lines hold: byte tests that decide, that do not, and none. */
const CONDITIONS = [
  { Status: "Open" },
  { Status: { $in: ["Open", "Closed"] }, n: { $gte: 0 } },
  { Title: { $regex: "long" } },
  { Title: { $regex: "LONG", $options: "i" } },
  { Title: { $regex: "^title 1" } },
  { Status: { $ne: "Closed" } },
  {},
];

const dir = mkdtempSync(join(tmpdir(), "iq-block-scanner-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

interface Case {
  readonly b: Uint8Array;
  readonly condition: unknown;
  readonly options: ScanOptions;
}

function scanners(c: Case): [BlockScanner, BlockScanner] {
  const condition = parseSearchConditions(c.condition);
  return [
    new BlockScanner(condition, c.options, MATCH_RULES, counting),
    new BlockScanner(condition, c.options, MATCH_RULES, null),
  ];
}

/** Every block of `c.b` as a file read in blocks of `blockBytes`, by the kernel's loop and the reference. */
function compareFileBlocks(c: Case, path: string, withKernel: BlockScanner, reference: BlockScanner): void {
  const cap = overlongBytes(c.options.maxLineLength);
  for (let blockBytes = 1; blockBytes <= Math.max(1, c.b.length); blockBytes++) {
    const plan = { path, from: 0, size: c.b.length, blockBytes };
    const mine = new FileBlocks(plan, withKernel, cap, c.options.skipInvalid);
    const theirs = new FileBlocks(plan, reference, cap, c.options.skipInvalid);
    try {
      for (let i = 0; i < blockCount(plan); i++) {
        const where = `block ${i} of ${blockBytes} bytes of ${JSON.stringify(new TextDecoder().decode(c.b))}`;
        expect(mine.judge(i), where).toEqual(theirs.judge(i));
      }
    } finally {
      mine.close();
      theirs.close();
    }
  }
}

/** `c.b` at an offset in a larger buffer, cut in two at every line boundary, by both. */
function compareCuts(c: Case, withKernel: BlockScanner, reference: BlockScanner): void {
  const at = 5;
  const big = new Uint8Array(c.b.length + 2 * at).fill(0x7b);
  big.set(c.b, at);
  const end = at + c.b.length;
  for (let cut = at; cut <= end; cut++) {
    if (cut > at && big[cut - 1] !== 10) continue;
    for (const [from, to] of [
      [at, cut],
      [cut, end],
    ] as const) {
      const where = `${from - at}..${to - at} of ${JSON.stringify(new TextDecoder().decode(c.b))}`;
      expect(withKernel.scan(big, from, to, 100), where).toEqual(reference.scan(big, from, to, 100));
    }
  }
}

const cases = fc.record({
  b: ndjsonBytes,
  condition: fc.constantFrom(...CONDITIONS),
  options: fc.record({
    mode: fc.constantFrom<MatchMode>("count", "first", "all"),
    maxLineLength: fc.constantFrom(8, 16, 24, 32, 1_000_000),
    maxErrors: fc.constantFrom(1, 100),
    skipInvalid: fc.boolean(),
  }),
});

describe("the block loop on the kernel's line records, against the JavaScript scanner", () => {
  it("gives every block the same result on hostile NDJSON, a block boundary at every byte", () => {
    const before = { ...seen };
    fc.assert(
      fc.property(cases, (c) => {
        const path = join(dir, `case-${files++}.ndjson`);
        writeFileSync(path, c.b);
        const [withKernel, reference] = scanners(c);
        compareFileBlocks(c, path, withKernel, reference);
        compareCuts(c, withKernel, reference);
        rmSync(path);
      }),
      fcOptions(150),
    );
    // The kernel read lines itself (most hostile lines are not JSON objects of valid UTF-8: about one line
    // in nine is read by it), in place and from copies; else this would hold the scanner to itself.
    expect(seen.ok - before.ok).toBeGreaterThan((seen.rows - before.rows) / 20);
    expect(seen.inPlace - before.inPlace).toBeGreaterThan(0);
    expect(seen.copied - before.copied).toBeGreaterThan(0);
  });

  /** Many lines: past one batch of the kernel's records, a block's last line read past its end. */
  const line = (i: number): string =>
    i % 97 === 0
      ? ""
      : i % 89 === 0
        ? '{"Status":"Open","Status":"Closed"}'
        : i % 83 === 0
          ? `{"Status":"Open","Title":"\u0001 ${i}"}`
          : i % 79 === 0
            ? ' {"Sta\\u0074us" : "Open", "n": 1}\r'
            : `{"IncidentId":${i},"Status":"${i % 3 === 0 ? "Open" : "Closed"}","Title":"title ${i}${i % 7 === 0 ? " long" : ""}","n":${i % 5},"CreatedUtcTime":"2024-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z"}`;
  const text = Array.from({ length: 12_000 }, (_, i) => line(i)).join("\n");
  // The byte 0x01 becomes 0xFF: a line of invalid UTF-8 every 83 lines.
  const b = encoder.encode(text).map((byte) => (byte === 1 ? 0xff : byte));

  // Lines are 98 to 109 bytes: a limit of 104 characters makes some of them too long.
  it.each([
    ["count", false, 1_000_000],
    ["first", true, 1_000_000],
    ["all", true, 1_000_000],
    ["count", true, 104],
    ["all", false, 104],
  ] as const)(
    "gives the same blocks on %s over 12,000 lines (skipInvalid %s, lines of at most %i characters)",
    (mode, skipInvalid, maxLineLength) => {
      const path = join(dir, `many-${mode}.ndjson`);
      writeFileSync(path, b);
      const skipped = seen.skipped;
      for (const condition of CONDITIONS) {
        const c: Case = { b, condition, options: { mode, maxLineLength, maxErrors: 5, skipInvalid } };
        const [withKernel, reference] = scanners(c);
        for (const blockBytes of [4096, 100_000, b.length]) {
          const plan = { path, from: 0, size: b.length, blockBytes };
          const mine = new FileBlocks(plan, withKernel, overlongBytes(maxLineLength), skipInvalid);
          const theirs = new FileBlocks(plan, reference, overlongBytes(maxLineLength), skipInvalid);
          const all: [BlockResult[], BlockResult[]][] = [];
          for (let i = 0; i < blockCount(plan); i++) all.push([mine.judge(i), theirs.judge(i)]);
          mine.close();
          theirs.close();
          for (const [got, want] of all) expect(got).toEqual(want);
          // Lines were matched, in every block size.
          expect(all.reduce((n, [got]) => n + got[0]!.found, 0)).toBeGreaterThan(0);
        }
      }
      // The kernel's filter judged lines itself (`Status` "Closed", titles without the literal).
      expect(seen.skipped - skipped).toBeGreaterThan(1000);
    },
  );
});
