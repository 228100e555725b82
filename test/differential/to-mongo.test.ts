/**
 * Differential test of the MongoDB translation: for random Search Conditions and incident records, mingo
 * (the reference for MongoDB query semantics) evaluating `toMongoFilter(condition)` agrees with
 * `evaluate(condition)`, for both date storages, on at least 10,000 (condition, record) pairs each.
 *
 * Records are given to both sides as the collection would hold them: catalogue date values as BSON dates
 * (`dateStorage: "date"`) or as ISO strings, with and without milliseconds mixed (`"string"`). An invalid
 * JS `Date` cannot be stored (BSON has no such value), so it is stored as `null`.
 *
 * A disagreement fails the test unless it is one of the known differences of mingo itself (not of
 * MongoDB, see test/differential/known-differences.md), recognised from the condition and the record;
 * those are counted and must stay rare.
 */
import fc from "fast-check";
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { parseIsoUtc } from "../../src/conditions/dates.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions, safeParseSearchConditions } from "../../src/conditions/parse.js";
import { type DateStorage, toMongoFilter } from "../../src/mongodb/to-mongo.js";
import { conditionArb, recordArb } from "../arbitraries/array-operators.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import { knownMingoDifferences, type MingoDifference } from "../arbitraries/mingo-known-differences.js";
import { fcOptions } from "../support/fc.js";

const RECORDS_PER_CONDITION = 5;
const CONDITIONS_PER_MODE = 2_100;

/** An incident as a collection with this date storage holds it (see the file comment). */
function stored(incident: Record<string, unknown>, mode: DateStorage): Record<string, unknown> {
  if (!Object.hasOwn(incident, "CreatedUtcTime")) return incident;
  const withoutMillis = Number(incident.IncidentId) % 2 === 1;
  const convert = (value: unknown): unknown => {
    if (value instanceof Date && Number.isNaN(value.getTime())) return null;
    if (mode === "date" && typeof value === "string") {
      const ms = parseIsoUtc(value);
      return ms === undefined ? value : new Date(ms);
    }
    if (mode === "string" && value instanceof Date) {
      const iso = value.toISOString();
      return withoutMillis && iso.endsWith(".000Z") ? `${iso.slice(0, 19)}Z` : iso;
    }
    return value;
  };
  const value = incident.CreatedUtcTime;
  return { ...incident, CreatedUtcTime: Array.isArray(value) ? value.map(convert) : convert(value) };
}

/**
 * The differences of mingo (a JavaScript engine) from MongoDB that can show through the translation:
 * every rule of test/arbitraries/mingo-known-differences.ts but `all-on-non-array`, which `toMongoFilter`
 * removes by writing `$all` as MongoDB defines it. Where one applies, MongoDB's jstests (the conformance
 * table) are the judge, not mingo.
 */
function mingoLimitation(raw: unknown, record: Record<string, unknown>): MingoDifference | undefined {
  return knownMingoDifferences(raw, record).find((rule) => rule !== "all-on-non-array");
}

describe("differential: toMongoFilter through mingo agrees with evaluate", () => {
  for (const mode of ["date", "string"] as const) {
    it(`on random conditions and incidents (dateStorage: "${mode}")`, () => {
      let pairs = 0;
      let matched = 0;
      const known: Record<string, number> = {};
      fc.assert(
        fc.property(
          searchConditionsArb(),
          fc.array(incidentArb(), { minLength: RECORDS_PER_CONDITION, maxLength: RECORDS_PER_CONDITION }),
          (raw, incidents) => {
            const condition = parseSearchConditions(raw);
            const query = new Query(toMongoFilter(condition, { dateStorage: mode }));
            for (const incident of incidents) {
              const record = stored(incident, mode);
              const expected = evaluate(condition, record);
              pairs++;
              if (expected) matched++;
              if (query.test(record) === expected) continue;
              const reason = mingoLimitation(raw, record);
              if (reason === undefined) {
                expect.fail(`mingo answers ${!expected} where evaluate answers ${expected} for this record`);
              }
              known[reason] = (known[reason] ?? 0) + 1;
            }
          },
        ),
        fcOptions(CONDITIONS_PER_MODE),
      );
      expect(pairs).toBeGreaterThanOrEqual(10_000);
      // Both answers are frequent: the property tests matching, not only rejection.
      expect(matched).toBeGreaterThan(pairs * 0.1);
      expect(matched).toBeLessThan(pairs * 0.9);
      const knownTotal = Object.values(known).reduce((a, b) => a + b, 0);
      expect(knownTotal, JSON.stringify(known)).toBeLessThan(pairs * 0.005);
    });
  }
});

describe("differential: toMongoFilter with $elemMatch, $type and $mod, through mingo", () => {
  // Nested arrays and objects, null, -0, integers beyond 2^53 and 2^63, NaN, infinities and ISO instants
  // (BSON dates in the date field under dateStorage "date"), in an open field and in the catalogue's fields
  // (a text field, an enumerated field, the date field), JS Dates in open fields too (a JS Date element is
  // a BSON date, no document for `$elemMatch`'s query form: docs/semantics.md 1.3).
  const KEYS = ["a", "Title", "Severity", "CreatedUtcTime"];
  const options = { strings: ["High", "Low", "Phishing"], logical: true } as const;
  const conditions = conditionArb(
    ["a", "a.b", "a.0", "a.b.c", "a.0.b", "Title", "Severity", "CreatedUtcTime", "Title.0"],
    options,
  ).filter((raw) => safeParseSearchConditions(raw).success);

  for (const mode of ["date", "string"] as const) {
    it(`equals evaluate but where mingo departs from MongoDB's jstests (dateStorage: "${mode}")`, () => {
      let pairs = 0;
      let matched = 0;
      const known: Record<string, number> = {};
      fc.assert(
        fc.property(
          conditions,
          fc.array(recordArb(KEYS, options), { minLength: 8, maxLength: 8 }),
          (raw, records) => {
            const condition = parseSearchConditions(raw);
            const query = new Query(toMongoFilter(condition, { dateStorage: mode }));
            for (const record of records.map((r) => stored(structuredClone(r), mode))) {
              const expected = evaluate(condition, record);
              pairs++;
              if (expected) matched++;
              if (query.test(record) === expected) continue;
              const reason = mingoLimitation(raw, record);
              if (reason === undefined) {
                expect.fail(
                  `mingo answers ${!expected} where evaluate answers ${expected} for ${JSON.stringify(record)}`,
                );
              }
              known[reason] = (known[reason] ?? 0) + 1;
            }
          },
        ),
        fcOptions(1_500),
      );
      expect(pairs).toBeGreaterThanOrEqual(10_000);
      expect(matched).toBeGreaterThan(pairs * 0.05);
      expect(matched).toBeLessThan(pairs * 0.95);
      const knownTotal = Object.values(known).reduce((a, b) => a + b, 0);
      expect(knownTotal, JSON.stringify(known)).toBeLessThan(pairs * 0.05);
    });
  }
});
