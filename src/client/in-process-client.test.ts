/**
 * The in-process client (`createCommandClient({ handler })`) behaves as the HTTP client talking to a
 * server over the same handler: every call of a table gives the same result or the same
 * `CommandClientError` both ways. Plus what only the in-process form has: the caller option, JSON on the
 * way in and out, option errors.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { BERLIN, HQ, setup } from "../../test/support/commands-fixtures.js";
import { type CommandHandler, INVALID_JSON } from "../commands/handler-types.js";
import type { TimelineEntryData, TriggeredIncidentData } from "../commands/wire.js";
import { type CommandClient, CommandClientError, createCommandClient } from "./command-client.js";

/** A fetch that authenticates one API key as alice (as the server does) and calls the handler. */
function serverFetch(handler: CommandHandler): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (headers.get("d3key") !== "key-alice") {
      return Response.json({ Error: "Invalid authentication key." }, { status: 401 });
    }
    let body: unknown;
    try {
      body = JSON.parse(String(init?.body));
    } catch {
      body = INVALID_JSON;
    }
    const name = decodeURIComponent(/\/Command\/([^/]+)$/.exec(new URL(String(input)).pathname)![1]!);
    const answer = await handler(name, body, { username: "alice" });
    return Response.json(answer.body, { status: answer.status });
  };
}

/**
 * Both clients, each over its own fresh backend with the same data and clock, both authenticated as
 * alice (the HTTP one by its API key), sending `username` in the body.
 */
function bothClients(username = "alice") {
  const http = setup();
  const local = setup();
  return {
    http: createCommandClient({
      baseUrl: "https://soar.example/api",
      apiKey: "key-alice",
      username,
      site: HQ,
      fetch: serverFetch(http.handler),
    }),
    local: createCommandClient({ handler: local.handler, username, site: HQ, caller: { username: "alice" } }),
    localBackend: local.backend,
  };
}

/** The outcome of a call: its value, or the error's observable fields. */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await run() };
  } catch (error) {
    if (!(error instanceof CommandClientError)) return { thrown: String(error) };
    const { name, status, command, message, body, retryAfterMs } = error;
    return { error: { name, status, command, message, body, retryAfterMs } };
  }
}

const CALLS: [string, (c: CommandClient) => Promise<unknown>][] = [
  ["timeline", (c) => c.getIncidentTimelineEntries({ incidentNumber: "20240101-1", sortOrder: "DESC" })],
  [
    "timeline, filtered",
    (c) => c.getIncidentTimelineEntries({ incidentNumber: "20240101-1", filter: "ALICE" }),
  ],
  ["timeline of an unknown incident", (c) => c.getIncidentTimelineEntries({ incidentNumber: "nope" })],
  [
    "timeline, bad sort order",
    (c) => c.getIncidentTimelineEntries({ incidentNumber: "20240101-1", sortOrder: "up" }),
  ],
  [
    "timeline in a site the user may not use",
    (c) => c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" }, { site: "Elsewhere" }),
  ],
  [
    "trigger",
    (c) => c.triggerIncidentExternalAction({ searchConditions: { Severity: "High" }, triggerData: { t: 1 } }),
  ],
  [
    "trigger, OR of conditions",
    (c) =>
      c.triggerIncidentExternalAction({
        searchConditions: [{ Severity: "Low" }, { Type: "Phishing" }],
        triggerData: {},
      }),
  ],
  [
    "trigger, no match",
    (c) => c.triggerIncidentExternalAction({ searchConditions: { Severity: "Critical" }, triggerData: {} }),
  ],
  [
    "trigger, invalid conditions",
    (c) =>
      c.triggerIncidentExternalAction({ searchConditions: { Severity: { $regex: "(" } }, triggerData: {} }),
  ],
  ["note", (c) => c.addNotesToArtifacts({ artifactName: "10.0.0.5", note: "seen <b>twice</b>" })],
  [
    "note in another site",
    (c) =>
      c.addNotesToArtifacts({ artifactName: "berlin-host", artifactType: 6, note: "n" }, { site: BERLIN }),
  ],
  ["note, ambiguous artifact", (c) => c.addNotesToArtifacts({ artifactName: "corp.example", note: "n" })],
  ["send: raw body of a failure", (c) => c.send("GetIncidentTimelineEntries", {})],
  [
    "send: any case of the name",
    (c) => c.send("getincidenttimelineentries", { "Incident Number": "20240101-1" }),
  ],
  ["send: unknown command (404)", (c) => c.send("NoSuchCommand", {})],
];

describe("createCommandClient({ handler }): the same answers as over HTTP", () => {
  it.each(CALLS)("%s", async (_, run) => {
    const { http, local } = bothClients();
    const viaHttp = await outcome(() => run(http));
    const inProcess = await outcome(() => run(local));
    expect(viaHttp).not.toHaveProperty("thrown");
    expect(inProcess).toEqual(viaHttp);
  });

  it("a body Username that is not the caller is 401, as over HTTP", async () => {
    const { http, local } = bothClients("bob");
    const call = (c: CommandClient) => c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
    const inProcess = await outcome(() => call(local));
    expect(inProcess).toEqual(await outcome(() => call(http)));
    expect(inProcess).toMatchObject({ error: { status: 401, message: "Invalid authentication key." } });
  });
});

describe("the in-process client", () => {
  it("gives the handler the caller it is told to (default: the username)", async () => {
    const seen: unknown[] = [];
    const handler: CommandHandler = async (_command, body, caller) => {
      seen.push({ body, caller });
      return { status: 200, body: { error: "", returnData: { Status: "Successful", Data: [] } } };
    };
    await createCommandClient({ handler, username: "alice", site: HQ }).getIncidentTimelineEntries({
      incidentNumber: "1",
    });
    await createCommandClient({ handler, username: "alice", site: HQ, caller: { username: "mallory" } }).send(
      "GetIncidentTimelineEntries",
      {},
    );
    expect(seen).toEqual([
      {
        body: { Username: "alice", Site: HQ, CommandParams: { "Incident Number": "1" } },
        caller: { username: "alice" },
      },
      { body: { Username: "alice", Site: HQ, CommandParams: {} }, caller: { username: "mallory" } },
    ]);
  });

  it("sends the request and reads the answer through JSON, as on the wire", async () => {
    const { handler, backend } = setup();
    const client = createCommandClient({ handler, username: "alice", site: HQ });
    const when = new Date("2024-05-01T12:00:00Z");
    await client.triggerIncidentExternalAction({
      searchConditions: { Severity: "High" },
      triggerData: { when, skipped: undefined, nested: { n: 1 } },
    });
    expect(backend.runs()[0]!.triggerData).toEqual({ when: "2024-05-01T12:00:00.000Z", nested: { n: 1 } });

    const dated: CommandHandler = async () => ({
      status: 200,
      body: { error: "", returnData: { Status: "Successful", Data: [{ Time: when }] } },
    });
    const answer = await createCommandClient({
      handler: dated,
      username: "a",
      site: "s",
    }).getIncidentTimelineEntries({ incidentNumber: "1" });
    expect(answer.Data[0]!.Time).toBe("2024-05-01T12:00:00.000Z");
  });

  it("reports a 200 body that is not an object, and a non-200 body without Error", async () => {
    const notObject: CommandHandler = async () => ({ status: 200, body: [1] });
    await expect(
      createCommandClient({ handler: notObject, username: "a", site: "s" }).send("X", {}),
    ).rejects.toMatchObject({
      status: 200,
      message: "X answered 200 with a body that is not a JSON object.",
    });
    const bare: CommandHandler = async () => ({ status: 503, body: "busy" });
    await expect(
      createCommandClient({ handler: bare, username: "a", site: "s" }).send("X", {}),
    ).rejects.toMatchObject({ name: "CommandClientError", status: 503, message: "HTTP 503", body: "busy" });
  });

  it("rejects with the signal's reason when the call is aborted", async () => {
    const { handler } = setup();
    const client = createCommandClient({ handler, username: "alice", site: HQ });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      client.getIncidentTimelineEntries({ incidentNumber: "20240101-1" }, { signal: controller.signal }),
    ).rejects.toThrow("stop");
  });

  it("refuses a handler that is not a function, and a handler with HTTP options", () => {
    expect(() => createCommandClient({ handler: 1 as never, username: "a", site: "s" })).toThrow(
      "createCommandClient: 'handler' must be a command handler function.",
    );
    const { handler } = setup();
    expect(() => createCommandClient({ handler, username: "a", site: "s", apiKey: "k" } as never)).toThrow(
      /either 'handler' \(in process\) or 'baseUrl'/,
    );
    // @ts-expect-error: baseUrl belongs to the HTTP client
    expect(() => createCommandClient({ handler, username: "a", site: "s", baseUrl: "https://x" })).toThrow(
      TypeError,
    );
  });

  it("has the HTTP client's typed results", () => {
    const { handler } = setup();
    const client = createCommandClient({ handler, username: "alice", site: HQ });
    expectTypeOf(client.getIncidentTimelineEntries).returns.resolves.toEqualTypeOf<{
      Status: "Successful";
      Data: TimelineEntryData[];
    }>();
    expectTypeOf(client.triggerIncidentExternalAction).returns.resolves.toEqualTypeOf<{
      Status: "Successful";
      Data: TriggeredIncidentData;
    }>();
  });
});
