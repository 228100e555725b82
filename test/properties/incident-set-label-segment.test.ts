/**
 * Properties of `IncidentSet` when an AND of labels and a `CreatedUtcTime` interval is answered by a segment
 * of the creation order in word operations (docs/performance.md, "Labels and a creation-time interval"):
 * `count`, `findAll` and `findFirst` must equal a sorted linear scan with the reference interpreter, with
 * labels and dates that are missing, null, numbers or arrays, and incidents added between queries.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { fcOptions } from "../support/fc.js";
import { checkAgainstScanAcrossAdds, referenceScan } from "../support/reference-scan.js";

type Incident = Record<string, unknown>;

const month = (m: number) => `2024-${String(m + 1).padStart(2, "0")}-15T00:00:00Z`;

function incidentsArb(oddities: boolean): fc.Arbitrary<Incident[]> {
  const odd = <T>(values: fc.Arbitrary<T>, ...extra: unknown[]) =>
    oddities
      ? fc.oneof({ weight: 6, arbitrary: values }, { weight: 1, arbitrary: fc.constantFrom(...extra) })
      : values;
  const incident = fc
    .record(
      {
        IncidentId: fc.integer({ min: 1, max: 50 }),
        Severity: odd(fc.constantFrom("High", "Critical", "Low", "Medium"), null, ["High"], 3),
        IngestionType: odd(fc.constantFrom("Webhook", "Schedule Job", "Manual Creation"), null, ["Webhook"]),
        CreatedUtcTime: odd(fc.integer({ min: 0, max: 11 }).map(month), null, "not a date", 5, [month(3)]),
      },
      {
        requiredKeys: oddities
          ? ["IncidentId"]
          : ["IncidentId", "Severity", "IngestionType", "CreatedUtcTime"],
      },
    )
    .map((r) => r as Incident);
  return fc.array(incident, { maxLength: 80 });
}

const labelArb = fc.constantFrom<[string, unknown][]>(
  [["Severity", "High"]],
  [["Severity", { $in: ["High", "Critical"] }]],
  [["Severity", { $ne: "Low" }]],
  [["Severity", { $nin: ["Low", "Medium"] }]],
  [["IngestionType", "Webhook|Schedule Job"]],
  [
    ["Severity", "Critical"],
    ["IngestionType", "Webhook"],
  ],
);

const dateArb = fc
  .tuple(
    fc.integer({ min: 0, max: 12 }),
    fc.integer({ min: 0, max: 12 }),
    fc.constantFrom("range", "gt", "gte", "lt"),
  )
  .map(([a, b, kind]) => {
    const at = (m: number) => ({
      $date: `2024-${String(Math.min(m, 11) + 1).padStart(2, "0")}-01T00:00:00Z`,
    });
    if (kind === "gt") return { $gt: at(a) };
    if (kind === "gte") return { $gte: at(a) };
    if (kind === "lt") return { $lt: at(a) };
    return { $gt: at(Math.min(a, b)), $lt: at(Math.max(a, b)) };
  });

const queryArb = fc
  .tuple(labelArb, dateArb, fc.constantFrom("and", "or", "nor"))
  .map(([labels, date, wrap]) => {
    const query: Record<string, unknown> = Object.fromEntries(labels);
    query.CreatedUtcTime = date;
    if (wrap === "and") return query;
    return { [wrap === "or" ? "$or" : "$nor"]: [query, { Severity: "Medium" }] };
  });

const layouts: [string, IncidentSetOptions][] = [
  ["default", {}],
  ["labels without code bitsets", { maxDictionary: 2 }],
];

describe.each(layouts)(
  "labels and a creation-time interval agree with a sorted linear scan (%s)",
  (_n, options) => {
    it.each([false, true])(
      "count, findAll and findFirst (nulls, arrays and missing fields: %s)",
      (oddities) => {
        fc.assert(
          fc.property(
            incidentsArb(oddities),
            fc.array(queryArb, { minLength: 1, maxLength: 4 }),
            fc.nat(),
            (incidents, queries, split) => checkAgainstScanAcrossAdds(incidents, queries, split, options),
          ),
          fcOptions(200),
        );
      },
    );
  },
);

describe("labels and a creation-time interval: the plan", () => {
  const incidents: Incident[] = Array.from({ length: 600 }, (_, k) => ({
    IncidentId: k + 1,
    Severity: ["High", "Low", "Critical"][k % 3],
    IngestionType: k % 2 === 0 ? "Webhook" : "Manual Creation",
    CreatedUtcTime: month(k % 12),
  }));
  const set = new IncidentSet(incidents);

  it.each([
    ["an open-ended interval (most of the rows)", { $gte: { $date: "2024-02-01T00:00:00Z" } }],
    [
      "a bounded interval",
      { $gt: { $date: "2024-03-01T00:00:00Z" }, $lt: { $date: "2024-06-01T00:00:00Z" } },
    ],
  ])("scans the segment of %s by words, and answers as the scan does", (_name, interval) => {
    const query = {
      Severity: { $in: ["High", "Critical"] },
      IngestionType: "Webhook",
      CreatedUtcTime: interval,
    };
    expect(set.explain(query).count).toBe("columns: segment CreatedUtcTime, labels by word");
    const expected = referenceScan(incidents, query);
    expect(expected.length).toBeGreaterThan(0);
    expect(set.count(query)).toBe(expected.length);
    expect(set.findAll(query)).toEqual(expected);
  });

  it("does not take the segment when a label column holds arrays", () => {
    const withArray = new IncidentSet([
      ...incidents,
      { IncidentId: 9999, Severity: ["High"], CreatedUtcTime: month(4) },
    ]);
    const query = { Severity: "High", CreatedUtcTime: { $gte: { $date: "2024-02-01T00:00:00Z" } } };
    expect(withArray.explain(query).count).not.toMatch(/labels by word/);
    expect(withArray.count(query)).toBe(
      referenceScan([...incidents, { IncidentId: 9999, Severity: ["High"], CreatedUtcTime: month(4) }], query)
        .length,
    );
  });

  it("ticks the budget in the segment scan", () => {
    let now = 0;
    const clock = () => ++now;
    const query = { Severity: "High", CreatedUtcTime: { $gte: { $date: "2024-02-01T00:00:00Z" } } };
    expect(() => set.count(query, { maxTimeMS: 0, clock })).toThrow(/took longer than 0 ms/);
  });
});
