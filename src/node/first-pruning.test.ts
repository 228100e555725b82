/**
 * `first` without `countMatches` (`ScanOptions.countMatches: false`): a scanner passes over the lines whose
 * plain ISO-8601 `CreatedUtcTime` is later than a match it already took. Held to the scanner that judges
 * every line, on lines whose `CreatedUtcTime` and `IncidentId` take every form the order of docs/semantics.md
 * 1.9 distinguishes (equal instants with and without milliseconds, escaped and non-ASCII strings, impossible
 * dates, numbers, arrays, null, missing; ids equal, missing or strings), cut into blocks at every line
 * boundary and judged by one scanner in turn, as one thread judges the blocks it takes: the first match
 * (merged block by block in input order), lines, records and problems must be the same, and `found` must
 * be positive exactly when the reference's is. A second case shows lines are passed over at all.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countingKernel } from "../../test/support/counting-kernel.js";
import { fcOptions } from "../../test/support/fc.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { type BlockResult, BlockScanner, type ScanOptions } from "./block-scanner.js";
import { isNewFirst } from "./first-match.js";
import { MATCH_RULES } from "./record-rules.js";

const { counting } = countingKernel();

/** `CreatedUtcTime` values: few instants (ties), each in several spellings, and values that are no instant. */
const TIMES: unknown[] = [
  "2024-01-02T00:00:00Z",
  "2024-01-02T00:00:00.000Z",
  "2024-01-01T00:00:00Z",
  "2024-01-01T00:00:00.001Z",
  "2024-03-01T10:00:00Z",
  "\\u0032024-01-01T00:00:00Z", // escaped: the same instant, not plain ASCII
  "2024-01-01T00:00:00Z\u00a0", // non-ASCII: no instant
  "2024-02-30T00:00:00Z", // no such day: undated
  "2023-12-31T23:59:59Z",
  1_704_067_200_000,
  null,
  ["2023-01-01T00:00:00Z"],
  { $date: "2023-01-01T00:00:00Z" },
];
const IDS: unknown[] = [1, 2, 3, 2, "1", undefined, -5, 1.5];

const lineArb = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({
        time: fc.nat(TIMES.length), // TIMES.length: the key is missing
        id: fc.nat(IDS.length - 1),
        status: fc.constantFrom("Open", "Closed"),
      })
      .map(({ time, id, status }) => {
        const parts = [`"Status":"${status}"`];
        const value = IDS[id];
        if (value !== undefined) parts.push(`"IncidentId":${JSON.stringify(value)}`);
        if (time < TIMES.length) {
          const t = TIMES[time];
          // The escaped spelling is written as it stands (its backslash is JSON's, not a character).
          parts.push(
            `"CreatedUtcTime":${typeof t === "string" && t.startsWith("\\") ? `"${t}"` : JSON.stringify(t)}`,
          );
        }
        return `{${parts.join(",")}}`;
      }),
  },
  { weight: 1, arbitrary: fc.constantFrom("", "not json", "[1]", '{"Status":"Open","Status":"Open"}') },
);

const CONDITIONS = [{ Status: "Open" }, {}, { CreatedUtcTime: { $gte: { $date: "2024-01-01T00:00:00Z" } } }];

const OPTIONS: ScanOptions = { mode: "first", maxLineLength: 1 << 20, maxErrors: 5, skipInvalid: true };

/** The blocks of `lines` (cut before the line indexes in `cuts`) judged in turn by `scanner`. */
function judge(scanner: BlockScanner, lines: readonly string[], cuts: readonly number[]) {
  const bounds = [...new Set([0, ...cuts.map((c) => c % (lines.length + 1)), lines.length])].sort(
    (a, b) => a - b,
  );
  let best: BlockResult["best"];
  const totals = { lines: 0, records: 0, found: 0, problems: [] as string[] };
  for (let k = 0; k + 1 < bounds.length; k++) {
    const block = new TextEncoder().encode(
      lines
        .slice(bounds[k], bounds[k + 1])
        .map((l) => `${l}\n`)
        .join(""),
    );
    const result = scanner.scan(block, 0, block.length, 0);
    if (result.best !== undefined && isNewFirst(best, result.best))
      best = {
        ...result.best,
        line: totals.lines + result.best.line,
        record: totals.records + result.best.record,
      };
    totals.found += result.found;
    for (const p of result.problems) totals.problems.push(`${totals.lines + p.line}: ${p.message}`);
    totals.lines += result.lines;
    totals.records += result.records;
  }
  return { best, ...totals };
}

describe("first without countMatches: lines that cannot come first are passed over", () => {
  it("finds the same first match, lines, records and problems as the scanner that judges every line", () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 60 }),
        fc.array(fc.nat(60), { maxLength: 5 }),
        fc.constantFrom(...CONDITIONS),
        (lines, cuts, conditions) => {
          const condition = parseSearchConditions(conditions);
          const reference = judge(new BlockScanner(condition, OPTIONS, MATCH_RULES, null), lines, cuts);
          for (const kernel of [counting, null]) {
            const pruned = new BlockScanner(
              condition,
              { ...OPTIONS, countMatches: false },
              MATCH_RULES,
              kernel,
            );
            const mine = judge(pruned, lines, cuts);
            expect({ ...mine, found: mine.found > 0 }).toEqual({ ...reference, found: reference.found > 0 });
            expect(mine.found).toBeLessThanOrEqual(reference.found);
          }
        },
      ),
      fcOptions(400),
    );
  });

  it("passes over later lines with the kernel, and the first match is still the earliest", () => {
    // Dates rising line by line: after the first match, every other match is later (the kernel's records
    // carry the plain ASCII span the scanner compares). The earliest is the last line, spelt with millis.
    const lines = Array.from({ length: 200 }, (_, k) =>
      JSON.stringify({
        IncidentId: k,
        Status: "Open",
        CreatedUtcTime: new Date(Date.UTC(2024, 0, 1, 0, k)).toISOString().replace(".000", ""),
      }),
    );
    lines.push(
      JSON.stringify({ IncidentId: 999, Status: "Open", CreatedUtcTime: "2023-06-01T00:00:00.000Z" }),
    );
    const condition = parseSearchConditions({ Status: "Open" });
    const reference = judge(new BlockScanner(condition, OPTIONS, MATCH_RULES, counting), lines, [50, 100]);
    const pruned = judge(
      new BlockScanner(condition, { ...OPTIONS, countMatches: false }, MATCH_RULES, counting),
      lines,
      [50, 100],
    );
    expect(reference.found).toBe(201);
    // The first line, then the last (earlier than all): every line between is passed over.
    expect(pruned.found).toBe(2);
    expect(pruned.best).toEqual(reference.best);
    expect(pruned.best?.id).toBe(999);
    expect([pruned.lines, pruned.records]).toEqual([reference.lines, reference.records]);
  });
});
