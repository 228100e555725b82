/**
 * The handler's envelope rules, for every command (docs/semantics.md 3.1, 3): unknown command, bodies that are
 * not JSON objects, bad envelope fields, a body Username that is not the caller, no access to the site,
 * unexpected failures.
 */
import { describe, expect, it } from "vitest";
import { BERLIN, HQ, setup } from "../../test/support/commands-fixtures.js";
import type { Backend } from "./backend.js";
import { createCommandHandler } from "./handler.js";
import { INVALID_JSON } from "./handler-types.js";
import { COMMAND_NAMES } from "./wire.js";

const VALID_PARAMS: Record<string, Record<string, unknown>> = {
  GetIncidentTimelineEntries: { "Incident Number": "20240101-1" },
  TriggerIncidentExternalAction: { "Search Conditions": { Severity: "High" }, "Trigger Data": { a: 1 } },
  AddNotesToArtifacts: { "Artifact Name": "10.0.0.5", Note: "n" },
};

/** The 200 failure body of each command (docs/semantics.md 3). */
const FAILURE: Record<string, (message: string) => unknown> = {
  GetIncidentTimelineEntries: (error) => ({ error, returnData: { Status: "Failed", Data: [] } }),
  TriggerIncidentExternalAction: (error) => ({ error, returnData: { Status: "Failed", Data: {} } }),
  AddNotesToArtifacts: (error) => ({ result: "", error, returnData: "Failed", contextData: [] }),
};

const BAD_BODY = { Error: "The body of the request must be a valid JSON object" };

describe.each(COMMAND_NAMES)("%s envelope", (command) => {
  it.each([
    ["invalid JSON", INVALID_JSON],
    ["an array", [{ Username: "alice" }]],
    ["a string", "{}"],
    ["a number", 42],
    ["null", null],
    ["nothing", undefined],
    ["true", true],
  ])("answers 400 for a body that is %s", async (_name, body) => {
    const { handler, backend } = setup();
    expect(await handler(command, body, { username: "alice" })).toEqual({ status: 400, body: BAD_BODY });
    expect(backend.runs()).toEqual([]);
    expect(backend.notes()).toEqual([]);
  });

  it.each([
    ["Username missing", { Site: HQ, CommandParams: {} }, ["'Username' is missing"]],
    [
      "Username empty",
      { Username: " ", Site: HQ, CommandParams: {} },
      ["'Username' must be a non-empty string, found the string \" \""],
    ],
    [
      "Username a number",
      { Username: 7, Site: HQ, CommandParams: {} },
      ["'Username' must be a non-empty string, found the number 7"],
    ],
    ["Site missing", { Username: "alice", CommandParams: {} }, ["'Site' is missing"]],
    [
      "Site null",
      { Username: "alice", Site: null, CommandParams: {} },
      ["'Site' must be a non-empty string, found null"],
    ],
    ["CommandParams missing", { Username: "alice", Site: HQ }, ["'CommandParams' is missing"]],
    [
      "CommandParams an array",
      { Username: "alice", Site: HQ, CommandParams: [] },
      ["'CommandParams' must be a JSON object, found an empty array"],
    ],
    [
      "CommandParams a string",
      { Username: "alice", Site: HQ, CommandParams: "{}" },
      ["'CommandParams' must be a JSON object"],
    ],
    ["all three missing", {}, ["'Username' is missing", "'Site' is missing", "'CommandParams' is missing"]],
  ])("answers 400 naming the field: %s", async (_name, body, parts) => {
    const { handler } = setup();
    const response = await handler(command, body, { username: "alice" });
    expect(response.status).toBe(400);
    const error = (response.body as { Error: string }).Error;
    expect(Object.keys(response.body as object)).toEqual(["Error"]);
    expect(error.startsWith("Invalid request body: ")).toBe(true);
    for (const part of parts) expect(error).toContain(part);
  });

  it("answers 401 when the body Username is not the caller", async () => {
    const { handler } = setup();
    const body = { Username: "bob", Site: BERLIN, CommandParams: VALID_PARAMS[command] };
    expect(await handler(command, body, { username: "alice" })).toEqual({
      status: 401,
      body: { Error: "Invalid authentication key." },
    });
  });

  it.each([
    ["a site the user may not use", "bob", HQ],
    ["a site that does not exist", "alice", "Nowhere"],
    ["a user with no sites", "carol", HQ],
    ["a user unknown to the backend", "mallory", HQ],
    ["a site name in another case", "alice", "hq"],
  ])("answers the same no-access failure for %s", async (_name, user, site) => {
    const { call, backend } = setup();
    const response = await call(command, VALID_PARAMS[command], { user, site });
    expect(response).toEqual({
      status: 200,
      body: FAILURE[command]!(`User '${user}' has no access to site '${site}'.`),
    });
    expect(backend.runs()).toEqual([]);
    expect(backend.notes()).toEqual([]);
  });

  it.each([command, command.toLowerCase(), command.toUpperCase()])(
    "matches the name %s case-insensitively",
    async (name) => {
      const { call } = setup();
      const response = await call(name, VALID_PARAMS[command]);
      expect(response.status).toBe(200);
      expect((response.body as { error: string }).error).toBe("");
    },
  );
});

describe("unknown command", () => {
  it.each(["GetIncidents", "", "GetIncidentTimelineEntriesX", "__proto__", "constructor"])(
    "answers 404 for %j",
    async (name) => {
      const { handler } = setup();
      expect(
        await handler(name, { Username: "alice", Site: HQ, CommandParams: {} }, { username: "alice" }),
      ).toEqual({
        status: 404,
        body: { Error: `Unknown command '${name}'.` },
      });
    },
  );

  it("answers 404 before looking at the body", async () => {
    const { handler } = setup();
    expect((await handler("Nope", INVALID_JSON, { username: "alice" })).status).toBe(404);
  });
});

describe("unexpected failures", () => {
  function failingBackend(method: keyof Backend): Backend {
    const { backend } = setup();
    return new Proxy(backend, {
      get(target, key, receiver) {
        if (key === method) return async () => Promise.reject(new Error("database is down"));
        return Reflect.get(target, key, receiver);
      },
    });
  }

  it.each([
    ["findUser", "GetIncidentTimelineEntries"],
    ["findSite", "AddNotesToArtifacts"],
    ["timelineEntries", "GetIncidentTimelineEntries"],
    ["findFirstIncident", "TriggerIncidentExternalAction"],
    ["recordPlaybookRun", "TriggerIncidentExternalAction"],
    ["appendNote", "AddNotesToArtifacts"],
  ] as const)("answers 500 when %s fails in %s, and reports it", async (method, command) => {
    const errors: unknown[] = [];
    const contexts: unknown[] = [];
    const handler = createCommandHandler(failingBackend(method), {
      onError: (error, context) => {
        errors.push(error);
        contexts.push(context);
      },
    });
    const response = await handler(
      command,
      { Username: "alice", Site: HQ, CommandParams: VALID_PARAMS[command] },
      { username: "alice" },
    );
    expect(response).toEqual({ status: 500, body: { Error: "Unexpected Error." } });
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe("database is down");
    expect(contexts).toEqual([{ command, username: "alice" }]);
    expect(JSON.stringify(response.body)).not.toContain("database");
  });

  it("still answers 500 when the onError hook throws", async () => {
    const handler = createCommandHandler(failingBackend("findUser"), {
      onError: () => {
        throw new Error("logger broken");
      },
    });
    const response = await handler(
      "GetIncidentTimelineEntries",
      { Username: "alice", Site: HQ, CommandParams: VALID_PARAMS.GetIncidentTimelineEntries },
      { username: "alice" },
    );
    expect(response).toEqual({ status: 500, body: { Error: "Unexpected Error." } });
  });

  it("answers 500 when a backend throws synchronously", async () => {
    const { backend } = setup();
    const errors: unknown[] = [];
    const handler = createCommandHandler(
      {
        ...backend,
        findUser: () => {
          throw new TypeError("boom");
        },
      },
      { onError: (e) => errors.push(e) },
    );
    const response = await handler(
      "AddNotesToArtifacts",
      { Username: "alice", Site: HQ, CommandParams: {} },
      { username: "alice" },
    );
    expect(response).toEqual({ status: 500, body: { Error: "Unexpected Error." } });
    expect(errors).toHaveLength(1);
  });
});
