/**
 * Bodies holding `__proto__` / `constructor.prototype` keys reach the command handler (docs/semantics.md 3.1,
 * "Prototype keys are data"). Every position of every command's body, over the memory backend and the
 * PostgreSQL backend on PGlite: never 500, both backends answer alike, Object.prototype stays clean, and
 * playbooks receive plain Trigger Data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandHandler } from "../../src/commands/handler.js";
import { createMemoryBackend, type MemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { createPostgresBackend, type PostgresBackend } from "../../src/postgres/backend.js";
import { openTestDatabase } from "../postgres/database.js";
import { SOC, TEST_DATASET } from "../server/fixtures.js";

const FIXED = new Date("2024-05-01T12:00:00Z");
const clock = () => FIXED;
let pg: PostgresBackend;
let drop: () => Promise<void>;
beforeAll(async () => {
  const db = await openTestDatabase();
  drop = db.drop;
  pg = await createPostgresBackend({ client: db.client, clock });
  await pg.migrate();
  await pg.loadDataset(TEST_DATASET);
}, 300_000);
afterAll(async () => {
  await drop?.();
});

const P = `{"polluted":"yes"}`;
const CP = `{"prototype":{"polluted":"yes"}}`;
const env = (params: string, extra = "") =>
  `{${extra}"Username":"analyst","Site":"${SOC}","CommandParams":${params}}`;

/** [command, JSON text of the body]; the texts are parsed with JSON.parse as the server does. */
const CASES: [string, string][] = [];
const SC = (conditions: string) =>
  CASES.push(["TriggerIncidentExternalAction", env(`{"Search Conditions":${conditions},"Trigger Data":{}}`)]);
for (const cmd of ["GetIncidentTimelineEntries", "TriggerIncidentExternalAction", "AddNotesToArtifacts"]) {
  CASES.push([cmd, env(`{"__proto__":${P}}`)]);
  CASES.push([cmd, env(`{"constructor":${CP}}`)]);
  CASES.push([cmd, env(`{}`, `"__proto__":${P},`)]);
  CASES.push([cmd, env(`{}`, `"constructor":${CP},`)]);
  CASES.push([
    cmd,
    env(
      `{"__proto__":{"Incident Number":"20240101-1","Artifact Name":"10.0.0.5","Note":"n","Search Conditions":{"Severity":"High"},"Trigger Data":{}}}`,
    ),
  ]);
  CASES.push([cmd, `{"Username":"analyst","Site":"${SOC}","__proto__":{"CommandParams":{}}}`]);
  CASES.push([cmd, `{"__proto__":{"Username":"analyst","Site":"${SOC}","CommandParams":{}}}`]);
}
for (const key of ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"]) {
  CASES.push(["GetIncidentTimelineEntries", env(`{"Incident Number":"${key}"}`)]);
  CASES.push([
    "GetIncidentTimelineEntries",
    env(`{"Incident Number":"20240101-1","Filter":"${key}","Sort Order":"${key}"}`),
  ]);
  CASES.push(["AddNotesToArtifacts", env(`{"Artifact Name":"${key}","Note":"${key}"}`)]);
  CASES.push([
    "AddNotesToArtifacts",
    env(`{"Artifact Name":"10.0.0.5","Artifact Type":"${key}","Note":"n"}`),
  ]);
  CASES.push([
    "AddNotesToArtifacts",
    `{"Username":"analyst","Site":"${key}","CommandParams":{"Artifact Name":"x","Note":"n"}}`,
  ]);
  SC(`{"${key}":"High"}`);
  SC(`{"${key}":${P}}`);
  SC(`{"Severity":{"${key}":${P}}}`);
  SC(`{"$and":[{"${key}":${P}}]}`);
  SC(`{"$or":[{"Severity":"High"},{"Custom.${key}":"x"}]}`);
  SC(`{"${key}.prototype":"x"}`);
  SC(`{"Severity":{"$in":["${key}"]}}`);
  SC(`"{\\"${key}\\":{\\"polluted\\":1}}"`);
  CASES.push([
    "TriggerIncidentExternalAction",
    env(`{"Search Conditions":{"Severity":"High"},"Trigger Data":{"${key}":${P}}}`),
  ]);
  CASES.push([
    "TriggerIncidentExternalAction",
    env(`{"Search Conditions":{"Severity":"High"},"Trigger Data":{"a":[{"b":{"${key}":1}}]}}`),
  ]);
  CASES.push([
    "TriggerIncidentExternalAction",
    env(`{"Search Conditions":{"Severity":"High"},"Trigger Data":"{\\"${key}\\":{\\"x\\":1}}"}`),
  ]);
  CASES.push([
    "TriggerIncidentExternalAction",
    env(`{"Search Conditions":{"Severity":"High"},"Trigger Data":{"v":"${key}"}}`),
  ]);
}
SC(`{"constructor":${CP}}`);
SC(`{"Title":{"$regex":"x","constructor":${CP}}}`);

function clean(): void {
  for (const name of ["polluted", "Username", "Site", "CommandParams", "Incident Number", "x", "prototype"]) {
    expect(Object.hasOwn(Object.prototype, name), name).toBe(false);
  }
}

describe("prototype keys in every position, memory and PGlite backends", () => {
  it("never 500, never pollutes, both backends answer alike", async () => {
    const runs: unknown[] = [];
    const memory: MemoryBackend = createMemoryBackend(TEST_DATASET, {
      clock,
      onPlaybookRun: (run) => {
        runs.push(run);
      },
    });
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    const mem = createCommandHandler(memory, { onError });
    const post = createCommandHandler(pg, { onError });
    for (const [cmd, text] of CASES) {
      const a = await mem(cmd, JSON.parse(text), { username: "analyst" });
      clean();
      const b = await post(cmd, JSON.parse(text), { username: "analyst" });
      clean();
      expect(a.status, `${cmd} ${text}`).not.toBe(500);
      expect(b.status, `${cmd} ${text}`).not.toBe(500);
      expect({ status: b.status, body: b.body }, `${cmd} ${text}`).toEqual({
        status: a.status,
        body: a.body,
      });
    }
    expect(errors).toEqual([]);
    expect(memory.runs().length).toBeGreaterThan(0);
    for (const run of memory.runs()) {
      const data = (run as { triggerData?: unknown }).triggerData;
      if (data !== undefined) {
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
        expect(JSON.stringify(data)).not.toMatch(/"(__proto__|constructor|prototype)":/);
      }
    }
  }, 300_000);
});

describe("the deepest configurable Search Conditions on PGlite (depth 256)", () => {
  const nor = (n: number) => {
    let c: unknown = { Severity: "High" };
    for (let i = 0; i < n; i++) c = { $nor: [c] };
    return c;
  };
  const not = (n: number) => {
    let c: unknown = { $eq: "High" };
    for (let i = 0; i < n; i++) c = { $not: c };
    return { Severity: c };
  };
  it.each([
    ["127 nested $nor", nor(127)],
    ["254 nested $not", not(254)],
    ["126 nested $nor", nor(126)],
    ["253 nested $not", not(253)],
  ])("%s: the PostgreSQL backend answers as the memory backend does", async (_name, conditions) => {
    const options = { parseOptions: { limits: { depth: 256 } } };
    const mem = createCommandHandler(createMemoryBackend(TEST_DATASET, { clock }), options);
    const post = createCommandHandler(pg, options);
    const body = {
      Username: "analyst",
      Site: SOC,
      CommandParams: { "Search Conditions": conditions, "Trigger Data": {} },
    };
    const a = await mem("TriggerIncidentExternalAction", body, { username: "analyst" });
    const b = await post("TriggerIncidentExternalAction", body, { username: "analyst" });
    expect(a.status).toBe(200);
    expect((a.body as { returnData: { Status: string } }).returnData.Status).not.toBe("Failed");
    const norm = (r: { status: number; body: unknown }) =>
      JSON.stringify({ status: r.status, body: r.body }).replace(/"RuntimeId":\d+/g, '"RuntimeId":0');
    expect(norm(b)).toBe(norm(a));
  });
});
