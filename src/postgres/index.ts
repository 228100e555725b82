// incident-query/postgres: Search Conditions on PostgreSQL, and a durable command backend (docs/postgresql.md).
export type {
  MigrateOptions,
  MigrationStep,
  PostgresBackend,
  PostgresBackendOptions,
  PostgresConnection,
} from "./backend.js";
export { createPostgresBackend, DEFAULT_POOL_OPTIONS, incidentRow } from "./backend.js";
export type { ColumnMap, SchemaMigration } from "./schema.js";
export {
  CREATED_COLUMN,
  columnNameOf,
  DEFAULT_COLUMNS,
  MIGRATIONS,
  quoteIdentifier,
  SCHEMA_VERSION,
  SchemaVersionError,
  schemaStatements,
} from "./schema.js";
export type { PgliteLike, PgPoolClientLike, PgPoolLike, SqlClient, SqlResult } from "./sql-client.js";
export { fromPglite, fromPgPool } from "./sql-client.js";
export type { SqlWhere, ToSqlOptions } from "./to-sql.js";
export { toSqlWhere } from "./to-sql.js";
