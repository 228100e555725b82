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

/** The statements of the schema, in order; each is idempotent (`IF NOT EXISTS`). */
export function schemaStatements(columns: ColumnMap = DEFAULT_COLUMNS): string[] {
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
