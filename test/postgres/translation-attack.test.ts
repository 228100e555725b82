/**
 * Attacks on toSqlWhere and the PostgreSQL backend: lone surrogates, year 0000 and BC instants, own `undefined`,
 * text PostgreSQL cannot store, and random conditions with `$elemMatch`, `$type` and `$mod` over nested
 * arrays, nulls, `-0` and large integers in the columns' fields; each answer must be what `evaluate` (or the
 * memory backend) gives, and the SQL must bracket it: `sure` ⊆ `evaluate` ⊆ `maybe`.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createMemoryBackend } from "../../src/commands/index.js";
import { evaluate, parseSearchConditions, safeParseSearchConditions } from "../../src/index.js";
import { createPostgresBackend, incidentRow, insertIncidents } from "../../src/postgres/backend.js";
import { DEFAULT_COLUMNS } from "../../src/postgres/schema.js";
import { toSqlWhere } from "../../src/postgres/to-sql.js";
import { conditionArb, recordArb } from "../arbitraries/array-operators.js";
import { FC_SEED, fcOptions } from "../support/fc.js";
import { DATABASE_KIND, openTestDatabase, useSchemaDatabase } from "./database.js";

const database = useSchemaDatabase();

/** The maybe/sure verdicts of each stored row of `site`, in load order. */
async function verdicts(site: string, raw: unknown) {
  const where = toSqlWhere(parseSearchConditions(raw), { firstParameter: 2 });
  const result = await database().query<{ maybe: boolean; sure: boolean }>(
    `SELECT ${where.text} AS maybe, ${where.sure.text} AS sure FROM iq_incidents WHERE site = $1 ORDER BY seq`,
    [site, ...where.values, ...where.sure.values],
  );
  return result.rows;
}

describe("toSqlWhere: a string operand holding a lone surrogate", () => {
  // The bound parameter is encoded to UTF-8, which turns "\ud800" into U+FFFD: the SQL then compares
  // with "\ufffd", a different string. evaluate: "\ufffd" !== "\ud800".
  const site = "surrogate";
  const record = { IncidentId: 1, Title: "\ufffd" };
  beforeAll(async () => {
    await insertIncidents(database(), DEFAULT_COLUMNS, [{ site, number: "1", incident: record }]);
  });

  it('{"Title": {"$ne": "\\ud800"}} keeps Title "\\ufffd" (evaluate matches)', async () => {
    const raw = { Title: { $ne: "\ud800" } };
    expect(evaluate(parseSearchConditions(raw), record)).toBe(true);
    const [row] = await verdicts(site, raw);
    expect(row!.maybe).toBe(true); // the superset must keep a match: it drops it
  });

  it('{"Title": "\\ud800"} is not sure for Title "\\ufffd" (evaluate does not match)', async () => {
    const raw = { Title: "\ud800" };
    expect(evaluate(parseSearchConditions(raw), record)).toBe(false);
    const [row] = await verdicts(site, raw);
    expect(row!.sure).toBe(false);
  });

  it("the backend finds the incident that the memory backend finds", async () => {
    const dataset = {
      sites: [{ name: "S" }],
      users: [{ username: "u", sites: ["S"] }],
      incidents: [{ IncidentId: 1, Number: "1", Site: "S", Title: "\ufffd" }],
    };
    const condition = parseSearchConditions({ Title: { $ne: "\ud800" } });
    const memory = createMemoryBackend(dataset as never);
    const db = await openTestDatabase();
    try {
      const backend = await createPostgresBackend({ client: db.client });
      await backend.migrate();
      await backend.loadDataset(dataset as never);
      const expected = await memory.findFirstIncident("S", condition);
      expect(expected?.IncidentId).toBe(1);
      expect((await backend.findFirstIncident("S", condition))?.IncidentId).toBe(1);
    } finally {
      await db.drop();
    }
  });
});

describe("toSqlWhere: $date operands in year 0000 (docs/semantics.md: years 0000–9999)", () => {
  // `new Date(ms).toISOString()::timestamptz` with year 0000: PostgreSQL refuses year 0
  // ("date/time field value out of range"), so the query fails instead of answering.
  const site = "year0";
  const record = { IncidentId: 1, CreatedUtcTime: "2024-01-01T00:00:00Z" };
  beforeAll(async () => {
    await insertIncidents(database(), DEFAULT_COLUMNS, [{ site, number: "1", incident: record }]);
  });

  it.each([
    [{ CreatedUtcTime: { $gte: { $date: "0000-06-01T00:00:00Z" } } }, true],
    [{ CreatedUtcTime: { $lt: { $date: "0000-12-31T23:59:59.999Z" } } }, false],
    [{ CreatedUtcTime: { $ne: { $date: { $numberLong: "-62167219200000" } } } }, true],
  ])("%j answers as evaluate (%s)", async (raw, expected) => {
    expect(evaluate(parseSearchConditions(raw), record)).toBe(expected);
    const [row] = await verdicts(site, raw);
    if (expected) expect(row!.maybe).toBe(true);
    else expect(row!.sure).toBe(false);
  });

  it("a record whose CreatedUtcTime is in year 0000 can be stored (evaluate reads it as a date)", async () => {
    const incident = { IncidentId: 2, CreatedUtcTime: "0000-06-01T00:00:00Z" };
    expect(evaluate(parseSearchConditions({ CreatedUtcTime: { $exists: true } }), incident)).toBe(true);
    await expect(
      insertIncidents(database(), DEFAULT_COLUMNS, [{ site: "year0-record", number: "2", incident }]),
    ).resolves.toBeUndefined();
  });
});

describe("incidentRow: an own property holding undefined", () => {
  // evaluate counts it as missing (docs/semantics.md 1.1); incidentRow lists it as irregular
  // ("present but not of the column's type"), so `$exists: false` is FALSE in SQL (sure and maybe).
  it('{"Title": {"$exists": false}} on {Title: undefined}', () => {
    const record = { IncidentId: 1, Title: undefined };
    expect(evaluate(parseSearchConditions({ Title: { $exists: false } }), record)).toBe(true);
    expect(incidentRow(record, DEFAULT_COLUMNS).irregular).not.toContain("Title");
  });
});

describe("loadDataset: incidents at the edges of what PostgreSQL stores", () => {
  // A year-0000 instant is stored (written with BC); the memory backend and this one find it alike.
  it.each([
    [
      "CreatedUtcTime in year 0000",
      { CreatedUtcTime: "0000-06-01T00:00:00Z" },
      { CreatedUtcTime: { $exists: true } },
    ],
  ])("%s", async (_name, fields, raw) => {
    const dataset = {
      sites: [{ name: "S" }],
      users: [{ username: "u", sites: ["S"] }],
      incidents: [{ IncidentId: 1, Number: "1", Site: "S", ...fields }],
    };
    const condition = parseSearchConditions(raw);
    expect((await createMemoryBackend(dataset as never).findFirstIncident("S", condition))?.IncidentId).toBe(
      1,
    );
    const db = await openTestDatabase();
    try {
      const backend = await createPostgresBackend({ client: db.client });
      await backend.migrate();
      await backend.loadDataset(dataset as never);
      expect((await backend.findFirstIncident("S", condition))?.IncidentId).toBe(1);
    } finally {
      await db.drop();
    }
  });
});

describe("loadDataset: text PostgreSQL cannot store is refused with a clear error, as U+0000 is", () => {
  it("a lone surrogate in a Title: a TypeError before anything is written", async () => {
    const dataset = {
      sites: [{ name: "S" }],
      users: [{ username: "u", sites: ["S"] }],
      incidents: [{ IncidentId: 1, Number: "1", Site: "S", Title: "a\ud800" }],
    };
    const db = await openTestDatabase();
    try {
      const backend = await createPostgresBackend({ client: db.client });
      await backend.migrate();
      await expect(backend.loadDataset(dataset as never)).rejects.toThrow(
        /U\+0000 or an unpaired UTF-16 surrogate, which PostgreSQL text cannot store/,
      );
      expect(await backend.findFirstIncident("S", parseSearchConditions({ Title: { $regex: "^a" } }))).toBe(
        undefined,
      );
    } finally {
      await db.drop();
    }
  });
});

describe(`toSqlWhere: $elemMatch, $type and $mod on the columns' fields, on ${DATABASE_KIND}`, () => {
  // The fields with columns (a text field, an enumerated field, the date field) and an open field, holding
  // strings, labels, ISO instants, nested arrays and objects, null, -0 (JSON writes it 0) and integers
  // beyond 2^53 and 2^63. The records are stored as JSON, so evaluate reads them as JSON gives them back.
  const site = "array-operators";
  const KEYS = ["Title", "Severity", "CreatedUtcTime", "a"];
  const options = { json: true, strings: ["High", "Low", "Phishing"] } as const;
  const records = fc
    .sample(recordArb(KEYS, options), { seed: FC_SEED + 40, numRuns: 160 })
    .map((record) => JSON.parse(JSON.stringify(record)) as Record<string, unknown>);
  // The column fields three times as often as the others: only they reach the SQL.
  const conditions = conditionArb(
    [
      "Title",
      "Severity",
      "CreatedUtcTime",
      "Title",
      "Severity",
      "CreatedUtcTime",
      "Title",
      "Severity",
      "CreatedUtcTime",
      "Title.0",
      "a",
      "a.0",
    ],
    { ...options, logical: true },
  ).filter((raw) => safeParseSearchConditions(raw).success);
  beforeAll(async () => {
    await insertIncidents(
      database(),
      DEFAULT_COLUMNS,
      records.map((incident, k) => ({ site, number: String(k), incident })),
    );
  });

  it("sure ⊆ evaluate ⊆ maybe on every stored record (fast-check, fixed seed: printed on failure)", async () => {
    let pairs = 0;
    let matched = 0;
    let sure = 0;
    let columnConditions = 0;
    await fc.assert(
      fc.asyncProperty(conditions, async (raw) => {
        const condition = parseSearchConditions(raw);
        const rows = await verdicts(site, raw);
        if (toSqlWhere(condition).text !== "TRUE") columnConditions++;
        expect(rows).toHaveLength(records.length);
        rows.forEach((row, k) => {
          const expected = evaluate(condition, records[k]!);
          const where = `${JSON.stringify(raw)} on ${JSON.stringify(records[k])}`;
          if (row.sure) expect(expected, `sure but no match: ${where}`).toBe(true);
          if (expected) expect(row.maybe, `a match but not maybe: ${where}`).toBe(true);
          pairs++;
          if (expected) matched++;
          if (row.sure) sure++;
        });
      }),
      fcOptions(300),
    );
    expect(pairs).toBeGreaterThanOrEqual(300 * records.length);
    // Both answers occur, the SQL decides some rows outright, and most conditions reach the SQL.
    expect(matched).toBeGreaterThan(pairs * 0.05);
    expect(matched).toBeLessThan(pairs * 0.95);
    expect(sure).toBeGreaterThan(0);
    expect(columnConditions).toBeGreaterThan(300 / 4);
  }, 600_000);
});
