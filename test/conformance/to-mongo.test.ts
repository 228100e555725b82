/**
 * MongoDB semantics through the conformance harness: `toMongoFilter` executed by mingo, for both date
 * storages. The incident is given to mingo as MongoDB would hold it:
 * - `dateStorage: "date"` — catalogue date fields hold BSON dates, so an incident that has a valid ISO
 *   string there, or a `Date` with no time (BSON has no invalid date), is not storable in this mode;
 * - `dateStorage: "string"` — catalogue date fields hold ISO strings, so an incident with a valid JS `Date`
 *   there is not storable in this mode.
 * Each incident runs in every mode where it is storable as is (elsewhere the adapter answers `undefined`).
 *
 * mingo is not MongoDB: it only executes the translation, and where it departs from MongoDB the skip list
 * says so ("mingo deviates from MongoDB: …"). MongoDB's own tests (`jstests-cases.ts`) decide semantics.
 */
import { Query } from "mingo";
import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG, type FieldCatalog } from "../../src/conditions/catalog.js";
import { parseIsoUtc } from "../../src/conditions/dates.js";
import { resolveFieldPath } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { type DateStorage, toMongoFilter } from "../../src/mongodb/to-mongo.js";
import { allCases, type Incident, runConformance } from "./harness.js";

/** The values a record holds in the catalogue's date fields (array elements included). */
function dateFieldValues(incident: Incident, catalog: FieldCatalog): unknown[] {
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
function storable(incident: Incident, mode: DateStorage, catalog: FieldCatalog): boolean {
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
  it("runs almost every incident in at least one storage mode", () => {
    let incidents = 0;
    let unstorable = 0;
    for (const matchCase of allCases) {
      const catalog = matchCase.catalog ?? DEFAULT_CATALOG;
      for (const { incident } of matchCase.incidents) {
        incidents++;
        if (!storable(incident, "date", catalog) && !storable(incident, "string", catalog)) unstorable++;
      }
    }
    expect(unstorable).toBeLessThanOrEqual(incidents / 50);
  });
});

for (const mode of ["date", "string"] as const) {
  runConformance({
    engine: `mongo:${mode}`,
    run: (conditions, incidents, catalog) => {
      const condition = parseSearchConditions(conditions, { catalog });
      const query = new Query(toMongoFilter(condition, { dateStorage: mode }));
      return incidents.map((incident) =>
        storable(incident, mode, catalog) ? query.test(incident) : undefined,
      );
    },
  });
}
