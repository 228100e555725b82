/**
 * One small interface over the two drivers the PostgreSQL backend runs on: node-postgres (`pg`, a server
 * reached over the network) and PGlite (`@electric-sql/pglite`, PostgreSQL compiled to WebAssembly, in this
 * process). Only structural types are named here, so that the declarations of `incident-query/postgres`
 * never import a driver a consumer has not installed.
 */

/** The rows of a query. */
export interface SqlResult<R> {
  readonly rows: R[];
}

/** What the backend needs of a database connection. */
export interface SqlClient {
  /** Runs one parameterized statement (`$1`, `$2`, … bound to `values`). */
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<SqlResult<R>>;
  /**
   * Runs `work` inside one transaction: committed when it resolves, rolled back when it rejects. Nothing
   * done inside is visible to others, or acknowledged, before the commit.
   */
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
  /** Closes what this client opened (a pool it created, a PGlite database it opened); idempotent. */
  close(): Promise<void>;
}

/** The part of a node-postgres `PoolClient` used here. */
export interface PgPoolClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  release(error?: Error | boolean): void;
}

/** The part of a node-postgres `Pool` used here. */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgPoolClientLike>;
  end(): Promise<void>;
}

/** The part of a PGlite database used here. */
export interface PgliteLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  transaction<T>(work: (tx: { query: PgliteLike["query"] }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/**
 * Wraps a node-postgres pool.
 * @param pool - a `pg.Pool` (or anything with its `query`, `connect` and `end`)
 * @param owned - true when `close()` should end the pool (it was created for this client)
 */
export function fromPgPool(pool: PgPoolLike, owned: boolean): SqlClient {
  let closed = false;
  return {
    async query<R>(text: string, values: readonly unknown[] = []) {
      const result = await pool.query(text, [...values]);
      return { rows: result.rows as R[] };
    },
    async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      const connection = await pool.connect();
      const inner: SqlClient = {
        async query<R>(text: string, values: readonly unknown[] = []) {
          const result = await connection.query(text, [...values]);
          return { rows: result.rows as R[] };
        },
        transaction: (nested) => nested(inner),
        async close() {},
      };
      try {
        await connection.query("BEGIN");
        const result = await work(inner);
        await connection.query("COMMIT");
        connection.release();
        return result;
      } catch (error) {
        try {
          await connection.query("ROLLBACK");
          connection.release();
        } catch (rollbackError) {
          connection.release(rollbackError instanceof Error ? rollbackError : true);
        }
        throw error;
      }
    },
    async close() {
      if (closed || !owned) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * Wraps a PGlite database.
 * @param db - a `PGlite` instance
 * @param owned - true when `close()` should close the database (it was opened for this client)
 */
export function fromPglite(db: PgliteLike, owned: boolean): SqlClient {
  let closed = false;
  const client: SqlClient = {
    async query<R>(text: string, values: readonly unknown[] = []) {
      const result = await db.query(text, [...values]);
      return { rows: result.rows as R[] };
    },
    async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        const inner: SqlClient = {
          async query<R>(text: string, values: readonly unknown[] = []) {
            const result = await tx.query(text, [...values]);
            return { rows: result.rows as R[] };
          },
          transaction: (nested) => nested(inner),
          async close() {},
        };
        return work(inner);
      });
    },
    async close() {
      if (closed || !owned || db.closed === true) return;
      closed = true;
      await db.close();
    },
  };
  return client;
}
