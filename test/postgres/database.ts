/**
 * The database the PostgreSQL tests run on: a real server when `PG_URL` is set (`npm run test:postgres`,
 * which `.ci/run` calls after starting Debian's PostgreSQL), otherwise PGlite in memory. On a server,
 * each call gets a schema of its own, so test files can run side by side.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { schemaStatements } from "../../src/postgres/schema.js";
import { fromPglite, fromPgPool, type SqlClient } from "../../src/postgres/sql-client.js";

/** Which engine the suite runs on, for test names. */
export const DATABASE_KIND: string = process.env.PG_URL === undefined ? "PGlite" : "PostgreSQL server";

/** A test database: its client, a way to drop it, and a way to reach it again as another instance would. */
export interface TestDatabase {
  readonly client: SqlClient;
  readonly drop: () => Promise<void>;
  /**
   * Another client of the same database, closed by the caller: on a server a pool of its own (another
   * instance's connections); on PGlite the same database, which runs one transaction at a time.
   */
  readonly another: () => SqlClient;
  /** On a server, a connection string that reaches this schema (for child processes); on PGlite undefined. */
  readonly url: string | undefined;
}

/** The PGlite database that `openTestDatabase({ shared: true })` gives schemas of, one per test file. */
let sharedPglite: PGlite | undefined;
let sharedSchemas = 0;
let sharedPath: string | undefined;
let sharedQueue: Promise<unknown> = Promise.resolve();

/** Runs `work` after every earlier piece of work on the shared database has ended (one at a time). */
function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const result = sharedQueue.then(work);
  sharedQueue = result.catch(() => undefined);
  return result;
}

/**
 * A client of the shared database that works in `schema`: each statement or transaction runs alone, after
 * `search_path` is set to the schema (clients of other schemas interleave between them, never inside).
 */
function onSchema(inner: SqlClient, db: PGlite, schema: string): SqlClient {
  const inSchema = async <T>(work: () => Promise<T>): Promise<T> =>
    exclusive(async () => {
      if (sharedPath !== schema) {
        await db.exec(`SET search_path TO "${schema}"`);
        sharedPath = schema;
      }
      return work();
    });
  return {
    query: (text, values) => inSchema(() => inner.query(text, values)),
    transaction: (work) => inSchema(() => inner.transaction(work)),
    close: async () => {},
  };
}

/**
 * A fresh, empty database (schema) and a way to drop it.
 * @param options - `shared`: on PGlite, a schema of one database shared by the file's calls (selected with
 *   `search_path`, so the calls must not overlap), instead of a database of its own: starting PGlite costs
 *   seconds on a busy machine. On a server every call gets a schema of its own anyway.
 */
export async function openTestDatabase(options: { readonly shared?: boolean } = {}): Promise<TestDatabase> {
  const url = process.env.PG_URL;
  if (url === undefined && options.shared === true) {
    sharedPglite ??= new PGlite();
    const db = sharedPglite;
    const schema = `iq_shared_${++sharedSchemas}`;
    await db.exec(`CREATE SCHEMA "${schema}"`);
    const client = onSchema(fromPglite(db, false), db, schema);
    return {
      client,
      drop: () => exclusive(() => db.exec(`DROP SCHEMA "${schema}" CASCADE`)).then(() => undefined),
      another: () => onSchema(fromPglite(db, false), db, schema),
      url: undefined,
    };
  }
  if (url === undefined) {
    const db = new PGlite();
    const client = fromPglite(db, true);
    return { client, drop: () => client.close(), another: () => fromPglite(db, false), url: undefined };
  }
  const schema = `iq_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const pool = new pg.Pool({ connectionString: url, options: `-c search_path="${schema}"`, max: 8 });
  const client = fromPgPool(pool, true);
  return {
    client,
    another: () =>
      fromPgPool(new pg.Pool({ connectionString: url, options: `-c search_path="${schema}"`, max: 4 }), true),
    url: `${url}${url.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    drop: async () => {
      await client.close();
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

/**
 * A test file's database with the incident-query schema, opened before its tests and dropped after them.
 * @returns the client, valid inside the file's tests
 */
export function useSchemaDatabase(): () => SqlClient {
  let opened: { client: SqlClient; drop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    opened = await openTestDatabase();
    for (const statement of schemaStatements()) await opened.client.query(statement);
  }, 300_000);
  afterAll(async () => {
    await opened?.drop();
  });
  return () => {
    if (opened === undefined) throw new Error("the test database is not open yet");
    return opened.client;
  };
}
