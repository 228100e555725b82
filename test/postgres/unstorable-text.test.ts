/**
 * Text PostgreSQL cannot store (the character U+0000; an unpaired surrogate, which UTF-8 cannot encode)
 * arriving in command parameters: the PostgreSQL backend answers exactly as the memory backend does, never
 * a 500 and never a silently altered note (docs/semantics.md 3.3, "Text that no store keeps").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandHandler } from "../../src/commands/handler.js";
import type { CommandHandler } from "../../src/commands/handler-types.js";
import { createMemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { createPostgresBackend } from "../../src/postgres/backend.js";
import { SOC, TEST_DATASET } from "../server/fixtures.js";
import { DATABASE_KIND, openTestDatabase } from "./database.js";

const clock = () => new Date("2024-05-01T12:00:00Z");
let postgres: CommandHandler;
let drop: () => Promise<void>;
const errors: unknown[] = [];

beforeAll(async () => {
  const database = await openTestDatabase();
  drop = database.drop;
  const backend = await createPostgresBackend({ client: database.client, clock });
  await backend.migrate();
  await backend.loadDataset(TEST_DATASET);
  postgres = createCommandHandler(backend, { onError: (error) => errors.push(error) });
}, 300_000);

afterAll(async () => {
  await drop?.();
});

const NUL = "a\u0000b";
const LONE = "a\ud800b";

describe(`text no store keeps, on ${DATABASE_KIND}`, () => {
  it.each([
    ["AddNotesToArtifacts", { "Artifact Name": "10.0.0.5", Note: NUL }],
    ["AddNotesToArtifacts", { "Artifact Name": "10.0.0.5", Note: LONE }],
    ["AddNotesToArtifacts", { "Artifact Name": `10.0.0.5${NUL}`, Note: "x" }],
    ["GetIncidentTimelineEntries", { "Incident Number": `20240101-1${NUL}` }],
    ["GetIncidentTimelineEntries", { "Incident Number": "20240101-1", Filter: NUL }],
    ["TriggerIncidentExternalAction", { "Search Conditions": { Title: NUL }, "Trigger Data": {} }],
    [
      "TriggerIncidentExternalAction",
      { "Search Conditions": { Type: { $in: [NUL, "Phishing"] }, Title: { $ne: NUL } }, "Trigger Data": {} },
    ],
    [
      "TriggerIncidentExternalAction",
      { "Search Conditions": { Type: "Phishing" }, "Trigger Data": { a: NUL } },
    ],
    [
      "TriggerIncidentExternalAction",
      { "Search Conditions": { Type: "Phishing" }, "Trigger Data": { [NUL]: 1 } },
    ],
    [
      "TriggerIncidentExternalAction",
      { "Search Conditions": { Type: "Phishing" }, "Trigger Data": { a: [LONE] } },
    ],
  ])("%s %j: the same answer as the memory backend, never a 500", async (command, params) => {
    const memory = createCommandHandler(createMemoryBackend(TEST_DATASET, { clock }));
    const body = { Username: "analyst", Site: SOC, CommandParams: params };
    const caller = { username: "analyst" };
    const expected = await memory(command, body, caller);
    expect(expected.status).toBe(200);
    errors.length = 0;
    expect(await postgres(command, body, caller)).toEqual(expected);
    expect(errors).toEqual([]);
  });

  it("refuses such a note or Trigger Data on every backend, naming the character and where it is", async () => {
    const memory = createCommandHandler(createMemoryBackend(TEST_DATASET, { clock }));
    const caller = { username: "analyst" };
    const note = await memory(
      "AddNotesToArtifacts",
      { Username: "analyst", Site: SOC, CommandParams: { "Artifact Name": "10.0.0.5", Note: LONE } },
      caller,
    );
    expect((note.body as { error: string }).error).toBe(
      "Parameter 'Note' must not hold an unpaired surrogate U+D800 at character 2: no store keeps it as sent.",
    );
    const trigger = await memory(
      "TriggerIncidentExternalAction",
      {
        Username: "analyst",
        Site: SOC,
        CommandParams: { "Search Conditions": { Type: "Phishing" }, "Trigger Data": { a: { b: [NUL] } } },
      },
      caller,
    );
    expect((trigger.body as { error: string }).error).toBe(
      "Parameter 'Trigger Data' must not hold the character U+0000 at character 2 (at a.b[0]): no store keeps it as sent.",
    );
  });
});
