/**
 * The PostgreSQL schema of incident-query (docs/postgresql.md): typed columns for the catalogue fields of
 * the default catalogue, the whole record as `jsonb`, and the tables of the command backend.
 *
 * Column rules (they make the translation of `to-sql.ts` provable):
 * - a text or enumerated catalogue field `F` has a `text` column that holds the record's value when it is a
 *   string, and `NULL` otherwise (missing, `null`, a number, an array, an object);
 * - the date field `CreatedUtcTime` has a `timestamptz` column that holds the instant when the value is a
 *   date of docs/semantics.md 1.5 (an ISO-8601 UTC string), and `NULL` otherwise;
 * - `irregular` (a `text[]`) lists the catalogue fields whose value is present but not of the column's type
 *   (for the date field: present and not a date). Together they say exactly what the record holds.
 */

import { unstorableCharacter } from "../commands/unstorable-text.js";
import { DEFAULT_CATALOG, type FieldCatalog } from "../conditions/catalog.js";

/** The column of the date field `CreatedUtcTime`. */
export const CREATED_COLUMN = "created";

/** The earliest and latest instants a `timestamptz` column holds here (docs/postgresql.md): 4712 BC to 9999. */
const STORABLE_FROM_MS = Date.UTC(-4711, 0, 1);
const STORABLE_TO_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The text of an instant as PostgreSQL's `timestamptz` input reads it, or `undefined` for an instant
 * outside 4712 BC–9999 AD (then the record's value is irregular, re-checked exactly). Years before 1 are
 * written with `BC` (PostgreSQL has no year 0: JavaScript's year 0 is 1 BC), as both calendars are
 * proleptic Gregorian.
 * @param ms - milliseconds since the epoch
 */
export function timestampText(ms: number): string | undefined {
  if (!(ms >= STORABLE_FROM_MS && ms <= STORABLE_TO_MS)) return undefined;
  const date = new Date(ms);
  const iso = date.toISOString();
  if (!iso.startsWith("-") && !iso.startsWith("0000")) return iso;
  const year = 1 - date.getUTCFullYear();
  const rest = iso.slice(iso.indexOf("-", 1)).replace("T", " ").replace("Z", "+00");
  return `${String(year).padStart(4, "0")}${rest} BC`;
}

/**
 * Whether PostgreSQL text keeps a string as it is: no U+0000 (text refuses it) and no unpaired UTF-16
 * surrogate (UTF-8 cannot encode one; it would arrive as U+FFFD).
 */
export function storableText(text: string): boolean {
  return unstorableCharacter(text) === undefined;
}

/** How catalogue fields map to columns of the incidents table: field path → column name. */
export type ColumnMap = Readonly<Record<string, string>>;

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Quotes a column or table name. Only lower-case ASCII names of at most 63 characters are allowed, so the
 * quoting can never be escaped from.
 * @throws {TypeError} for any other name
 */
export function quoteIdentifier(name: string): string {
  if (typeof name !== "string" || !IDENTIFIER.test(name)) {
    throw new TypeError(
      `'${String(name)}' is not an allowed SQL identifier: use lower-case letters, digits and '_' (at most 63).`,
    );
  }
  return `"${name}"`;
}

/** The column name of a catalogue field: `DataSource` → `f_datasource`; `CreatedUtcTime` → `created`. */
export function columnNameOf(field: string, catalog: FieldCatalog = DEFAULT_CATALOG): string {
  if (catalog.fields[field]?.kind === "date" && field === "CreatedUtcTime") return CREATED_COLUMN;
  return `f_${field.toLowerCase().replace(/[^a-z0-9]/g, "_")}`.slice(0, 63);
}

/**
 * The column map of the schema `migrate()` creates: every single-segment field of the default catalogue.
 * Dotted catalogue fields and open fields have no column; their conditions are checked on the `jsonb`
 * record (by re-checking rows, docs/postgresql.md).
 */
export const DEFAULT_COLUMNS: ColumnMap = Object.freeze(
  Object.fromEntries(
    Object.keys(DEFAULT_CATALOG.fields)
      .filter((field) => !field.includes("."))
      .map((field) => [field, columnNameOf(field)]),
  ),
);

/**
 * Schema version 1: the tables, indexes and sequence, with a text column for each field of `columns`
 * (the schema of every release before versions were recorded; never change it: a database made by those
 * releases is a version-1 database). Each statement is idempotent (`IF NOT EXISTS`).
 */
function version1Statements(columns: ColumnMap): string[] {
  const fieldColumns = Object.entries(columns)
    .filter(([, column]) => column !== CREATED_COLUMN)
    .map(([, column]) => `${quoteIdentifier(column)} text`);
  return [
    `CREATE TABLE IF NOT EXISTS iq_sites (name text PRIMARY KEY, time_zone text)`,
    `CREATE TABLE IF NOT EXISTS iq_users (username text PRIMARY KEY, sites text[] NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS iq_incidents (
      seq bigserial PRIMARY KEY,
      site text NOT NULL,
      incident_id double precision,
      number text NOT NULL,
      created timestamptz,
      ${fieldColumns.join(",\n      ")},
      irregular text[] NOT NULL DEFAULT '{}',
      record jsonb NOT NULL,
      UNIQUE (site, number)
    )`,
    // The first-match query of docs/semantics.md 1.9 walks this index in order.
    `CREATE INDEX IF NOT EXISTS iq_incidents_first ON iq_incidents (site, created NULLS LAST, incident_id NULLS LAST, seq)`,
    // Irregular values: the superset clauses ask `irregular @> ARRAY[field]`, which this index answers.
    `CREATE INDEX IF NOT EXISTS iq_incidents_irregular ON iq_incidents USING gin (irregular)`,
    // Key lookups (`Number`, `ExternalKey`), as IncidentSet's hash indexes.
    ...Object.entries(columns)
      .filter(([field]) => field === "Number" || field === "ExternalKey")
      .map(
        ([, column]) =>
          `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`iq_incidents_${column}`)} ON iq_incidents (site, ${quoteIdentifier(column)})`,
      ),
    `CREATE TABLE IF NOT EXISTS iq_timeline_entries (
      site text NOT NULL,
      incident_number text NOT NULL,
      entry jsonb NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS iq_timeline_entries_incident ON iq_timeline_entries (site, incident_number)`,
    `CREATE TABLE IF NOT EXISTS iq_playbooks (position integer PRIMARY KEY, playbook jsonb NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS iq_artifact_types (id integer PRIMARY KEY, label text NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS iq_artifacts (
      site text NOT NULL,
      name text NOT NULL,
      type_id integer NOT NULL,
      PRIMARY KEY (site, name, type_id)
    )`,
    `CREATE TABLE IF NOT EXISTS iq_notes (
      id bigserial PRIMARY KEY,
      site text NOT NULL,
      artifact_name text NOT NULL,
      type_id integer NOT NULL,
      text text NOT NULL,
      author text NOT NULL,
      time timestamptz NOT NULL
    )`,
    `CREATE SEQUENCE IF NOT EXISTS iq_runtime_ids`,
    `CREATE TABLE IF NOT EXISTS iq_playbook_runs (
      runtime_id bigint PRIMARY KEY,
      site text NOT NULL,
      incident_id double precision,
      incident_number text NOT NULL,
      playbook_name text NOT NULL,
      trigger_data jsonb NOT NULL,
      time timestamptz NOT NULL
    )`,
  ];
}

/** The table of applied schema versions (docs/postgresql.md, "Schema versions"). */
export const VERSIONS_TABLE = "iq_schema_versions";

/** The table of the incidents' column map in force: which column holds which field. */
export const COLUMNS_TABLE = "iq_incident_columns";

/** One forward migration: the statements that take a database from `version - 1` to `version`. */
export interface SchemaMigration {
  /** The version a database has once this migration committed (1, 2, …: consecutive). */
  readonly version: number;
  /** What it changes, in a few words (stored beside the version). */
  readonly description: string;
  /** Its statements, each idempotent, for the backend's column map. */
  statements(columns: ColumnMap): string[];
}

/**
 * The migrations, in order; the last one's version is `SCHEMA_VERSION`. Forward only: a release adds a
 * migration at the end and never edits one that shipped.
 */
export const MIGRATIONS: readonly SchemaMigration[] = Object.freeze([
  {
    version: 1,
    description: "incidents, timelines, playbooks, artifacts, notes, runs and the RuntimeId sequence",
    statements: version1Statements,
  },
  {
    version: 2,
    description:
      "the incidents' column map is recorded, and a column the map gains is filled from the records",
    statements: () => [
      `CREATE TABLE IF NOT EXISTS ${COLUMNS_TABLE} (
      column_name text PRIMARY KEY,
      field text NOT NULL UNIQUE,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`,
    ],
  },
]);

/** The schema version this code writes and understands: the last migration's. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The statement that creates the table of versions (idempotent). */
export const VERSIONS_TABLE_STATEMENT = `CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;

/**
 * The statements of the current schema for `columns`, in order, each idempotent (`IF NOT EXISTS`): every
 * migration's. They record no version: `migrate()` is the way to create or upgrade a database; these serve
 * tests and tools that want the tables alone.
 */
export function schemaStatements(columns: ColumnMap = DEFAULT_COLUMNS): string[] {
  return [VERSIONS_TABLE_STATEMENT, ...MIGRATIONS.flatMap((migration) => migration.statements(columns))];
}

/**
 * The index statements a column of `field` gets (key lookups on `Number` and `ExternalKey`, as
 * IncidentSet's hash indexes); none for other fields.
 */
export function columnIndexStatements(field: string, column: string): string[] {
  return field === "Number" || field === "ExternalKey"
    ? [
        `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`iq_incidents_${column}`)} ON iq_incidents (site, ${quoteIdentifier(column)})`,
      ]
    : [];
}

/**
 * A database whose schema is newer than this code (a later release migrated it): the code refuses it
 * rather than write rows the newer schema does not expect.
 */
export class SchemaVersionError extends Error {
  override readonly name = "SchemaVersionError";
  /**
   * @param found - the database's schema version
   * @param supported - `SCHEMA_VERSION`
   */
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The database's schema is version ${found}, newer than this release of incident-query understands (version ${supported}): use the release that migrated it, or a later one.`,
    );
  }
}
