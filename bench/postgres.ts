/**
 * `npm run bench:postgres`: the first matching incident (docs/semantics.md 1.9) in PostgreSQL, through the
 * PostgreSQL backend (`toSqlWhere`'s superset clause on the indexed order, rows re-checked with `compile`),
 * against the same query with PostgreSQL's index scans turned off (a sequential scan and a sort), and
 * against `IncidentSet.findFirst` in memory, on the same generated incidents and the benchmark's queries.
 * Every engine must find the same incident. Runs on PGlite in this process, or on the server of PG_URL.
 * Prints ratios (medians of interleaved runs): the machines are shared, so absolute times say little.
 *
 * Size: `BENCH_PG_SIZE` incidents (default 1,000,000; `--quick` 20,000).
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { IncidentSet } from "../src/incidents/incident-set.js";
import { createPostgresBackend, insertIncidents } from "../src/postgres/backend.js";
import { DEFAULT_COLUMNS } from "../src/postgres/schema.js";
import { fromPglite, fromPgPool, type SqlClient } from "../src/postgres/sql-client.js";
import { toSqlWhere } from "../src/postgres/to-sql.js";
import { generateIncidents } from "./generate-incidents.js";
import { benchQueries } from "./queries.js";

const quick = process.argv.includes("--quick");
const size = Number(process.env.BENCH_PG_SIZE ?? (quick ? 20_000 : 1_000_000));
const SITE = "bench";

async function open(): Promise<SqlClient> {
  const url = process.env.PG_URL;
  if (url === undefined) return fromPglite(new PGlite(), true);
  const schema = `iq_bench_${process.pid}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  return fromPgPool(
    new pg.Pool({ connectionString: url, options: `-c search_path="${schema}"`, max: 2 }),
    true,
  );
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const client = await open();
const backend = await createPostgresBackend({ client });
await backend.migrate();
const incidents = generateIncidents(size);
let started = performance.now();
for (let start = 0; start < incidents.length; start += 5000) {
  await insertIncidents(
    client,
    DEFAULT_COLUMNS,
    incidents.slice(start, start + 5000).map((incident) => ({
      site: SITE,
      number: incident.Number,
      incident: { ...incident, Site: SITE },
    })),
  );
}
await client.query("ANALYZE iq_incidents");
console.log(
  `PostgreSQL (${process.env.PG_URL === undefined ? "PGlite" : "server"}): ${size.toLocaleString("en-US")} incidents loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
started = performance.now();
const set = new IncidentSet(incidents);
set.findFirst({ Number: "x" });
console.log(`IncidentSet built in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const rows: string[][] = [];
for (const query of benchQueries(incidents).filter((q) => q.first)) {
  const condition = parseSearchConditions(query.conditions);
  const where = toSqlWhere(condition, { firstParameter: 2 });
  const indexed = async () => (await backend.findFirstIncident(SITE, condition))?.IncidentId;
  // The same superset clause and order with index scans off: what PostgreSQL does without the index.
  const sequential = async () =>
    client.transaction(async (tx) => {
      await tx.query("SET LOCAL enable_indexscan = off");
      await tx.query("SET LOCAL enable_bitmapscan = off");
      await tx.query("SET LOCAL enable_indexonlyscan = off");
      const result = await tx.query<{ id: number }>(
        `SELECT incident_id AS id FROM iq_incidents WHERE site = $1 AND ${where.text}
         ORDER BY created ASC NULLS LAST, incident_id ASC NULLS LAST, seq ASC LIMIT 1`,
        [SITE, ...where.values],
      );
      return result.rows[0]?.id;
    });
  const memory = async () => set.findFirst(condition)?.IncidentId;
  const expected = await memory();
  const found = await indexed();
  if (found !== expected)
    throw new Error(`${query.name}: PostgreSQL found ${found}, IncidentSet ${expected}`);
  // The sequential scan answers from the pushed-down clause alone: equal where that clause is exact.
  const runs = quick ? 5 : 7;
  const [tIndexed, tSequential, tMemory] = [
    await median(runs, indexed),
    await median(quick ? 3 : 3, sequential),
    await median(runs, memory),
  ];
  rows.push([
    query.name,
    where.exact ? "exact" : where.text === "TRUE" ? "re-check only" : "superset",
    (tSequential / tIndexed).toFixed(1),
    (tIndexed / tMemory).toFixed(0),
  ]);
}
console.log("\nfirst matching incident: seq scan / indexed (× faster with the index); indexed / IncidentSet");
console.log("| query | SQL clause | ×seq scan | ÷IncidentSet |\n| --- | --- | ---: | ---: |");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
await client.close();
