/**
 * `npm run bench:server`: a bounded soak of the reference command server (docs/server.md,
 * "Soak"). Not part of `npm test`.
 *
 * For each backend — the memory backend, PostgreSQL on PGlite (in the server's process), and the server of
 * `PG_URL` when it is set — the server runs in a child process (this file with `--server`, under
 * `--expose-gc`) on 127.0.0.1, port 0, over the bundled sample dataset. autocannon sends a mix for a fixed
 * time on a fixed number of connections: GetIncidentTimelineEntries (every incident, both orders, a
 * filter), TriggerIncidentExternalAction with a distinct Search Conditions object on every request (an
 * incident number, a `$regex` with a counter, a date range that moves, most matching nothing),
 * AddNotesToArtifacts with a distinct note, and invalid requests (a body that is not JSON: 400; invalid
 * Search Conditions and an unknown incident: 200 with `error`). After a warm-up (a fifth of the time, and
 * at least 3,000 requests, which fill the compile cache's 512 entries with distinct conditions), the
 * child's heap is measured after two full garbage collections, then every tenth of the run and at the end.
 *
 * It fails (exit code 1) on any answer other than the one expected of its request (so on any 5xx), a
 * connection error or timeout, fewer notes stored than successful AddNotesToArtifacts answers (or more than
 * those plus the requests in flight when a run stops), a note stored twice, or a heap grown after the
 * warm-up by more than 16 MiB plus 2 KiB per note and playbook run stored meanwhile (the memory backend keeps
 * what it stores in the heap; the bound allows that and nothing else). It prints requests/s and latency
 * percentiles per backend and writes them to `bench/results/server-latest.json`.
 *
 * Options: `--duration <s>` per backend (default 150: five minutes for the two default backends),
 * `--connections <n>` (default 32), `--backend memory|pglite|postgres` (repeatable; default memory and
 * pglite, and postgres when PG_URL is set), `--quick` (20 s each).
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Backend } from "../src/commands/index.js";
import { createMemoryBackend, loadSampleDataset } from "../src/commands/index.js";
import { createPostgresBackend } from "../src/postgres/index.js";
import { createServer } from "../src/server/index.js";

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string) => void;
}
interface Histogram {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: AutocannonRequest[];
  timeout: number;
}) => Promise<AutocannonResult>;

type BackendKind = "memory" | "pglite" | "postgres";
const API_KEY = "soak-test-key-0123456789";
const USER = "alice";
const SITE = "Security Operations";
const MiB = 1024 * 1024;
/** Requests the warm-up sends at least: the 512 entries of the compile cache filled twice over. */
const WARM_UP_REQUESTS = 3_000;

/** Messages of the child. */
type Reply =
  | { type: "ready"; port: number }
  | { type: "heap"; heapUsed: number; rss: number; stored: number; notes: number; duplicates: number };

/** The child: a server over one backend; answers `heap` with the heap after GC and what it stored. */
async function runServer(kind: BackendKind): Promise<void> {
  const dataset = loadSampleDataset();
  let backend: Backend;
  let stored: () => Promise<{ notes: number; runs: number; duplicates: number }>;
  /** How many note texts are stored more than once. */
  const duplicatesOf = (texts: readonly string[]) => texts.length - new Set(texts).size;
  if (kind === "memory") {
    const memory = createMemoryBackend(dataset);
    backend = memory;
    stored = async () => ({
      notes: memory.notes().length,
      runs: memory.runs().length,
      duplicates: duplicatesOf(memory.notes().map((n) => n.text)),
    });
  } else {
    const url = process.env.PG_URL;
    const schema = `iq_soak_${process.pid}`;
    if (kind === "postgres") {
      if (url === undefined) throw new Error("--backend postgres needs PG_URL.");
      const pg = (await import("pg")).default;
      const admin = new pg.Pool({ connectionString: url });
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.end();
    }
    const postgres = await createPostgresBackend(
      kind === "pglite"
        ? { dataDir: "memory://" }
        : { connectionString: `${url}?options=-c%20search_path%3D${schema}` },
    );
    await postgres.migrate();
    await postgres.loadDataset(dataset);
    backend = postgres;
    stored = async () => {
      const counts = await postgres.counts();
      const texts: string[] = [];
      for (const a of dataset.artifacts ?? []) {
        for (const note of await postgres.notesOf(a)) texts.push(note.text);
      }
      return { notes: counts.notes, runs: counts.runs, duplicates: duplicatesOf(texts) };
    };
    process.once("disconnect", () => {
      void postgres.close();
    });
  }
  const server = createServer({
    backend,
    apiKeys: [{ username: USER, key: API_KEY }],
    rateLimit: 1_000_000_000,
  });
  await server.listen({ host: "127.0.0.1", port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("The server has no TCP address.");
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("The server child needs --expose-gc.");
  process.on("message", (message: { type?: string }) => {
    if (message.type === "heap") {
      void stored().then(({ notes, runs, duplicates }) => {
        gc();
        gc();
        const usage = process.memoryUsage();
        const reply: Reply = {
          type: "heap",
          heapUsed: usage.heapUsed,
          rss: usage.rss,
          stored: notes + runs,
          notes,
          duplicates,
        };
        process.send?.(reply);
      });
    }
    if (message.type === "stop") void server.close().then(() => process.disconnect());
  });
  process.send?.({ type: "ready", port: address.port } satisfies Reply);
}

function ask<T extends Reply["type"]>(child: ChildProcess, message: object, type: T) {
  return new Promise<Extract<Reply, { type: T }>>((resolve, reject) => {
    const onMessage = (reply: Reply) => {
      if (reply.type !== type) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(reply as Extract<Reply, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`The server process exited (code ${code}).`));
    child.on("message", onMessage);
    child.once("exit", onExit);
    if (Object.keys(message).length > 0) child.send(message);
  });
}

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer.`);
  return value;
}

function backendsAsked(): BackendKind[] {
  const asked: BackendKind[] = [];
  process.argv.forEach((arg, i) => {
    if (arg !== "--backend") return;
    const value = process.argv[i + 1];
    if (value !== "memory" && value !== "pglite" && value !== "postgres")
      throw new Error("--backend takes memory, pglite or postgres.");
    asked.push(value);
  });
  if (asked.length > 0) return asked;
  return process.env.PG_URL === undefined ? ["memory", "pglite"] : ["memory", "pglite", "postgres"];
}

/** One backend's soak: its figures and the invariants that failed. */
interface Soak {
  backend: BackendKind;
  seconds: number;
  connections: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  statuses: Record<string, number>;
  mix: Record<string, number>;
  heapAfterWarmUpMiB: number;
  heapEndMiB: number;
  heapGrowthMiB: number;
  heapBoundMiB: number;
  heapSamplesMiB: number[];
  rssEndMiB: number;
  notesStored: number;
  notesAcknowledged: number;
  failures: string[];
}

async function soak(kind: BackendKind, seconds: number, connections: number): Promise<Soak> {
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  const child = fork(fileURLToPath(import.meta.url), ["--server", kind], {
    execArgv: [...process.execArgv, "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const { port } = await ask(child, {}, "ready");
    const dataset = loadSampleDataset();
    const incidents = (dataset.incidents ?? []).filter((i) => i.Site === SITE);
    const artifacts = (dataset.artifacts ?? []).filter((a) => a.site === SITE);
    const headers = { "content-type": "application/json", d3key: API_KEY };
    const envelope = (CommandParams: unknown) =>
      JSON.stringify({ Username: USER, Site: SITE, CommandParams });
    const mix: Record<string, number> = {};
    const unexpected: string[] = [];
    let unexpectedCount = 0;
    let acknowledged = 0;
    let k = 0;
    /** A request that must be answered `status`, with `error` empty (`ok`) or not (`failed`) when 200. */
    const kind_ = (
      name: string,
      path: string,
      status: number,
      outcome: "ok" | "failed" | "any",
      body: () => string,
    ): AutocannonRequest => ({
      method: "POST",
      path,
      headers,
      body: "",
      setupRequest: (request) => ({ ...request, body: body() }),
      onResponse: (got, text) => {
        mix[name] = (mix[name] ?? 0) + 1;
        let good = got === status;
        if (good && status === 200 && outcome !== "any") {
          const error = (JSON.parse(text) as { error?: unknown }).error;
          good = outcome === "ok" ? error === "" : typeof error === "string" && error !== "";
        }
        if (!good) {
          unexpectedCount++;
          if (unexpected.length < 10) unexpected.push(`${name}: ${got} ${text.slice(0, 200)}`);
        } else if (name === "note") acknowledged++;
      },
    });
    const next = () => ++k;
    const requests: AutocannonRequest[] = [
      kind_("timeline", "/Command/GetIncidentTimelineEntries", 200, "ok", () => {
        const n = next();
        const incident = incidents[n % incidents.length]!;
        return envelope({
          "Incident Number": incident.Number,
          "Sort Order": n % 2 === 0 ? "ASC" : "DESC",
          ...(n % 3 === 0 ? { Filter: "a" } : {}),
        });
      }),
      kind_("trigger by number", "/Command/TriggerIncidentExternalAction", 200, "ok", () => {
        const n = next();
        const incident = incidents[n % incidents.length]!;
        return envelope({ "Search Conditions": { Number: incident.Number }, "Trigger Data": { n } });
      }),
      kind_("note", "/Command/AddNotesToArtifacts", 200, "ok", () => {
        const n = next();
        const artifact = artifacts[n % artifacts.length]!;
        return envelope({
          "Artifact Name": artifact.name,
          "Artifact Type": artifact.typeId,
          Note: `soak note ${n}`,
        });
      }),
      kind_("trigger, distinct regex", "/Command/TriggerIncidentExternalAction", 200, "failed", () => {
        const n = next();
        return envelope({
          "Search Conditions": {
            Title: { $regex: `^Soak ${n} (a|b)+$` },
            Severity: { $in: ["High", "Low"] },
          },
          "Trigger Data": {},
        });
      }),
      kind_("trigger, moving date range", "/Command/TriggerIncidentExternalAction", 200, "any", () => {
        const n = next();
        const from = new Date(Date.UTC(2020, 0, 1) + (n % 100_000) * 60_000).toISOString().slice(0, 19);
        return envelope({
          "Search Conditions": { CreatedUtcTime: { $gt: { $date: `${from}Z` } }, Status: "Open" },
          "Trigger Data": { n },
        });
      }),
      kind_("invalid conditions", "/Command/TriggerIncidentExternalAction", 200, "failed", () =>
        envelope({ "Search Conditions": { Severity: `Hihg${next()}` }, "Trigger Data": {} }),
      ),
      kind_("unknown incident", "/Command/GetIncidentTimelineEntries", 200, "failed", () =>
        envelope({ "Incident Number": `no-such-${next()}` }),
      ),
      kind_("invalid JSON", "/Command/AddNotesToArtifacts", 400, "any", () => `{"Username": "${next()}`),
    ];

    // Warm-up: a fifth of the time, and at least WARM_UP_REQUESTS requests, so that the compile cache
    // (512 entries) has been filled by distinct Search Conditions before the heap is first measured.
    const warmUp = Math.max(1, Math.round(seconds / 5));
    const first = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration: warmUp,
      requests,
      timeout: 30,
    });
    let warmed = first.requests.total;
    /** autocannon runs stopped so far, the main one included: each may leave a request per connection unanswered. */
    let stops = 2;
    while (warmed < WARM_UP_REQUESTS) {
      const more = await autocannon({
        url: `http://127.0.0.1:${port}`,
        connections,
        duration: 2,
        requests,
        timeout: 30,
      });
      warmed += more.requests.total;
      stops++;
    }
    const start = await ask(child, { type: "heap" }, "heap");
    const samples: number[] = [start.heapUsed];
    let sampling = true;
    const sampler = (async () => {
      const every = (seconds * 1000) / 10;
      while (sampling) {
        await new Promise((resolve) => setTimeout(resolve, every));
        if (!sampling) break;
        samples.push((await ask(child, { type: "heap" }, "heap")).heapUsed);
      }
    })();
    const result = await autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration: seconds,
      requests,
      timeout: 30,
    });
    sampling = false;
    await sampler;
    const end = await ask(child, { type: "heap" }, "heap");
    samples.push(end.heapUsed);

    const failures: string[] = [];
    if (unexpectedCount > 0)
      failures.push(`${unexpectedCount} unexpected answers:\n  ${unexpected.join("\n  ")}`);
    if (result.errors > 0 || result.timeouts > 0)
      failures.push(`${result.errors} connection errors, ${result.timeouts} timeouts.`);
    const baseNotes = (dataset.artifacts ?? []).reduce((sum, a) => sum + (a.notes?.length ?? 0), 0);
    const notesStored = end.notes - (kind === "memory" ? 0 : baseNotes);
    // Each acknowledged note is stored; the requests in flight when autocannon stops (at most one per
    // connection, at the end of each warm-up run and of the main run) are stored without an answer counted.
    if (notesStored < acknowledged || notesStored > acknowledged + stops * connections) {
      failures.push(
        `${notesStored} notes stored for ${acknowledged} successful AddNotesToArtifacts answers (at most ${stops * connections} more may be in flight at the stops).`,
      );
    }
    if (end.duplicates > 0) failures.push(`${end.duplicates} notes are stored more than once.`);
    const growth = end.heapUsed - start.heapUsed;
    const bound = 16 * MiB + 2048 * Math.max(0, end.stored - start.stored);
    if (growth > bound) {
      failures.push(
        `The heap grew by ${(growth / MiB).toFixed(1)} MiB after the warm-up (bound ${(bound / MiB).toFixed(1)} MiB).`,
      );
    }
    const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([s, v]) => [s, v.count]));
    return {
      backend: kind,
      seconds,
      connections,
      requests: result.requests.total,
      requestsPerSecond: Math.round(result.requests.average),
      latencyMs: {
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
      },
      statuses,
      mix,
      heapAfterWarmUpMiB: round(start.heapUsed / MiB),
      heapEndMiB: round(end.heapUsed / MiB),
      heapGrowthMiB: round(growth / MiB),
      heapBoundMiB: round(bound / MiB),
      heapSamplesMiB: samples.map((s) => round(s / MiB)),
      rssEndMiB: round(end.rss / MiB),
      notesStored,
      notesAcknowledged: acknowledged,
      failures,
    };
  } finally {
    if (child.connected) child.send({ type: "stop" });
    await new Promise((resolve) => {
      if (child.exitCode !== null) resolve(undefined);
      else child.once("exit", resolve);
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
    });
  }
}

const round = (x: number) => Math.round(x * 10) / 10;

async function main(): Promise<number> {
  const quick = process.argv.includes("--quick");
  const seconds = option("duration", quick ? 20 : 150);
  const connections = option("connections", 32);
  const results: Soak[] = [];
  for (const kind of backendsAsked()) {
    process.stdout.write(
      `bench:server: ${kind}, ${seconds} s on ${connections} connections (after a warm-up)…\n`,
    );
    const r = await soak(kind, seconds, connections);
    results.push(r);
    process.stdout.write(
      [
        `  ${r.requests} requests, ${r.requestsPerSecond} requests/s; latency ms p50 ${r.latencyMs.p50}, p90 ${r.latencyMs.p90}, p99 ${r.latencyMs.p99}, max ${r.latencyMs.max}`,
        `  statuses: ${Object.entries(r.statuses)
          .map(([s, n]) => `${s}: ${n}`)
          .join(", ")}`,
        `  heap after warm-up ${r.heapAfterWarmUpMiB} MiB, at the end ${r.heapEndMiB} MiB (growth ${r.heapGrowthMiB} MiB, bound ${r.heapBoundMiB} MiB); samples ${r.heapSamplesMiB.join(" ")}; rss ${r.rssEndMiB} MiB`,
        `  notes stored ${r.notesStored}, acknowledged ${r.notesAcknowledged} (the rest were in flight when a run stopped), none twice`,
        r.failures.length === 0 ? "  All invariants hold." : `  FAILED:\n  - ${r.failures.join("\n  - ")}`,
        "",
      ].join("\n"),
    );
  }
  const out = fileURLToPath(new URL("../bench/results/", import.meta.url));
  mkdirSync(out, { recursive: true });
  writeFileSync(
    `${out}server-latest.json`,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2)}\n`,
  );
  return results.every((r) => r.failures.length === 0) ? 0 : 1;
}

if (process.argv.includes("--server")) {
  const kind = process.argv[process.argv.indexOf("--server") + 1] as BackendKind;
  runServer(kind).catch((error: unknown) => {
    process.stderr.write(`bench:server child: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
} else {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`bench:server: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
