/**
 * One-shot queries over an NDJSON export: the built CLI (`node dist/cli/main.js match`, a child
 * process, start-up included) against DuckDB's `read_json` on the same file (in this process, the instance
 * created before the clock starts), with 1 and 2 threads each. Four condition shapes (labels, a date range, a
 * `$regex` with a literal, the specification's sample), `--count` and the first match; every count must
 * agree with DuckDB's or the run fails. The file: `BENCH_ONESHOT_SIZE` generated incidents (default 1M)
 * whose titles are made unique (the incident's id appended), written to a temporary folder.
 *
 * Then the set build on the same file: `IncidentSet.fromNdjson` from a `FileHandle` (rate, and the heap and
 * outside-heap bytes it holds per incident after a collection, beside the file's bytes per line) against
 * DuckDB's `CREATE TABLE … AS SELECT * FROM read_json(…)` with 1 and 2 threads, and each shape's count on the
 * loaded set against the count on DuckDB's loaded table (the faster of 1 and 2 threads).
 *
 * Run alone: `npm run bench:build && node bench/.build/bench/one-shot.js` (after `npm run build`).
 */

import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { IncidentSet } from "../src/incidents/incident-set.js";
import { LINE_MATCH, LineMatcher } from "../src/incidents/line-matcher.js";
import { lineKernel } from "../src/node/kernel.js";
import { generateIncidents } from "./generate-incidents.js";
import { BENCH_DIR, loadPeers, type PeerModules } from "./peers.js";

const ROOT = dirname(BENCH_DIR);
const CLI = join(ROOT, "dist", "cli", "main.js");

interface Shape {
  readonly name: string;
  readonly conditions: unknown;
  readonly sql: string;
}

export const SHAPES: readonly Shape[] = [
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

/** The set build and the counts on loaded data (see the module comment). */
export interface SetBuildReport {
  readonly incidents: number;
  readonly fileBytesPerLine: number;
  readonly fromNdjsonPerSecond: number;
  readonly duck1PerSecond: number;
  readonly duck2PerSecond: number;
  /** Heap and outside-heap bytes the set holds per incident, after a collection. */
  readonly setHeapBytesPerIncident: number;
  readonly setOutsideHeapBytesPerIncident: number;
  /** Per shape: the faster DuckDB count on its table over `IncidentSet.count` (≥ 1: ours faster). */
  readonly countRatios: readonly { readonly shape: string; readonly ratio: number }[];
}

/** What the section measured: the one-shot rows and the set build. */
export interface OneShotReport {
  readonly rows: readonly OneShotRow[];
  readonly build: SetBuildReport | undefined;
  readonly kernel?: KernelReport | undefined;
}

/** The section's targets, for the runner's MET/MISS lines. */
export function oneShotTargets(report: OneShotReport): {
  name: string;
  goal: string;
  reached: string;
  met: boolean;
}[] {
  const out = [];
  if (report.rows.length > 0) {
    const worst = report.rows.reduce((a, b) => (b.ratio < a.ratio ? b : a));
    out.push({
      name: "one-shot match (count and first, four shapes) vs the faster DuckDB read_json",
      goal: "≥ 1.0×",
      reached: `${worst.ratio.toFixed(2)}× (worst: ${worst.shape} ${worst.mode}); best ${Math.max(...report.rows.map((r) => r.ratio)).toFixed(2)}×`,
      met: worst.ratio >= 1,
    });
  }
  const build = report.build;
  if (build !== undefined) {
    const rate = build.fromNdjsonPerSecond / build.duck1PerSecond;
    out.push({
      name: "IncidentSet.fromNdjson vs DuckDB's single-thread load (incidents/s)",
      goal: "≥ 1.0×",
      reached: `${rate.toFixed(2)}× (${Math.round(build.fromNdjsonPerSecond).toLocaleString("en-US")}/s vs ${Math.round(build.duck1PerSecond).toLocaleString("en-US")}/s)`,
      met: rate >= 1,
    });
    const held = build.setHeapBytesPerIncident + build.setOutsideHeapBytesPerIncident;
    out.push({
      name: "fromNdjson memory per incident vs its NDJSON line",
      goal: `≤ ${build.fileBytesPerLine} B`,
      reached: `${held} B (${build.setHeapBytesPerIncident} heap + ${build.setOutsideHeapBytesPerIncident} outside)`,
      met: held <= build.fileBytesPerLine,
    });
    const worst = Math.min(...build.countRatios.map((r) => r.ratio));
    out.push({
      name: "count on the loaded set vs the faster DuckDB on its loaded table",
      goal: "≥ 3× each",
      reached: build.countRatios.map((r) => `${r.shape} ${r.ratio.toFixed(1)}×`).join(", "),
      met: worst >= 3,
    });
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Bytes held in and outside the heap, after two full collections (`--expose-gc`, which `npm run bench` and
 * `npm run bench:one-shot` pass; without it, as they are, garbage included).
 */
function heldBytes(): { heap: number; outside: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, outside: usage.external };
}

/** The set build and the counts on loaded data, on the export at `path` (see the module comment). */
async function setBuild(
  peers: PeerModules,
  path: string,
  size: number,
  write: (line: string) => void,
): Promise<SetBuildReport> {
  const before = heldBytes();
  const t0 = performance.now();
  const handle = await open(path);
  const set = await IncidentSet.fromNdjson(handle).finally(() => handle.close());
  const buildMs = performance.now() - t0;
  const after = heldBytes();
  const duckRates: number[] = [];
  const tables: Awaited<ReturnType<typeof connectDuck>>[] = [];
  for (const threads of ["1", "2"]) {
    const connection = await connectDuck(peers, threads);
    const t1 = performance.now();
    await connection.run(
      `CREATE TABLE incidents AS SELECT * FROM read_json('${path}', format='newline_delimited')`,
    );
    const ms = performance.now() - t1;
    duckRates.push(size / (ms / 1000));
    tables.push(connection);
  }
  const countRatios = [];
  for (const shape of SHAPES) {
    const condition = parseSearchConditions(shape.conditions);
    const ours: number[] = [];
    let found = 0;
    for (let r = 0; r < 7; r++) {
      const t = performance.now();
      found = set.count(condition);
      ours.push(performance.now() - t);
    }
    let duckBest = Number.POSITIVE_INFINITY;
    for (const connect of tables) {
      const times: number[] = [];
      let expected = "";
      for (let r = 0; r < 5; r++) {
        const t = performance.now();
        const rows = (
          await connect.runAndReadAll(`SELECT count(*) FROM incidents WHERE ${shape.sql}`)
        ).getRows();
        times.push(performance.now() - t);
        expected = String(rows[0]?.[0] ?? "");
      }
      if (String(found) !== expected)
        throw new Error(`set count ${shape.name}: the set says ${found}, DuckDB ${expected}`);
      duckBest = Math.min(duckBest, median(times));
    }
    countRatios.push({ shape: shape.name, ratio: duckBest / median(ours) });
  }
  const report: SetBuildReport = {
    incidents: size,
    fileBytesPerLine: Math.round(statSync(path).size / size),
    fromNdjsonPerSecond: size / (buildMs / 1000),
    duck1PerSecond: duckRates[0]!,
    duck2PerSecond: duckRates[1]!,
    setHeapBytesPerIncident: Math.max(0, Math.round((after.heap - before.heap) / size)),
    setOutsideHeapBytesPerIncident: Math.max(0, Math.round((after.outside - before.outside) / size)),
    countRatios,
  };
  write(
    `set build: fromNdjson ${Math.round(report.fromNdjsonPerSecond).toLocaleString("en-US")}/s; DuckDB CREATE TABLE … read_json 1t ${Math.round(report.duck1PerSecond).toLocaleString("en-US")}/s, 2t ${Math.round(report.duck2PerSecond).toLocaleString("en-US")}/s; the set holds ${report.setHeapBytesPerIncident} B heap + ${report.setOutsideHeapBytesPerIncident} B outside per incident (lines: ${report.fileBytesPerLine} B)${(globalThis as { gc?: unknown }).gc === undefined ? " (no --expose-gc: garbage included)" : ""}`,
  );
  for (const { shape, ratio } of countRatios)
    write(
      `${`count on loaded data: ${shape}`.padEnd(60)} faster DuckDB / IncidentSet.count ${ratio.toFixed(1)}×`,
    );
  return report;
}

/** A connection to a fresh in-memory DuckDB instance with `threads` threads. */
async function connectDuck(peers: PeerModules, threads: string) {
  const instance = await peers.duckdb.DuckDBInstance.create(":memory:", { threads });
  return instance.connect();
}

export async function writeExport(path: string, size: number): Promise<void> {
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
  // 1 is "no incident matches", with nothing on standard error (Node's own failures exit 1 too).
  if ((result.status !== 0 && result.status !== 1) || result.stderr !== "")
    throw new Error(`the CLI failed (${result.status}): ${result.stderr}`);
  return { ms, out: result.stdout.trim() };
}

/** The line kernel's row: WebAssembly SIMD against the JavaScript scanner, paired rounds (ratios ≥ 1: the kernel faster). */
export interface KernelReport {
  /** `LineMatcher` over the same buffer (the labels shape), in GB/s: with the kernel, without. */
  readonly scanKernelGBps: number;
  readonly scanJsGBps: number;
  /** Median of the paired rounds' ratios (JavaScript's time over the kernel's). */
  readonly scanRatio: number;
  /** `IncidentSet.fromNdjson` over the same buffer (4 MiB chunks): the paired ratio. */
  readonly loadRatio: number;
  /** The CLI's `match --count` (labels) over the file, 1 and 2 threads: JavaScript's time over the kernel's. */
  readonly count1Ratio: number;
  readonly count2Ratio: number;
}

/** Up to `bytes` of the file, cut after its last whole line. */
async function headOf(path: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(path);
  try {
    const buffer = new Uint8Array(Math.min(bytes, statSync(path).size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, buffer.lastIndexOf(10, bytesRead - 1) + 1);
  } finally {
    await handle.close();
  }
}

/** Matches every line of `b` in blocks of 4 MiB, as `match` does: the matches. */
function matchBuffer(b: Uint8Array, matcher: LineMatcher): number {
  const block = 4 << 20;
  const buffer = Buffer.from(b.buffer, b.byteOffset, b.length);
  let found = 0;
  for (let start = 0; start < b.length; ) {
    let end = Math.min(b.length, start + block);
    if (end < b.length) end = b.lastIndexOf(10, end - 1) + 1;
    matcher.prepare(b, start, end);
    for (let p = start; p < end; ) {
      let nl = buffer.indexOf(10, p);
      if (nl < 0 || nl >= end) nl = end;
      if (nl > p && matcher.test(b, p, nl) === LINE_MATCH) found++;
      p = nl + 1;
    }
    matcher.release();
    start = end;
  }
  return found;
}

/**
 * The row "line kernel: WebAssembly SIMD vs JavaScript scanner" (assembly/line-kernel.ts): the same work
 * with and without the kernel, in alternating rounds (the order swapped each round), each round's ratio
 * taken and the median kept, so that the load of a shared machine falls on both sides alike.
 */
export async function runKernelRow(
  path: string,
  write: (line: string) => void,
  rounds = 5,
): Promise<KernelReport | undefined> {
  const kernel = lineKernel();
  if (kernel === undefined) {
    write("line kernel: not available here (WebAssembly SIMD, or dist/kernel/line-kernel.wasm); skipped");
    return undefined;
  }
  const b = await headOf(path, 128 << 20);
  const shape = SHAPES[0]!;
  const condition = parseSearchConditions(shape.conditions);
  const paired = async (run: (withKernel: boolean) => Promise<unknown> | unknown) => {
    const ratios: number[] = [];
    const times = { kernel: [] as number[], js: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [true, false] : [false, true];
      const round: Record<string, number> = {};
      let answers: string[] = [];
      for (const withKernel of order) {
        const t0 = performance.now();
        answers.push(JSON.stringify(await run(withKernel)));
        round[String(withKernel)] = performance.now() - t0;
      }
      if (answers[0] !== answers[1]) throw new Error(`line kernel: answers differ (${answers.join(" / ")})`);
      answers = [];
      times.kernel.push(round.true!);
      times.js.push(round.false!);
      ratios.push(round.false! / round.true!);
    }
    return { ratio: median(ratios), kernel: median(times.kernel), js: median(times.js) };
  };
  const scan = await paired((withKernel) =>
    matchBuffer(b, new LineMatcher(condition, [], withKernel ? kernel : undefined)),
  );
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < b.length; at += 4 << 20) chunks.push(b.subarray(at, at + (4 << 20)));
  const load = await paired(async (withKernel) => {
    const set = await IncidentSet.fromNdjson(chunks, {}, withKernel ? { kernel } : {});
    return set.count(condition);
  });
  const counts = [];
  for (const threads of [1, 2]) {
    counts.push(
      await paired((withKernel) => {
        const args = [CLI, "match", "--incidents", path, "--threads", String(threads), "--count"];
        const { INCIDENT_QUERY_KERNEL: _, ...rest } = process.env;
        const env = withKernel ? rest : { ...rest, INCIDENT_QUERY_KERNEL: "js" };
        const result = spawnSync(process.execPath, [...args, JSON.stringify(shape.conditions)], {
          encoding: "utf8",
          env,
        });
        if (result.status !== 0 && result.status !== 1) throw new Error(`the CLI failed: ${result.stderr}`);
        return result.stdout.trim();
      }),
    );
  }
  const gb = b.length / 1e9;
  const report: KernelReport = {
    scanKernelGBps: gb / (scan.kernel / 1000),
    scanJsGBps: gb / (scan.js / 1000),
    scanRatio: scan.ratio,
    loadRatio: load.ratio,
    count1Ratio: counts[0]!.ratio,
    count2Ratio: counts[1]!.ratio,
  };
  write(
    `line kernel: WebAssembly SIMD vs JavaScript scanner (${(b.length / 2 ** 20).toFixed(0)} MiB, ${shape.name}, ${rounds} paired rounds): LineMatcher ${report.scanKernelGBps.toFixed(2)} vs ${report.scanJsGBps.toFixed(2)} GB/s (${report.scanRatio.toFixed(2)}×); fromNdjson ${report.loadRatio.toFixed(2)}×; match --count over the file 1t ${report.count1Ratio.toFixed(2)}×, 2t ${report.count2Ratio.toFixed(2)}×`,
  );
  return report;
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
): Promise<OneShotReport | undefined> {
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
    const ducks = await Promise.all(["1", "2"].map((threads) => connectDuck(peers, threads)));
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
    const build = await setBuild(peers, path, size, write);
    const kernel = await runKernelRow(path, write);
    return { rows, build, kernel };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (
  process.argv[1] !== undefined &&
  fileURLToPath(import.meta.url) === process.argv[1] &&
  process.argv.includes("--kernel")
) {
  // The kernel's row alone (no DuckDB needed): `node bench/.build/bench/one-shot.js --kernel [file]`, over
  // the given NDJSON export or a generated one of BENCH_ONESHOT_SIZE incidents.
  const given = process.argv[process.argv.indexOf("--kernel") + 1];
  if (given !== undefined) await runKernelRow(given, (line) => console.log(line));
  else {
    const dir = mkdtempSync(join(tmpdir(), "iq-kernel-"));
    try {
      const path = join(dir, "export.ndjson");
      await writeExport(path, Number(process.env.BENCH_ONESHOT_SIZE ?? 1_000_000));
      await runKernelRow(path, (line) => console.log(line));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await runOneShotBench(await loadPeers(), (line) => console.log(line));
  if (report !== undefined)
    for (const t of oneShotTargets(report))
      console.log(`  ${t.met ? "MET " : "MISS"} ${t.name}: ${t.reached} (goal ${t.goal})`);
}
