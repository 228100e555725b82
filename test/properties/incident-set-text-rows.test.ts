/**
 * Properties of `IncidentSet` when a `$regex` on a text column runs row by row: a text column with many
 * distinct values and no trigram index (or one the cost model passes over) runs its pattern last, on the rows
 * the label and date children leave, memoized per value, and through a segment of the creation order when a
 * `CreatedUtcTime` interval decides every row. `count`, `findAll` and `findFirst` must equal a sorted linear
 * scan with the reference interpreter on titles that are missing, null, numbers, booleans, arrays or objects,
 * with incidents added between queries.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WeightedLru } from "../../src/conditions/lru.js";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { fcOptions } from "../support/fc.js";
import { checkAgainstScanAcrossAdds, referenceScan } from "../support/reference-scan.js";

type Incident = Record<string, unknown>;

const WORDS = ["phish", "Phishing", "login", "ing", "VPN", "dns", "PHISH", "mail", "\n", "k", "K"];

/** A title: mostly distinct strings (so that the column has many values), sometimes an oddity. */
const titleArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }), fc.nat(99))
      .map(([w, n]) => `${w.join(" ")} ${n}`),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, 7, true, ["phish 1"], { phish: 1 }, "phishing", "") },
);

const dateArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .integer({ min: 0, max: 11 })
      .map((m) => `2024-${String(m + 1).padStart(2, "0")}-15T00:00:00Z`),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, "not a date", 5) },
);

/** Incidents; `arrays`: a `CreatedUtcTime` may hold an array (no segment scans then). */
function incidentsArb(arrays: boolean): fc.Arbitrary<Incident[]> {
  const incident = fc
    .record(
      {
        IncidentId: fc.integer({ min: 1, max: 50 }),
        Title: titleArb,
        Severity: fc.oneof(fc.constantFrom("High", "Critical", "Low"), fc.constantFrom(null, ["High"], 3)),
        IngestionType: fc.constantFrom("Webhook", "Schedule Job", "Manual Creation"),
        CreatedUtcTime: arrays ? fc.oneof(dateArb, fc.constant(["2024-03-15T00:00:00Z"])) : dateArb,
      },
      { requiredKeys: ["IncidentId", "IngestionType"] },
    )
    .map((r) => r as Incident);
  return fc.array(incident, { minLength: 0, maxLength: 60 });
}

const patternArb = fc.constantFrom(
  { $regex: "phish" },
  { $regex: "phish", $options: "i" },
  { $regex: "^Ph" },
  { $regex: "ing$" },
  { $regex: "^k", $options: "i" },
  { $regex: "(VPN|dns) \\d" },
  { $regex: "1$", $options: "m" },
  { $regex: "." },
);

/** A conjunction of a title pattern with label and date children, sometimes under `$or` / `$nor`. */
const queryArb = fc
  .tuple(
    patternArb,
    fc.subarray(["severity", "ingestion", "range", "open"] as const),
    fc.integer({ min: 0, max: 11 }),
    fc.integer({ min: 1, max: 6 }),
    fc.constantFrom("and", "or", "nor"),
  )
  .map(([pattern, parts, from, span, wrap]) => {
    const month = (m: number) => ({ $date: `2024-${String(Math.min(m, 12)).padStart(2, "0")}-01T00:00:00Z` });
    const query: Record<string, unknown> = { Title: pattern };
    if (parts.includes("severity")) query.Severity = { $in: ["High", "Critical"] };
    if (parts.includes("ingestion")) query.IngestionType = "Webhook|Schedule Job";
    if (parts.includes("range")) query.CreatedUtcTime = { $gt: month(from + 1), $lt: month(from + 1 + span) };
    else if (parts.includes("open")) query.CreatedUtcTime = { $gte: month(from + 1) };
    if (wrap === "and") return query;
    return { [wrap === "or" ? "$or" : "$nor"]: [query, { Severity: "Low", Title: { $regex: "mail" } }] };
  });

const layouts: [string, IncidentSetOptions][] = [
  ["no text index (per-row leaves)", { maxDictionary: 2, textIndex: { maxBytes: 0 } }],
  ["a text index the cost model may pass over", { maxDictionary: 2 }],
];

describe.each(layouts)(
  "text conditions run per row agree with a sorted linear scan (%s)",
  (_name, options) => {
    it.each([false, true])("count, findAll and findFirst (CreatedUtcTime arrays: %s)", (arrays) => {
      fc.assert(
        fc.property(
          incidentsArb(arrays),
          fc.array(queryArb, { minLength: 1, maxLength: 4 }),
          fc.nat(),
          (incidents, queries, split) => checkAgainstScanAcrossAdds(incidents, queries, split, options),
        ),
        fcOptions(150),
      );
    });
  },
);

describe("text conditions in a conjunction: the plan", () => {
  // 400 incidents, 400 distinct titles (more than a quarter as many as rows), no text index: the title
  // pattern runs per row after the labels, over the rows of a CreatedUtcTime segment.
  const incidents: Incident[] = Array.from({ length: 400 }, (_, k) => ({
    IncidentId: k + 1,
    Title: `${k % 7 === 0 ? "phishing" : "login"} alert ${k}`,
    Severity: k % 3 === 0 ? "High" : "Low",
    IngestionType: k % 2 === 0 ? "Webhook" : "Manual Creation",
    CreatedUtcTime: `2024-${String((k % 12) + 1).padStart(2, "0")}-10T00:00:00Z`,
  }));
  const set = new IncidentSet(incidents, { maxDictionary: 16, textIndex: { maxBytes: 0 } });
  const sample = {
    IngestionType: "Webhook|Schedule Job",
    Title: { $regex: "phishing" },
    Severity: { $in: ["High", "Critical"] },
    // A third of the rows: a segment of at most half of them is scanned.
    CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" }, $lt: { $date: "2024-05-01T00:00:00Z" } },
  };

  it("explains the segment scan with the text leaf last, and answers as the scan does", () => {
    expect(set.explain(sample)).toMatchObject({
      columns: expect.stringMatching(/, text Title \(per row, memo per value\)\)$/),
      count: "columns: segment CreatedUtcTime, then per row text Title (per row, memo per value)",
    });
    const expected = referenceScan(incidents, sample);
    expect(expected.length).toBeGreaterThan(0);
    expect(set.count(sample)).toBe(expected.length);
    expect(set.findAll(sample)).toEqual(expected);
    expect(set.findFirst(sample)).toBe(expected[0]);
  });

  it("counts a segment scan's unknown rows (titles holding arrays or objects) by the row predicate", () => {
    // `count` tallies the segment without bitsets: rows surely true counted, unknown rows (a title that is
    // an array or an object) listed and decided by the row predicate, one by one. Every third qualifying
    // row here holds an array whose element matches, or does not, or an object.
    const odd: Incident[] = incidents.map((incident, k) =>
      k % 5 === 0
        ? { ...incident, Title: k % 10 === 0 ? ["login", `phishing ${k}`] : ["login only"] }
        : k % 11 === 0
          ? { ...incident, Title: { phishing: k } }
          : incident,
    );
    const oddSet = new IncidentSet(odd, { maxDictionary: 16, textIndex: { maxBytes: 0 } });
    expect(oddSet.explain(sample).count).toBe(
      "columns: segment CreatedUtcTime, then per row text Title (per row, memo per value)",
    );
    const expected = referenceScan(odd, sample);
    const fromArrays = expected.filter((incident) => Array.isArray(incident.Title));
    expect(fromArrays.length).toBeGreaterThan(0);
    expect(expected.length).toBeGreaterThan(fromArrays.length);
    expect(oddSet.count(sample)).toBe(expected.length);
    expect(oddSet.findAll(sample)).toEqual(expected);
  });

  it("without a date interval: the other children first, then the text leaf per row", () => {
    const query = { Severity: "High", Title: { $regex: "phishing" } };
    expect(set.explain(query).count).toMatch(
      /^columns: .*, then per row text Title \(per row, memo per value\)$/,
    );
    expect(set.count(query)).toBe(referenceScan(incidents, query).length);
  });

  it("with a trigram index, a deferred literal builds its answers per value first when the lists prove it for less", () => {
    // 2,000 distinct titles over 2,000 rows, a text index: `phishing` is deferred behind the labels and the
    // date segment; proving it from the trigram lists costs fewer value tests than the rows left would run,
    // so the answers per value are built once (and kept) before the rows read them.
    const many: Incident[] = Array.from({ length: 2000 }, (_, k) => ({
      IncidentId: k + 1,
      Title: `${k % 7 === 0 ? "phishing" : k % 7 === 1 ? "Anomalous malware" : "login"} alert ${k}`,
      Severity: k % 3 === 0 ? "High" : "Low",
      IngestionType: k % 2 === 0 ? "Webhook" : "Manual Creation",
      CreatedUtcTime: `2024-${String((k % 12) + 1).padStart(2, "0")}-10T00:00:00Z`,
    }));
    const indexed = new IncidentSet(many, { maxDictionary: 16 });
    expect(indexed.explain(sample).count).toBe(
      "columns: segment CreatedUtcTime, then per row text-index Title (6 trigrams)",
    );
    const title = (
      indexed as unknown as { texts: Map<string, { acceptCache: WeightedLru<unknown> }> }
    ).texts.get("Title");
    const kept = () => [...(title?.acceptCache.keys() ?? [])];
    expect(kept()).toEqual([]);
    const expected = referenceScan(many, sample);
    expect(expected.length).toBeGreaterThan(0);
    expect(indexed.count(sample)).toBe(expected.length);
    expect(kept()).toEqual([expect.stringMatching(/\/phishing$/)]);
    expect(indexed.findAll(sample)).toEqual(expected);
    expect(indexed.findFirst(sample)).toBe(expected[0]);
    // A literal the lists leave undecided for some values ("mal" first seen in "Anomalous"): still exact.
    const malware = { ...sample, Title: { $regex: "malware" } };
    expect(indexed.count(malware)).toBe(referenceScan(many, malware).length);
  });

  it("ticks the budget in the segment scan", () => {
    let now = 0;
    const clock = () => {
      now += 1;
      return now;
    };
    expect(() => set.count(sample, { maxTimeMS: 0, clock })).toThrow(/took longer than 0 ms/);
  });
});
