/**
 * Properties of `IncidentSet` against a linear scan with the reference interpreter (docs/semantics.md 1.5, 1.9):
 * `findFirst` is the first element of the matching incidents sorted by creation order, `findAll` is that
 * sorted list, `count` its length — for generated Search Conditions and incident lists whose indexed fields
 * hold arrays, nulls, missing and mixed-type values (`columnOddities`), with incidents added at construction
 * or one by one between queries, with the default columns and with other layouts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import { untyped } from "../support/conditions-input.js";
import { fcOptions } from "../support/fc.js";
import { referenceScan } from "../support/reference-scan.js";

type Incident = Record<string, unknown>;

const scan = referenceScan;

/** Incidents with some shared creation times and ids (ties), as the order must break them. */
const incidentsArb = fc.array(
  fc
    .tuple(incidentArb({ columnOddities: true }), fc.integer({ min: 1, max: 6 }), fc.boolean())
    .map(([incident, id, reuseId]) => {
      const copy: Incident = { ...incident };
      if (reuseId) copy.IncidentId = id;
      return copy;
    }),
  { maxLength: 40 },
);

const layouts: [string, IncidentSetOptions][] = [
  ["default", {}],
  ["tiny dictionaries, hash on Title", { maxDictionary: 2, hashFields: ["Title", "IncidentId", "Score"] }],
  [
    "dictionary on open fields, closures",
    { dictionaryFields: ["Score", "Tags", "Flag", "Severity"], compile: { codegen: false } },
  ],
];

describe.each(layouts)("IncidentSet agrees with a sorted linear scan (%s)", (_name, options) => {
  it("findFirst, findAll and count", () => {
    fc.assert(
      fc.property(
        incidentsArb,
        fc.array(searchConditionsArb(), { minLength: 1, maxLength: 4 }),
        (incidents, queries) => {
          const set = new IncidentSet(incidents, options);
          for (const raw of queries) {
            const expected = scan(incidents, raw);
            expect(set.findFirst(untyped(raw))).toBe(expected[0]);
            expect(set.findAll(untyped(raw))).toEqual(expected);
            expect(set.count(untyped(raw))).toBe(expected.length);
          }
        },
      ),
      fcOptions(250),
    );
  });

  it("after incidents are added one by one between queries", () => {
    fc.assert(
      fc.property(
        incidentsArb,
        fc.array(searchConditionsArb(), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        (incidents, queries, split) => {
          const cut = incidents.length === 0 ? 0 : split % (incidents.length + 1);
          const set = new IncidentSet(incidents.slice(0, cut), options);
          for (const raw of queries) set.findFirst(untyped(raw)); // order built, then grown
          for (const [k, incident] of incidents.slice(cut).entries()) {
            set.add(incident);
            const raw = queries[k % queries.length];
            expect(set.findFirst(untyped(raw))).toBe(scan(set.findAll({}), raw)[0]);
          }
          expect(set.size).toBe(incidents.length);
          for (const raw of queries) {
            const expected = scan(incidents, raw);
            expect(set.findFirst(untyped(raw))).toBe(expected[0]);
            expect(set.findAll(untyped(raw))).toEqual(expected);
            expect(set.count(untyped(raw))).toBe(expected.length);
          }
        },
      ),
      fcOptions(150),
    );
  });
});

describe("IncidentSet on larger sets (column and index paths)", () => {
  it("agrees with the scan on a few hundred incidents", () => {
    fc.assert(
      fc.property(
        fc.array(incidentArb({ oddValues: false }), { minLength: 200, maxLength: 400 }),
        fc.array(searchConditionsArb(), { minLength: 4, maxLength: 8 }),
        (incidents, queries) => {
          const set = new IncidentSet(incidents);
          for (const raw of queries) {
            const expected = scan(incidents, raw);
            expect(set.findFirst(untyped(raw))).toBe(expected[0]);
            expect(set.count(untyped(raw))).toBe(expected.length);
            expect(set.findAll(untyped(raw))).toEqual(expected);
          }
        },
      ),
      fcOptions(40),
    );
  });
});
