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
  /** node-postgres's client is an event emitter: its `error` event is listened to while it is held. */
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** The part of a node-postgres `Pool` used here. */
export interface PgPoolLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgPoolClientLike>;
  end(): Promise<void>;
  /** node-postgres's pool is an event emitter: each new client is given an `error` listener on `connect`. */
  on?(event: "connect", listener: (client: PgPoolClientLike) => void): unknown;
}

/** The part of a PGlite database used here. */
export interface PgliteLike {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  transaction<T>(work: (tx: { query: PgliteLike["query"] }) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/**
 * Rejected by a `SqlClient` when no connection could be had (the pool's wait ran out, the server refused or
 * could not be reached, it is starting or shutting down, too many connections): no statement was sent, so
 * nothing was done. The backend answers it as unavailable (docs/semantics.md 3.1, "When the data cannot be
 * reached").
 */
export class ConnectionNotObtainedError extends Error {
  readonly code = "connection_not_obtained";
  constructor(cause: unknown) {
    super(`No database connection could be had: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "ConnectionNotObtainedError";
  }
}

/**
 * Whether `error` says the connection failed (so the statement's outcome is unknown unless it was only
 * read): a PostgreSQL error of class 08 (connection exception), 57P01–57P03 (terminated by an
 * administrator, a crash, or the server is starting), 53300 (too many connections), a socket error
 * (`ECONNRESET`, `ECONNREFUSED`, `EPIPE`, `ETIMEDOUT`, …), or node-postgres's own messages for a lost
 * connection and a client-side read timeout.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ConnectionNotObtainedError) return true;
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300")
      return true;
    if (/^E[A-Z]+$/.test(code) && SOCKET_ERRORS.has(code)) return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && PG_CONNECTION_MESSAGES.some((m) => message.includes(m));
}

const SOCKET_ERRORS = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** node-postgres's messages for a connection that is gone or a reply that did not come. */
const PG_CONNECTION_MESSAGES = [
  "Connection terminated",
  "Client has encountered a connection error",
  "Client was closed and is not queryable",
  "Query read timeout",
  "timeout exceeded when trying to connect",
];

/** Whether `error` is PostgreSQL's cancellation of a statement by `statement_timeout` (57014). */
export function isStatementTimeout(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "57014";
}

/**
 * Wraps a node-postgres pool. Each statement takes a connection of its own (`pool.connect()`), so that a
 * failure to get one (`ConnectionNotObtainedError`: nothing was sent) is told apart from a failure of the
 * statement; a connection that failed is destroyed, not given back.
 * @param pool - a `pg.Pool` (or anything with its `query`, `connect` and `end`)
 * @param owned - true when `close()` should end the pool (it was created for this client)
 */
export function fromPgPool(pool: PgPoolLike, owned: boolean): SqlClient {
  let closed = false;
  // The pool listens to a client's `error` event only while the client is idle in it. A server that ends
  // the session while the client is held (pg_terminate_backend, a shutdown), even in the same packet as
  // the end of its start-up, emits it with no listener, which would end the process. Every client gets a
  // listener of its own, as it connects (and, for clients older than this wrapper, when first held): the
  // failure is met by the next statement instead ("not queryable", below), and the pool drops the client
  // when it is released with it.
  const listened = new WeakSet<PgPoolClientLike>();
  const listen = (connection: PgPoolClientLike): void => {
    if (listened.has(connection) || typeof connection.on !== "function") return;
    listened.add(connection);
    connection.on("error", () => {});
  };
  if (typeof pool.on === "function") pool.on("connect", listen);
  const acquire = async (): Promise<PgPoolClientLike> => {
    let connection: PgPoolClientLike;
    try {
      connection = await pool.connect();
    } catch (error) {
      throw new ConnectionNotObtainedError(error);
    }
    listen(connection);
    return connection;
  };
  /** A statement refused by the driver before it was sent (the connection had already failed). */
  const unsent = (error: unknown): boolean => {
    const message = (error as { message?: unknown })?.message;
    return typeof message === "string" && message.includes("is not queryable");
  };
  return {
    async query<R>(text: string, values: readonly unknown[] = []) {
      const connection = await acquire();
      let result: { rows: unknown[] };
      try {
        result = await connection.query(text, [...values]);
      } catch (error) {
        connection.release(isConnectionFailure(error) ? asError(error) : undefined);
        throw unsent(error) ? new ConnectionNotObtainedError(error) : error;
      }
      connection.release();
      return { rows: result.rows as R[] };
    },
    async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      const connection = await acquire();
      const inner = transactionClient(connection);
      try {
        await connection.query("BEGIN");
        const result = await work(inner);
        await connection.query("COMMIT");
        connection.release();
        return result;
      } catch (error) {
        try {
          if (isConnectionFailure(error)) throw error;
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
 * The client that a transaction's work is handed: its statements on the transaction's connection, a nested
 * `transaction` the same transaction (no savepoint), `close` nothing (the transaction's owner releases it).
 */
function transactionClient(connection: {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}): SqlClient {
  const inner: SqlClient = {
    async query<R>(text: string, values: readonly unknown[] = []) {
      const result = await connection.query(text, [...values]);
      return { rows: result.rows as R[] };
    },
    transaction: (nested) => nested(inner),
    async close() {},
  };
  return inner;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
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
        return work(transactionClient(tx));
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
