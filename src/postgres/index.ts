// incident-query/postgres: Search Conditions on PostgreSQL, and a durable command backend (docs/postgresql.md).
export type { PostgresBackend, PostgresBackendOptions, PostgresConnection } from "./backend.js";
export { createPostgresBackend, DEFAULT_POOL_OPTIONS, incidentRow } from "./backend.js";
export type { ColumnMap } from "./schema.js";
export {
  CREATED_COLUMN,
  columnNameOf,
  DEFAULT_COLUMNS,
  quoteIdentifier,
  schemaStatements,
} from "./schema.js";
export type { PgliteLike, PgPoolClientLike, PgPoolLike, SqlClient, SqlResult } from "./sql-client.js";
export { fromPglite, fromPgPool } from "./sql-client.js";
export type { SqlWhere, ToSqlOptions } from "./to-sql.js";
export { toSqlWhere } from "./to-sql.js";
