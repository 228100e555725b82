/**
 * The PostgreSQL backend against the memory backend (the same commands, the same answers), and its
 * durability promises: transactions, RuntimeIds from a sequence across restarts, concurrent writers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandHandler } from "../../src/commands/handler.js";
import { DatasetError } from "../../src/commands/memory/dataset.js";
import { createMemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { loadSampleDataset } from "../../src/commands/memory/sample-dataset.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import { createPostgresBackend, insertIncidents, type PostgresBackend } from "../../src/postgres/backend.js";
import { DEFAULT_COLUMNS } from "../../src/postgres/schema.js";
import type { SqlClient } from "../../src/postgres/sql-client.js";
import { nonEmptyConditionObjectArb } from "../arbitraries/conditions.js";
import { FC_SEED } from "../support/fc.js";
import { DATABASE_KIND, openTestDatabase } from "./database.js";

const FIXED = new Date("2024-05-01T12:00:00Z");
const clock = () => FIXED;

let backend: PostgresBackend;
let client: SqlClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await openTestDatabase();
  drop = database.drop;
  client = database.client;
  backend = await createPostgresBackend({ client, clock });
  await backend.migrate();
  await backend.migrate(); // idempotent
  await backend.loadDataset(loadSampleDataset());
}, 300_000);

afterAll(async () => {
  await drop?.();
});

const dataset = loadSampleDataset();
const incidents = dataset.incidents ?? [];

describe(`the PostgreSQL backend on ${DATABASE_KIND}`, () => {
  it("answers the three commands exactly as the memory backend does", async () => {
    const memory = createCommandHandler(createMemoryBackend(loadSampleDataset(), { clock }));
    const postgres = createCommandHandler(backend);
    const requests: [string, Record<string, unknown>][] = [];
    for (const incident of incidents.slice(0, 20)) {
      for (const params of [{}, { "Sort Order": "DESC" }, { Filter: "a", "Sort Order": "asc" }]) {
        requests.push(["GetIncidentTimelineEntries", { "Incident Number": incident.Number, ...params }]);
      }
    }
    requests.push(["GetIncidentTimelineEntries", { "Incident Number": "no such incident" }]);
    for (const conditions of [
      { Severity: "High" },
      { IngestionType: "Webhook|File", Title: { $regex: "(?i)phish" } },
      { CreatedUtcTime: { $gt: { $date: "2024-02-01T00:00:00Z" } }, Status: { $ne: "Closed" } },
      [{ Severity: "Low" }, { Type: "Malware" }],
      { Title: "no such title" },
    ]) {
      requests.push([
        "TriggerIncidentExternalAction",
        { "Search Conditions": conditions, "Trigger Data": { source: "test" } },
      ]);
    }
    for (const artifact of dataset.artifacts ?? []) {
      requests.push([
        "AddNotesToArtifacts",
        { "Artifact Name": artifact.name, "Artifact Type": artifact.typeId, Note: "checked <b>" },
      ]);
    }
    for (const [command, params] of requests) {
      for (const username of ["soc-admin", "bob"]) {
        for (const site of ["Security Operations", "EMEA SOC"]) {
          const body = { Username: username, Site: site, CommandParams: params };
          const expected = await memory(command, structuredClone(body), { username });
          const actual = await postgres(command, structuredClone(body), { username });
          expect(actual, `${command} ${JSON.stringify(body)}`).toEqual(expected);
        }
      }
    }
  }, 300_000);

  it("finds the same first incident as the memory backend for random Search Conditions", async () => {
    const memory = createMemoryBackend(loadSampleDataset());
    const conditions = fc.sample(nonEmptyConditionObjectArb(), { seed: FC_SEED, numRuns: 150 });
    let found = 0;
    for (const raw of conditions) {
      const condition = parseSearchConditions(raw);
      for (const site of ["Security Operations", "APAC SOC"]) {
        const expected = await memory.findFirstIncident(site, condition);
        const actual = await backend.findFirstIncident(site, condition);
        expect(actual?.IncidentId, `seed ${FC_SEED}: ${JSON.stringify(raw)} in ${site}`).toBe(
          expected?.IncidentId,
        );
        if (expected !== undefined) found++;
      }
    }
    expect(found).toBeGreaterThan(20);
  }, 300_000);

  it("fetches past rows that the re-check rejects, in the order of docs/semantics.md 1.9", async () => {
    // The regex is not pushed down: every row of the site is a candidate until one passes the re-check.
    const narrow = await createPostgresBackend({ client, clock, firstBatch: 1 });
    const memory = createMemoryBackend(loadSampleDataset());
    for (const raw of [
      { Title: { $regex: "z" } },
      { Title: { $regex: "^$" } },
      { CustomField2: { $regex: "a$" } },
    ]) {
      const condition = parseSearchConditions(raw);
      const expected = await memory.findFirstIncident("Security Operations", condition);
      expect((await narrow.findFirstIncident("Security Operations", condition))?.IncidentId).toBe(
        expected?.IncidentId,
      );
    }
  }, 300_000);

  it("walks the creation order when candidates are many, and filters first when they are few", async () => {
    // 1,500 incidents of one site: a regex is not pushed down, so every row is a candidate (the walk);
    // a Number is, so one row is (filter first). Both must find what IncidentSet finds.
    const rows = Array.from({ length: 1500 }, (_, k) => ({
      IncidentId: 50_000 + k,
      Number: `many-${k}`,
      Site: "Many",
      Title: k === 1234 ? "needle in the haystack" : `hay ${k % 7}`,
      CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + ((k * 7919) % 1500) * 60_000).toISOString(),
    }));
    await insertIncidents(
      client,
      DEFAULT_COLUMNS,
      rows.map((incident) => ({ site: "Many", number: incident.Number, incident })),
    );
    const narrow = await createPostgresBackend({ client, clock, firstBatch: 1 });
    const set = new IncidentSet(rows);
    for (const raw of [
      { Title: { $regex: "needle" } },
      { Title: { $regex: "hay [36]" } },
      { Number: "many-777" },
      { Number: { $in: ["many-3", "many-1499", "nope"] } },
      { Title: { $regex: "nothing at all" } },
    ]) {
      const condition = parseSearchConditions(raw);
      expect((await narrow.findFirstIncident("Many", condition))?.IncidentId, JSON.stringify(raw)).toBe(
        set.findFirst(condition)?.IncidentId,
      );
    }
  }, 300_000);

  it("gives every concurrent playbook run its own, increasing RuntimeId and stores every note once", async () => {
    const before = await backend.counts();
    const incident = incidents[0]!;
    const runs = await Promise.all(
      Array.from({ length: 100 }, (_, k) =>
        backend.recordPlaybookRun({
          site: incident.Site,
          incident,
          playbookName: `p${k}`,
          triggerData: { k },
        }),
      ),
    );
    const ids = runs.map((run) => run.runtimeId);
    expect(new Set(ids).size).toBe(100);
    const artifact = dataset.artifacts![0]!;
    await Promise.all(
      Array.from({ length: 100 }, (_, k) =>
        backend.appendNote(
          { site: artifact.site, name: artifact.name, typeId: artifact.typeId },
          { text: `n${k}`, author: "alice" },
        ),
      ),
    );
    const after = await backend.counts();
    expect(after.runs - before.runs).toBe(100);
    expect(after.notes - before.notes).toBe(100);
    const next = await backend.recordPlaybookRun({
      site: incident.Site,
      incident,
      playbookName: "x",
      triggerData: {},
    });
    expect(next.runtimeId).toBeGreaterThan(Math.max(...ids));
  });

  it("refuses a note for an unknown artifact and stores nothing", async () => {
    const before = await backend.counts();
    await expect(
      backend.appendNote({ site: "EMEA SOC", name: "nope", typeId: 1 }, { text: "x", author: "bob" }),
    ).rejects.toThrow("No artifact 'nope'");
    expect((await backend.counts()).notes).toBe(before.notes);
  });

  it("loads a dataset all or nothing", async () => {
    const before = await backend.counts();
    await expect(backend.loadDataset({ incidents: [{ IncidentId: "x" } as never] })).rejects.toThrow(
      DatasetError,
    );
    // The second incident repeats a stored Number: the whole load is rolled back.
    await expect(
      backend.loadDataset({
        sites: [{ name: "Security Operations" }],
        incidents: [
          { IncidentId: 99_001, Number: "fresh-1", Site: "Security Operations" },
          { IncidentId: 99_002, Number: incidents[0]!.Number, Site: incidents[0]!.Site },
        ],
      }),
    ).rejects.toThrow();
    expect((await backend.counts()).incidents).toBe(before.incidents);
    await expect(backend.loadDataset({ sites: [{ name: "a\u0000b" }] })).rejects.toThrow("U+0000");
  });
});

describe("a PGlite folder survives a restart", () => {
  it("keeps notes and runs, and RuntimeIds keep increasing", async () => {
    const folder = mkdtempSync(join(tmpdir(), "iq-pglite-"));
    try {
      const first = await createPostgresBackend({ dataDir: folder, clock });
      await first.migrate();
      await first.loadDataset(loadSampleDataset());
      const incident = incidents[0]!;
      const a = await first.recordPlaybookRun({
        site: incident.Site,
        incident,
        playbookName: "p",
        triggerData: {},
      });
      const artifact = dataset.artifacts![0]!;
      await first.appendNote(
        { site: artifact.site, name: artifact.name, typeId: artifact.typeId },
        { text: "kept", author: "alice" },
      );
      const stored = await first.counts();
      expect(stored.runs).toBe(1);
      await first.close();

      const second = await createPostgresBackend({ dataDir: folder, clock });
      await second.migrate();
      expect(await second.counts()).toEqual(stored);
      const b = await second.recordPlaybookRun({
        site: incident.Site,
        incident,
        playbookName: "p",
        triggerData: {},
      });
      expect(b.runtimeId).toBeGreaterThan(a.runtimeId);
      await second.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 300_000);
});
