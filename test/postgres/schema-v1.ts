/**
 * The schema of the releases before schema versions were recorded, copied verbatim from
 * `src/postgres/schema.ts` as it was then (`schemaStatements`): the migration tests make a database exactly
 * as those releases did, and `MIGRATIONS[0]` (version 1) must keep creating exactly this.
 * Do not edit: it is a record of what shipped.
 */
import {
  type ColumnMap,
  CREATED_COLUMN,
  DEFAULT_COLUMNS,
  quoteIdentifier,
} from "../../src/postgres/schema.js";

/** The statements of the schema, in order; each is idempotent (`IF NOT EXISTS`). */
export function previousSchemaStatements(columns: ColumnMap = DEFAULT_COLUMNS): string[] {
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
