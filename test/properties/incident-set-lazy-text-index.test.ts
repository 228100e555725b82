/**
 * The text index of a set read from NDJSON is built by the first query that needs it, not by the build
 * (docs/semantics.md, "The text index", "Built when first needed"). Properties, on sets of 50,000 rows (the
 * size from which the index is built with its lowered corpus): every answer of a sequence of queries
 * (label, hash, date and `$regex` conditions, `count`, `findFirst`, `findAll`, `explain`) is the same on a
 * set whose index is not built yet as on one whose index was built before the first query, and the same as
 * the reference interpreter's; `footprint().textIndexBytes` is 0 after the build, changes only with a
 * `$regex` on the text column (one whose plan reads the trigram lists), and is then the whole index.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { fcOptions } from "../support/fc.js";

type Incident = Record<string, unknown>;

/** Rows of each set: the size from which the index is built as a large set's (with its lowered corpus). */
const ROWS = 50_000;

const WORDS = ["phish", "Phishing", "login", "VPN", "dns", "PHISH", "mail", "k", "K", "ſ", "é"];

/** A title pattern of a few words; each row's title gets its row number, so that the column is a text column. */
const titleArb = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(" "));

/** A few record shapes, cycled over the rows. */
const shapesArb = fc.array(
  fc.record({
    title: fc.oneof(
      { weight: 6, arbitrary: titleArb },
      { weight: 1, arbitrary: fc.constantFrom(null, 7, ["phish"]) },
    ),
    severity: fc.constantFrom("High", "Low", "Critical"),
    month: fc.integer({ min: 1, max: 12 }),
  }),
  { minLength: 1, maxLength: 12 },
);

const queryArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.constantFrom<Record<string, unknown>>(
    { Title: { $regex: "phish" } },
    { Title: { $regex: "PHISH", $options: "i" } },
    { Title: { $regex: "^VPN" } },
    { Title: { $regex: "9$" } },
    { Title: { $regex: "(dns|mail) .* 1" } },
    { Title: { $regex: "k", $options: "i" } },
    { Title: { $regex: "." } },
  ),
  fc.constantFrom<Record<string, unknown>>(
    { Severity: "High" },
    { Severity: { $in: ["Low", "Critical"] }, IncidentId: { $gte: 49_990 } },
    { IncidentId: 1234 },
    { CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" } } },
    { Title: "login 17" },
  ),
  fc
    .tuple(fc.constantFrom("phish", "^mail", "é"), fc.constantFrom("High", "Low"))
    .map(([pattern, severity]) => ({ Title: { $regex: pattern }, Severity: severity })),
);

function incidentsOf(shapes: readonly { title: unknown; severity: string; month: number }[]): Incident[] {
  const out: Incident[] = new Array(ROWS);
  for (let row = 0; row < ROWS; row++) {
    const shape = shapes[row % shapes.length]!;
    out[row] = {
      IncidentId: row,
      Title: typeof shape.title === "string" ? `${shape.title} ${row}` : shape.title,
      Severity: shape.severity,
      CreatedUtcTime: `2024-${String(shape.month).padStart(2, "0")}-15T00:00:00Z`,
    };
  }
  return out;
}

const isText = (query: Record<string, unknown>): boolean =>
  typeof query.Title === "object" && query.Title !== null && "$regex" in query.Title;

describe("the text index of a set read from NDJSON, built by the first query that needs it", () => {
  it("answers as a set whose index was built first, and as evaluate, before and after the first text query", async () => {
    await fc.assert(
      fc.asyncProperty(
        shapesArb,
        fc.array(queryArb, { minLength: 1, maxLength: 6 }),
        async (shapes, queries) => {
          const incidents = incidentsOf(shapes);
          const text = `${incidents.map((incident) => JSON.stringify(incident)).join("\n")}\n`;
          const lazy = await IncidentSet.fromNdjson([text]);
          const built = await IncidentSet.fromNdjson([text]);
          built.count({ Title: { $regex: "phish" } });
          expect(built.footprint().textIndexBytes).toBeGreaterThan(0);
          const full = built.footprint().textIndexBytes;
          expect(lazy.footprint().textIndexBytes).toBe(0);
          for (const raw of queries) {
            const before = lazy.footprint().textIndexBytes;
            const condition = parseSearchConditions(raw);
            const expected = incidents.filter((incident) => evaluate(condition, incident));
            // `explain` first: it builds what the plan it reports depends on, and reports the same plan.
            expect([raw, lazy.explain(raw)]).toEqual([raw, built.explain(raw)]);
            expect([raw, lazy.count(raw)]).toEqual([raw, expected.length]);
            expect([raw, built.count(raw)]).toEqual([raw, expected.length]);
            expect([raw, lazy.findFirst(raw)]).toEqual([raw, built.findFirst(raw)]);
            expect([raw, lazy.findAll(raw).length]).toEqual([raw, expected.length]);
            const after = lazy.footprint().textIndexBytes;
            // Only a `$regex` on the text column builds the index; once built it is the whole index, kept.
            if (!isText(raw)) expect([raw, after]).toEqual([raw, before]);
            expect([raw, after === 0 || after === full]).toEqual([raw, true]);
            if (before > 0) expect(after).toBe(before);
          }
        },
      ),
      fcOptions(6),
    );
  });
});
