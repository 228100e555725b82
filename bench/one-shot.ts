/**
 * One-shot queries over an NDJSON export, and set builds from it, beside DuckDB 1.5 at 1 and 2 threads, on
 * two data sets of `BENCH_ONESHOT_SIZE` generated incidents (default 1M) written to a temporary folder:
 * "unique titles" (the incident's id appended to every title, so that no text repeats) and "repeated
 * titles" (the generator's titles, often repeated).
 *
 * One-shot: four condition shapes (labels, a date range, a `$regex` with a literal, the specification's
 * sample), `count` and the first match, each answered by
 * - the built CLI (`node dist/cli/main.js match`, a child process, start-up included), 1 and 2 threads;
 * - `matchNdjson` of the built Node entry (`dist/node/index.js`) called in this process, as a program or a
 *   server calls it, 1 and 2 threads;
 * - DuckDB's `read_json` on the same file (in this process, the instance created before the clock starts),
 *   1 and 2 threads.
 * The six are timed interleaved (bench/harness.ts `measureInterleaved`); every answer (the count, or the
 * first match's `IncidentId`) must agree with DuckDB's or the run fails.
 *
 * Set build on the same file: the Node entry's `fromNdjson(path)` (rate, and the heap and outside-heap
 * bytes it holds per incident after a collection, beside the file's bytes per line) against DuckDB's
 * `CREATE TABLE … AS SELECT * FROM read_json(…)` with 1 and 2 threads; on the set it built, `findFirst` on
 * a selective `Number` and `count` of the specification's sample; each shape's count on the set against
 * the count on DuckDB's loaded table (the faster of 1 and 2 threads).
 *
 * Ten million incidents with distinct titles, only with `BENCH_10M=1` (about 4.4 GB of NDJSON in the
 * temporary folder, or at `BENCH_10M_KEEP` and reused; 6 GB of memory; minutes): the scale part of
 * bench/text-and-scale.ts in a child process with the memory it needs. Without it the 10M targets print
 * SKIP.
 *
 * Run alone: `npm run bench:one-shot` (after `npm run build`); `BENCH_ONESHOT_SIZE=100000` for a small file.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseSearchConditions } from "../src/conditions/parse.js";
import { IncidentSet } from "../src/incidents/incident-set.js";
import { LINE_MATCH, LineMatcher } from "../src/incidents/line-matcher.js";
import { lineKernel } from "../src/node/kernel.js";
import { generateIncidents } from "./generate-incidents.js";
import { type InterleavedEngine, measure, measureInterleaved, type Target, targetLine } from "./harness.js";
import { BENCH_DIR, type BuiltEntries, loadBuiltEntries, loadPeers, type PeerModules } from "./peers.js";
import { SPEC_SAMPLE } from "./queries.js";
import type { ScaleResult } from "./text-and-scale.js";

const ROOT = dirname(BENCH_DIR);
const CLI = join(ROOT, "dist", "cli", "main.js");

/** The built package's two entries this section calls (loaded from `dist/`, as a program would). */
type Built = BuiltEntries;

/** The built entries, when the executable is built too (the section runs both). */
async function loadBuilt(): Promise<Built | undefined> {
  return existsSync(CLI) ? loadBuiltEntries() : undefined;
}

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
    conditions: SPEC_SAMPLE,
    sql: "IngestionType IN ('Webhook', 'Schedule Job') AND regexp_matches(Title, 'phishing') AND Severity IN ('High', 'Critical') AND CreatedUtcTime > TIMESTAMP '2024-01-01 00:00:00' AND CreatedUtcTime < TIMESTAMP '2024-07-01 00:00:00'",
  },
];

/** The two data sets of the targets (see the module comment). */
const DATA_SETS = [
  { name: "unique titles", uniqueTitles: true },
  { name: "repeated titles", uniqueTitles: false },
] as const;

/** One measured row: medians in ms. */
export interface OneShotRow {
  readonly shape: string;
  readonly mode: "count" | "first";
  readonly cli1: number;
  readonly cli2: number;
  /** `matchNdjson` called in this process. */
  readonly lib1: number;
  readonly lib2: number;
  readonly duck1: number;
  readonly duck2: number;
  /** The faster DuckDB's time over the faster CLI's (≥ 1: ours at least as fast). */
  readonly ratio: number;
  /** The faster DuckDB's time over the faster `matchNdjson`'s. */
  readonly libRatio: number;
}

/** The set build and the queries on the set it built (see the module comment). */
export interface SetBuildReport {
  readonly incidents: number;
  readonly fileBytesPerLine: number;
  readonly fromNdjsonPerSecond: number;
  /** The threads of that build (`fromNdjson`'s `threads`: the cores, at most 8). */
  readonly fromNdjsonThreads: number;
  /** The same build with one thread (built after it, in the same process; the set dropped). */
  readonly fromNdjson1PerSecond: number;
  /** The first `$regex` count after the build, which builds the text index (ms; in no rate above). */
  readonly firstTextQueryMs: number;
  /**
   * The first `findFirst` by `Number` after the build, which buckets that equality index (ms; in no rate
   * above; docs/semantics.md, "Built when first needed").
   */
  readonly firstLookupMs: number;
  readonly duck1PerSecond: number;
  readonly duck2PerSecond: number;
  /** Heap and outside-heap bytes the set holds per incident, after a collection. */
  readonly setHeapBytesPerIncident: number;
  readonly setOutsideHeapBytesPerIncident: number;
  /** Median `findFirst` on a selective `Number` of the built set (warm, keys spread over the file), µs. */
  readonly findFirstUs: number;
  /** Median `count` of the specification's sample on the built set, ms. */
  readonly sampleCountMs: number;
  /** Per shape: the faster DuckDB count on its table over `IncidentSet.count` (≥ 1: ours faster). */
  readonly countRatios: readonly { readonly shape: string; readonly ratio: number }[];
}

/** One data set's rows and set build. */
export interface DataSetReport {
  readonly name: string;
  readonly incidents: number;
  readonly rows: readonly OneShotRow[];
  readonly build: SetBuildReport;
}

/** What the section measured. */
export interface OneShotReport {
  readonly dataSets: readonly DataSetReport[];
  readonly kernel?: KernelReport | undefined;
  /** The 10M run's figures; `undefined` when not run (`BENCH_10M` unset), with the reason. */
  readonly tenMillion: ScaleResult | undefined;
  readonly tenMillionSkipped?: string;
}

/** The goals in figures: the 10M build (ms), `findFirst` (µs), the sample's `count` (ms). */
const GOALS = { buildMs: 30_000, findFirstUs: 10, sampleCountMs: 20 } as const;

/** One target of the section: its name, goal, and the figure reached with its verdict. */
interface TargetRule<T> {
  readonly name: string;
  readonly goal: (on: T | undefined) => string;
  readonly judge: (on: T) => { reached: string; met: boolean };
}

const times = (value: number) => `${value.toFixed(2)}×`;
const perSecond = (value: number) => `${Math.round(value).toLocaleString("en-US")}/s`;

/** The worst and best of a ratio over the one-shot rows of one data set. */
function oneShotRule(who: string, ratioOf: (row: OneShotRow) => number): TargetRule<DataSetReport> {
  return {
    name: `one-shot ${who} (count and first, four shapes) vs the faster DuckDB read_json`,
    goal: () => "≥ 1.0× each",
    judge: ({ rows }) => {
      const worst = rows.reduce((a, b) => (ratioOf(b) < ratioOf(a) ? b : a));
      return {
        reached: `${times(ratioOf(worst))} (worst: ${worst.shape} ${worst.mode}); best ${times(Math.max(...rows.map(ratioOf)))}`,
        met: ratioOf(worst) >= 1,
      };
    },
  };
}

/** The targets checked on each data set. */
const DATA_SET_TARGETS: readonly TargetRule<DataSetReport>[] = [
  oneShotRule("CLI match", (row) => row.ratio),
  oneShotRule("matchNdjson from a program", (row) => row.libRatio),
  {
    name: "fromNdjson vs DuckDB's single-thread load (incidents/s)",
    goal: () => "≥ 1.0×",
    judge: ({ build }) => {
      const load = build.fromNdjsonPerSecond / build.duck1PerSecond;
      return {
        reached: `${times(load)} (${perSecond(build.fromNdjsonPerSecond)} vs ${perSecond(build.duck1PerSecond)})`,
        met: load >= 1,
      };
    },
  },
  {
    name: "fromNdjson memory per incident vs its NDJSON line",
    goal: (on) => `≤ the line${on === undefined ? "" : `, ${on.build.fileBytesPerLine} B`}`,
    judge: ({ build }) => {
      const held = build.setHeapBytesPerIncident + build.setOutsideHeapBytesPerIncident;
      return {
        reached: `${held} B (${build.setHeapBytesPerIncident} heap + ${build.setOutsideHeapBytesPerIncident} outside)`,
        met: held <= build.fileBytesPerLine,
      };
    },
  },
  {
    name: "findFirst on a selective key, on the set fromNdjson built",
    goal: () => `< ${GOALS.findFirstUs} µs median`,
    judge: ({ build }) => ({
      reached: `${build.findFirstUs.toFixed(2)} µs`,
      met: build.findFirstUs < GOALS.findFirstUs,
    }),
  },
  {
    name: "count of the spec sample, on the set fromNdjson built",
    goal: () => `< ${GOALS.sampleCountMs} ms median`,
    judge: ({ build }) => ({
      reached: `${build.sampleCountMs.toFixed(2)} ms`,
      met: build.sampleCountMs < GOALS.sampleCountMs,
    }),
  },
  {
    name: "count on the loaded set vs the faster DuckDB on its loaded table",
    goal: () => "≥ 3× each",
    judge: ({ build }) => ({
      reached: build.countRatios.map((r) => `${r.shape} ${r.ratio.toFixed(1)}×`).join(", "),
      met: Math.min(...build.countRatios.map((r) => r.ratio)) >= 3,
    }),
  },
];

/** The targets of the 10M run. */
const TEN_MILLION_TARGETS: readonly TargetRule<ScaleResult>[] = [
  {
    name: "10M incidents, distinct titles: fromNdjson build",
    goal: () => `< ${GOALS.buildMs / 1000} s`,
    judge: (r) => ({
      reached: `${(r.buildMs / 1000).toFixed(1)} s (${perSecond(r.size / (r.buildMs / 1000))}${r.firstLookupMs === undefined ? "" : `; the first lookup by key ${(r.firstLookupMs / 1000).toFixed(2)} s`})`,
      met: r.buildMs < GOALS.buildMs,
    }),
  },
  {
    name: "10M incidents, distinct titles: findFirst on a selective key",
    goal: () => `< ${GOALS.findFirstUs} µs median`,
    judge: (r) => ({ reached: `${r.findFirstUs.toFixed(2)} µs`, met: r.findFirstUs < GOALS.findFirstUs }),
  },
  {
    name: "10M incidents, distinct titles: count of the spec sample",
    goal: () => `< ${GOALS.sampleCountMs} ms median`,
    judge: (r) => ({
      reached: `${r.sampleCountMs.toFixed(2)} ms`,
      met: r.sampleCountMs < GOALS.sampleCountMs,
    }),
  },
];

/**
 * The section's targets for the runner's closing lines: each data-set target on each data set, then the
 * 10M ones. What was not measured is SKIP with the reason (`report` undefined: the section did not run).
 */
export function oneShotTargets(report: OneShotReport | undefined, why = "not run"): Target[] {
  const out: Target[] = [];
  for (const data of DATA_SETS) {
    const measured = report?.dataSets.find((d) => d.name === data.name);
    const at =
      measured === undefined ? data.name : `${data.name}, ${measured.incidents.toLocaleString("en-US")}`;
    for (const rule of DATA_SET_TARGETS) {
      const name = `${rule.name} [${at}]`;
      if (measured === undefined) out.push({ name, goal: rule.goal(undefined), reached: why, met: null });
      else out.push({ name, goal: rule.goal(measured), ...rule.judge(measured) });
    }
  }
  const ten = report?.tenMillion;
  for (const rule of TEN_MILLION_TARGETS) {
    if (ten === undefined)
      out.push({
        name: rule.name,
        goal: rule.goal(undefined),
        reached: report?.tenMillionSkipped ?? why,
        met: null,
      });
    else out.push({ name: rule.name, goal: rule.goal(ten), ...rule.judge(ten) });
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

/** A connection to a fresh in-memory DuckDB instance with `threads` threads. */
async function connectDuck(peers: PeerModules, threads: string) {
  const instance = await peers.duckdb.DuckDBInstance.create(":memory:", { threads });
  return instance.connect();
}

type DuckConnection = Awaited<ReturnType<typeof connectDuck>>;

/**
 * The set build and the queries on the set it built, on the export at `path` (see the module comment).
 * @param keys - `Number`s of incidents spread over the file, for `findFirst`
 * @throws {Error} when the set and DuckDB disagree on a count, or `findFirst` misses a key
 */
async function setBuild(
  peers: PeerModules,
  built: Built,
  path: string,
  size: number,
  keys: readonly string[],
  write: (line: string) => void,
): Promise<SetBuildReport> {
  const before = heldBytes();
  // The set the rows below query, built as a caller builds it, without `threads` (the default: the cores,
  // at most 8, for a file of 64 MiB or more: a parallel build of the file in ranges, docs/node.md); then
  // once more with one thread, for the ratio (dropped).
  const threads = Math.max(1, Math.min(8, availableParallelism()));
  const t0 = performance.now();
  const set = await built.node.fromNdjson(path);
  const buildMs = performance.now() - t0;
  // The first text query builds the text index (docs/semantics.md, "The text index", "Built when first
  // needed"): timed apart, and held in the memory row, which counts the index.
  const t2 = performance.now();
  set.count(
    built.root.parseSearchConditions(SHAPES.find((shape) => shape.name.startsWith("$regex"))!.conditions),
  );
  const firstTextMs = performance.now() - t2;
  // The first lookup by key buckets its equality index (the same rule): timed apart. The memory row then
  // counts every equality index built (a lookup on each default hash field), as a set that answered every
  // kind of query holds it.
  const t3 = performance.now();
  set.findFirst(built.root.parseSearchConditions({ Number: keys[0] }));
  const firstLookupMs = performance.now() - t3;
  set.findFirst(built.root.parseSearchConditions({ ExternalKey: "none" }));
  set.findFirst(built.root.parseSearchConditions({ IncidentId: -1 }));
  const after = heldBytes();
  let oneThreadMs = buildMs;
  if (threads > 1) {
    const t1 = performance.now();
    const again = await built.node.fromNdjson(path, { threads: 1 });
    oneThreadMs = performance.now() - t1;
    if (again.size !== set.size)
      throw new Error(`fromNdjson: ${again.size} rows with one thread, ${set.size} with ${threads}`);
  }
  const duckRates: number[] = [];
  const tables: DuckConnection[] = [];
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
    const condition = built.root.parseSearchConditions(shape.conditions);
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
  // findFirst back to back over keys spread over the file, after a warm-up of 50,000 calls (V8's
  // unoptimized tiers measured 12 µs where the optimized lookup takes 2–3 µs: bench/text-and-scale.ts).
  const lookups = keys.map((key) => built.root.parseSearchConditions({ Number: key }));
  for (const [k, lookup] of lookups.entries())
    if ((set.findFirst(lookup) as { Number?: unknown } | undefined)?.Number !== keys[k])
      throw new Error(`findFirst missed ${keys[k]}`);
  let next = 0;
  const first = measure(() => set.findFirst(lookups[next++ % lookups.length]!), {
    warmup: 50_000,
    minRuns: 5_000,
    minTimeMs: 300,
  });
  const sample = built.root.parseSearchConditions(SPEC_SAMPLE);
  const sampleCount = measure(() => set.count(sample), { warmup: 2, minRuns: 7, minTimeMs: 0 });
  const report: SetBuildReport = {
    incidents: size,
    fileBytesPerLine: Math.round(statSync(path).size / size),
    fromNdjsonPerSecond: size / (buildMs / 1000),
    fromNdjsonThreads: threads,
    fromNdjson1PerSecond: size / (oneThreadMs / 1000),
    firstTextQueryMs: firstTextMs,
    firstLookupMs,
    duck1PerSecond: duckRates[0]!,
    duck2PerSecond: duckRates[1]!,
    setHeapBytesPerIncident: Math.max(0, Math.round((after.heap - before.heap) / size)),
    setOutsideHeapBytesPerIncident: Math.max(0, Math.round((after.outside - before.outside) / size)),
    findFirstUs: first.medianMs * 1000,
    sampleCountMs: sampleCount.medianMs,
    countRatios,
  };
  const rate = (value: number) => Math.round(value).toLocaleString("en-US");
  write(
    `set build: fromNdjson ${rate(report.fromNdjsonPerSecond)}/s with ${report.fromNdjsonThreads} thread${report.fromNdjsonThreads === 1 ? "" : "s"} (1 thread: ${rate(report.fromNdjson1PerSecond)}/s, ${(report.fromNdjsonPerSecond / report.fromNdjson1PerSecond).toFixed(2)}×); DuckDB CREATE TABLE … read_json 1t ${rate(report.duck1PerSecond)}/s, 2t ${rate(report.duck2PerSecond)}/s; the first text query (builds the text index) ${report.firstTextQueryMs.toFixed(0)} ms; the first findFirst by key (buckets its equality index) ${report.firstLookupMs.toFixed(0)} ms; the set (text and equality indexes built) holds ${report.setHeapBytesPerIncident} B heap + ${report.setOutsideHeapBytesPerIncident} B outside per incident (lines: ${report.fileBytesPerLine} B)${(globalThis as { gc?: unknown }).gc === undefined ? " (no --expose-gc: garbage included)" : ""}`,
  );
  write(
    `on the built set: findFirst on a selective Number ${report.findFirstUs.toFixed(2)} µs (${keys.length} keys, warm); count of the spec sample ${report.sampleCountMs.toFixed(2)} ms (${sampleCount.result})`,
  );
  for (const { shape, ratio } of countRatios)
    write(
      `${`count on loaded data: ${shape}`.padEnd(60)} faster DuckDB / IncidentSet.count ${ratio.toFixed(1)}×`,
    );
  return report;
}

/**
 * Writes `size` generated incidents as NDJSON at `path`, every title made unique (the id appended) when
 * `uniqueTitles`.
 * @returns the `Number`s of 16 incidents spread over the file (selective keys for `findFirst`)
 */
export async function writeExport(path: string, size: number, uniqueTitles: boolean): Promise<string[]> {
  const stream = createWriteStream(path);
  const rows = generateIncidents(size);
  const keys: string[] = [];
  const every = Math.max(1, Math.floor(size / 16));
  let text = "";
  for (const [k, row] of rows.entries()) {
    if (uniqueTitles) row.Title = `${row.Title} #${row.IncidentId}`;
    if (k % every === 0 && keys.length < 16) keys.push(row.Number);
    text += `${JSON.stringify(row)}\n`;
    if (text.length > 1 << 20) {
      if (!stream.write(text)) await once(stream, "drain");
      text = "";
    }
  }
  stream.end(text);
  await once(stream, "finish");
  return keys;
}

/**
 * The launcher of the CLI's runs: a small Node process, started once before any clock, that starts each run
 * of the CLI as a shell would and hands back its exit status and output. Started from this process
 * instead, every run would pay for this process's size: starting a child copies the parent's page tables,
 * and this process holds gigabytes by the time the section runs (one paired probe, `node -e 0` spawned 15
 * times from a 43 MiB and from a 2.2 GiB process: 98–108 ms against 243–257 ms a start).
 */
class Launcher {
  private readonly child: ChildProcess;
  private readonly replies: AsyncIterator<string>;

  constructor() {
    const source = `
import { spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
for await (const line of createInterface({ input: process.stdin })) {
  const { args, env } = JSON.parse(line);
  const result = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26, env: env ?? process.env });
  process.stdout.write(JSON.stringify({ status: result.status, stdout: result.stdout, stderr: result.stderr }) + "\\n");
}`;
    this.child = spawn(process.execPath, ["--input-type=module", "-e", source], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.replies = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  }

  /** Runs `node …args` in the launcher (with `env`, or the launcher's); resolves with its status and output. */
  async run(
    args: readonly string[],
    env?: NodeJS.ProcessEnv,
  ): Promise<{ status: number | null; stdout: string; stderr: string }> {
    this.child.stdin!.write(`${JSON.stringify({ args, env })}\n`);
    const reply = await this.replies.next();
    if (reply.done === true) throw new Error("the CLI's launcher ended");
    return JSON.parse(reply.value) as { status: number | null; stdout: string; stderr: string };
  }

  close(): void {
    this.child.stdin!.end();
  }
}

let sharedLauncher: Launcher | undefined;

/** The section's launcher, started on first use (before the clock of the row that first needs it starts). */
function launcher(): Launcher {
  sharedLauncher ??= new Launcher();
  return sharedLauncher;
}

/** Ends the launcher, if one was started. */
function closeLauncher(): void {
  sharedLauncher?.close();
  sharedLauncher = undefined;
}

/** The CLI's answer, started by the launcher: the count, or the first match's `IncidentId` (-1: none). */
async function cli(
  path: string,
  conditions: unknown,
  mode: "count" | "first",
  threads: number,
): Promise<number> {
  const args = [CLI, "match", "--incidents", path, "--threads", String(threads), JSON.stringify(conditions)];
  if (mode === "count") args.push("--count");
  const result = await launcher().run(args);
  // 1 is "no incident matches", with nothing on standard error (Node's own failures exit 1 too).
  if ((result.status !== 0 && result.status !== 1) || result.stderr !== "")
    throw new Error(`the CLI failed (${result.status}): ${result.stderr}`);
  const out = result.stdout.trim();
  if (mode === "count") return Number(out);
  return out === "" ? -1 : Number((JSON.parse(out) as { IncidentId?: unknown }).IncidentId);
}

/** `matchNdjson`'s answer, as `cli`'s. */
async function library(
  built: Built,
  path: string,
  conditions: unknown,
  mode: "count" | "first",
  threads: number,
): Promise<number> {
  const result = await built.node.matchNdjson(path, conditions, { mode, threads });
  if (mode === "count") return result.found;
  return result.first === undefined ? -1 : Number(result.first.record.IncidentId);
}

/** DuckDB's answer, as `cli`'s. */
async function duck(connection: DuckConnection, sql: string): Promise<number> {
  const rows = (await connection.runAndReadAll(sql)).getRows();
  return rows[0] === undefined ? -1 : Number(rows[0][0]);
}

/** The one-shot rows of one data set: every shape and mode, the six engines interleaved. */
async function oneShotRows(
  peers: PeerModules,
  built: Built,
  path: string,
  size: number,
  rounds: number,
  write: (line: string) => void,
): Promise<OneShotRow[]> {
  const ducks = await Promise.all(["1", "2"].map((threads) => connectDuck(peers, threads)));
  launcher();
  const rows: OneShotRow[] = [];
  const json = `read_json('${path}', format='newline_delimited')`;
  for (const shape of SHAPES) {
    for (const mode of ["count", "first"] as const) {
      const sql =
        mode === "count"
          ? `SELECT count(*) AS n FROM ${json} WHERE ${shape.sql}`
          : `SELECT IncidentId FROM ${json} WHERE ${shape.sql} ORDER BY CreatedUtcTime, IncidentId LIMIT 1`;
      const engines: InterleavedEngine[] = [
        ...[1, 2].map((t) => ({
          engine: `CLI ${t}t`,
          run: () => cli(path, shape.conditions, mode, t),
        })),
        ...[1, 2].map((t) => ({
          engine: `matchNdjson ${t}t`,
          run: () => library(built, path, shape.conditions, mode, t),
        })),
        ...[0, 1].map((k) => ({ engine: `DuckDB ${k + 1}t`, run: () => duck(ducks[k]!, sql) })),
      ];
      // One call per turn (sliceMs 1: each run takes far longer), `rounds` rounds after one warm-up.
      const measured = await measureInterleaved("one-shot", `${shape.name} ${mode}`, size, engines, {
        minRuns: rounds,
        maxRuns: rounds,
        minTimeMs: 0,
        sliceMs: 1,
      });
      const [cli1, cli2, lib1, lib2, duck1, duck2] = measured.measurements.map((m) => m.medianMs) as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const fasterDuck = Math.min(duck1, duck2);
      const row: OneShotRow = {
        shape: shape.name,
        mode,
        cli1,
        cli2,
        lib1,
        lib2,
        duck1,
        duck2,
        ratio: fasterDuck / Math.min(cli1, cli2),
        libRatio: fasterDuck / Math.min(lib1, lib2),
      };
      rows.push(row);
      const ms = (value: number) => `${value.toFixed(0)} ms`;
      write(
        `${`${shape.name} ${mode}`.padEnd(40)} CLI 1t ${ms(cli1)}, 2t ${ms(cli2)}; matchNdjson 1t ${ms(lib1)}, 2t ${ms(lib2)}; DuckDB 1t ${ms(duck1)}, 2t ${ms(duck2)}; faster DuckDB / faster CLI ${row.ratio.toFixed(2)}×, / faster matchNdjson ${row.libRatio.toFixed(2)}×`,
      );
    }
  }
  return rows;
}

/**
 * The 10M run (see the module comment): the scale part of bench/text-and-scale.ts, distinct titles, in a
 * child process with an 8 GiB heap. Only with `BENCH_10M=1`.
 * @returns the figures, or why they were not measured
 */
function runTenMillion(write: (line: string) => void): { result?: ScaleResult; skipped?: string } {
  if (process.env.BENCH_10M !== "1")
    return {
      skipped:
        "not run (BENCH_10M=1 runs it: about 4.4 GB of NDJSON on disk, 6 GB of memory, several minutes)",
    };
  const script = fileURLToPath(new URL("./text-and-scale.js", import.meta.url));
  if (!existsSync(script)) return { skipped: `not run (${script} is missing: npm run bench:build)` };
  const dir = mkdtempSync(join(tmpdir(), "iq-ten-million-"));
  try {
    const resultPath = join(dir, "result.json");
    const keep = process.env.BENCH_10M_KEEP;
    write(
      `10M incidents with distinct titles (bench/text-and-scale.ts in a child process${keep === undefined ? "" : `, the file kept at ${keep}`}):`,
    );
    const args = [
      "--expose-gc",
      "--max-old-space-size=8192",
      script,
      "--scale=10000000",
      "--text=0",
      "--unique-titles",
      `--result=${resultPath}`,
      ...(keep === undefined ? [] : [`--keep=${keep}`]),
    ];
    const child = spawnSync(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    if (child.status !== 0 || !existsSync(resultPath))
      throw new Error(`the 10M run failed (exit ${child.status}, signal ${child.signal})`);
    return { result: JSON.parse(readFileSync(resultPath, "utf8")) as ScaleResult };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  launcher();
  for (const threads of [1, 2]) {
    counts.push(
      await paired(async (withKernel) => {
        const args = [CLI, "match", "--incidents", path, "--threads", String(threads), "--count"];
        const { INCIDENT_QUERY_KERNEL: _, ...rest } = process.env;
        const env = withKernel ? rest : { ...rest, INCIDENT_QUERY_KERNEL: "js" };
        const result = await launcher().run([...args, JSON.stringify(shape.conditions)], env);
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
 * Runs the section and prints its tables: both data sets, the kernel's row on the first, the 10M run.
 * @returns what it measured, or undefined when the package is not built (`npm run build`)
 */
export async function runOneShotBench(
  peers: PeerModules,
  write: (line: string) => void,
  size = Number(process.env.BENCH_ONESHOT_SIZE ?? 1_000_000),
  // Five rounds (a median of five runs per engine and row): three left a row's ratio to one slow run.
  rounds = 5,
): Promise<OneShotReport | undefined> {
  const built = await loadBuilt();
  if (built === undefined) {
    write(`one-shot: ${CLI} or dist/node/index.js is missing (npm run build); skipped`);
    return undefined;
  }
  const dataSets: DataSetReport[] = [];
  let kernel: KernelReport | undefined;
  for (const { name, uniqueTitles } of DATA_SETS) {
    const dir = mkdtempSync(join(tmpdir(), "iq-one-shot-"));
    const path = join(dir, "export.ndjson");
    try {
      const keys = await writeExport(path, size, uniqueTitles);
      write(
        `\none-shot over ${size.toLocaleString("en-US")} incidents, ${name} (${(statSync(path).size / 2 ** 20).toFixed(0)} MiB of NDJSON): CLI child process and matchNdjson in this process vs DuckDB read_json`,
      );
      const rows = await oneShotRows(peers, built, path, size, rounds, write);
      const build = await setBuild(peers, built, path, size, keys, write);
      dataSets.push({ name, incidents: size, rows, build });
      if (uniqueTitles) kernel = await runKernelRow(path, write);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  closeLauncher();
  const ten = runTenMillion(write);
  return {
    dataSets,
    kernel,
    tenMillion: ten.result,
    ...(ten.skipped === undefined ? {} : { tenMillionSkipped: ten.skipped }),
  };
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
      await writeExport(path, Number(process.env.BENCH_ONESHOT_SIZE ?? 1_000_000), true);
      await runKernelRow(path, (line) => console.log(line));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  closeLauncher();
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await runOneShotBench(await loadPeers(), (line) => console.log(line));
  // `--report FILE`: the section run by `npm run bench` (bench/run.ts) in a process of its own; it
  // prints the targets with the others.
  const at = process.argv.indexOf("--report");
  if (at > 0) writeFileSync(process.argv[at + 1]!, JSON.stringify(report ?? null));
  else if (report !== undefined) {
    console.log("\ntargets of the exports section:");
    for (const target of oneShotTargets(report)) console.log(targetLine(target));
  }
}

/**
 * The section in a process of its own, as `npm run bench:one-shot` runs it, so that both commands measure
 * it under the same conditions: a fresh process that holds only what the section needs, not the earlier
 * sections' sets, tables and garbage (gigabytes by then, collected by the same process's GC threads while
 * the CLI runs beside it on two cores). Why it matters: the last whole run measured the date range's count
 * with the CLI at 2 threads in 419 ms beside DuckDB's 321 ms; the section alone, a session later, 328 ms
 * beside 383 ms (different sessions: not a paired measurement, see docs/performance.md, "Results").
 * @returns the section's report; undefined when the package is not built
 * @throws {Error} when the section's process fails
 */
export async function runOneShotInOwnProcess(): Promise<OneShotReport | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "iq-one-shot-report-"));
  const file = join(dir, "report.json");
  try {
    const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--report", file], {
      stdio: ["ignore", "inherit", "inherit"],
    });
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    if (code !== 0) throw new Error(`the exports section's process failed (${code ?? signal})`);
    return (JSON.parse(readFileSync(file, "utf8")) as OneShotReport | null) ?? undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
