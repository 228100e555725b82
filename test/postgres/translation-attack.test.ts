/**
 * Attacks on toSqlWhere and the PostgreSQL backend: lone surrogates, year 0000 and BC instants, own `undefined`,
 * and text PostgreSQL cannot store; each answer must be what `evaluate` (or the memory backend) gives.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createMemoryBackend } from "../../src/commands/index.js";
import { evaluate, parseSearchConditions } from "../../src/index.js";
import { createPostgresBackend, incidentRow, insertIncidents } from "../../src/postgres/backend.js";
import { DEFAULT_COLUMNS } from "../../src/postgres/schema.js";
import { toSqlWhere } from "../../src/postgres/to-sql.js";
import { openTestDatabase, useSchemaDatabase } from "./database.js";

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
