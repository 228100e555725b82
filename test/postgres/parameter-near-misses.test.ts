/**
 * No command acts on a near miss of one of its parameters (docs/semantics.md 3.2, "Parameter names"): a
 * `CommandParams` key that equals a parameter once case, white space, `_` and `-` are ignored (`DryRun`,
 * `dry run`, `artifact_name`) is a command failure naming the parameter, answered before anything runs or is
 * recorded, on the memory backend and on PostgreSQL (PGlite in the default suite, a real server under
 * `scripts/with-postgres.sh`).
 *
 * The parameters come from the commands' own definitions (`COMMAND_DEFINITIONS[].parameters`): a parameter
 * added to a command without a value in `VALID` below fails the first test, and every parameter gets every
 * near-miss spelling of `nearMissesOf`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NEAR_MISS_TRAILER } from "../../src/commands/envelope.js";
import { COMMAND_DEFINITIONS, createCommandHandler } from "../../src/commands/handler.js";
import type { CommandHandler } from "../../src/commands/handler-types.js";
import { createMemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { createPostgresBackend } from "../../src/postgres/backend.js";
import { SOC, TEST_DATASET } from "../server/fixtures.js";
import { DATABASE_KIND, openTestDatabase } from "./database.js";

/**
 * Parameters with which each command succeeds and, for two of them, records something (a run, a note). A
 * near miss stands for the parameter with the value given here: `"DryRun": true` would have been a preview,
 * so its real run would be the side effect the caller did not ask for.
 */
const VALID: Record<string, Record<string, unknown>> = {
  GetIncidentTimelineEntries: { "Incident Number": "20240101-1", Filter: "", "Sort Order": "ASC" },
  TriggerIncidentExternalAction: {
    "Search Conditions": { Type: "Phishing" },
    "Trigger Data": { ticket: "INC-1" },
    "Dry Run": true,
  },
  AddNotesToArtifacts: { "Artifact Name": "10.0.0.5", "Artifact Type": 1, Note: "seen" },
};

/** The spellings of a parameter that are near misses of it: case, spaces, `_`, `-` (never the name itself). */
function nearMissesOf(name: string): string[] {
  const words = name.split(" ");
  const camel = words.map((w, i) => (i === 0 ? w.toLowerCase() : w)).join("");
  const candidates = [
    name.toLowerCase(),
    name.toUpperCase(),
    words.join(""),
    camel,
    words.join("_"),
    words.join("-"),
    words.join("_").toLowerCase(),
    `${words[0]}${words.slice(1).join(" ").toLowerCase() === "" ? "" : ` ${words.slice(1).join(" ").toLowerCase()}`}`,
    ` ${name}`,
    `${name}\t`,
    `_${name}`,
    `${name.slice(0, 1)}-${name.slice(1)}`,
    words.join("  "),
  ];
  return [...new Set(candidates)].filter((key) => key !== name);
}

/** Every (command, parameter, near-miss key, whether the exact parameter is sent too). */
const CASES = COMMAND_DEFINITIONS.flatMap((definition) =>
  definition.parameters.flatMap((parameter) =>
    nearMissesOf(parameter).flatMap((key) =>
      [false, true].map((withExact) => ({ command: definition.name, parameter, key, withExact })),
    ),
  ),
);

function paramsOf(c: (typeof CASES)[number]): Record<string, unknown> {
  const valid = VALID[c.command]!;
  const params: Record<string, unknown> = { ...valid };
  if (!c.withExact) delete params[c.parameter];
  if (c.parameter === "Dry Run" && c.withExact) params[c.parameter] = false;
  params[c.key] = valid[c.parameter];
  return params;
}

const failure = (command: string, message: string) =>
  COMMAND_DEFINITIONS.find((d) => d.name === command)!.failure(message);

const caller = { username: "analyst" };
const body = (params: Record<string, unknown>) => ({ Username: "analyst", Site: SOC, CommandParams: params });

describe("the near-miss table", () => {
  it("has a valid value for every parameter of every command, and no other", () => {
    for (const definition of COMMAND_DEFINITIONS) {
      expect(Object.keys(VALID[definition.name] ?? {}).sort(), definition.name).toEqual(
        [...definition.parameters].sort(),
      );
    }
  });

  it("has at least six near misses of every parameter, each folding to it", () => {
    const fold = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");
    for (const definition of COMMAND_DEFINITIONS) {
      for (const parameter of definition.parameters) {
        const keys = nearMissesOf(parameter);
        expect(keys.length, parameter).toBeGreaterThanOrEqual(6);
        for (const key of keys) expect(fold(key)).toBe(fold(parameter));
      }
    }
  });
});

/** The two backends, each with the counts of what it recorded. */
interface Subject {
  readonly handle: CommandHandler;
  recorded(): Promise<{ runs: number; notes: number }>;
}

const subjects: Record<string, () => Subject> = {};
let drop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const database = await openTestDatabase();
  drop = database.drop;
  const backend = await createPostgresBackend({ client: database.client });
  await backend.migrate();
  await backend.loadDataset(TEST_DATASET);
  const handle = createCommandHandler(backend);
  subjects[DATABASE_KIND] = () => ({
    handle,
    recorded: async () => {
      const counts = await backend.counts();
      return { runs: counts.runs, notes: counts.notes };
    },
  });
}, 300_000);

afterAll(async () => {
  await drop?.();
});

const memory = createMemoryBackend(TEST_DATASET);
subjects.memory = () => ({
  handle: createCommandHandler(memory),
  recorded: async () => ({ runs: memory.runs().length, notes: memory.notes().length }),
});

describe.each(["memory", DATABASE_KIND])("near misses of every parameter, on %s", (kind) => {
  it(`refuses all ${CASES.length} near misses before anything is recorded; RuntimeIds are not spent`, async () => {
    const subject = subjects[kind]!();
    expect(await subject.recorded()).toEqual({ runs: 0, notes: 0 });
    const wrong: string[] = [];
    for (const c of CASES) {
      const response = await subject.handle(c.command, body(paramsOf(c)), caller);
      const expected = failure(
        c.command,
        `Unknown parameter '${c.key}': did you mean '${c.parameter}'? ${NEAR_MISS_TRAILER}`,
      );
      if (response.status !== 200 || JSON.stringify(response.body) !== JSON.stringify(expected)) {
        wrong.push(
          `${c.command} ${JSON.stringify(c.key)} (exact too: ${c.withExact}): ${JSON.stringify(response)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
    expect(await subject.recorded()).toEqual({ runs: 0, notes: 0 });
    // The RuntimeId counter was not touched: the first real run gets RuntimeId 1.
    const real = await subject.handle(
      "TriggerIncidentExternalAction",
      body({ ...VALID.TriggerIncidentExternalAction, "Dry Run": false }),
      caller,
    );
    expect(real.status).toBe(200);
    const data = (real.body as { returnData: { Data: { TriggeredPlaybooks: { RuntimeId: number }[] } } })
      .returnData.Data;
    expect(data.TriggeredPlaybooks.map((p) => p.RuntimeId)).toEqual([1, 2]);
    expect(await subject.recorded()).toEqual({ runs: 2, notes: 0 });
  });

  it("acts on the exact names (the table's parameters are ones that act), and names every near miss at once", async () => {
    const subject = subjects[kind]!();
    const note = await subject.handle("AddNotesToArtifacts", body(VALID.AddNotesToArtifacts!), caller);
    expect((note.body as { error: string }).error).toBe("");
    const before = await subject.recorded();
    const both = await subject.handle(
      "TriggerIncidentExternalAction",
      body({ "search conditions": { Type: "Phishing" }, trigger_data: {}, DryRun: true }),
      caller,
    );
    expect(both.body).toEqual(
      failure(
        "TriggerIncidentExternalAction",
        `Unknown parameter 'search conditions': did you mean 'Search Conditions'? Unknown parameter 'trigger_data': did you mean 'Trigger Data'? Unknown parameter 'DryRun': did you mean 'Dry Run'? ${NEAR_MISS_TRAILER}`,
      ),
    );
    expect(await subject.recorded()).toEqual(before);
  });

  it("ignores other unknown keys (not near misses), as before", async () => {
    const subject = subjects[kind]!();
    const response = await subject.handle(
      "GetIncidentTimelineEntries",
      body({
        ...VALID.GetIncidentTimelineEntries,
        Timestamp: "x",
        "Dry Runs": true,
        Notes: "x",
        IncidentNo: "1",
        "": 1,
        __proto__x: 1,
      }),
      caller,
    );
    expect((response.body as { error: string }).error).toBe("");
  });

  it("shows a long near miss cut at 60 characters", async () => {
    const subject = subjects[kind]!();
    const key = `Dry${" ".repeat(100)}Run`;
    const response = await subject.handle(
      "TriggerIncidentExternalAction",
      body({ "Search Conditions": { Type: "Phishing" }, "Trigger Data": {}, [key]: true }),
      caller,
    );
    expect((response.body as { error: string }).error).toBe(
      `Unknown parameter '${key.slice(0, 60)}…': did you mean 'Dry Run'? ${NEAR_MISS_TRAILER}`,
    );
  });
});
