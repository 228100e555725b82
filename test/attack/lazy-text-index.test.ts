/**
 * Attack on the text index a set read from NDJSON builds on its first text query (docs/semantics.md, "The
 * text index", "Built when first needed"): rows added before and after that query (past the rebuild
 * threshold too), a first query stopped by its time budget after 1, 2, 4 … clock readings (a clock that
 * counts its readings: no real time), `clearCaches` between queries, `explain`, `footprint` and
 * `cacheStats` around it. Every answer equals the reference interpreter's (`evaluate`); the index is whole
 * or absent, never half built (`footprint().textIndexBytes` is 0 or that of a set that built it
 * unhindered).
 */

import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { cacheStats, clearCaches } from "../../src/conditions/lru.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { SearchTimeoutError } from "../../src/incidents/search-budget.js";

type Incident = Record<string, unknown>;

const WORDS = ["phish", "Phishing", "login", "VPN", "dns", "PHISH", "mail", "ſ", "é", "K"];

function incidents(from: number, n: number, salt: string): Incident[] {
  return Array.from({ length: n }, (_, i) => {
    const row = from + i;
    return {
      IncidentId: row,
      Title:
        row % 97 === 0
          ? null
          : row % 89 === 0
            ? row
            : `${WORDS[row % WORDS.length]} ${WORDS[(row * 7) % 10]} ${salt}${row}`,
      Severity: ["High", "Low", "Critical"][row % 3],
    };
  });
}

const QUERIES: readonly Record<string, unknown>[] = [
  { Title: { $regex: "phish" } },
  { Title: { $regex: "PHISH", $options: "i" } },
  { Title: { $regex: "^VPN" } },
  { Title: { $regex: "9$" } },
  { Title: { $regex: "login .*x1" } },
  { Title: { $regex: "k", $options: "i" } },
  { Title: { $regex: "new" } },
  { Title: { $regex: "ſ" } },
  { Title: { $regex: "phish" }, Severity: "High" },
];

/** Every query's count, first match and matches, as `evaluate` finds them among `all`. */
function expectAnswers(set: IncidentSet, all: readonly Incident[], label: string): void {
  for (const raw of QUERIES) {
    const condition = parseSearchConditions(raw);
    const expected = all.filter((incident) => evaluate(condition, incident));
    const tag = `${label} ${JSON.stringify(raw)}`;
    expect(set.count(raw), tag).toBe(expected.length);
    expect(
      set.findAll(raw).map((r) => r.IncidentId),
      tag,
    ).toEqual(expected.map((r) => r.IncidentId));
    expect(set.findFirst(raw), tag).toEqual(expected[0]);
  }
}

const ndjson = (rows: readonly Incident[]): string => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;

/** A clock that moves one millisecond each time it is read. */
function countingClock(): () => number {
  let t = 0;
  return () => t++;
}

describe("the text index built on the first text query of a set read from NDJSON", () => {
  it("50,000 rows (the lowered corpus): adds before the first query, after it, past the rebuild threshold", async () => {
    const all = incidents(0, 50_000, "");
    const set = await IncidentSet.fromNdjson([ndjson(all)]);
    expect(set.footprint().textIndexBytes).toBe(0);
    // Rows added before the index exists: in it when it is built.
    for (const r of incidents(50_000, 100, "new")) {
      set.add(r);
      all.push(r);
    }
    expect(set.footprint().textIndexBytes).toBe(0);
    expect(set.explain(QUERIES[0]!).columns).toMatch(/text-index Title/);
    const built = set.footprint().textIndexBytes;
    expect(built).toBeGreaterThan(0);
    expectAnswers(set, all, "after adds before the index");
    // A few rows after it: tested one by one beside the index.
    for (const r of incidents(50_100, 100, "new")) {
      set.add(r);
      all.push(r);
    }
    expectAnswers(set, all, "a few rows after the index");
    // Past the threshold (4,096 new values, an eighth of the indexed ones): built again, answers unchanged.
    for (const r of incidents(50_200, 7000, "new")) {
      set.add(r);
      all.push(r);
    }
    expectAnswers(set, all, "past the rebuild threshold");
    expect(set.footprint().textIndexBytes).toBeGreaterThan(built);
    // clearCaches empties caches, not the index; the answers are unchanged.
    const index = set.footprint().textIndexBytes;
    clearCaches();
    expect(set.footprint().textIndexBytes).toBe(index);
    expect(() => cacheStats()).not.toThrow();
    expectAnswers(set, all, "after clearCaches");
  }, 300_000);

  for (const reads of [1, 2, 4, 16, 64]) {
    it(`a first text query stopped after ${reads} clock readings leaves the index whole or absent`, async () => {
      const all = incidents(0, 6000, "");
      const set = await IncidentSet.fromNdjson([ndjson(all)], { maxDictionary: 100 });
      const reference = await IncidentSet.fromNdjson([ndjson(all)], { maxDictionary: 100 });
      reference.count(QUERIES[0]!);
      const whole = reference.footprint().textIndexBytes;
      expect(whole).toBeGreaterThan(0);
      let t = 0;
      const clock = () => (t++ < reads ? 0 : 1000);
      const first = (() => {
        try {
          return set.count(QUERIES[4]!, { maxTimeMS: 10, clock });
        } catch (error) {
          return error;
        }
      })();
      if (first instanceof Error || reads === 1) expect(first).toBeInstanceOf(SearchTimeoutError);
      expect([0, whole]).toContain(set.footprint().textIndexBytes);
      clearCaches();
      expectAnswers(set, all, `after a stop at ${reads}`);
      // The same queries on the reference (an `i` pattern may lower the corpus): the same index.
      expectAnswers(reference, all, "reference");
      expect(set.footprint().textIndexBytes).toBe(reference.footprint().textIndexBytes);
      // Budgeted queries again, on the built index, stopped at every reading: each answers exactly or stops.
      for (const raw of QUERIES) {
        const condition = parseSearchConditions(raw);
        const expected = all.filter((incident) => evaluate(condition, incident)).length;
        const clock2 = countingClock();
        try {
          expect(set.count(raw, { maxTimeMS: reads, clock: clock2 })).toBe(expected);
        } catch (error) {
          expect(error).toBeInstanceOf(SearchTimeoutError);
        }
      }
    }, 120_000);
  }
});
