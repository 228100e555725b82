/**
 * The crash test of `serve --database` (docs/postgresql.md, "Durability"): concurrent AddNotesToArtifacts
 * and TriggerIncidentExternalAction requests, the server killed with SIGKILL part-way, restarted on the
 * same database. Every note answered `Successful` is stored exactly once, and RuntimeIds never repeat.
 * Runs on a PGlite folder (a real crash of the embedded database), or on the server of PG_URL.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresBackend } from "../../src/postgres/backend.js";
import { DATABASE_KIND } from "./database.js";

const entry = fileURLToPath(new URL("../server/serve-entry.ts", import.meta.url));
// One process (`node --import tsx`), not the tsx CLI, which runs the server in a child of its own: a SIGKILL
// must reach the server itself, and leave no server running after the test.
const node = process.execPath;
const folder = mkdtempSync(join(tmpdir(), "iq-crash-"));
const schema = `iq_crash_${process.pid}`;
const location =
  process.env.PG_URL === undefined
    ? folder
    : `${process.env.PG_URL}${process.env.PG_URL.includes("?") ? "&" : "?"}options=-c%20search_path%3D${schema}`;
const KEY = "crash-test-key";

beforeAll(async () => {
  if (process.env.PG_URL !== undefined) {
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: process.env.PG_URL });
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await pool.end();
  }
});

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  if (process.env.PG_URL !== undefined) {
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: process.env.PG_URL });
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
});

function start(): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(
    node,
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
      `soc-admin=${KEY}`,
      "--rate-limit",
      "1000000",
    ],
    { stdio: "pipe" },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(out);
      if (match !== null) resolve({ child, url: match[1]! });
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

function post(url: string, command: string, params: unknown): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify({
    Username: "soc-admin",
    Site: "Security Operations",
    CommandParams: params,
  });
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

describe(`serve --database on ${DATABASE_KIND} survives SIGKILL`, () => {
  it("stores every acknowledged note exactly once and never repeats a RuntimeId", async () => {
    const first = await start();
    const acknowledged = new Set<string>();
    const runtimeIds: number[] = [];
    let settled = 0;
    let killed = false;
    const requests = Array.from({ length: 1000 }, (_, k) => {
      const work =
        k % 10 === 9
          ? post(first.url, "TriggerIncidentExternalAction", {
              "Search Conditions": { Type: "Phishing" },
              "Trigger Data": { k },
            }).then(({ body }) => {
              const data = (
                body as { returnData?: { Data?: { TriggeredPlaybooks?: { RuntimeId: number }[] } } }
              ).returnData?.Data;
              for (const playbook of data?.TriggeredPlaybooks ?? []) runtimeIds.push(playbook.RuntimeId);
            })
          : post(first.url, "AddNotesToArtifacts", {
              "Artifact Name": "185.220.101.34",
              "Artifact Type": 1,
              Note: `note-${k}`,
            }).then(({ body }) => {
              if ((body as { returnData?: string }).returnData === "Successful")
                acknowledged.add(`note-${k}`);
            });
      return work
        .catch(() => undefined) // cut off by the kill
        .finally(() => {
          settled++;
          if (settled === 400 && !killed) {
            killed = true;
            first.child.kill("SIGKILL");
          }
        });
    });
    await Promise.all(requests);
    agent.destroy();
    expect(killed).toBe(true);
    expect(acknowledged.size).toBeGreaterThan(100);

    const second = await start();
    const after = await post(second.url, "TriggerIncidentExternalAction", {
      "Search Conditions": { Type: "Phishing" },
      "Trigger Data": {},
    });
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
    const later = (
      after.body as { returnData: { Data: { TriggeredPlaybooks: { RuntimeId: number }[] } } }
    ).returnData.Data.TriggeredPlaybooks.map((p) => p.RuntimeId);
    expect(later.length).toBeGreaterThan(0);
    expect(Math.min(...later)).toBeGreaterThan(Math.max(0, ...runtimeIds));
    expect(new Set(runtimeIds).size).toBe(runtimeIds.length);

    const backend = await createPostgresBackend(
      process.env.PG_URL === undefined ? { dataDir: folder } : { connectionString: location },
    );
    const notes = await backend.notesOf({ site: "Security Operations", name: "185.220.101.34", typeId: 1 });
    await backend.close();
    const stored = new Map<string, number>();
    for (const note of notes) stored.set(note.text, (stored.get(note.text) ?? 0) + 1);
    for (const text of acknowledged) expect(stored.get(text), text).toBe(1);
    for (const [text, times] of stored) expect(times, text).toBe(1);
  }, 300_000);
});
