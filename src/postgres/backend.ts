/**
 * The command backend over PostgreSQL (a server through node-postgres, or PGlite in this process): the
 * `Backend` of the three commands, durable. docs/postgresql.md.
 *
 * - Notes and playbook runs are written by single statements or transactions, and a method resolves only
 *   after the commit: nothing is acknowledged that a crash could lose.
 * - RuntimeIds come from the sequence `iq_runtime_ids`: increasing, never repeated, across restarts
 *   (a crash may skip numbers; it never reuses one).
 * - The first matching incident (docs/semantics.md 1.9) is one indexed query in the order
 *   `created NULLS LAST, incident_id NULLS LAST, seq`, filtered by the superset clause of `toSqlWhere`;
 *   each fetched row is re-checked with `compile`, and more rows are fetched only when re-checks reject.
 */

import type { ArtifactInfo, Backend, IncidentRecord, UserInfo } from "../commands/backend.js";
import {
  type Dataset,
  DatasetError,
  type DatasetPlaybook,
  validateDataset,
} from "../commands/memory/dataset.js";
import { playbookApplies, toTimelineEntryData } from "../commands/memory/dataset-records.js";
import { BackendUnavailableError } from "../commands/unavailable.js";
import type { TimelineEntryData } from "../commands/wire.js";
import type { Condition } from "../conditions/ast.js";
import type { FieldCatalog } from "../conditions/catalog.js";
import { compile } from "../conditions/compile.js";
import { recordDateValue } from "../conditions/dates.js";
import { budgetedPredicate, type SearchBudget, startBudget } from "../incidents/search-budget.js";
import {
  COLUMNS_TABLE,
  type ColumnMap,
  CREATED_COLUMN,
  columnIndexStatements,
  DEFAULT_COLUMNS,
  MIGRATIONS,
  quoteIdentifier,
  SCHEMA_VERSION,
  SchemaVersionError,
  storableText,
  timestampText,
  VERSIONS_TABLE,
  VERSIONS_TABLE_STATEMENT,
} from "./schema.js";
import {
  ConnectionNotObtainedError,
  fromPglite,
  fromPgPool,
  isConnectionFailure,
  isStatementTimeout,
  type PgliteLike,
  type PgPoolLike,
  type SqlClient,
} from "./sql-client.js";
import { toSqlWhere } from "./to-sql.js";

/** Where the backend's data lives: exactly one of these. */
export type PostgresConnection =
  /** A PostgreSQL server: `postgres://user:password@127.0.0.1:5432/db` (node-postgres opens a pool). */
  | { readonly connectionString: string }
  /** A node-postgres `Pool` of the caller's (not ended by `close()`). */
  | { readonly pool: PgPoolLike }
  /** PGlite persisted to this folder (created when missing), or in memory with `"memory://"`. */
  | { readonly dataDir: string }
  /** A PGlite database of the caller's (not closed by `close()`). */
  | { readonly pglite: PgliteLike }
  /** Any `SqlClient` (for tests and other drivers). */
  | { readonly client: SqlClient };

/** Options of `createPostgresBackend`. */
export type PostgresBackendOptions = PostgresConnection & {
  /** The clock for note and run times; default the system clock. */
  readonly clock?: () => Date;
  /** The field catalogue for dataset validation (docs/semantics.md 1.6). */
  readonly catalog?: FieldCatalog;
  /**
   * Catalogue field → column (default `DEFAULT_COLUMNS`). `migrate()` adds a column the database lacks and
   * fills it from the stored records (docs/postgresql.md, "Schema versions").
   */
  readonly columns?: ColumnMap;
  /** Rows fetched by the first query of a first-match search (default 32; doubled per further query). */
  readonly firstBatch?: number;
  /**
   * With `connectionString` only (a pool of the caller's keeps its own settings): connections the pool
   * opens at most (default 10). docs/semantics.md 3.1, "When the data cannot be reached".
   */
  readonly poolSize?: number;
  /**
   * With `connectionString` only: milliseconds a statement waits for a connection (a free one of the pool,
   * or a new one) before it is answered unavailable, 503 (default 5,000).
   */
  readonly connectTimeoutMs?: number;
  /**
   * With `connectionString` only: PostgreSQL's `statement_timeout` of every connection, in milliseconds
   * (default 10,000): a statement cancelled by it did nothing and is answered unavailable, 503. A reply
   * that has not come this long plus 5,000 ms after a statement was sent fails it as a lost connection.
   */
  readonly statementTimeoutMs?: number;
};

/** Defaults of the pool `createPostgresBackend` opens for a `connectionString`. */
export const DEFAULT_POOL_OPTIONS = Object.freeze({
  poolSize: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
});

/** Whole seconds of `Retry-After` when the database cannot be reached. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The error to reject with for a failed statement: `BackendUnavailableError` when it certainly did nothing
 * (no connection, cancelled by statement_timeout, or any lost connection under a read), else `error`.
 */
function unavailableOr(error: unknown, isRead: boolean): unknown {
  const nothingDone =
    error instanceof ConnectionNotObtainedError ||
    isStatementTimeout(error) ||
    (isRead && isConnectionFailure(error));
  if (!nothingDone) return error;
  return new BackendUnavailableError(
    `The database could not answer: ${(error as Error)?.message ?? String(error)}`,
    { retryAfterSeconds: RETRY_AFTER_SECONDS, cause: error },
  );
}

/** A step of `migrate()`, reported to `MigrateOptions.onStep` before the step's transaction commits. */
export type MigrationStep =
  /** The statements of schema version `version` ran; the version is recorded at the commit that follows. */
  | { readonly kind: "version"; readonly version: number; readonly description: string }
  /** Columns were added for `fields`, and `filled` of the stored incidents have their values so far. */
  | { readonly kind: "columns"; readonly fields: readonly string[]; readonly filled: number };

/** Options of `PostgresBackend.migrate`. */
export interface MigrateOptions {
  /**
   * Told of each step inside its transaction, before the commit (a log line; a test that stops a migration
   * part-way). A rejection rolls the step back and rejects `migrate()`.
   */
  readonly onStep?: (step: MigrationStep) => void | Promise<void>;
}

/** The PostgreSQL backend: a `Backend` plus schema and data management. */
export interface PostgresBackend extends Backend {
  /**
   * Creates or upgrades the schema (docs/postgresql.md, "Schema versions"): each missing version's
   * migration in its own transaction, under the advisory lock the instances share, recorded in
   * `iq_schema_versions`; then, in one more transaction, a column for each field of the backend's column
   * map that the database lacks, filled from the stored records. Forward only and idempotent: instances
   * started together migrate once, the others find it done. A migration that fails or is killed part-way
   * leaves the database at the version before it.
   * @throws {SchemaVersionError} when the database's schema is newer than `SCHEMA_VERSION`; nothing is changed
   * @throws {Error} when the column map gives a field a column that the database holds for another field,
   *   or the field another column; nothing is changed
   */
  migrate(options?: MigrateOptions): Promise<void>;
  /**
   * Loads a dataset in the format of `createMemoryBackend` (validated first), in one transaction: all of
   * it or nothing. Sites, users, playbooks and artifact types replace existing rows of the same key.
   * @throws {DatasetError} when the dataset is invalid; nothing is written
   * @throws {TypeError} when a string holds the character U+0000 (PostgreSQL text cannot store it)
   */
  loadDataset(dataset: Dataset): Promise<void>;
  /**
   * Loads a dataset as `loadDataset` does, but only when the database holds no incident, deciding and
   * loading under one advisory lock: of several instances started together over one empty database,
   * exactly one loads it (docs/semantics.md 3.1, "Several instances").
   * @returns true when it loaded the dataset, false when the database already held incidents
   * @throws {DatasetError} when the dataset is invalid; nothing is written
   * @throws {TypeError} when a string holds text PostgreSQL cannot store
   */
  loadDatasetIfEmpty(dataset: Dataset): Promise<boolean>;
  /** The notes of an artifact, oldest first (text, author, time). */
  notesOf(artifact: ArtifactInfo): Promise<readonly { text: string; author: string; time: Date }[]>;
  /** Every user, by username (for a server's start-up report). */
  users(): Promise<readonly UserInfo[]>;
  /** How many incidents, notes and playbook runs are stored (for reports and tests). */
  counts(): Promise<{ incidents: number; notes: number; runs: number }>;
  /** Closes the connection if the backend opened it. */
  close(): Promise<void>;
}

const INCIDENT_BATCH = 2000;

/** The advisory lock under which the schema is created and an empty database loaded (any constant). */
const SCHEMA_LOCK = 0x1e_0c_1d_e7;

/** Up to this many candidate rows, the first-match search filters first and sorts them all. */
const FEW_CANDIDATES = 1024;

/**
 * Creates a backend over PostgreSQL. The drivers are optional dependencies: `pg` for `connectionString`,
 * `@electric-sql/pglite` for `dataDir`; install the one you use.
 * @param options - one connection (`connectionString`, `pool`, `dataDir`, `pglite` or `client`), and
 *   `clock`, `catalog`, `columns`, `firstBatch`
 * @returns the backend; call `migrate()` once before use
 * @throws {Error} (asynchronously, from the first call) when the driver for the connection is not installed
 * @example
 * const backend = await createPostgresBackend({ dataDir: "./data" });
 * await backend.migrate();
 * await backend.loadDataset(loadSampleDataset());
 * const handle = createCommandHandler(backend);
 */
export async function createPostgresBackend(options: PostgresBackendOptions): Promise<PostgresBackend> {
  const client = await openClient(options);
  const columns = options.columns ?? DEFAULT_COLUMNS;
  for (const column of Object.values(columns)) quoteIdentifier(column);
  // The column map every insert fills: the instance's until migrate() reads the database's, which also
  // holds the columns other instances (or earlier runs) gave fields, so that none is left unfilled.
  let storedColumns: ColumnMap = columns;
  const clock = options.clock ?? (() => new Date());
  const firstBatch = options.firstBatch ?? 32;
  if (!Number.isInteger(firstBatch) || firstBatch < 1) {
    throw new TypeError(`firstBatch must be a positive integer, found ${String(firstBatch)}.`);
  }
  const now = (): Date => {
    const time = clock();
    if (!(time instanceof Date) || Number.isNaN(time.getTime())) {
      throw new TypeError("The PostgreSQL backend's clock must return a valid Date.");
    }
    return time;
  };
  // docs/semantics.md 3.1, "When the data cannot be reached". A read changes nothing, so any failure to
  // reach the database is "unavailable" (503), and a connection lost under it is tried once more on a
  // fresh one (the pool's idle connections die with a restarted server). A write is "unavailable" only
  // when it certainly did nothing: no connection was had, or its statement was cancelled by
  // statement_timeout; a connection lost after it was sent leaves its outcome unknown (500).
  const read = async <R>(text: string, values?: readonly unknown[]) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await client.query<R>(text, values);
      } catch (error) {
        const lost = isConnectionFailure(error) && !(error instanceof ConnectionNotObtainedError);
        if (attempt === 0 && lost) continue;
        throw unavailableOr(error, true);
      }
    }
  };
  const write = async <R>(text: string, values?: readonly unknown[]) => {
    try {
      return await client.query<R>(text, values);
    } catch (error) {
      throw unavailableOr(error, false);
    }
  };

  /** Validates a dataset for `loadDataset` (and refuses text PostgreSQL cannot store). */
  const checkedDataset = (dataset: Dataset): Dataset => {
    const validated = validateDataset(
      dataset,
      options.catalog === undefined ? {} : { catalog: options.catalog },
    );
    if (!validated.ok) throw new DatasetError(validated.issues);
    assertNoNul(validated.dataset);
    return validated.dataset;
  };
  /** Writes a checked dataset inside the transaction `tx`. */
  const writeDataset = async (tx: SqlClient, data: Dataset): Promise<void> => {
    for (const site of data.sites ?? []) {
      await tx.query(
        `INSERT INTO iq_sites (name, time_zone) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET time_zone = EXCLUDED.time_zone`,
        [site.name, site.timeZone ?? null],
      );
    }
    for (const user of data.users ?? []) {
      await tx.query(
        `INSERT INTO iq_users (username, sites) VALUES ($1, $2)
         ON CONFLICT (username) DO UPDATE SET sites = EXCLUDED.sites`,
        [user.username, [...user.sites]],
      );
    }
    const incidents = data.incidents ?? [];
    for (let start = 0; start < incidents.length; start += INCIDENT_BATCH) {
      await insertIncidents(
        tx,
        storedColumns,
        incidents.slice(start, start + INCIDENT_BATCH).map((incident) => ({
          site: incident.Site,
          number: incident.Number,
          incident,
        })),
      );
    }
    const entries = data.timelineEntries ?? [];
    for (let start = 0; start < entries.length; start += INCIDENT_BATCH) {
      const batch = entries.slice(start, start + INCIDENT_BATCH).map((entry) => ({
        site: entry.Site,
        incident_number: entry.IncidentNumber,
        entry: toTimelineEntryData(entry),
      }));
      await tx.query(
        `INSERT INTO iq_timeline_entries (site, incident_number, entry)
         SELECT site, incident_number, entry FROM jsonb_to_recordset($1::jsonb)
           AS r(site text, incident_number text, entry jsonb)`,
        [JSON.stringify(batch)],
      );
    }
    const offset = await tx.query<{ next: number }>(
      "SELECT COALESCE(MAX(position) + 1, 0) AS next FROM iq_playbooks",
    );
    let position = Number(offset.rows[0]?.next ?? 0);
    for (const playbook of data.playbooks ?? []) {
      await tx.query("INSERT INTO iq_playbooks (position, playbook) VALUES ($1, $2::jsonb)", [
        position++,
        JSON.stringify(playbook),
      ]);
    }
    for (const type of data.artifactTypes ?? []) {
      await tx.query(
        `INSERT INTO iq_artifact_types (id, label) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET label = EXCLUDED.label`,
        [type.id, type.label],
      );
    }
    for (const artifact of data.artifacts ?? []) {
      await tx.query(
        `INSERT INTO iq_artifacts (site, name, type_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [artifact.site, artifact.name, artifact.typeId],
      );
      for (const note of artifact.notes ?? []) {
        await tx.query(
          `INSERT INTO iq_notes (site, artifact_name, type_id, text, author, time)
           VALUES ($1, $2, $3, $4, $5, $6::timestamptz)`,
          [artifact.site, artifact.name, artifact.typeId, note.text, note.author, note.time],
        );
      }
    }
  };

  return {
    async migrate(migrateOptions: MigrateOptions = {}) {
      const onStep = migrateOptions.onStep ?? (() => {});
      // One version per transaction, each under the lock: instances started together migrate one at a
      // time, and each finds done what another did (concurrent CREATE … IF NOT EXISTS can still collide in
      // the catalogue). A database made before versions were recorded has the tables of version 1, whose
      // statements are all IF NOT EXISTS: it is recorded as version 1 without a change.
      for (;;) {
        const done = await client.transaction(async (tx) => {
          await tx.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
          await tx.query(VERSIONS_TABLE_STATEMENT);
          const found = await tx.query<{ version: number | null }>(
            `SELECT max(version) AS version FROM ${VERSIONS_TABLE}`,
          );
          const current = Number(found.rows[0]?.version ?? 0);
          if (current > SCHEMA_VERSION) throw new SchemaVersionError(current, SCHEMA_VERSION);
          if (current === SCHEMA_VERSION) return true;
          const migration = MIGRATIONS[current]!;
          for (const statement of migration.statements(columns)) await tx.query(statement);
          await onStep({ kind: "version", version: migration.version, description: migration.description });
          await tx.query(`INSERT INTO ${VERSIONS_TABLE} (version, description) VALUES ($1, $2)`, [
            migration.version,
            migration.description,
          ]);
          return false;
        });
        if (done) break;
      }
      storedColumns = await client.transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
        return syncColumns(tx, columns, onStep);
      });
    },

    async loadDataset(dataset: Dataset) {
      const data = checkedDataset(dataset);
      await client.transaction((tx) => writeDataset(tx, data));
    },

    async loadDatasetIfEmpty(dataset: Dataset) {
      const data = checkedDataset(dataset);
      return client.transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
        const held = await tx.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM iq_incidents) AS any");
        if (held.rows[0]?.any === true) return false;
        await writeDataset(tx, data);
        return true;
      });
    },

    async notesOf(artifact) {
      const result = await read<{ text: string; author: string; time: Date }>(
        `SELECT text, author, time FROM iq_notes WHERE site = $1 AND artifact_name = $2 AND type_id = $3
         ORDER BY id`,
        [artifact.site, artifact.name, artifact.typeId],
      );
      return result.rows.map((row) => ({ text: row.text, author: row.author, time: new Date(row.time) }));
    },

    async users() {
      const result = await read<{ username: string; sites: string[] }>(
        "SELECT username, sites FROM iq_users ORDER BY username",
      );
      return result.rows.map((row) => ({ username: row.username, sites: [...row.sites] }));
    },

    async counts() {
      const result = await read<{ incidents: string; notes: string; runs: string }>(
        `SELECT (SELECT count(*) FROM iq_incidents) AS incidents, (SELECT count(*) FROM iq_notes) AS notes,
                (SELECT count(*) FROM iq_playbook_runs) AS runs`,
      );
      const row = result.rows[0]!;
      return { incidents: Number(row.incidents), notes: Number(row.notes), runs: Number(row.runs) };
    },

    async findSite(name) {
      if (holdsNul(name)) return undefined;
      const result = await read<{ name: string; time_zone: string | null }>(
        "SELECT name, time_zone FROM iq_sites WHERE name = $1",
        [name],
      );
      const row = result.rows[0];
      if (row === undefined) return undefined;
      return row.time_zone === null ? { name: row.name } : { name: row.name, timeZone: row.time_zone };
    },

    async findUser(username) {
      if (holdsNul(username)) return undefined;
      const result = await read<{ username: string; sites: string[] }>(
        "SELECT username, sites FROM iq_users WHERE username = $1",
        [username],
      );
      const row = result.rows[0];
      return row === undefined ? undefined : { username: row.username, sites: [...row.sites] };
    },

    async findIncidentByNumber(site, incidentNumber) {
      if (holdsNul(site) || holdsNul(incidentNumber)) return undefined;
      const result = await read<{ record: IncidentRecord }>(
        "SELECT record FROM iq_incidents WHERE site = $1 AND number = $2",
        [site, incidentNumber],
      );
      return result.rows[0]?.record;
    },

    async findFirstIncident(site: string, condition: Condition, budget?: SearchBudget) {
      const timer = startBudget(budget);
      const where = toSqlWhere(condition, { columns, firstParameter: 2 });
      const predicate = budgetedPredicate(compile(condition), timer);
      const order = `${quoteIdentifier(CREATED_COLUMN)} ASC NULLS LAST, incident_id ASC NULLS LAST, seq ASC`;
      const params = [site, ...where.values];
      // How many candidates? Counted without the order, so that PostgreSQL filters through whichever index
      // fits the clause best, and stopped past FEW_CANDIDATES. A LIMIT with an ORDER BY would make it walk
      // the creation order instead, hoping for an early match: fine for common values, a full walk for a
      // key lookup.
      const probe = await read<{ n: string }>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM iq_incidents WHERE site = $1 AND ${where.text}
         LIMIT ${FEW_CANDIDATES + 1}) AS candidates`,
        params,
      );
      timer.check();
      if (Number(probe.rows[0]?.n ?? 0) <= FEW_CANDIDATES) {
        // Few candidates: filter first, then sort them all.
        const result = await read<{ record: IncidentRecord }>(
          `WITH candidates AS MATERIALIZED (
             SELECT record, ${quoteIdentifier(CREATED_COLUMN)}, incident_id, seq FROM iq_incidents
             WHERE site = $1 AND ${where.text})
           SELECT record FROM candidates ORDER BY ${order}`,
          params,
        );
        for (const row of result.rows) {
          timer.tick();
          if (predicate(row.record)) return row.record;
        }
        return undefined;
      }
      // Many candidates: walk the creation order, in batches that double.
      const limit = where.values.length + 2;
      let batch = firstBatch;
      for (let offset = 0; ; offset += batch, batch = Math.min(batch * 2, 4096)) {
        const result = await read<{ record: IncidentRecord }>(
          `SELECT record FROM iq_incidents WHERE site = $1 AND ${where.text}
           ORDER BY ${order} LIMIT $${limit} OFFSET $${limit + 1}`,
          [...params, batch, offset],
        );
        for (const row of result.rows) {
          timer.tick();
          if (predicate(row.record)) return row.record;
        }
        if (result.rows.length < batch) return undefined;
        timer.check();
      }
    },

    async timelineEntries(site, incidentNumber): Promise<readonly TimelineEntryData[]> {
      if (holdsNul(site) || holdsNul(incidentNumber)) return [];
      const result = await read<{ entry: TimelineEntryData }>(
        "SELECT entry FROM iq_timeline_entries WHERE site = $1 AND incident_number = $2",
        [site, incidentNumber],
      );
      return result.rows.map((row) => row.entry);
    },

    async playbooksWithTrigger(site, incident, trigger) {
      const result = await read<{ playbook: DatasetPlaybook }>(
        "SELECT playbook FROM iq_playbooks ORDER BY position",
      );
      return result.rows
        .map((row) => row.playbook)
        .filter((playbook) => playbookApplies(playbook, site, incident, trigger))
        .map((playbook) => ({ name: playbook.name }));
    },

    async recordPlaybookRun(run) {
      const result = await write<{ runtime_id: string }>(
        `INSERT INTO iq_playbook_runs
           (runtime_id, site, incident_id, incident_number, playbook_name, trigger_data, time)
         VALUES (nextval('iq_runtime_ids'), $1, $2, $3, $4, $5::jsonb, $6::timestamptz)
         RETURNING runtime_id`,
        [
          run.site,
          Number.isFinite(run.incident.IncidentId) ? run.incident.IncidentId : null,
          run.incident.Number,
          run.playbookName,
          JSON.stringify(run.triggerData),
          now().toISOString(),
        ],
      );
      return { runtimeId: Number(result.rows[0]!.runtime_id) };
    },

    async artifactTypes() {
      const result = await read<{ id: number; label: string }>(
        "SELECT id, label FROM iq_artifact_types ORDER BY id",
      );
      return result.rows.map((row) => ({ id: row.id, label: row.label }));
    },

    async findArtifacts(site, name) {
      if (holdsNul(site) || holdsNul(name)) return [];
      const result = await read<{ site: string; name: string; type_id: number }>(
        "SELECT site, name, type_id FROM iq_artifacts WHERE site = $1 AND name = $2 ORDER BY type_id",
        [site, name],
      );
      return result.rows.map((row) => ({ site: row.site, name: row.name, typeId: row.type_id }));
    },

    async appendNote(artifact, note) {
      const time = now();
      // One statement: the note is stored only if the artifact exists, and the answer follows the commit.
      const result = await write<{ time: Date }>(
        `INSERT INTO iq_notes (site, artifact_name, type_id, text, author, time)
         SELECT $1, $2, $3, $4, $5, $6::timestamptz
         WHERE EXISTS (SELECT 1 FROM iq_artifacts WHERE site = $1 AND name = $2 AND type_id = $3)
         RETURNING time`,
        [artifact.site, artifact.name, artifact.typeId, note.text, note.author, time.toISOString()],
      );
      if (result.rows.length === 0) {
        throw new Error(
          `No artifact '${artifact.name}' of type id ${artifact.typeId} in site '${artifact.site}'.`,
        );
      }
      return { time: new Date(time.getTime()) };
    },

    close: () => client.close(),
  };
}

async function openClient(options: PostgresBackendOptions): Promise<SqlClient> {
  if ("client" in options) return options.client;
  if ("pool" in options) return fromPgPool(options.pool, false);
  if ("pglite" in options) return fromPglite(options.pglite, false);
  if ("connectionString" in options) {
    const pg = await importDriver<{
      default: { Pool: new (config: object) => PgPoolLike & { on(event: "error", f: () => void): void } };
    }>("pg");
    const poolSize = poolOption("poolSize", options.poolSize, DEFAULT_POOL_OPTIONS.poolSize);
    const connectTimeoutMs = poolOption(
      "connectTimeoutMs",
      options.connectTimeoutMs,
      DEFAULT_POOL_OPTIONS.connectTimeoutMs,
    );
    const statementTimeoutMs = poolOption(
      "statementTimeoutMs",
      options.statementTimeoutMs,
      DEFAULT_POOL_OPTIONS.statementTimeoutMs,
    );
    const pool = new pg.default.Pool({
      connectionString: options.connectionString,
      max: poolSize,
      connectionTimeoutMillis: connectTimeoutMs,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 5_000,
      keepAlive: true,
    });
    // An idle connection that the server closes (a restart, pg_terminate_backend) is reported here and
    // dropped by the pool; without a listener the event would end the process.
    pool.on("error", () => {});
    return fromPgPool(pool, true);
  }
  if ("dataDir" in options) {
    const { PGlite } = await importDriver<{ PGlite: new (dataDir: string) => PgliteLike }>(
      "@electric-sql/pglite",
    );
    return fromPglite(new PGlite(options.dataDir), true);
  }
  throw new TypeError(
    "createPostgresBackend needs one of connectionString, pool, dataDir, pglite or client.",
  );
}

/** A pool option: a positive integer of milliseconds or connections (at most 2^31 - 1), or its default. */
function poolOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0 || value > 2_147_483_647) {
    throw new TypeError(`${name} must be a positive integer of at most 2147483647, found ${String(value)}.`);
  }
  return value;
}

async function importDriver<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    throw new Error(`The PostgreSQL backend needs the package '${name}': run npm install ${name}.`, {
      cause: error,
    });
  }
}

/** Incidents read per statement while a new column is filled. */
const FILL_BATCH = 2000;

/**
 * Brings the database's column map up to `columns` inside the transaction `tx` (docs/postgresql.md, "Schema
 * versions"): a field of `columns` that the database does not record gets its column (added if missing),
 * filled from every stored record by the rules of `incidentRow`, its field added to or removed from
 * `irregular` as the value says, and is recorded. Fields recorded but not in `columns` keep their columns,
 * which every insert keeps filling.
 * @returns the database's column map after the change: recorded fields, `columns` included
 * @throws {Error} when `columns` gives a recorded field another column, or a recorded column another field
 */
async function syncColumns(
  tx: SqlClient,
  columns: ColumnMap,
  onStep: (step: MigrationStep) => void | Promise<void>,
): Promise<ColumnMap> {
  const recorded = await tx.query<{ column_name: string; field: string }>(
    `SELECT column_name, field FROM ${COLUMNS_TABLE} ORDER BY column_name`,
  );
  const byColumn = new Map(recorded.rows.map((row) => [row.column_name, row.field]));
  const byField = new Map(recorded.rows.map((row) => [row.field, row.column_name]));
  const added: [string, string][] = [];
  for (const [field, column] of Object.entries(columns)) {
    const holder = byColumn.get(column);
    const held = byField.get(field);
    if (holder === field) continue;
    if (holder !== undefined || held !== undefined) {
      throw new Error(
        holder !== undefined
          ? `The column map gives '${field}' the column '${column}', which the database holds for '${holder}': keep the database's map or use another column name.`
          : `The column map gives '${field}' the column '${column}', but the database holds it in '${held}': keep the database's map.`,
      );
    }
    added.push([field, column]);
  }
  if (added.length > 0) {
    const addedMap: ColumnMap = Object.fromEntries(added);
    const addedFields = new Set(added.map(([field]) => field));
    for (const [field, column] of added) {
      const type = column === CREATED_COLUMN ? "timestamptz" : "text";
      await tx.query(`ALTER TABLE iq_incidents ADD COLUMN IF NOT EXISTS ${quoteIdentifier(column)} ${type}`);
      for (const statement of columnIndexStatements(field, column)) await tx.query(statement);
    }
    const names = added.map(([, column]) => column);
    const set = names.map((name) => `${quoteIdentifier(name)} = r.${quoteIdentifier(name)}`).join(", ");
    const typed = names.map(
      (name) => `${quoteIdentifier(name)} ${name === CREATED_COLUMN ? "timestamptz" : "text"}`,
    );
    let filled = 0;
    for (let after = 0; ; ) {
      const batch = await tx.query<{
        seq: string | number;
        irregular: string[];
        record: Record<string, unknown>;
      }>(`SELECT seq, irregular, record FROM iq_incidents WHERE seq > $1 ORDER BY seq LIMIT ${FILL_BATCH}`, [
        after,
      ]);
      if (batch.rows.length === 0) break;
      const rows = batch.rows.map((row) => {
        const { values, irregular } = incidentRow(row.record, addedMap);
        const kept = row.irregular.filter((field) => !addedFields.has(field));
        return { ...values, seq: Number(row.seq), irregular: [...kept, ...irregular] };
      });
      await tx.query(
        `UPDATE iq_incidents AS t SET ${set}, irregular = r.irregular
         FROM jsonb_to_recordset($1::jsonb) AS r(seq bigint, ${typed.join(", ")}, irregular text[])
         WHERE t.seq = r.seq`,
        [JSON.stringify(rows)],
      );
      filled += rows.length;
      after = rows[rows.length - 1]!.seq;
      await onStep({ kind: "columns", fields: [...addedFields], filled });
    }
    if (filled === 0) await onStep({ kind: "columns", fields: [...addedFields], filled });
    for (const [field, column] of added) {
      await tx.query(`INSERT INTO ${COLUMNS_TABLE} (column_name, field) VALUES ($1, $2)`, [column, field]);
      byField.set(field, column);
    }
  }
  return Object.freeze(Object.fromEntries(byField));
}

/** The column values of one incident (schema.ts's column rules). */
export function incidentRow(
  incident: Readonly<Record<string, unknown>>,
  columns: ColumnMap,
): { values: Record<string, string | null>; irregular: string[] } {
  const values: Record<string, string | null> = {};
  const irregular: string[] = [];
  for (const [field, column] of Object.entries(columns)) {
    // An own property holding `undefined` is missing, as for every matcher (docs/semantics.md 1.1).
    const value = Object.hasOwn(incident, field) ? incident[field] : undefined;
    const present = value !== undefined;
    if (column === CREATED_COLUMN) {
      const ms = recordDateValue(value);
      // An instant the column cannot hold (before 4712 BC, after 9999) is irregular: re-checked exactly.
      const text = ms === undefined ? undefined : timestampText(ms);
      values[column] = text ?? null;
      if (text === undefined && present) irregular.push(field);
    } else {
      values[column] = typeof value === "string" ? value : null;
      if (typeof value !== "string" && present) irregular.push(field);
    }
  }
  return { values, irregular };
}

/**
 * Inserts incidents (at most a few thousand per call: one statement) under the given site and number, in
 * order. The record is stored as JSON (`jsonb`); the columns follow schema.ts's rules.
 */
export async function insertIncidents(
  tx: SqlClient,
  columns: ColumnMap,
  incidents: readonly { site: string; number: string; incident: Record<string, unknown> }[],
): Promise<void> {
  const names = Object.values(columns);
  const rows = incidents.map(({ site, number, incident }, ord) => {
    const { values, irregular } = incidentRow(incident, columns);
    const id = incident.IncidentId;
    return {
      ...values,
      ord,
      site,
      incident_id: typeof id === "number" && Number.isFinite(id) ? id : null,
      number,
      irregular,
      record: incident,
    };
  });
  const typed = names.map(
    (name) => `${quoteIdentifier(name)} ${name === CREATED_COLUMN ? "timestamptz" : "text"}`,
  );
  const list = names.map(quoteIdentifier).join(", ");
  await tx.query(
    `INSERT INTO iq_incidents (site, incident_id, number, ${list}, irregular, record)
     SELECT site, incident_id, number, ${list}, irregular, record
     FROM jsonb_to_recordset($1::jsonb)
       AS r(ord integer, site text, incident_id double precision, number text, ${typed.join(", ")},
            irregular text[], record jsonb)
     ORDER BY ord`,
    [JSON.stringify(rows)],
  );
}

/**
 * Whether a looked-up name holds U+0000: no stored value can (PostgreSQL text cannot store it, and
 * `loadDataset` refuses it), so the lookup finds nothing, without a query that would fail.
 */
const holdsNul = (value: string): boolean => value.includes("\u0000");

function assertNoNul(value: unknown, depth = 0): void {
  if (typeof value === "string") {
    if (!storableText(value)) {
      throw new TypeError(
        "The dataset holds the character U+0000 or an unpaired UTF-16 surrogate, which PostgreSQL text cannot store.",
      );
    }
  } else if (typeof value === "object" && value !== null && depth < 64) {
    for (const [key, item] of Object.entries(value)) {
      assertNoNul(key, depth + 1);
      assertNoNul(item, depth + 1);
    }
  }
}
