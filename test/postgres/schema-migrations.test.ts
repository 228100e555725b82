/**
 * The versioned schema (docs/postgresql.md, "Schema versions"): a database made by the previous release
 * (its DDL verbatim in `schema-v1.ts`, its rows written by the same insert statements it used) holding
 * incidents, notes and runs is upgraded with nothing lost; a column the map gains is added and filled from
 * the records; instances that migrate at once migrate once; a migration stopped part-way (a failure in this
 * process; a SIGKILL of a child process on a real server) leaves the version before it; a database newer
 * than the code is refused, by `migrate()` and by `serve --database`. PGlite in the default suite, a real
 * server under `scripts/with-postgres.sh`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { CliError, EXIT } from "../../src/cli/exit-codes.js";
import { registerServeCommand } from "../../src/cli/serve.js";
import { createCommandHandler } from "../../src/commands/handler.js";
import type { Dataset } from "../../src/commands/memory/dataset.js";
import { createMemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { createPostgresBackend, type MigrationStep } from "../../src/postgres/backend.js";
import {
  type ColumnMap,
  DEFAULT_COLUMNS,
  MIGRATIONS,
  SCHEMA_VERSION,
  SchemaVersionError,
} from "../../src/postgres/schema.js";
import type { SqlClient } from "../../src/postgres/sql-client.js";
import { SOC, TEST_DATASET } from "../server/fixtures.js";
import { DATABASE_KIND, openTestDatabase, type TestDatabase } from "./database.js";
import { previousSchemaStatements } from "./schema-v1.js";

const OWNER_COLUMNS: ColumnMap = { ...DEFAULT_COLUMNS, Owner: "f_owner" };
const OWNERS: Record<string, unknown> = { "20240101-1": "alice", "20240102-1": "bob", "20240104-1": 7 };

/** TEST_DATASET with an `Owner` on three incidents: two strings and a number (irregular for its column). */
const DATASET: Dataset = {
  ...TEST_DATASET,
  incidents: TEST_DATASET.incidents!.map((incident) =>
    OWNERS[incident.Number] === undefined ? incident : { ...incident, Owner: OWNERS[incident.Number] },
  ),
};

const clock = () => new Date("2024-05-01T12:00:00Z");
const caller = { username: "analyst" };
const body = (CommandParams: Record<string, unknown>) => ({ Username: "analyst", Site: SOC, CommandParams });

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const database of opened) await database.drop();
});

/**
 * A database as the previous release made and used it: its DDL, the dataset loaded, two notes added and
 * one trigger run (two playbooks, RuntimeIds 1 and 2). The rows are written by a backend that has not
 * migrated, whose statements are those of the previous release (the same `insertIncidents`, `appendNote`
 * and `recordPlaybookRun`).
 */
async function previousReleaseDatabase(): Promise<TestDatabase> {
  const database = await openTestDatabase({ shared: true });
  opened.push(database);
  for (const statement of previousSchemaStatements()) await database.client.query(statement);
  const old = await createPostgresBackend({ client: database.client, clock });
  await old.loadDataset(DATASET);
  const handle = createCommandHandler(old);
  for (const note of ["first", "second"]) {
    const answer = await handle(
      "AddNotesToArtifacts",
      body({ "Artifact Name": "10.0.0.5", Note: note }),
      caller,
    );
    expect((answer.body as { error: string }).error).toBe("");
  }
  const run = await handle(
    "TriggerIncidentExternalAction",
    body({ "Search Conditions": { Type: "Phishing" }, "Trigger Data": { t: 1 } }),
    caller,
  );
  expect(run.body).toMatchObject({ error: "", returnData: { Data: { IncidentNo: "20240101-1" } } });
  return database;
}

/** Everything the database stores, as JSON, except the incidents' column values (`columnsOf`). */
async function stored(client: SqlClient): Promise<Record<string, unknown>> {
  const all = async (sql: string) => (await client.query(sql)).rows;
  return {
    incidents: await all(
      "SELECT seq, site, number, incident_id, created, record FROM iq_incidents ORDER BY seq",
    ),
    notes: await all("SELECT id, site, artifact_name, type_id, text, author, time FROM iq_notes ORDER BY id"),
    runs: await all("SELECT * FROM iq_playbook_runs ORDER BY runtime_id"),
    timelines: await all("SELECT * FROM iq_timeline_entries ORDER BY site, incident_number, entry::text"),
    playbooks: await all("SELECT * FROM iq_playbooks ORDER BY position"),
    types: await all("SELECT * FROM iq_artifact_types ORDER BY id"),
    artifacts: await all("SELECT * FROM iq_artifacts ORDER BY site, name, type_id"),
    sites: await all("SELECT * FROM iq_sites ORDER BY name"),
    users: await all("SELECT * FROM iq_users ORDER BY username"),
    sequence: await all("SELECT last_value, is_called FROM iq_runtime_ids"),
  };
}

/** The column values and `irregular` of each incident under `columns`, by number. */
async function columnsOf(client: SqlClient, columns: ColumnMap): Promise<Record<string, unknown>> {
  const names = Object.values(columns).map((c) => `"${c}"`);
  const rows = await client.query<Record<string, unknown> & { number: string; irregular: string[] }>(
    `SELECT number, ${names.join(", ")}, irregular FROM iq_incidents ORDER BY seq`,
  );
  return Object.fromEntries(
    rows.rows.map((row) => [row.number, { ...row, irregular: [...row.irregular].sort() }]),
  );
}

async function versionsOf(client: SqlClient): Promise<number[]> {
  const rows = await client.query<{ version: number }>(
    "SELECT version FROM iq_schema_versions ORDER BY version",
  );
  return rows.rows.map((row) => Number(row.version));
}

async function hasTable(client: SqlClient, table: string): Promise<boolean> {
  const rows = await client.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [
    table,
  ]);
  return rows.rows[0]!.exists;
}

async function hasColumn(client: SqlClient, column: string): Promise<boolean> {
  const rows = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM information_schema.columns
     WHERE table_name = 'iq_incidents' AND column_name = $1 AND table_schema = current_schema()`,
    [column],
  );
  return Number(rows.rows[0]!.n) > 0;
}

describe(`schema versions, on ${DATABASE_KIND}`, () => {
  it("version 1 is the previous release's schema, statement for statement", () => {
    expect(MIGRATIONS[0]!.statements(DEFAULT_COLUMNS)).toEqual(previousSchemaStatements());
    expect(MIGRATIONS[0]!.statements(OWNER_COLUMNS)).toEqual(previousSchemaStatements(OWNER_COLUMNS));
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it("upgrades a database of the previous release with nothing lost, and fills the grown column map", async () => {
    const database = await previousReleaseDatabase();
    const before = await stored(database.client);
    const columnsBefore = await columnsOf(database.client, DEFAULT_COLUMNS);
    const steps: MigrationStep[] = [];
    const backend = await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS, clock });
    await backend.migrate({ onStep: (step) => void steps.push(step) });
    expect(steps).toEqual([
      { kind: "version", version: 1, description: MIGRATIONS[0]!.description },
      { kind: "version", version: 2, description: MIGRATIONS[1]!.description },
      { kind: "columns", fields: Object.keys(OWNER_COLUMNS), filled: 4 },
    ]);
    expect(await versionsOf(database.client)).toEqual([1, 2]);
    expect(await stored(database.client)).toEqual(before);
    const after = await columnsOf(database.client, OWNER_COLUMNS);
    // The old columns are as they were; Owner is filled by the column rules (a number is irregular).
    for (const [number, row] of Object.entries(after)) {
      const { f_owner, ...rest } = row as Record<string, unknown>;
      const old = columnsBefore[number] as { irregular: string[] };
      const owner = OWNERS[number];
      expect(f_owner, number).toBe(typeof owner === "string" ? owner : null);
      expect(rest, number).toEqual({
        ...old,
        irregular: [...old.irregular, ...(typeof owner === "number" ? ["Owner"] : [])].sort(),
      });
    }
    // Exactly what a database made new under this map holds.
    const fresh = await openTestDatabase({ shared: true });
    opened.push(fresh);
    const made = await createPostgresBackend({ client: fresh.client, columns: OWNER_COLUMNS, clock });
    await made.migrate();
    await made.loadDataset(DATASET);
    expect(await columnsOf(fresh.client, OWNER_COLUMNS)).toEqual(after);
    expect(await versionsOf(fresh.client)).toEqual([1, 2]);

    // Migrating again changes nothing and takes no step.
    const again: MigrationStep[] = [];
    await backend.migrate({ onStep: (step) => void again.push(step) });
    expect(again).toEqual([]);
    expect(await columnsOf(database.client, OWNER_COLUMNS)).toEqual(after);
  });

  it("answers a condition on the new column after the restart, RuntimeIds continuing, and loads again", async () => {
    const database = await previousReleaseDatabase();
    // The restart: a new instance over the same database, with Owner given a column.
    const backend = await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS, clock });
    await backend.migrate();
    const errors: unknown[] = [];
    const handle = createCommandHandler(backend, { onError: (error) => errors.push(error) });
    const memory = createCommandHandler(createMemoryBackend(DATASET, { clock }));
    const trigger = (conditions: unknown) =>
      body({ "Search Conditions": conditions, "Trigger Data": {}, "Dry Run": true });
    for (const conditions of [
      { Owner: "bob" },
      { Owner: "alice" },
      { Owner: { $type: "number" } },
      { Owner: { $exists: false } },
      { Owner: { $in: ["carol", 7] } },
      { Owner: { $regex: "^b" }, Severity: "Critical" },
      { Owner: "nobody" },
    ]) {
      const expected = await memory("TriggerIncidentExternalAction", trigger(conditions), caller);
      expect(
        await handle("TriggerIncidentExternalAction", trigger(conditions), caller),
        JSON.stringify(conditions),
      ).toEqual(expected);
    }
    const real = await handle(
      "TriggerIncidentExternalAction",
      body({ "Search Conditions": { Owner: "bob" }, "Trigger Data": {} }),
      caller,
    );
    expect(real.body).toEqual({
      error: "",
      returnData: {
        Status: "Successful",
        Data: {
          IncidentId: 102,
          IncidentNo: "20240102-1",
          TriggeredPlaybooks: [{ RuntimeId: 3, PlaybookName: "Notify Owner" }],
        },
      },
    });
    // A load names the new column: it failed with `column "f_owner" … does not exist` before.
    await backend.loadDataset({
      sites: DATASET.sites!,
      incidents: [{ ...DATASET.incidents![0]!, IncidentId: 105, Number: "20240105-1", Owner: "dana" }],
    });
    const dana = await handle("TriggerIncidentExternalAction", trigger({ Owner: "dana" }), caller);
    expect(dana.body).toMatchObject({ error: "", returnData: { Data: { IncidentNo: "20240105-1" } } });
    expect(errors).toEqual([]);
    expect(await backend.counts()).toEqual({ incidents: 5, notes: 2, runs: 3 });
  });

  it("migrates once when two instances start at once", async () => {
    const database = await previousReleaseDatabase();
    const before = await stored(database.client);
    const other = database.another();
    try {
      const steps: MigrationStep[] = [];
      const onStep = (step: MigrationStep) => void steps.push(step);
      const a = await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS, clock });
      const b = await createPostgresBackend({ client: other, columns: OWNER_COLUMNS, clock });
      await Promise.all([a.migrate({ onStep }), b.migrate({ onStep })]);
      // Each version once, the column filled once, in order (the steps of one instance, then none of the other).
      expect(steps).toEqual([
        { kind: "version", version: 1, description: MIGRATIONS[0]!.description },
        { kind: "version", version: 2, description: MIGRATIONS[1]!.description },
        { kind: "columns", fields: Object.keys(OWNER_COLUMNS), filled: 4 },
      ]);
      expect(await versionsOf(database.client)).toEqual([1, 2]);
      expect(await stored(database.client)).toEqual(before);
      const columns = await database.client.query(
        "SELECT field FROM iq_incident_columns WHERE field = 'Owner'",
      );
      expect(columns.rows).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it.each(["version", "columns"] as const)(
    "leaves the version before when a %s step fails part-way, and migrates on the next start",
    async (kind) => {
      const database = await previousReleaseDatabase();
      const before = await stored(database.client);
      const backend = await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS, clock });
      await expect(
        backend.migrate({
          onStep: (step) => {
            if (step.kind === kind && (step.kind !== "version" || step.version === 2)) {
              throw new Error("stopped part-way");
            }
          },
        }),
      ).rejects.toThrow("stopped part-way");
      expect(await versionsOf(database.client)).toEqual(kind === "version" ? [1] : [1, 2]);
      expect(await hasTable(database.client, "iq_incident_columns")).toBe(kind === "columns");
      expect(await hasColumn(database.client, "f_owner")).toBe(false);
      expect(await stored(database.client)).toEqual(before);
      await backend.migrate();
      expect(await versionsOf(database.client)).toEqual([1, 2]);
      expect(await hasColumn(database.client, "f_owner")).toBe(true);
      expect(await stored(database.client)).toEqual(before);
    },
  );

  it("refuses a database newer than the code, changing nothing", async () => {
    const database = await previousReleaseDatabase();
    const backend = await createPostgresBackend({ client: database.client, clock });
    await backend.migrate();
    const newer = SCHEMA_VERSION + 1;
    await database.client.query(
      "INSERT INTO iq_schema_versions (version, description) VALUES ($1, 'later')",
      [newer],
    );
    const before = await stored(database.client);
    const next = await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS, clock });
    const refusal = await next.migrate().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(SchemaVersionError);
    expect((refusal as Error).message).toBe(
      `The database's schema is version ${newer}, newer than this release of incident-query understands (version ${SCHEMA_VERSION}): use the release that migrated it, or a later one.`,
    );
    expect(await hasColumn(database.client, "f_owner")).toBe(false);
    expect(await stored(database.client)).toEqual(before);
  });

  it("refuses a column map that gives a recorded field another column", async () => {
    const database = await previousReleaseDatabase();
    await (await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS })).migrate();
    const other = await createPostgresBackend({
      client: database.client,
      columns: { ...DEFAULT_COLUMNS, Owner: "owner_text" },
    });
    await expect(other.migrate()).rejects.toThrow(
      "The column map gives 'Owner' the column 'owner_text', but the database holds it in 'f_owner': keep the database's map.",
    );
    expect(await hasColumn(database.client, "owner_text")).toBe(false);
  });

  it("keeps filling a column another instance added, when this one's map lacks it", async () => {
    const database = await previousReleaseDatabase();
    const withOwner = await createPostgresBackend({ client: database.client, columns: OWNER_COLUMNS });
    await withOwner.migrate();
    const without = await createPostgresBackend({ client: database.client });
    await without.migrate();
    await without.loadDataset({
      sites: DATASET.sites!,
      incidents: [{ ...DATASET.incidents![0]!, IncidentId: 106, Number: "20240106-1", Owner: "erin" }],
    });
    const handle = createCommandHandler(withOwner);
    const answer = await handle(
      "TriggerIncidentExternalAction",
      body({ "Search Conditions": { Owner: "erin" }, "Trigger Data": {}, "Dry Run": true }),
      caller,
    );
    expect(answer.body).toMatchObject({ error: "", returnData: { Data: { IncidentNo: "20240106-1" } } });
  });
});

describe("serve --database and schema versions, on a PGlite folder", () => {
  const start = async (folder: string) => {
    const program = new Command("incident-query").exitOverride().configureOutput({
      writeOut: () => {},
      writeErr: () => {},
    });
    registerServeCommand(program, { stopSignal: AbortSignal.abort() });
    return program.parseAsync(["serve", "--port", "0", "--database", folder], { from: "user" }).then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it("migrates a folder of the previous release on start, and refuses one newer than the code (exit 69)", async () => {
    const folder = mkdtempSync(join(tmpdir(), "iq-versions-"));
    try {
      const { PGlite } = await import("@electric-sql/pglite");
      const db = new PGlite(folder);
      for (const statement of previousSchemaStatements()) await db.query(statement);
      const old = await createPostgresBackend({ pglite: db, clock });
      await old.loadDataset(DATASET);
      await db.close();
      expect(await start(folder)).toBeUndefined();
      const reopened = new PGlite(folder);
      const versions = await reopened.query<{ version: number }>(
        "SELECT version FROM iq_schema_versions ORDER BY version",
      );
      expect(versions.rows.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
      await reopened.query("INSERT INTO iq_schema_versions (version, description) VALUES ($1, 'later')", [
        SCHEMA_VERSION + 1,
      ]);
      await reopened.close();
      const error = await start(folder);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT.unavailable);
      expect((error as CliError).message).toBe(
        `Cannot open the database '${folder}': The database's schema is version ${SCHEMA_VERSION + 1}, newer than this release of incident-query understands (version ${SCHEMA_VERSION}): use the release that migrated it, or a later one.`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

const child = fileURLToPath(new URL("./migrate-child.ts", import.meta.url));

describe.runIf(process.env.PG_URL !== undefined)(
  "a migration killed part-way (SIGKILL), on a real server",
  () => {
    /** Runs the child until it holds inside a step of `kind`, then kills it with SIGKILL. */
    const killWhileHolding = (url: string, kind: "version" | "columns") =>
      new Promise<string>((resolve, reject) => {
        const process_ = spawn(process.execPath, ["--import", "tsx", child, url, kind], { stdio: "pipe" });
        let out = "";
        let err = "";
        process_.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("HOLDING\n")) process_.kill("SIGKILL");
        });
        process_.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString();
        });
        process_.on("exit", (code, signal) => {
          if (signal === "SIGKILL" && out.includes("HOLDING")) resolve(out);
          else reject(new Error(`the child ended with ${code ?? signal} before holding: ${out}${err}`));
        });
      });

    it.each(["version", "columns"] as const)(
      "killed inside a %s step: the version before it is intact, and the next start migrates",
      async (kind) => {
        const database = await previousReleaseDatabase();
        // More incidents than one fill batch, so that the columns step is killed between two batches.
        const many = await createPostgresBackend({ client: database.client, clock });
        await many.loadDataset({
          sites: DATASET.sites!,
          incidents: Array.from({ length: 4500 }, (_, i) => ({
            ...DATASET.incidents![0]!,
            IncidentId: 1000 + i,
            Number: `bulk-${i}`,
            Owner: `owner-${i % 7}`,
          })),
        });
        const before = await stored(database.client);
        const output = await killWhileHolding(database.url!, kind);
        expect(output).toContain(kind === "version" ? '"version":2' : '"filled":2000');
        // The server ends the killed session's transaction; the next migration waits for its lock, then runs.
        const backend = await createPostgresBackend({
          client: database.client,
          columns: OWNER_COLUMNS,
          clock,
        });
        const steps: MigrationStep[] = [];
        const versionsBefore = await versionsOf(database.client);
        expect(versionsBefore).toEqual(kind === "version" ? [1] : [1, 2]);
        expect(await hasColumn(database.client, "f_owner")).toBe(false);
        expect(await stored(database.client)).toEqual(before);
        await backend.migrate({ onStep: (step) => void steps.push(step) });
        expect(steps.at(-1)).toEqual({ kind: "columns", fields: Object.keys(OWNER_COLUMNS), filled: 4504 });
        expect(await versionsOf(database.client)).toEqual([1, 2]);
        expect(await stored(database.client)).toEqual(before);
        const owners = await database.client.query<{ f_owner: string; n: string }>(
          "SELECT f_owner, count(*) AS n FROM iq_incidents WHERE number LIKE 'bulk-%' GROUP BY f_owner ORDER BY f_owner",
        );
        expect(owners.rows.map((row) => [row.f_owner, Number(row.n)])).toEqual(
          Array.from({ length: 7 }, (_, i) => [`owner-${i}`, i < 4500 % 7 ? 643 : 642]),
        );
      },
      120_000,
    );
  },
);
