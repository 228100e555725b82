/**
 * `IncidentSet` searches within a site (docs/semantics.md 1.9, "Within a site"): the site is one more label
 * of the plan, so the row predicate never reads another site's incident. Counted, never timed: records
 * count the reads of their one unindexed field, which only the row predicate reads.
 * (The differential property is test/properties/incident-set-site.test.ts.)
 */

import { describe, expect, it } from "vitest";
import { parseSearchConditions } from "../conditions/parse.js";
import { IncidentSet } from "./incident-set.js";

interface Counted {
  reads: number;
}

/**
 * `n` incidents of `site`, one a day from `start` (day index), each with a `Custom` accessor that counts its
 * reads in `counter`; `Custom.Owner` is "bob" on every incident.
 */
function incidents(site: string, n: number, start: number, firstId: number, counter: Counted) {
  return Array.from({ length: n }, (_, k) => {
    const record: Record<string, unknown> = {
      IncidentId: firstId + k,
      Number: `N-${firstId + k}`,
      Site: site,
      Severity: k % 2 === 0 ? "High" : "Low",
      CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + (start + k) * 60_000).toISOString(),
    };
    Object.defineProperty(record, "Custom", {
      enumerable: true,
      get() {
        counter.reads++;
        return { Owner: "bob" };
      },
    });
    return record;
  });
}

describe("IncidentSet { site }: no incident of another site is read", () => {
  // The large site's incidents all come first: the earliest match overall is never the small site's.
  const counter: Counted = { reads: 0 };
  const big = incidents("EMEA SOC", 20_000, 0, 1, counter);
  const small = incidents("APAC SOC", 50, 30_000, 100_001, counter);
  const set = new IncidentSet([...big, ...small]);
  const reads = (query: () => unknown): number => {
    counter.reads = 0;
    query();
    return counter.reads;
  };

  it.each([
    ["a field no column answers", { "Custom.Owner": "bob" }],
    ["a label and such a field", { Severity: "High", "Custom.Owner": "bob" }],
    ["an OR of such fields", { $or: [{ "Custom.Owner": "bob" }, { "Custom.Owner": "eve" }] }],
    ["a NOT of such a field", { "Custom.Owner": { $ne: "eve" } }],
  ])("%s: reads at most the site's incidents (findFirst, findAll, count)", (_name, raw) => {
    const condition = parseSearchConditions(raw);
    const site = { site: "APAC SOC" };
    const severity = (raw as { Severity?: string }).Severity;
    expect(set.findFirst(condition, site)).toBe(
      small.find((r) => severity === undefined || r.Severity === severity),
    );
    expect(reads(() => set.findFirst(condition, site))).toBeLessThanOrEqual(small.length);
    expect(reads(() => set.findAll(condition, site))).toBeLessThanOrEqual(small.length);
    expect(reads(() => set.count(condition, site))).toBeLessThanOrEqual(small.length);
    // The counter counts: without the site, count reads (nearly) every incident of the large site.
    expect(reads(() => set.count(condition))).toBeGreaterThanOrEqual(big.length / 2);
  });

  it("the first match of the site, when the earliest match of all sites is another site's", () => {
    const first = set.findFirst({ Severity: "High" });
    expect(first?.Site).toBe("EMEA SOC");
    expect(set.findFirst({ Severity: "High" }, { site: "APAC SOC" })).toBe(small[0]);
    expect(set.count({ Severity: "High" }, { site: "APAC SOC" })).toBe(25);
    expect(set.findAll({}, { site: "APAC SOC" })).toEqual(small);
    expect(set.findFirst({ Severity: "High" }, { site: "LATAM SOC" })).toBeUndefined();
  });

  it("explain names the site's postings for the first match of a small site", () => {
    expect(set.explain({ "Custom.Owner": "bob" }, { site: "APAC SOC" }).findFirst).toBe("postings Site");
    expect(set.explain({ "Custom.Owner": "bob" }).findFirst).toBe("scan");
  });
});

describe("IncidentSet { site }: options", () => {
  const rows = [
    { IncidentId: 1, Site: "A", Severity: "High", CreatedUtcTime: "2024-01-01T00:00:00Z" },
    { IncidentId: 2, Site: "B", Severity: "High", CreatedUtcTime: "2024-01-02T00:00:00Z" },
    { IncidentId: 3, Tenant: "B", Severity: "High", CreatedUtcTime: "2024-01-03T00:00:00Z" },
  ];

  it("the site field has a column whatever dictionaryFields says", () => {
    const set = new IncidentSet(rows, { dictionaryFields: ["Severity"] });
    expect(set.findFirst({ Severity: "High" }, { site: "B" })?.IncidentId).toBe(2);
    expect(set.explain({ Severity: "High" }, { site: "B" }).columns).toContain("dictionary Site");
  });

  it("siteField names another field", () => {
    const set = new IncidentSet(rows, { siteField: "Tenant" });
    expect(set.findFirst({ Severity: "High" }, { site: "B" })?.IncidentId).toBe(3);
    expect(set.count({}, { site: "B" })).toBe(1);
  });

  it("a repeated query and site reuse one row check (same answers, no growth)", () => {
    const set = new IncidentSet(rows);
    const condition = parseSearchConditions({ Severity: "High" });
    for (let k = 0; k < 3; k++) expect(set.findFirst(condition, { site: "B" })?.IncidentId).toBe(2);
  });

  it.each([
    ["a string instead of options", "B", /search options must be an object/],
    [
      "a misspelt key",
      { sites: "B" },
      /Unknown search option 'sites': expected one of clock, maxTimeMS, site/,
    ],
    ["a number as the site", { site: 7 }, /'site' must be a site name \(a string\), found the number 7/],
    ["an array of sites", { site: ["A", "B"] }, /'site' must be a site name \(a string\), found an array/],
  ])("%s is a TypeError naming it", (_name, options, message) => {
    const set = new IncidentSet(rows);
    for (const run of [
      () => set.findFirst({}, options as never),
      () => set.findAll({}, options as never),
      () => set.count({}, options as never),
      () => set.explain({}, options as never),
    ]) {
      expect(run).toThrow(TypeError);
      expect(run).toThrow(message);
    }
  });

  it.each([
    ["an empty name", ""],
    ["a dotted path", "Org.Site"],
    ["a prototype name", "__proto__"],
    ["a number", 5],
  ])("siteField as %s is a TypeError", (_name, siteField) => {
    expect(() => new IncidentSet(rows, { siteField: siteField as never })).toThrow(
      /IncidentSet option 'siteField' must be a single field name/,
    );
  });
});
