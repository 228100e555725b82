/**
 * toSqlWhere on a real PostgreSQL (PGlite in `npm test`; a server with PG_URL): for every conformance case
 * and for a random differential of more than 10,000 condition/record pairs, the SQL clauses bracket the
 * reference interpreter — `sure` ⊆ evaluate ⊆ `text` (maybe) — and the re-checked answer equals `evaluate`.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../src/conditions/compile.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { insertIncidents } from "../../src/postgres/backend.js";
import { DEFAULT_COLUMNS } from "../../src/postgres/schema.js";
import { toSqlWhere } from "../../src/postgres/to-sql.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import { allCases } from "../conformance/harness.js";
import { FC_SEED } from "../support/fc.js";
import { DATABASE_KIND, useSchemaDatabase } from "./database.js";

const database = useSchemaDatabase();

/**
 * The record as PostgreSQL stores it (JSON), or undefined when JSON cannot hold it exactly. A JS `Date` in
 * `CreatedUtcTime` is stored as its ISO string, which means the same there (docs/semantics.md 1.5).
 */
function asStored(input: Record<string, unknown>): Record<string, unknown> | undefined {
  const record = { ...input };
  const created = record.CreatedUtcTime;
  if (created instanceof Date && Object.hasOwn(record, "CreatedUtcTime")) {
    const ms = created.getTime();
    if (!(ms >= -62167219200000 && ms <= 253402300799999)) return undefined;
    record.CreatedUtcTime = created.toISOString();
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(record);
  } catch {
    return undefined; // a value JSON cannot write at all (a forged Date's toJSON throws)
  }
  if (text === undefined || text.includes("\\u0000")) return undefined;
  const back = JSON.parse(text) as Record<string, unknown>;
  return isDeepStrictEqual(back, record) ? back : undefined;
}

interface Verdict {
  readonly seq: number;
  readonly maybe: boolean;
  readonly sure: boolean;
  readonly record: Record<string, unknown>;
}

async function verdicts(site: string, raw: unknown): Promise<Verdict[]> {
  const condition = parseSearchConditions(raw);
  const where = toSqlWhere(condition, { firstParameter: 2 });
  const result = await database().query<Verdict>(
    `SELECT seq::integer AS seq, ${where.text} AS maybe, ${where.sure.text} AS sure, record
     FROM iq_incidents WHERE site = $1 ORDER BY seq`,
    [site, ...where.values, ...where.sure.values],
  );
  return result.rows;
}

describe(`toSqlWhere on ${DATABASE_KIND}`, () => {
  it("documents its example exactly", () => {
    expect(toSqlWhere(parseSearchConditions({ Severity: "High" }))).toEqual({
      text: '(("f_severity" IS NOT NULL AND "f_severity" = ANY($1::text[])) OR "irregular" @> ARRAY[$2::text])',
      values: [["High"], "Severity"],
      sure: { text: '("f_severity" IS NOT NULL AND "f_severity" = ANY($3::text[]))', values: [["High"]] },
      exact: false,
    });
  });

  it("never splices a value into the SQL text, and checks identifiers", () => {
    const hostile = "x'); DROP TABLE iq_incidents; --";
    const where = toSqlWhere(parseSearchConditions({ Title: hostile, Severity: { $in: ["High"] } }));
    expect(where.text).not.toContain("DROP");
    expect(JSON.stringify(where.values)).toContain(JSON.stringify(hostile).slice(1, -1));
    expect(() => toSqlWhere(parseSearchConditions({ Title: "x" }), { columns: { Title: 'x"; --' } })).toThrow(
      TypeError,
    );
    expect(() => toSqlWhere(parseSearchConditions({ Title: "x" }), { alias: "A B" })).toThrow(TypeError);
  });

  it("pushes catalogue equality down and marks regex, open fields and text ranges for re-checking", () => {
    const eq = toSqlWhere(parseSearchConditions({ Severity: "High" }));
    expect(eq.text).toContain('"f_severity"');
    expect(eq.exact).toBe(false);
    const exists = toSqlWhere(parseSearchConditions({ Title: { $exists: true } }));
    expect(exists.exact).toBe(true);
    for (const raw of [{ Title: { $regex: "^P" } }, { "Custom.Owner": "a" }, { Title: { $gt: "a" } }]) {
      const where = toSqlWhere(parseSearchConditions(raw));
      expect(where).toMatchObject({ text: "TRUE", sure: { text: "FALSE", values: [] }, values: [] });
    }
  });

  describe("the pitfalls of SQL over documents", () => {
    const site = "pitfalls";
    const records: Record<string, unknown>[] = [
      { IncidentId: 1, Severity: "High", Title: "10" },
      { IncidentId: 2, Title: "9" },
      { IncidentId: 3, Severity: null },
      { IncidentId: 4, Severity: ["High", "Low"] },
      { IncidentId: 5, Severity: 5 },
      { IncidentId: 6, CreatedUtcTime: "2024-01-01T00:00:00Z" },
      { IncidentId: 7, CreatedUtcTime: ["2024-01-01T00:00:00Z"] },
      { IncidentId: 8, CreatedUtcTime: "not a date" },
      { IncidentId: 9, a: "10" },
      { IncidentId: 10, a: 9 },
    ];
    beforeAll(async () => {
      await insertIncidents(
        database(),
        DEFAULT_COLUMNS,
        records.map((incident, k) => ({ site, number: String(k), incident })),
      );
    });
    const cases: [string, unknown][] = [
      ["$ne matches a missing field (SQL <> never does)", { Severity: { $ne: "High" } }],
      ["$nin matches a missing field (SQL NOT IN never does)", { Severity: { $nin: ["High", "Low"] } }],
      ["null matches null and missing, not other values", { Severity: null }],
      ["$ne null is the exact negation", { Severity: { $ne: null } }],
      ["equality looks inside arrays", { Severity: "Low" }],
      ["a date inside an array", { CreatedUtcTime: { $gte: { $date: "2023-12-31T00:00:00Z" } } }],
      ["$exists false only for missing", { CreatedUtcTime: { $exists: false } }],
      ["text is not compared as numbers ('10' < '9')", { Title: { $lt: "9" } }],
      ["open fields bracket types (strings with strings)", { a: { $gt: "1" } }],
      ["open fields bracket types (numbers with numbers)", { a: { $gt: 1 } }],
      ["$not of a pushed-down equality", { Severity: { $not: { $in: ["High"] } } }],
      ["$nor", { $nor: [{ Severity: "High" }, { CreatedUtcTime: { $exists: true } }] }],
    ];
    it.each(cases)("%s", async (_name, raw) => {
      const rows = await verdicts(site, raw);
      const predicate = compile(parseSearchConditions(raw));
      expect(rows).toHaveLength(records.length);
      for (const row of rows) {
        const expected = evaluate(parseSearchConditions(raw), records[row.seq - rows[0]!.seq]!);
        expect(predicate(row.record), JSON.stringify(row.record)).toBe(expected);
        if (row.sure) expect(expected, `sure but no match: ${JSON.stringify(row.record)}`).toBe(true);
        if (expected) expect(row.maybe, `match but not maybe: ${JSON.stringify(row.record)}`).toBe(true);
      }
    });
  });

  it("brackets evaluate on every conformance case (ours and MongoDB's jstests) whose records JSON can hold", async () => {
    let checked = 0;
    let skipped = 0;
    const rows: { site: string; number: string; incident: Record<string, unknown> }[] = [];
    const usable = allCases.flatMap((matchCase, index) => {
      if (matchCase.catalog !== undefined) return [];
      try {
        parseSearchConditions(matchCase.conditions);
      } catch {
        return []; // refused by the parser: nothing to translate (the harness pins these)
      }
      const stored = matchCase.incidents.map((entry) => asStored(entry.incident));
      if (stored.some((record) => record === undefined)) {
        skipped++;
        return [];
      }
      stored.forEach((incident, k) => {
        rows.push({ site: `case-${index}`, number: String(k), incident: incident! });
      });
      return [{ matchCase, site: `case-${index}` }];
    });
    for (let start = 0; start < rows.length; start += 1000) {
      await insertIncidents(database(), DEFAULT_COLUMNS, rows.slice(start, start + 1000));
    }
    for (const { matchCase, site } of usable) {
      const found = await verdicts(site, matchCase.conditions);
      expect(found).toHaveLength(matchCase.incidents.length);
      const condition = parseSearchConditions(matchCase.conditions);
      const predicate = compile(condition);
      found.forEach((row) => {
        // The target must mean what the reference interpreter means (the harness holds evaluate to the
        // table, with its one skip list).
        const expected = evaluate(condition, row.record);
        const where = `${matchCase.name}: ${JSON.stringify(row.record)}`;
        if (row.sure) expect(expected, `sure but no match — ${where}`).toBe(true);
        if (expected) expect(row.maybe, `match but not maybe — ${where}`).toBe(true);
        expect(predicate(row.record), `re-check — ${where}`).toBe(expected);
        checked++;
      });
    }
    expect(usable.length).toBeGreaterThan(allCases.length * 0.75);
    expect(checked).toBeGreaterThan(2000);
    expect(skipped).toBeLessThan(allCases.length * 0.2);
  }, 300_000);

  it("agrees with evaluate on a random differential of more than 10,000 pairs", async () => {
    const records = fc
      .sample(incidentArb(), { seed: FC_SEED, numRuns: 1000 })
      .map((record) => asStored(record))
      .filter((record): record is Record<string, unknown> => record !== undefined)
      .slice(0, 250);
    const conditions = fc.sample(searchConditionsArb(), { seed: FC_SEED + 1, numRuns: 48 });
    const site = "random";
    await insertIncidents(
      database(),
      DEFAULT_COLUMNS,
      records.map((incident, k) => ({ site, number: String(k), incident })),
    );
    let pairs = 0;
    let pushedDown = 0;
    for (const raw of conditions) {
      const condition = parseSearchConditions(raw);
      const predicate = compile(condition);
      const found = await verdicts(site, raw);
      if (toSqlWhere(condition).text !== "TRUE") pushedDown++;
      expect(found).toHaveLength(records.length);
      found.forEach((row, k) => {
        const expected = evaluate(condition, records[k]!);
        const where = `seed ${FC_SEED}: ${JSON.stringify(raw)} on ${JSON.stringify(records[k])}`;
        if (row.sure) expect(expected, `sure but no match — ${where}`).toBe(true);
        if (expected) expect(row.maybe, `match but not maybe — ${where}`).toBe(true);
        expect(predicate(row.record), `re-check — ${where}`).toBe(expected);
        pairs++;
      });
    }
    expect(records.length).toBeGreaterThanOrEqual(210);
    expect(pairs).toBeGreaterThanOrEqual(10_000);
    // The differential is only worth something if many conditions reach the SQL side.
    expect(pushedDown).toBeGreaterThan(conditions.length / 3);
  }, 300_000);

  it("brackets evaluate with $elemMatch, $type and $mod in generated conditions (docs/semantics.md 1.3)", async () => {
    const records = fc
      .sample(incidentArb(), { seed: FC_SEED + 2, numRuns: 400 })
      .map((record) => asStored(record))
      .filter((record): record is Record<string, unknown> => record !== undefined)
      .slice(0, 120);
    const conditions = fc
      .sample(searchConditionsArb({ arrayOperators: true }), { seed: FC_SEED + 3, numRuns: 400 })
      .filter((raw) => /"\$(?:elemMatch|type|mod)"/.test(JSON.stringify(raw)))
      .slice(0, 40);
    const site = "random-array-operators";
    await insertIncidents(
      database(),
      DEFAULT_COLUMNS,
      records.map((incident, k) => ({ site, number: String(k), incident })),
    );
    let pairs = 0;
    let matched = 0;
    for (const raw of conditions) {
      const condition = parseSearchConditions(raw);
      const predicate = compile(condition);
      const found = await verdicts(site, raw);
      found.forEach((row, k) => {
        const expected = evaluate(condition, records[k]!);
        const where = `seed ${FC_SEED}: ${JSON.stringify(raw)} on ${JSON.stringify(records[k])}`;
        if (row.sure) expect(expected, `sure but no match — ${where}`).toBe(true);
        if (expected) expect(row.maybe, `match but not maybe — ${where}`).toBe(true);
        expect(predicate(row.record), `re-check — ${where}`).toBe(expected);
        if (expected) matched++;
        pairs++;
      });
    }
    expect(conditions).toHaveLength(40);
    expect(pairs).toBeGreaterThanOrEqual(4000);
    expect(matched).toBeGreaterThan(pairs / 50);
  }, 300_000);
});
