/**
 * Searches within a site (docs/semantics.md 1.9, "Within a site"): `findFirst`, `findAll` and `count` with
 * `{ site }` answer exactly as `evaluate` over every incident, filtered to that site's incidents, in the
 * order of docs/semantics.md 1.9 (`referenceScan`), on sets of objects and compact sets, with column
 * oddities in every indexed field and odd `Site` values (missing, `null`, arrays, numbers). The property
 * also counts the cases where the earliest match of all sites lies in another site while the site has a
 * match of its own (the mistake a filter of the overall first match makes), and requires many of them.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import { untyped } from "../support/conditions-input.js";
import { fcOptions } from "../support/fc.js";
import { referenceScan } from "../support/reference-scan.js";

const SITES = ["EMEA SOC", "APAC SOC", "LATAM SOC"] as const;

/** A site value: one of three sites mostly; sometimes missing, `null`, an array, a number, or a fourth. */
const siteValueArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...SITES), weight: 12 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.constant(null), weight: 1 },
  { arbitrary: fc.subarray([...SITES], { maxLength: 2 }), weight: 1 },
  { arbitrary: fc.constantFrom<unknown>(7, "emea soc", "Other"), weight: 1 },
);

const incidentsArb = fc
  .array(fc.tuple(incidentArb({ columnOddities: true }), siteValueArb), { minLength: 1, maxLength: 40 })
  .map((pairs) =>
    pairs.map(([incident, site], k) => {
      const record: Record<string, unknown> = { ...incident, IncidentId: k + 1 };
      if (site !== undefined) record.Site = site;
      return record;
    }),
  );

/** What the site option means: `{"Site": {"$eq": site}}` (an array `Site` holding the site is of it). */
function ofSite(site: string): (incident: Record<string, unknown>) => boolean {
  const condition = parseSearchConditions({ Site: { $eq: site } });
  return (incident) => evaluate(condition, incident);
}

describe("IncidentSet { site } (docs/semantics.md 1.9, Within a site)", () => {
  it("count, findAll, findFirst = evaluate's matches filtered to the site, in order", () => {
    let otherSiteFirst = 0;
    fc.assert(
      fc.property(
        incidentsArb,
        fc.array(searchConditionsArb(), { minLength: 1, maxLength: 4 }),
        (rows, queries) => {
          const sets = [
            new IncidentSet(rows),
            new IncidentSet(rows, { maxDictionary: 2 }),
            new IncidentSet(rows, { compile: { codegen: false } }),
          ];
          for (const raw of queries) {
            const all = referenceScan(rows, raw);
            for (const site of SITES) {
              const expected = all.filter(ofSite(site));
              if (expected.length > 0 && all[0] !== expected[0]) otherSiteFirst++;
              for (const set of sets) {
                expect(set.count(untyped(raw), { site })).toBe(expected.length);
                expect(set.findAll(untyped(raw), { site })).toEqual(expected);
                expect(set.findFirst(untyped(raw), { site })).toBe(expected[0]);
                const parsed = parseSearchConditions(raw);
                expect(set.findFirst(parsed, { site })).toBe(expected[0]);
                expect(set.count(parsed, { site })).toBe(expected.length);
              }
            }
          }
        },
      ),
      fcOptions(150),
    );
    // The case the option exists for: the first match of all sites is another site's.
    expect(otherSiteFirst).toBeGreaterThan(50);
  });

  it("compact sets (fromNdjson) answer as sets of objects", async () => {
    await fc.assert(
      fc.asyncProperty(incidentsArb, searchConditionsArb(), async (rows, raw) => {
        // JSON drops what NDJSON cannot carry (own undefined, Dates become strings): compare with the parsed lines.
        const lines = rows.map((row) => JSON.stringify(row));
        const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        const compact = await IncidentSet.fromNdjson([`${lines.join("\n")}\n`]);
        const all = referenceScan(parsed, raw);
        for (const site of SITES) {
          const expected = all.filter(ofSite(site));
          expect(compact.count(untyped(raw), { site })).toBe(expected.length);
          expect(compact.findAll(untyped(raw), { site })).toEqual(expected);
          expect(compact.findFirst(untyped(raw), { site })).toEqual(expected[0]);
        }
      }),
      fcOptions(60),
    );
  });
});
