import fc from "fast-check";
import { find, Query } from "mingo";
import type { Document } from "mongodb";
import { describe, expect, it } from "vitest";
import { searchConditionsArb } from "../../test/arbitraries/conditions.js";
import { incidentListArb } from "../../test/arbitraries/incidents.js";
import { fcOptions } from "../../test/support/fc.js";
import { evaluate } from "../conditions/evaluate.js";
import { parseSearchConditions } from "../conditions/parse.js";
import { compareOrderKeys, orderKeyOf } from "../incidents/order.js";
import { firstMatchingIncident, type IncidentCollection } from "./first-match.js";
import { type DateStorage, toMongoFilter } from "./to-mongo.js";

type Incident = Record<string, unknown>;

/**
 * A collection over an array, with mingo as the query engine (MongoDB semantics) and its cursor's sort;
 * records every `findOne` call.
 */
function memoryCollection(documents: readonly Incident[]) {
  const calls: { filter: unknown; sort: unknown }[] = [];
  const collection = {
    findOne: async (filter: Document, options?: { sort?: Record<string, 1 | -1> }) => {
      calls.push({ filter, sort: options?.sort });
      const cursor = find(documents as Document[], filter);
      if (options?.sort !== undefined) cursor.sort(options.sort);
      return (cursor.limit(1).next() as Document | undefined) ?? null;
    },
  };
  return { collection: collection as unknown as IncidentCollection<Incident>, calls };
}

/**
 * An incident as the collection holds it: catalogue date values as BSON dates (`"date"`) or ISO strings
 * (`"string"`, without milliseconds for odd `IncidentId`s when they are zero, so both forms mix). An
 * invalid `Date` cannot be stored in BSON: it becomes `null`.
 */
function stored(incident: Incident, mode: DateStorage): Incident {
  if (!Object.hasOwn(incident, "CreatedUtcTime")) return incident;
  const short = Number(incident.IncidentId) % 2 === 1;
  const convert = (v: unknown): unknown => {
    if (v instanceof Date && Number.isNaN(v.getTime())) return null;
    if (mode === "date" && typeof v === "string") {
      const ms = Date.parse(v);
      return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.test(v) &&
        !Number.isNaN(ms) &&
        new Date(ms).toISOString().slice(0, 10) === v.slice(0, 10)
        ? new Date(ms)
        : v;
    }
    if (mode === "string" && v instanceof Date) {
      const iso = v.toISOString();
      return short && iso.endsWith(".000Z") ? `${iso.slice(0, 19)}Z` : iso;
    }
    return v;
  };
  const value = incident.CreatedUtcTime;
  return { ...incident, CreatedUtcTime: Array.isArray(value) ? value.map(convert) : convert(value) };
}

/** The first matching incident by docs/semantics.md 1.9 (order.ts), in memory. */
function expectedFirst(
  incidents: readonly Incident[],
  matches: (incident: Incident) => boolean,
): Incident | null {
  let best: Incident | null = null;
  for (const incident of incidents) {
    if (!matches(incident)) continue;
    if (best === null || compareOrderKeys(orderKeyOf(incident), orderKeyOf(best)) < 0) best = incident;
  }
  return best;
}

const d = (iso: string) => new Date(iso);

describe("firstMatchingIncident", () => {
  for (const mode of ["date", "string"] as const) {
    it(`returns the incident of docs/semantics.md 1.9 for random conditions and incident sets (${mode})`, async () => {
      let found = 0;
      let undatedFirst = 0;
      let agreeing = 0;
      await fc.assert(
        fc.asyncProperty(
          searchConditionsArb({ maxKeys: 2, maxDepth: 2 }),
          incidentListArb({ maxLength: 12 }),
          async (raw, incidents) => {
            const condition = parseSearchConditions(raw);
            const documents = incidents.map((incident) => stored(incident, mode));
            const { collection } = memoryCollection(documents);
            const actual = await firstMatchingIncident(collection, condition, { dateStorage: mode });
            // The matching set is the engine's (the filter itself is proven in test/differential); this
            // property is about the order and the dated/undated plan.
            const query = new Query(toMongoFilter(condition, { dateStorage: mode }));
            const expected = expectedFirst(documents, (incident) => query.test(incident));
            if (expected !== null && evaluate(condition, expected)) agreeing++;
            expect(actual?.IncidentId ?? null).toBe(expected?.IncidentId ?? null);
            if (expected !== null) {
              found++;
              if (orderKeyOf(expected).time === Number.POSITIVE_INFINITY) undatedFirst++;
            }
          },
        ),
        fcOptions(600),
      );
      // The property saw answers of both kinds: dated first incidents and undated ones.
      expect(found).toBeGreaterThan(100);
      expect(undatedFirst).toBeGreaterThan(5);
      expect(agreeing).toBeGreaterThan(found * 0.95);
    });
  }

  it("puts undated incidents after dated ones, whatever MongoDB's own sort order", async () => {
    const documents = [
      { IncidentId: 1, Severity: "High" },
      { IncidentId: 2, Severity: "High", CreatedUtcTime: null },
      { IncidentId: 3, Severity: "High", CreatedUtcTime: "yesterday" },
      { IncidentId: 4, Severity: "High", CreatedUtcTime: d("2024-05-01T00:00:00Z") },
      { IncidentId: 5, Severity: "High", CreatedUtcTime: d("2024-04-01T00:00:00Z") },
    ];
    const { collection, calls } = memoryCollection(documents);
    const first = await firstMatchingIncident(collection, parseSearchConditions({ Severity: "High" }));
    expect(first?.IncidentId).toBe(5);
    expect(calls).toHaveLength(1);
  });

  it("falls back to the undated incidents by IncidentId when no dated incident matches", async () => {
    const documents = [
      { IncidentId: 9, Severity: "Low", CreatedUtcTime: d("2024-01-01T00:00:00Z") },
      { IncidentId: 7, Severity: "High", CreatedUtcTime: [d("2024-01-01T00:00:00Z")] },
      { IncidentId: 3, Severity: "High", CreatedUtcTime: 1704067200000 },
      { IncidentId: 8, Severity: "High" },
    ];
    const { collection, calls } = memoryCollection(documents);
    const first = await firstMatchingIncident(collection, parseSearchConditions({ Severity: "High" }));
    expect(first?.IncidentId).toBe(3);
    expect(calls).toHaveLength(2);
  });

  it("returns null when nothing matches", async () => {
    const { collection } = memoryCollection([{ IncidentId: 1, Severity: "Low" }]);
    expect(await firstMatchingIncident(collection, parseSearchConditions({ Severity: "High" }))).toBeNull();
  });

  it("orders ties by IncidentId", async () => {
    const at = d("2024-01-01T00:00:00Z");
    const documents = [
      { IncidentId: 30, CreatedUtcTime: at },
      { IncidentId: 10, CreatedUtcTime: at },
      { IncidentId: 20, CreatedUtcTime: at },
    ];
    const { collection } = memoryCollection(documents);
    expect((await firstMatchingIncident(collection, parseSearchConditions({})))?.IncidentId).toBe(10);
  });

  it.each([
    {
      name: "the form without milliseconds is earlier than .500 of its second",
      ids: [1, 2],
      times: ["2024-01-01T00:00:00.500Z", "2024-01-01T00:00:00Z"],
      first: 2,
    },
    {
      name: "both forms of one instant tie, by IncidentId",
      ids: [5, 4],
      times: ["2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00Z"],
      first: 4,
    },
    {
      name: "both forms of one instant tie, by IncidentId (reversed)",
      ids: [4, 5],
      times: ["2024-01-01T00:00:00.000Z", "2024-01-01T00:00:00Z"],
      first: 4,
    },
    {
      name: "an earlier second wins over any form",
      ids: [1, 2],
      times: ["2024-01-01T00:00:01Z", "2024-01-01T00:00:00.999Z"],
      first: 2,
    },
    {
      name: "an invalid calendar date is undated",
      ids: [1, 2],
      times: ["2024-02-30T00:00:00Z", "2024-03-01T00:00:00Z"],
      first: 2,
    },
  ])("string storage: $name", async ({ ids, times, first }) => {
    const documents = ids.map((id, i) => ({ IncidentId: id, CreatedUtcTime: times[i] }));
    const { collection } = memoryCollection(documents);
    const found = await firstMatchingIncident(collection, parseSearchConditions({}), {
      dateStorage: "string",
    });
    expect(found?.IncidentId).toBe(first);
  });

  it("ANDs the scope filter (the request's site) and maps field names", async () => {
    const documents = [
      { incidentId: 1, site: "Lab", sev: "High", created: d("2024-01-01T00:00:00Z") },
      { incidentId: 2, site: "SOC", sev: "High", created: d("2024-02-01T00:00:00Z") },
      { incidentId: 3, site: "SOC", sev: "High", created: d("2024-03-01T00:00:00Z") },
      { incidentId: 4, site: "SOC", sev: "Low", created: d("2023-01-01T00:00:00Z") },
    ];
    const { collection, calls } = memoryCollection(documents);
    const found = await firstMatchingIncident(collection, parseSearchConditions({ Severity: "High" }), {
      scope: { site: "SOC" },
      fieldMap: { Severity: "sev", CreatedUtcTime: "created", IncidentId: "incidentId" },
    });
    expect(found?.incidentId).toBe(2);
    expect(calls[0]?.sort).toEqual({ created: 1, incidentId: 1 });
  });

  it("reads a nested mapped CreatedUtcTime with string storage", async () => {
    const documents = [
      { IncidentId: 1, meta: { created: "2024-01-01T00:00:00.500Z" } },
      { IncidentId: 2, meta: { created: "2024-01-01T00:00:00Z" } },
    ];
    const { collection } = memoryCollection(documents);
    const found = await firstMatchingIncident(collection, parseSearchConditions({}), {
      dateStorage: "string",
      fieldMap: { CreatedUtcTime: "meta.created" },
    });
    expect(found?.IncidentId).toBe(2);
  });
});
