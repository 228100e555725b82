/**
 * One-shot queries over an NDJSON export (issue 27): the built CLI (`node dist/cli/main.js match`, a child
 * process, start-up included) against DuckDB's `read_json` on the same file (in this process, the instance
 * created before the clock starts), with 1 and 2 threads each. Four condition shapes (labels, a date range, a
 * `$regex` with a literal, the specification's sample), `--count` and the first match; every count must
 * agree with DuckDB's or the run fails. The file: `BENCH_ONESHOT_SIZE` generated incidents (default 1M)
 * whose titles are made unique (the incident's id appended), written to a temporary folder.
 *
 * Run alone: `npm run bench:build && node bench/.build/bench/one-shot.js` (after `npm run build`).
 */

import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateIncidents } from "./generate-incidents.js";
import { BENCH_DIR, loadPeers, type PeerModules } from "./peers.js";

const ROOT = dirname(BENCH_DIR);
const CLI = join(ROOT, "dist", "cli", "main.js");

interface Shape {
  readonly name: string;
  readonly conditions: unknown;
  readonly sql: string;
}

const SHAPES: readonly Shape[] = [
  {
    name: "labels (Status, Type $in)",
    conditions: { Status: "Open", Type: { $in: ["Phishing", "Malware"] } },
    sql: "Status = 'Open' AND Type IN ('Phishing', 'Malware')",
  },
  {
    name: "date range (one month)",
    conditions: {
      CreatedUtcTime: { $gte: { $date: "2024-03-01T00:00:00Z" }, $lt: { $date: "2024-04-01T00:00:00Z" } },
    },
    sql: "CreatedUtcTime >= TIMESTAMP '2024-03-01 00:00:00' AND CreatedUtcTime < TIMESTAMP '2024-04-01 00:00:00'",
  },
  {
    name: "$regex with a literal (Title)",
    conditions: { Title: { $regex: "ransomware" } },
    sql: "regexp_matches(Title, 'ransomware')",
  },
  {
    name: "spec sample",
    conditions: {
      IngestionType: "Webhook|Schedule Job",
      Title: { $regex: "phishing" },
      Severity: { $in: ["High", "Critical"] },
      CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" }, $lt: { $date: "2024-07-01T00:00:00Z" } },
    },
    sql: "IngestionType IN ('Webhook', 'Schedule Job') AND regexp_matches(Title, 'phishing') AND Severity IN ('High', 'Critical') AND CreatedUtcTime > TIMESTAMP '2024-01-01 00:00:00' AND CreatedUtcTime < TIMESTAMP '2024-07-01 00:00:00'",
  },
];

/** One measured row: medians in ms. */
export interface OneShotRow {
  readonly shape: string;
  readonly mode: "count" | "first";
  readonly cli1: number;
  readonly cli2: number;
  readonly duck1: number;
  readonly duck2: number;
  /** The faster DuckDB's time over the faster CLI's (≥ 1: ours at least as fast). */
  readonly ratio: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function writeExport(path: string, size: number): Promise<void> {
  const stream = createWriteStream(path);
  const rows = generateIncidents(size);
  let text = "";
  for (const row of rows) {
    row.Title = `${row.Title} #${row.IncidentId}`;
    text += `${JSON.stringify(row)}\n`;
    if (text.length > 1 << 20) {
      if (!stream.write(text)) await once(stream, "drain");
      text = "";
    }
  }
  stream.end(text);
  await once(stream, "finish");
}

function cli(
  path: string,
  conditions: unknown,
  mode: "count" | "first",
  threads: number,
): { ms: number; out: string } {
  const args = [CLI, "match", "--incidents", path, "--threads", String(threads), JSON.stringify(conditions)];
  if (mode === "count") args.push("--count");
  const t0 = performance.now();
  const result = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
  const ms = performance.now() - t0;
  if (result.status !== 0 && result.status !== 1) throw new Error(`the CLI failed: ${result.stderr}`);
  return { ms, out: result.stdout.trim() };
}

/**
 * Runs the section and prints its table.
 * @returns the rows, or undefined when the CLI is not built
 */
export async function runOneShotBench(
  peers: PeerModules,
  write: (line: string) => void,
  size = Number(process.env.BENCH_ONESHOT_SIZE ?? 1_000_000),
  rounds = 3,
): Promise<OneShotRow[] | undefined> {
  try {
    statSync(CLI);
  } catch {
    write(`one-shot: ${CLI} is missing (npm run build); skipped`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), "iq-one-shot-"));
  const path = join(dir, "export.ndjson");
  try {
    await writeExport(path, size);
    write(
      `one-shot over ${size.toLocaleString("en-US")} incidents (${(statSync(path).size / 2 ** 20).toFixed(0)} MiB of NDJSON, unique titles): CLI child process vs DuckDB read_json`,
    );
    const ducks = await Promise.all(
      ["1", "2"].map(async (threads) => {
        const instance = await peers.duckdb.DuckDBInstance.create(":memory:", { threads });
        return instance.connect();
      }),
    );
    const rows: OneShotRow[] = [];
    for (const shape of SHAPES) {
      for (const mode of ["count", "first"] as const) {
        const sql =
          mode === "count"
            ? `SELECT count(*) AS n FROM read_json('${path}', format='newline_delimited') WHERE ${shape.sql}`
            : `SELECT IncidentId FROM read_json('${path}', format='newline_delimited') WHERE ${shape.sql} ORDER BY CreatedUtcTime, IncidentId LIMIT 1`;
        const times = {
          cli1: [] as number[],
          cli2: [] as number[],
          duck1: [] as number[],
          duck2: [] as number[],
        };
        for (let r = 0; r < rounds; r++) {
          for (const [k, threads] of [
            ["cli1", 1],
            ["cli2", 2],
          ] as const) {
            const run = cli(path, shape.conditions, mode, threads);
            times[k].push(run.ms);
            const duckRows = (await ducks[1]!.runAndReadAll(sql)).getRows();
            const expected = String(duckRows[0]?.[0] ?? "");
            const ours = mode === "count" ? run.out : String(JSON.parse(run.out || "{}").IncidentId ?? "");
            if (ours !== expected)
              throw new Error(`one-shot ${shape.name} ${mode}: the CLI says ${ours}, DuckDB ${expected}`);
          }
          for (const [k, index] of [
            ["duck1", 0],
            ["duck2", 1],
          ] as const) {
            const t0 = performance.now();
            await ducks[index]!.runAndReadAll(sql);
            times[k].push(performance.now() - t0);
          }
        }
        const row: OneShotRow = {
          shape: shape.name,
          mode,
          cli1: median(times.cli1),
          cli2: median(times.cli2),
          duck1: median(times.duck1),
          duck2: median(times.duck2),
          ratio:
            Math.min(median(times.duck1), median(times.duck2)) /
            Math.min(median(times.cli1), median(times.cli2)),
        };
        rows.push(row);
        write(
          `${`${shape.name} ${mode}`.padEnd(40)} CLI 1t ${row.cli1.toFixed(0)} ms, 2t ${row.cli2.toFixed(0)} ms; DuckDB 1t ${row.duck1.toFixed(0)} ms, 2t ${row.duck2.toFixed(0)} ms; faster DuckDB / faster CLI ${row.ratio.toFixed(2)}×`,
        );
      }
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runOneShotBench(await loadPeers(), (line) => console.log(line));
}
