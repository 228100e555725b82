/**
 * Several instances of the service over one PostgreSQL database (docs/semantics.md 3.1, "Several
 * instances"): three `serve --database` processes started together on an empty schema (one
 * loads it), requests spread over them, one killed with SIGKILL part-way. RuntimeIds are unique across the
 * service and increasing (a request sent after another was answered gets larger ones), every acknowledged
 * note is stored once and no note twice. Needs a server every process can reach: runs only under
 * `scripts/with-postgres.sh` (PG_URL set); a PGlite folder belongs to one process.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSampleDataset } from "../../src/commands/memory/sample-dataset.js";

const enabled = process.env.PG_URL !== undefined;
const entry = fileURLToPath(new URL("../server/serve-entry.ts", import.meta.url));
const schema = `iq_instances_${process.pid}`;
const location = `${process.env.PG_URL ?? ""}?options=-c%20search_path%3D${schema}`;
const KEY = "instances-test-key-0123456789";
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  if (!enabled) return;
  const admin = new pg.Pool({ connectionString: process.env.PG_URL });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (!enabled) return;
  const admin = new pg.Pool({ connectionString: process.env.PG_URL });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

/** One `serve --database` process; resolves with its URL once it listens. */
function start(): Promise<{ child: ChildProcessWithoutNullStreams; url: string; err: () => string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      entry,
      "serve",
      "--port",
      "0",
      "--database",
      location,
      "--api-key",
      `alice=${KEY}`,
      "--rate-limit",
      "1000000",
    ],
    { stdio: "pipe" },
  );
  children.push(child);
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(out);
      if (match !== null) resolve({ child, url: match[1]!, err: () => err });
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

function post(url: string, command: string, params: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify({ Username: "alice", Site: "Security Operations", CommandParams: params });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/Command/${command}`,
      { method: "POST", agent, headers: { "content-type": "application/json", d3key: KEY } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

interface Trigger {
  readonly sent: number;
  readonly answered: number;
  readonly ids: readonly number[];
}

describe.skipIf(!enabled)("three serve --database instances over one PostgreSQL", () => {
  it("one loads the empty database; RuntimeIds unique and increasing; acknowledged notes stored once, through a SIGKILL", async () => {
    const instances = await Promise.all([start(), start(), start()]);
    const loaded = instances.filter((i) => i.err().includes("Loaded the dataset")).length;
    expect(loaded).toBe(1);
    const admin = new pg.Pool({ connectionString: process.env.PG_URL });
    const count = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".iq_incidents`);
    expect(count.rows[0]!.n).toBe(loadSampleDataset().incidents!.length);

    const alive = [true, true, true];
    const acknowledged = new Set<string>();
    const triggers: Trigger[] = [];
    let answeredByKilled = 0;
    const unexpected: number[] = [];
    let next = 0;
    let settled = 0;
    const TOTAL = 900;
    const worker = async () => {
      while (next < TOTAL) {
        const k = next++;
        // Round robin over the live instances, as a balancer that saw the instance die would.
        const live = instances.filter((_, i) => alive[i]);
        const target = live[k % live.length]!;
        const sent = performance.now();
        try {
          if (k % 3 === 2) {
            const { status, body } = await post(target.url, "TriggerIncidentExternalAction", {
              "Search Conditions": { Type: "Phishing" },
              "Trigger Data": { k },
            });
            if (status !== 200) unexpected.push(status);
            const data = (body as { returnData: { Data: { TriggeredPlaybooks: { RuntimeId: number }[] } } })
              .returnData.Data;
            triggers.push({
              sent,
              answered: performance.now(),
              ids: data.TriggeredPlaybooks.map((p) => p.RuntimeId),
            });
          } else {
            const note = `instances-${k}`;
            const { status, body } = await post(target.url, "AddNotesToArtifacts", {
              "Artifact Name": "185.220.101.34",
              "Artifact Type": 1,
              Note: note,
            });
            if (status !== 200) unexpected.push(status);
            if ((body as { returnData?: string }).returnData === "Successful") acknowledged.add(note);
          }
          if (target === instances[1] && !alive[1]) answeredByKilled++;
        } catch {
          // cut off by the kill: unanswered
        }
        settled++;
        if (settled === 300 && alive[1]) {
          alive[1] = false;
          instances[1]!.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, worker));
    agent.destroy();
    expect(alive[1]).toBe(false);
    expect(unexpected).toEqual([]);
    expect(answeredByKilled).toBeLessThan(12); // only those in flight at the kill
    expect(acknowledged.size).toBeGreaterThan(300);

    // RuntimeIds: unique across the service, and a request sent after another was answered got larger ones.
    const all = triggers.flatMap((t) => t.ids);
    expect(all.length).toBeGreaterThan(100);
    expect(new Set(all).size).toBe(all.length);
    const byAnswer = [...triggers].sort((a, b) => a.answered - b.answered);
    for (const later of triggers) {
      let before = 0;
      for (const earlier of byAnswer) {
        if (earlier.answered >= later.sent) break;
        before = Math.max(before, ...earlier.ids);
      }
      for (const id of later.ids) expect(id).toBeGreaterThan(before);
    }
    const stored = await admin.query<{ id: string }>(
      `SELECT runtime_id AS id FROM "${schema}".iq_playbook_runs`,
    );
    const storedIds = new Set(stored.rows.map((r) => Number(r.id)));
    for (const id of all) expect(storedIds.has(id)).toBe(true);

    // Notes: each acknowledged one stored once, none stored twice.
    const notes = await admin.query<{ text: string; n: number }>(
      `SELECT text, count(*)::int AS n FROM "${schema}".iq_notes WHERE text LIKE 'instances-%' GROUP BY text`,
    );
    const times = new Map(notes.rows.map((r) => [r.text, r.n]));
    for (const note of acknowledged) expect(times.get(note), note).toBe(1);
    for (const [text, n] of times) expect(n, text).toBe(1);
    await admin.end();

    for (const i of [0, 2]) {
      instances[i]!.child.kill("SIGTERM");
      await new Promise((resolve) => instances[i]!.child.once("exit", resolve));
    }
  }, 300_000);
});
