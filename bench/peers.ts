/**
 * The benchmark's peer engines beside mingo, sift and the hand-written code: arquero (columns of JS
 * values, filter expressions), DuckDB through `@duckdb/node-api` (one table with ENUM label columns, one
 * with VARCHAR columns) and roaring bitmaps (`roaring`, an inverted index of one bitmap per label value
 * and per day, queried with hand-written bitmap algebra).
 *
 * The peers live in the benchmark's own package (`bench/package.json`, installed by `npm run bench` with
 * `npm --prefix bench install`), so that the library's install stays lean. They are loaded with a dynamic
 * `import` of a computed name, so that `npm run typecheck` passes without them; the few calls used are
 * declared below as minimal interfaces of the peers' documented APIs.
 *
 * Every peer is built once per size from the same generated incidents (not timed in the query table) and
 * answers a match count, which the runner compares with every other engine's.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CREATED_FROM_MS, type GeneratedIncident } from "./generate-incidents.js";

/** The read-only part of a roaring bitmap used here. */
export interface Bitmap {
  /** Number of set bits (the match count). */
  readonly size: number;
  toUint32Array(): Uint32Array;
}

/** A bitmap being built. */
type MutableBitmap = Bitmap & { add(value: number): unknown; runOptimize(): boolean };

interface RoaringBitmap32Class {
  new (values?: Iterable<number>): MutableBitmap;
  and(a: Bitmap, b: Bitmap): Bitmap;
  or(a: Bitmap, b: Bitmap): Bitmap;
  andNot(a: Bitmap, b: Bitmap): Bitmap;
  orMany(bitmaps: readonly Bitmap[]): Bitmap;
}

interface ArqueroTable {
  filter(expression: string): ArqueroTable;
  numRows(): number;
}

interface ArqueroModule {
  table(columns: Record<string, ArrayLike<unknown>>): ArqueroTable;
}

interface DuckDbReader {
  getRows(): unknown[][];
}

interface DuckDbPrepared {
  runAndReadAll(): Promise<DuckDbReader>;
}

interface DuckDbConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<DuckDbReader>;
  prepare(sql: string): Promise<DuckDbPrepared>;
  closeSync?(): void;
}

interface DuckDbModule {
  DuckDBInstance: {
    create(path: string, options?: Record<string, string>): Promise<{ connect(): Promise<DuckDbConnection> }>;
  };
}

/** The loaded peer modules and their installed versions. */
export interface PeerModules {
  readonly arquero: ArqueroModule;
  readonly duckdb: DuckDbModule;
  readonly RoaringBitmap32: RoaringBitmap32Class;
  /** Installed version of each peer package, e.g. `{ arquero: "7.2.1", … }`. */
  readonly versions: Readonly<Record<string, string>>;
}

/**
 * The folder `bench/` (its `node_modules` holds the peers, `results/` the saved runs), whether this module
 * runs from the sources or compiled into `bench/.build/bench/` (`npm run bench:build`).
 */
export const BENCH_DIR = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  return basename(dirname(dirname(here))) === "bench" && basename(dirname(here)) === ".build"
    ? dirname(dirname(here))
    : here;
})();
const benchDir = BENCH_DIR;
const PEER_PACKAGES = ["arquero", "@duckdb/node-api", "roaring"] as const;

/** The built package's root and Node entries (loaded from `dist/`, as a program would). */
export interface BuiltEntries {
  readonly node: typeof import("../src/node/index.js");
  readonly root: typeof import("../src/index.js");
}

/** The built package's root and Node entries, or undefined before `npm run build`. */
export async function loadBuiltEntries(): Promise<BuiltEntries | undefined> {
  const dist = join(dirname(BENCH_DIR), "dist");
  const node = join(dist, "node", "index.js");
  if (!existsSync(node)) return undefined;
  return {
    node: (await import(pathToFileURL(node).href)) as BuiltEntries["node"],
    root: (await import(pathToFileURL(join(dist, "index.js")).href)) as BuiltEntries["root"],
  };
}

/**
 * Loads the peers from `bench/node_modules`.
 * @throws {Error} when a peer is not installed, saying how to install it (`npm --prefix bench install`)
 */
export async function loadPeers(): Promise<PeerModules> {
  const load = async (name: string): Promise<unknown> => {
    try {
      return await import(name);
    } catch (error) {
      throw new Error(
        `The benchmark peer "${name}" is not installed: run \`npm --prefix bench install\` (npm run bench does it).`,
        { cause: error },
      );
    }
  };
  const [arquero, duckdb, roaring] = await Promise.all(PEER_PACKAGES.map(load));
  const versions: Record<string, string> = {};
  for (const name of PEER_PACKAGES) {
    const manifest = JSON.parse(
      readFileSync(join(benchDir, "node_modules", name, "package.json"), "utf8"),
    ) as { version: string };
    versions[name] = manifest.version;
  }
  const roaringModule = roaring as { RoaringBitmap32?: RoaringBitmap32Class; default?: unknown };
  const RoaringBitmap32 =
    roaringModule.RoaringBitmap32 ??
    (roaringModule.default as { RoaringBitmap32: RoaringBitmap32Class }).RoaringBitmap32;
  return { arquero: arquero as ArqueroModule, duckdb: duckdb as DuckDbModule, RoaringBitmap32, versions };
}

/** The label fields held as dictionary (ENUM) columns by DuckDB and as bitmaps per value by roaring. */
export const LABEL_FIELDS = [
  "Type",
  "Status",
  "Stage",
  "DataSource",
  "IncidentSource",
  "Connection",
  "IngestionType",
  "Category",
  "CustomField1",
  "Severity",
] as const;

/** A label field, or `Number` (the unique key, which roaring's index holds in a hash map). */
export type IndexedField = (typeof LABEL_FIELDS)[number] | "Number";

/**
 * The arquero table of the generated incidents: one column per field, with `CreatedMs` (epoch ms, a
 * Float64Array) beside the ISO string, since arquero compares ISO strings only as strings.
 */
export function buildArquero(aq: ArqueroModule, records: readonly GeneratedIncident[]): ArqueroTable {
  const columns: Record<string, ArrayLike<unknown>> = {};
  for (const field of [...LABEL_FIELDS, "Number", "Title"] as const)
    columns[field] = records.map((r) => r[field]);
  columns.CreatedMs = Float64Array.from(records, (r) => Date.parse(r.CreatedUtcTime));
  return aq.table(columns);
}

/** Counts the rows of an arquero table that an expression keeps (parsed by arquero on every call). */
export function arqueroCount(table: ArqueroTable, expression: string): number {
  return table.filter(expression).numRows();
}

/** The two DuckDB tables of one size, and a prepared `count(*)` per WHERE clause. */
export interface DuckDbTables {
  /** Prepares `SELECT count(*) FROM <table> WHERE <where>`; the returned function runs it. */
  counter(table: "incidents_enum" | "incidents_varchar", where: string): Promise<() => Promise<number>>;
  close(): void;
}

const sqlString = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/**
 * Loads the generated incidents into an in-memory DuckDB with ONE thread (every other engine of the run
 * uses one core): `incidents_varchar` holds every text field as VARCHAR, `incidents_enum` the label
 * fields as ENUM types of their distinct values; both have `CreatedUtcTime` as TIMESTAMP (UTC). The
 * records travel through a temporary NDJSON file read by DuckDB's `read_json`.
 */
export async function buildDuckDb(
  duckdb: DuckDbModule,
  records: readonly GeneratedIncident[],
): Promise<DuckDbTables> {
  const instance = await duckdb.DuckDBInstance.create(":memory:", { threads: "1" });
  const connection = await instance.connect();
  const file = join(tmpdir(), `incident-query-bench-${process.pid}-${records.length}.ndjson`);
  try {
    const lines: string[] = new Array(records.length);
    for (let i = 0; i < records.length; i++) lines[i] = JSON.stringify(records[i]);
    writeFileSync(file, `${lines.join("\n")}\n`);
    lines.length = 0;
    const columns = [
      "IncidentId: 'INTEGER'",
      ...[...LABEL_FIELDS, "Number", "Title", "ExternalKey", "CustomField2", "CreatedUtcTime"].map(
        (f) => `${f}: 'VARCHAR'`,
      ),
    ].join(", ");
    await connection.run(
      `CREATE TABLE incidents_varchar AS SELECT * REPLACE (CAST(CreatedUtcTime AS TIMESTAMP) AS CreatedUtcTime)
       FROM read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${columns}})`,
    );
  } finally {
    rmSync(file, { force: true });
  }
  for (const field of LABEL_FIELDS) {
    await connection.run(
      `CREATE TYPE enum_${field} AS ENUM (SELECT DISTINCT ${field} FROM incidents_varchar WHERE ${field} IS NOT NULL ORDER BY 1)`,
    );
  }
  await connection.run(
    `CREATE TABLE incidents_enum AS SELECT * REPLACE (${LABEL_FIELDS.map((f) => `CAST(${f} AS enum_${f}) AS ${f}`).join(", ")}) FROM incidents_varchar`,
  );
  return {
    async counter(table, where) {
      const clause = table === "incidents_enum" ? enumLiterals(where) : where;
      const prepared = await connection.prepare(
        `SELECT CAST(count(*) AS INTEGER) FROM ${table} WHERE ${clause}`,
      );
      return async () => Number((await prepared.runAndReadAll()).getRows()[0]![0]);
    },
    close() {
      connection.closeSync?.();
    },
  };
}

/**
 * Rewrites the string literals compared with a label field (`F = 'v'`, `F <> 'v'`, `F IN ('a', 'b')`,
 * `F NOT IN (…)`) into literals of the field's ENUM type, `CAST('v' AS enum_F)`. DuckDB compares an ENUM
 * column with a VARCHAR literal by casting every value of the column to VARCHAR; with the literal cast to
 * the ENUM, it compares dictionary codes (about 3× faster on a single-label equality here), which is how
 * one writes queries against ENUM columns.
 */
export function enumLiterals(where: string): string {
  let out = where;
  for (const field of LABEL_FIELDS) {
    const literal = (text: string) => `CAST(${text} AS enum_${field})`;
    out = out
      .replace(
        new RegExp(`\\b${field} (=|<>) ('(?:[^']|'')*')`, "g"),
        (_, op: string, text: string) => `${field} ${op} ${literal(text)}`,
      )
      .replace(
        new RegExp(`\\b${field} (NOT IN|IN) \\(([^)]*)\\)`, "g"),
        (_, op: string, list: string) => `${field} ${op} (${list.replace(/'(?:[^']|'')*'/g, literal)})`,
      );
  }
  return out;
}

const DAY_MS = 86_400_000;

/**
 * An inverted index of roaring bitmaps over row positions: one bitmap per value of every label field, one
 * per UTC day of `CreatedUtcTime`, the creation times as a Float64Array for the exact check of the days a
 * range cuts, and a hash map from `Number` to its rows (a bitmap per unique key would be a million native
 * objects at 1M; the lookup builds the bitmap of the rows found).
 */
export interface RoaringIndex {
  /** Rows whose `field` equals `value` (an empty bitmap when none). */
  eq(field: IndexedField, value: string): Bitmap;
  /** Rows whose `field` is one of `values` (a union of bitmaps). */
  anyOf(field: IndexedField, values: readonly string[]): Bitmap;
  /** Intersection of bitmaps. */
  and(...bitmaps: readonly Bitmap[]): Bitmap;
  /** Union of bitmaps. */
  or(...bitmaps: readonly Bitmap[]): Bitmap;
  /** Every row not in `bitmap`. */
  not(bitmap: Bitmap): Bitmap;
  /**
   * Rows whose creation time (epoch ms) is within the bounds: the whole days inside as stored bitmaps, and
   * the rows of a cut day checked one by one. `undefined` leaves a side open.
   */
  created(bounds: {
    readonly gt?: number;
    readonly gte?: number;
    readonly lt?: number;
    readonly lte?: number;
  }): Bitmap;
}

/** Builds the roaring index of the generated incidents (row positions 0…n-1). */
export function buildRoaring(
  RoaringBitmap32: RoaringBitmap32Class,
  records: readonly GeneratedIncident[],
): RoaringIndex {
  const byValue = new Map<(typeof LABEL_FIELDS)[number], Map<string, MutableBitmap>>();
  const days = new Map<number, MutableBitmap>();
  const times = new Float64Array(records.length);
  const byNumber = new Map<string, number[]>();
  for (const field of LABEL_FIELDS) byValue.set(field, new Map());
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const rows = byNumber.get(r.Number);
    if (rows === undefined) byNumber.set(r.Number, [i]);
    else rows.push(i);
    for (const [field, map] of byValue) {
      const value = r[field];
      let bitmap = map.get(value);
      if (bitmap === undefined) {
        bitmap = new RoaringBitmap32();
        map.set(value, bitmap);
      }
      bitmap.add(i);
    }
    const t = Date.parse(r.CreatedUtcTime);
    times[i] = t;
    const day = Math.floor((t - CREATED_FROM_MS) / DAY_MS);
    let bitmap = days.get(day);
    if (bitmap === undefined) {
      bitmap = new RoaringBitmap32();
      days.set(day, bitmap);
    }
    bitmap.add(i);
  }
  for (const map of byValue.values()) for (const bitmap of map.values()) bitmap.runOptimize();
  const empty = new RoaringBitmap32();
  const all = new RoaringBitmap32(Array.from({ length: records.length }, (_, i) => i));
  all.runOptimize();
  const firstDay = Math.min(...days.keys());
  const lastDay = Math.max(...days.keys());
  const and = (...bitmaps: readonly Bitmap[]): Bitmap =>
    bitmaps.length === 0 ? all : bitmaps.reduce((a, b) => RoaringBitmap32.and(a, b));
  const eq = (field: IndexedField, value: string): Bitmap =>
    field === "Number"
      ? new RoaringBitmap32(byNumber.get(value) ?? [])
      : (byValue.get(field)!.get(value) ?? empty);
  return {
    eq,
    anyOf: (field, values) => RoaringBitmap32.orMany(values.map((v) => eq(field, v))),
    and,
    or: (...bitmaps) => RoaringBitmap32.orMany(bitmaps),
    not: (bitmap) => RoaringBitmap32.andNot(all, bitmap),
    created({ gt, gte, lt, lte }) {
      const inside = (t: number) =>
        (gt === undefined || t > gt) &&
        (gte === undefined || t >= gte) &&
        (lt === undefined || t < lt) &&
        (lte === undefined || t <= lte);
      const low = gt ?? gte ?? Number.NEGATIVE_INFINITY;
      const high = lt ?? lte ?? Number.POSITIVE_INFINITY;
      const from = Math.max(firstDay, Math.floor((low - CREATED_FROM_MS) / DAY_MS));
      const to = Math.min(lastDay, Math.floor((high - CREATED_FROM_MS) / DAY_MS));
      const whole: Bitmap[] = [];
      const cut = new RoaringBitmap32();
      for (let day = from; day <= to; day++) {
        const bitmap = days.get(day);
        if (bitmap === undefined) continue;
        const start = CREATED_FROM_MS + day * DAY_MS;
        if (inside(start) && inside(start + DAY_MS - 1)) {
          whole.push(bitmap);
          continue;
        }
        for (const row of bitmap.toUint32Array()) if (inside(times[row]!)) cut.add(row);
      }
      whole.push(cut);
      return RoaringBitmap32.orMany(whole);
    },
  };
}
