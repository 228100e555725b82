/**
 * `npm run load`: a bounded load test of the reference command server.
 *
 * The server runs in a child process (this file with `--server`) on 127.0.0.1, port 0, over the bundled
 * sample dataset, so that the load generator and the server do not share one event loop. autocannon
 * sends 20,000 requests on 50 connections, cycling through the three commands and an invalid body. The
 * script then checks the invariants and exits non-zero when one fails:
 * - no 5xx answer, no connection error or timeout, every answer has the status expected of its request;
 * - the number of notes the backend stored equals the number of successful AddNotesToArtifacts answers.
 * It prints requests per second and latency percentiles (milliseconds), and the same figures for a
 * baseline run of `GET /healthz` (no authentication, no body, no command) on the same server just before:
 * the machines are shared and noisy, so the ratio of the two says more than either absolute figure.
 *
 * Options: `--requests <n>` (default 20000), `--connections <n>` (default 50).
 */
import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { createMemoryBackend, type Dataset, loadSampleDataset } from "../src/commands/index.js";
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
  p97_5: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  amount: number;
  requests?: AutocannonRequest[];
  method?: string;
  timeout: number;
}) => Promise<AutocannonResult>;

const API_KEY = "load-test-key";

/** What the server child tells the parent once it listens. */
interface Ready {
  type: "ready";
  port: number;
  username: string;
  bodies: { timeline: unknown; trigger: unknown; addNote: Record<string, unknown> };
}

/** Picks, from the dataset, a user, a site, an incident with timeline entries and an artifact. */
function pickFixtures(dataset: Dataset): Omit<Ready, "type" | "port"> {
  for (const user of dataset.users ?? []) {
    for (const site of user.sites) {
      const incident = (dataset.incidents ?? []).find(
        (candidate) =>
          candidate.Site === site &&
          (dataset.timelineEntries ?? []).some(
            (e) => e.Site === site && e.IncidentNumber === candidate.Number,
          ),
      );
      const artifact = (dataset.artifacts ?? []).find((candidate) => candidate.site === site);
      if (incident === undefined || artifact === undefined) continue;
      const envelope = { Username: user.username, Site: site };
      return {
        username: user.username,
        bodies: {
          timeline: {
            ...envelope,
            CommandParams: { "Incident Number": incident.Number, "Sort Order": "DESC" },
          },
          trigger: {
            ...envelope,
            CommandParams: {
              "Search Conditions": { Number: incident.Number },
              "Trigger Data": { source: "load" },
            },
          },
          addNote: {
            ...envelope,
            CommandParams: { "Artifact Name": artifact.name, "Artifact Type": artifact.typeId, Note: "" },
          },
        },
      };
    }
  }
  throw new Error(
    "The sample dataset has no user with a site holding an incident with timeline entries and an artifact.",
  );
}

/** The child: serve the sample dataset; answer `count` messages with the number of stored notes. */
async function runServer(): Promise<void> {
  const dataset = loadSampleDataset();
  const backend = createMemoryBackend(dataset);
  const fixtures = pickFixtures(dataset);
  const server = createServer({
    backend,
    apiKeys: [{ username: fixtures.username, key: API_KEY }],
    rateLimit: 1_000_000_000,
  });
  await server.listen({ host: "127.0.0.1", port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("The server has no TCP address.");
  process.on("message", (message: { type?: string }) => {
    if (message.type === "count") process.send?.({ type: "count", notes: backend.notes().length });
    if (message.type === "stop") void server.close().then(() => process.disconnect());
  });
  const ready: Ready = { type: "ready", port: address.port, ...fixtures };
  process.send?.(ready);
}

function ask<T>(child: ChildProcess, message: object, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: { type?: string }) => {
      if (reply.type !== type) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      resolve(reply as T);
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

async function runLoad(): Promise<number> {
  const amount = option("requests", 20_000);
  const connections = option("connections", 50);
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

  const child = fork(fileURLToPath(import.meta.url), ["--server"], {
    execArgv: process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const ready = await ask<Ready>(child, {}, "ready");
    const headers = { "content-type": "application/json", d3key: API_KEY };
    const tally = {
      timeline: 0,
      trigger: 0,
      addNote: 0,
      addNoteOk: 0,
      invalid: 0,
      unexpected: [] as string[],
    };
    const expect = (what: string, status: number, wanted: number, body: string) => {
      if (status !== wanted && tally.unexpected.length < 10)
        tally.unexpected.push(`${what}: ${status} ${body.slice(0, 200)}`);
    };
    let noteNumber = 0;
    const addNote = ready.bodies.addNote as { CommandParams: Record<string, unknown> };
    const requests: AutocannonRequest[] = [
      {
        method: "POST",
        path: "/Command/GetIncidentTimelineEntries",
        headers,
        body: JSON.stringify(ready.bodies.timeline),
        onResponse: (status, body) => {
          tally.timeline++;
          expect("GetIncidentTimelineEntries", status, 200, body);
        },
      },
      {
        method: "POST",
        path: "/Command/TriggerIncidentExternalAction",
        headers,
        body: JSON.stringify(ready.bodies.trigger),
        onResponse: (status, body) => {
          tally.trigger++;
          expect("TriggerIncidentExternalAction", status, 200, body);
        },
      },
      {
        method: "POST",
        path: "/Command/AddNotesToArtifacts",
        headers,
        body: "",
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            ...addNote,
            CommandParams: { ...addNote.CommandParams, Note: `load note ${++noteNumber}` },
          }),
        }),
        onResponse: (status, body) => {
          tally.addNote++;
          expect("AddNotesToArtifacts", status, 200, body);
          if (status === 200 && (JSON.parse(body) as { error?: unknown }).error === "") tally.addNoteOk++;
        },
      },
      {
        method: "POST",
        path: "/Command/AddNotesToArtifacts",
        headers,
        body: '{"Username": "',
        onResponse: (status, body) => {
          tally.invalid++;
          expect("invalid body", status, 400, body);
        },
      },
    ];

    const baseline = await autocannon({
      url: `http://127.0.0.1:${ready.port}/healthz`,
      method: "GET",
      connections,
      amount: Math.max(1, Math.round(amount / 4)),
      timeout: 30,
    });
    const result = await autocannon({
      url: `http://127.0.0.1:${ready.port}`,
      connections,
      amount,
      requests,
      timeout: 30,
    });
    const { notes } = await ask<{ notes: number }>(child, { type: "count" }, "count");

    const serverErrors = Object.entries(result.statusCodeStats)
      .filter(([status]) => Number(status) >= 500)
      .reduce((sum, [, stat]) => sum + stat.count, 0);
    const answered = tally.timeline + tally.trigger + tally.addNote + tally.invalid;
    const failures: string[] = [];
    if (serverErrors > 0) failures.push(`${serverErrors} answers were 5xx.`);
    if (result.errors > 0 || result.timeouts > 0) {
      failures.push(`${result.errors} connection errors, ${result.timeouts} timeouts.`);
    }
    if (answered < amount) failures.push(`Only ${answered} of ${amount} requests were answered.`);
    if (tally.unexpected.length > 0) failures.push(`Unexpected answers:\n  ${tally.unexpected.join("\n  ")}`);
    if (notes !== tally.addNoteOk) {
      failures.push(
        `The backend stored ${notes} notes, but ${tally.addNoteOk} AddNotesToArtifacts answers succeeded.`,
      );
    }

    const statuses = Object.entries(result.statusCodeStats)
      .map(([status, stat]) => `${status}: ${stat.count}`)
      .join(", ");
    process.stdout.write(
      [
        `Load test: ${answered} requests on ${connections} connections in ${result.duration.toFixed(1)} s`,
        `  mix: ${tally.timeline} GetIncidentTimelineEntries, ${tally.trigger} TriggerIncidentExternalAction, ` +
          `${tally.addNote} AddNotesToArtifacts, ${tally.invalid} invalid bodies`,
        `  statuses: ${statuses}`,
        `  requests/s: ${Math.round(result.requests.average)} (mean of per-second counts)`,
        `  latency ms: p50 ${result.latency.p50}, p97.5 ${result.latency.p97_5}, p99 ${result.latency.p99}, max ${result.latency.max}`,
        `  baseline GET /healthz: requests/s ${Math.round(baseline.requests.average)}, latency ms p50 ${baseline.latency.p50}, p99 ${baseline.latency.p99}`,
        `  ratios to the baseline: requests/s ${(result.requests.average / baseline.requests.average).toFixed(2)}, ` +
          `p99 latency ${(result.latency.p99 / Math.max(1, baseline.latency.p99)).toFixed(2)}`,
        `  notes stored: ${notes}; successful AddNotesToArtifacts answers: ${tally.addNoteOk}`,
        failures.length === 0 ? "All invariants hold." : `FAILED:\n- ${failures.join("\n- ")}`,
        "",
      ].join("\n"),
    );
    return failures.length === 0 ? 0 : 1;
  } finally {
    if (child.connected) child.send({ type: "stop" });
    await new Promise((resolve) => {
      if (child.exitCode !== null) resolve(undefined);
      else child.once("exit", resolve);
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });
  }
}

if (process.argv.includes("--server")) {
  runServer().catch((error: unknown) => {
    process.stderr.write(`load test server: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
} else {
  runLoad().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`load test: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
