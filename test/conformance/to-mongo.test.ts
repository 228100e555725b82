/**
 * Runs every conformance match case through `toMongoFilter` and mingo (the reference for MongoDB query
 * semantics), for both date storages. The incident is given to mingo as MongoDB would hold it:
 * - `dateStorage: "date"` — catalogue date fields hold BSON dates, so an incident that has a valid ISO
 *   string there, or a `Date` with no time (BSON has no invalid date), is not storable in this mode;
 * - `dateStorage: "string"` — catalogue date fields hold ISO strings, so an incident with a valid JS `Date`
 *   there is not storable in this mode.
 * Each incident runs in every mode where it is storable as is, and must get the case's expected answer.
 *
 * `KNOWN` lists the cases where mingo answers differently for a reason outside the translation (mingo is
 * a JavaScript engine, not MongoDB); the test checks that each still differs, so a stale entry is noticed.
 * The `mongoDiffers` marks of the table describe the naive translation (test/arbitraries/mongo-dialect.ts);
 * `toMongoFilter` resolves several of them, and those cases must agree here.
 */
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG, type FieldCatalog } from "../../src/conditions/catalog.js";
import { parseIsoUtc } from "../../src/conditions/dates.js";
import { resolveFieldPath } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { type DateStorage, toMongoFilter } from "../../src/conditions/to-mongo.js";
import { knownMingoDifferences } from "../arbitraries/mingo-known-differences.js";
import { matchCases } from "./match-cases.js";

/** Cases where mingo (not MongoDB) answers differently from the library, with the reason. */
const KNOWN: Readonly<Record<string, string>> = {
  "$regex: a pattern that backtracks exponentially elsewhere runs in linear time":
    "not run: mingo's backtracking RegExp would not finish (MongoDB's PCRE has a match limit and fails the query)",
  "$regex: nested arrays are not traversed": "mingo's $regex also looks into nested arrays; MongoDB does not",
  "$regex: i folds k with the Kelvin sign (RE2)":
    "mingo runs JavaScript's RegExp without the u flag, which does not fold k with U+212A; MongoDB's PCRE2 does",
  "$size: through an array of objects, any reached array":
    "mingo applies $size to the list of reached values; MongoDB, like the library, to each reached array",
  "numbers: NaN in a record lies in no range and equals no JSON number":
    "mingo orders NaN below numbers in $lt; MongoDB's matcher, like the library, never matches NaN in a range",
};

/**
 * Where mingo departs from MongoDB's own jstests (test/arbitraries/mingo-known-differences.ts, explained in
 * test/differential/known-differences.md), mingo cannot judge the translation: those incidents are left to
 * the jstests-derived answers of the other runners. `all-on-non-array` is not among them: `toMongoFilter`
 * writes `$all` as MongoDB defines it, which mingo runs correctly.
 */
function mingoCannotJudge(conditions: unknown, incident: Record<string, unknown>): boolean {
  return knownMingoDifferences(conditions, incident).some((rule) => rule !== "all-on-non-array");
}

/** Cases not run at all (they would hang the reference engine). */
const NOT_RUN = new Set(["$regex: a pattern that backtracks exponentially elsewhere runs in linear time"]);

/** The values a record holds in the catalogue's date fields (array elements included). */
function dateFieldValues(incident: Record<string, unknown>, catalog: FieldCatalog): unknown[] {
  const out: unknown[] = [];
  for (const [field, spec] of Object.entries(catalog.fields)) {
    if (spec.kind !== "date") continue;
    for (const value of resolveFieldPath(incident, field.split("."))) {
      out.push(value);
      if (Array.isArray(value)) out.push(...value);
    }
  }
  return out;
}

/** True when MongoDB can hold the incident as is with this date storage (see the file comment). */
function storable(incident: Record<string, unknown>, mode: DateStorage, catalog: FieldCatalog): boolean {
  const values = dateFieldValues(incident, catalog);
  if (mode === "date") {
    return values.every(
      (v) =>
        !(typeof v === "string" && parseIsoUtc(v) !== undefined) &&
        !(v instanceof Date && Number.isNaN(v.getTime())),
    );
  }
  return values.every((v) => !(v instanceof Date && !Number.isNaN(v.getTime())));
}

describe("conformance: toMongoFilter through mingo", () => {
  const runs: { mode: DateStorage; matchCase: (typeof matchCases)[number] }[] = [];
  for (const matchCase of matchCases) {
    if (NOT_RUN.has(matchCase.name)) continue;
    for (const mode of ["date", "string"] as const) runs.push({ mode, matchCase });
  }

  it("runs every case and almost every incident in at least one storage mode", () => {
    let incidents = 0;
    let unstorable = 0;
    for (const matchCase of matchCases) {
      const catalog = matchCase.catalog ?? DEFAULT_CATALOG;
      for (const { incident } of matchCase.incidents) {
        incidents++;
        if (!storable(incident, "date", catalog) && !storable(incident, "string", catalog)) unstorable++;
      }
    }
    expect(matchCases.length).toBeGreaterThanOrEqual(120);
    expect(unstorable).toBeLessThanOrEqual(incidents / 50);
  });

  it("lists only known cases that exist in the table", () => {
    const names = new Set(matchCases.map((matchCase) => matchCase.name));
    for (const name of Object.keys(KNOWN)) expect(names.has(name), name).toBe(true);
  });

  describe.each(runs.map((run) => [`${run.matchCase.name} [${run.mode}]`, run] as const))(
    "%s",
    (_name, run) => {
      const { matchCase, mode } = run;
      const known = KNOWN[matchCase.name];
      it(
        known === undefined ? `(${matchCase.rule})` : `(${matchCase.rule}; known difference: ${known})`,
        () => {
          const catalog = matchCase.catalog ?? DEFAULT_CATALOG;
          const condition = parseSearchConditions(matchCase.conditions, { catalog });
          const query = new Query(toMongoFilter(condition, { dateStorage: mode }));
          const disagreements: number[] = [];
          matchCase.incidents.forEach(({ incident, matches }, index) => {
            if (!storable(incident, mode, catalog)) return;
            if (known === undefined && mingoCannotJudge(matchCase.conditions, incident)) return;
            if (query.test(incident) !== matches) disagreements.push(index);
          });
          if (known === undefined) {
            expect(disagreements, `case "${matchCase.name}" (${mode}): incidents that disagree`).toEqual([]);
          } else if (mode === "date") {
            // The known difference shows in at least one mode (both modes give the same answer for these).
            expect(disagreements.length, `known difference no longer observed: ${known}`).toBeGreaterThan(0);
          }
        },
      );
    },
  );
});
