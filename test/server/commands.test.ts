/**
 * The three commands end to end over real HTTP on 127.0.0.1 (server on port 0, the real handler and the
 * memory backend over the test dataset): the success bodies, every row of docs/semantics.md 3, and the
 * transport rows of 3.1 that do not concern credentials (see auth.test.ts, rate-limit.test.ts).
 */
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryBackend } from "../../src/commands/index.js";
import {
  BERLIN,
  envelope,
  KEYS,
  post,
  type RunningServer,
  SOC,
  send,
  startServer,
  TEST_DATASET,
} from "./fixtures.js";

const BAD_BODY_TEXT = '{"Error":"The body of the request must be a valid JSON object"}';

let running: RunningServer;
const backend = createMemoryBackend(TEST_DATASET, { clock: () => new Date("2024-05-01T12:34:00Z") });
beforeAll(async () => {
  running = await startServer({ backend });
});
afterAll(async () => {
  await running.server.close();
});

describe("GetIncidentTimelineEntries", () => {
  const entry = (id: number) => {
    const {
      IncidentNumber: _n,
      Site: _s,
      ...fields
    } = TEST_DATASET.timelineEntries!.find((e) => e.TimelineID === id)!;
    return fields;
  };

  it("answers the entries, sorted and filtered", async () => {
    const all = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope({ "Incident Number": "20240101-1" }),
    );
    expect(all.status).toBe(200);
    expect(all.json).toEqual({ error: "", returnData: { Status: "Successful", Data: [entry(1), entry(2)] } });

    const desc = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope({ "Incident Number": "20240101-1", "Sort Order": "desc" }),
    );
    expect(desc.json).toEqual({
      error: "",
      returnData: { Status: "Successful", Data: [entry(2), entry(1)] },
    });

    const filtered = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope({ "Incident Number": "20240101-1", Filter: "  GATEWAY " }),
    );
    expect(filtered.json).toEqual({ error: "", returnData: { Status: "Successful", Data: [entry(2)] } });
  });

  it.each([
    [{}, "Missing required parameter 'Incident Number'."],
    [
      { "Incident Number": "20240101-9" },
      "Incident '20240101-9' was not found in site 'Security Operations'.",
    ],
  ])("fails with 200 and a message for %j", async (params, message) => {
    const answer = await post(running.url, "GetIncidentTimelineEntries", envelope(params));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ error: message, returnData: { Status: "Failed", Data: [] } });
  });

  it("fails for an unknown Sort Order token, naming the accepted ones", async () => {
    const answer = await post(
      running.url,
      "GetIncidentTimelineEntries",
      envelope({ "Incident Number": "20240101-1", "Sort Order": "newest" }),
    );
    expect(answer.status).toBe(200);
    const body = answer.json as { error: string; returnData: unknown };
    expect(body.error).toMatch(/ASC/);
    expect(body.returnData).toEqual({ Status: "Failed", Data: [] });
  });
});

describe("TriggerIncidentExternalAction", () => {
  it("fires the trigger's playbooks of the first matching incident", async () => {
    const runsBefore = backend.runs().length;
    const answer = await post(
      running.url,
      "TriggerIncidentExternalAction",
      envelope({
        "Search Conditions": { Type: "Phishing", CreatedUtcTime: { $gt: { $date: "2023-12-31T00:00:00Z" } } },
        "Trigger Data": { ticket: "INC-1", nested: { ok: true } },
      }),
    );
    expect(answer.status).toBe(200);
    const body = answer.json as {
      error: string;
      returnData: {
        Status: string;
        Data: {
          IncidentId: number;
          IncidentNo: string;
          TriggeredPlaybooks: { RuntimeId: number; PlaybookName: string }[];
        };
      };
    };
    expect(body.error).toBe("");
    expect(body.returnData.Status).toBe("Successful");
    expect(body.returnData.Data.IncidentId).toBe(101);
    expect(body.returnData.Data.IncidentNo).toBe("20240101-1");
    const playbooks = body.returnData.Data.TriggeredPlaybooks;
    expect(playbooks.map((p) => p.PlaybookName).sort()).toEqual(["Notify Owner", "Phishing Response"]);
    const ids = playbooks.map((p) => p.RuntimeId);
    expect(ids.every(Number.isInteger)).toBe(true);
    expect(new Set(ids).size).toBe(2);
    const runs = backend.runs().slice(runsBefore);
    expect(runs.map((r) => r.runtimeId)).toEqual(ids);
    expect(
      runs.every((r) => JSON.stringify(r.triggerData) === '{"ticket":"INC-1","nested":{"ok":true}}'),
    ).toBe(true);
  });

  it("fires the playbooks on another site of the user", async () => {
    const answer = await post(
      running.url,
      "TriggerIncidentExternalAction",
      envelope({ "Search Conditions": { Number: "20240103-1" }, "Trigger Data": {} }, "analyst", BERLIN),
    );
    const data = (answer.json as { returnData: { Data: { TriggeredPlaybooks: { PlaybookName: string }[] } } })
      .returnData.Data;
    expect(data).toMatchObject({ IncidentId: 201, IncidentNo: "20240103-1" });
    expect(data.TriggeredPlaybooks.map((p) => p.PlaybookName).sort()).toEqual([
      "Notify Owner",
      "Phishing Response",
    ]);
  });

  it("succeeds with no playbooks for an incident without a playbook of the trigger", async () => {
    const answer = await post(
      running.url,
      "TriggerIncidentExternalAction",
      envelope({ "Search Conditions": { Type: "Facility" }, "Trigger Data": {} }),
    );
    expect(answer.json).toEqual({
      error: "",
      returnData: {
        Status: "Successful",
        Data: { IncidentId: 103, IncidentNo: "20240104-1", TriggeredPlaybooks: [] },
      },
    });
  });

  it.each([
    [
      { "Search Conditions": { Number: "nope" }, "Trigger Data": {} },
      /^No incident matches the Search Conditions\.$/,
    ],
    [{ "Trigger Data": {} }, /'Search Conditions'/],
    [{ "Search Conditions": { Number: "20240101-1" } }, /'Trigger Data'/],
    [{ "Search Conditions": {}, "Trigger Data": {} }, /./],
    [{ "Search Conditions": { Severity: "Hgh" }, "Trigger Data": {} }, /Severity.*did you mean 'High'/],
    [{ "Search Conditions": { Title: { $where: "1" } }, "Trigger Data": {} }, /\$where/],
  ])("fails with 200 and a message for %j", async (params, message) => {
    const answer = await post(running.url, "TriggerIncidentExternalAction", envelope(params));
    expect(answer.status).toBe(200);
    const body = answer.json as { error: string; returnData: unknown };
    expect(body.error).toMatch(message);
    expect(body.returnData).toEqual({ Status: "Failed", Data: {} });
  });
});

describe("AddNotesToArtifacts", () => {
  it("stores the note and answers the context item and the HTML table", async () => {
    const notesBefore = backend.notes().length;
    const answer = await post(
      running.url,
      "AddNotesToArtifacts",
      envelope({ "Artifact Name": "10.0.0.5", "Artifact Type": "ip address", Note: "Seen <b>twice</b>" }),
    );
    expect(answer.status).toBe(200);
    const body = answer.json as { result: string; error: string; returnData: string; contextData: unknown[] };
    expect(body.error).toBe("");
    expect(body.returnData).toBe("Successful");
    expect(body.contextData).toEqual([
      {
        "Artifact Name": "10.0.0.5",
        "Artifact Type": "IP Address",
        Note: "Seen <b>twice</b>",
        LastModifiedLocalDate: "05/01/2024 12:34 PM",
        Result: "Successful",
      },
    ]);
    expect(body.result).toContain("Seen &lt;b&gt;twice&lt;/b&gt;");
    expect(body.result).not.toContain("<b>");
    expect(backend.notes().slice(notesBefore)).toEqual([
      expect.objectContaining({ artifactName: "10.0.0.5", text: "Seen <b>twice</b>", author: "analyst" }),
    ]);
  });

  it.each([
    [{ "Artifact Name": "nope", Note: "n" }, /nope/],
    [{ "Artifact Name": "dup", Note: "n" }, /Artifact Type/],
    [{ "Artifact Name": "10.0.0.5" }, /'Note'/],
    [{ "Artifact Name": "10.0.0.5", Note: "" }, /Note/],
    [{ Note: "n" }, /'Artifact Name'/],
  ])("fails with 200 and a message for %j", async (params, message) => {
    const answer = await post(running.url, "AddNotesToArtifacts", envelope(params));
    expect(answer.status).toBe(200);
    const body = answer.json as { error: string };
    expect(body.error).toMatch(message);
    expect(answer.json).toEqual({ result: "", error: body.error, returnData: "Failed", contextData: [] });
  });
});

describe("site access (docs/semantics.md 3)", () => {
  it.each([
    ["GetIncidentTimelineEntries", { Status: "Failed", Data: [] }],
    ["TriggerIncidentExternalAction", { Status: "Failed", Data: {} }],
    ["AddNotesToArtifacts", "Failed"],
  ])(
    "%s: a site the user may not use and a site that does not exist get the same answer",
    async (command, returnData) => {
      for (const site of [BERLIN, "No Such Site"]) {
        const answer = await post(
          running.url,
          command,
          envelope({ "Incident Number": "20240103-1" }, "lead", site),
          { d3key: KEYS.lead },
        );
        expect(answer.status).toBe(200);
        const body = answer.json as { error: string; returnData: unknown };
        expect(body.error).toBe(`User 'lead' has no access to site '${site}'.`);
        expect(body.returnData).toEqual(returnData);
      }
    },
  );
});

describe("transport (docs/semantics.md 3.1)", () => {
  const ok = envelope({ "Incident Number": "20240101-1" });

  it.each([
    ["/Command/GetIncidentTimelineEntries"],
    ["/command/getincidenttimelineentries"],
    ["/COMMAND/GETINCIDENTTIMELINEENTRIES"],
    ["/Command/GetIncidentTimelineEntries?x=1"],
  ])("routes %s", async (path) => {
    const answer = await send(`${running.url}${path}`, {
      headers: { d3key: KEYS.analyst, "content-type": "application/json" },
      body: JSON.stringify(ok),
    });
    expect(answer.status).toBe(200);
    expect((answer.json as { error: string }).error).toBe("");
  });

  it("answers 404 with the unknown command's name", async () => {
    const answer = await post(running.url, "DeleteEverything", ok);
    expect(answer.status).toBe(404);
    expect(answer.text).toBe(`{"Error":"Unknown command 'DeleteEverything'."}`);
  });

  it.each([["GET"], ["PUT"], ["DELETE"], ["PATCH"], ["OPTIONS"]])("answers 405 to %s", async (method) => {
    const stranger = await send(`${running.url}/Command/GetIncidentTimelineEntries`, { method });
    expect(stranger.status).toBe(401); // authentication comes first, whatever the method
    const answer = await send(`${running.url}/Command/GetIncidentTimelineEntries`, {
      method,
      headers: { d3key: KEYS.analyst },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
    expect(Object.keys(answer.json as object)).toEqual(["Error"]);
  });

  it.each([
    ["/"],
    ["/Command"],
    ["/Command/"],
    ["/api/Command/GetIncidentTimelineEntries"],
    ["/Command/A/B"],
  ])("answers 404 with an Error body for %s", async (path) => {
    const answer = await send(`${running.url}${path}`, { headers: { d3key: KEYS.analyst }, body: "{}" });
    expect(answer.status).toBe(404);
    expect(Object.keys(answer.json as object)).toEqual(["Error"]);
  });

  it("ignores envelope fields other than Username, Site and CommandParams (the Sentinel connector's Timestamp)", async () => {
    const answer = await post(running.url, "GetIncidentTimelineEntries", {
      ...ok,
      Timestamp: "2024-05-01T12:34:00Z",
      Extra: { nested: [1, 2] },
      username: "someone-else",
    });
    expect(answer.status).toBe(200);
    expect((answer.json as { error: string }).error).toBe("");
  });

  it.each([
    ["101 characters", "A".repeat(101)],
    ["8,000 characters", "B".repeat(8_000)],
    ["an encoded slash and spaces", "a%2Fb%20c"],
  ])("answers a command name of %s: 401 to a stranger, 404 once authenticated", async (_name, name) => {
    const stranger = await post(running.url, name, ok, { d3key: "not-a-key" });
    expect(stranger.status).toBe(401);
    expect(stranger.text).toBe('{"Error":"Invalid authentication key."}');
    const caller = await post(running.url, name, ok);
    expect(caller.status).toBe(404);
    expect(Object.keys(caller.json as object)).toEqual(["Error"]);
    expect((caller.json as { Error: string }).Error).toMatch(/^Unknown command '/);
  });

  it("answers 415 to a gzip body, with an Error body, and stores nothing", async () => {
    const { gzipSync } = await import("node:zlib");
    const notes = backend.notes().length;
    const answer = await send(`${running.url}/Command/AddNotesToArtifacts`, {
      headers: { d3key: KEYS.analyst, "content-type": "application/json", "content-encoding": "gzip" },
      body: new Uint8Array(
        gzipSync(JSON.stringify(envelope({ "Artifact Name": "10.0.0.5", Note: "zipped" }))),
      ) as Uint8Array<ArrayBuffer>,
    });
    expect(answer.status).toBe(415);
    expect(answer.text).toBe(
      '{"Error":"The Content-Encoding \'gzip\' is not supported: send the body uncompressed (identity)."}',
    );
    expect(backend.notes()).toHaveLength(notes);
  });

  it.each([[3_000], [100_000]])(
    "answers 400 naming the limit to a body nested %i levels deep",
    async (depth) => {
      const body = `{"Username":"analyst","Site":"${SOC}","CommandParams":{"Search Conditions":${"[".repeat(depth)}${"]".repeat(depth)},"Trigger Data":{}}}`;
      const answer = await post(running.url, "TriggerIncidentExternalAction", body);
      expect(answer.status).toBe(400);
      expect(answer.text).toBe(
        '{"Error":"The body of the request is nested deeper than 256 levels of objects and arrays."}',
      );
    },
  );

  it("answers GET /healthz with 200 and no credential", async () => {
    const answer = await send(`${running.url}/healthz`, { method: "GET" });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ status: "ok" });
  });

  it.each(["POST", "PUT", "DELETE", "PATCH"])(
    "answers %s /healthz 405 with Allow: GET, HEAD (the path exists)",
    async (method) => {
      const answer = await send(`${running.url}/HealthZ`, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.get("allow")).toBe("GET, HEAD");
      expect(answer.json).toEqual({ Error: `Method ${method} is not allowed: /healthz answers GET.` });
    },
  );

  const badBodies: [string, string | undefined, string | Uint8Array<ArrayBuffer> | undefined][] = [
    ["invalid JSON", "application/json", '{"Username": '],
    ["an array", "application/json", "[1, 2]"],
    ["a string", "application/json", '"text"'],
    ["a number", "application/json", "42"],
    ["null", "application/json", "null"],
    ["an empty body", "application/json", ""],
    ["no body at all", undefined, undefined],
    ["a form Content-Type", "application/x-www-form-urlencoded", JSON.stringify(ok)],
    ["a text/plain Content-Type", "text/plain", JSON.stringify(ok)],
    ["bytes that are not UTF-8", "application/json", new Uint8Array([0x7b, 0xff, 0x7d])],
  ];
  it.each(badBodies)(
    "answers the exact 400 body for %s, for every command",
    async (_name, contentType, body) => {
      for (const command of [
        "GetIncidentTimelineEntries",
        "TriggerIncidentExternalAction",
        "AddNotesToArtifacts",
      ]) {
        const answer = await send(`${running.url}/Command/${command}`, {
          headers: {
            d3key: KEYS.analyst,
            ...(contentType === undefined ? {} : { "content-type": contentType }),
          },
          ...(body === undefined ? {} : { body }),
        });
        expect(answer.status).toBe(400);
        expect(answer.text).toBe(BAD_BODY_TEXT);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it("reads a body without Content-Type as JSON", async () => {
    const answer = await send(`${running.url}/Command/GetIncidentTimelineEntries`, {
      headers: { d3key: KEYS.analyst },
      body: new TextEncoder().encode(JSON.stringify(ok)),
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    [{ Site: SOC, CommandParams: {} }, /Username/],
    [{ Username: "analyst", CommandParams: {} }, /Site/],
    [{ Username: "analyst", Site: "", CommandParams: {} }, /Site/],
    [{ Username: "analyst", Site: SOC }, /CommandParams/],
    [{ Username: "analyst", Site: SOC, CommandParams: [] }, /CommandParams/],
    [{ Username: 7, Site: SOC, CommandParams: {} }, /Username/],
  ])("answers 400 naming the envelope field for %j", async (body, field) => {
    const answer = await post(running.url, "GetIncidentTimelineEntries", body);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json as object)).toEqual(["Error"]);
    expect((answer.json as { Error: string }).Error).toMatch(field);
  });

  /** Writes raw bytes on a fresh connection and reads until the server closes it. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const { port } = new URL(running.url);
      const socket = connect(Number(port), "127.0.0.1", () => socket.write(bytes));
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });

  it.each([
    ["a request line that is not HTTP", "GARBAGE\r\n\r\n", "400"],
    [
      "headers over the size limit, from a caller with a valid credential",
      `POST /Command/X HTTP/1.1\r\nHost: a\r\nd3key: ${KEYS.analyst}\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`,
      "431",
    ],
    [
      "headers over the size limit on a command path, from a stranger (authentication first)",
      `POST /Command/X HTTP/1.1\r\nHost: a\r\nd3key: wrong\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`,
      "401",
    ],
    [
      "headers over the size limit elsewhere",
      `POST /other HTTP/1.1\r\nHost: a\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`,
      "431",
    ],
    // Node answers these two itself, before Fastify, with an empty body unless told otherwise.
    ["an HTTP/1.1 request without Host", "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", "400"],
    [
      "an Expect the server cannot meet",
      `POST /Command/X HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      "417",
    ],
  ])("answers %s with an Error body, not Fastify's shape", async (_name, bytes, status) => {
    const text = await raw(bytes);
    expect(text.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as object;
    expect(Object.keys(body)).toEqual(["Error"]);
  });

  it("reads a chunked body without Content-Type as JSON", async () => {
    const body = JSON.stringify(ok);
    const text = await raw(
      "POST /Command/GetIncidentTimelineEntries HTTP/1.1\r\nHost: a\r\nConnection: close\r\n" +
        `d3key: ${KEYS.analyst}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(text.startsWith("HTTP/1.1 200 ")).toBe(true);
  });

  it("answers 413 with an Error body over the body limit", async () => {
    const big = JSON.stringify(envelope({ "Incident Number": "x".repeat(1_100_000) }));
    const answer = await post(running.url, "GetIncidentTimelineEntries", big);
    expect(answer.status).toBe(413);
    expect(Object.keys(answer.json as object)).toEqual(["Error"]);
  });
});

describe("base path and unexpected errors", () => {
  it("serves under --base-path only", async () => {
    const scoped = await startServer({ basePath: "/VSOC/api" });
    try {
      const body = envelope({ "Incident Number": "20240101-1" });
      expect((await post(`${scoped.url}/VSOC/api`, "GetIncidentTimelineEntries", body)).status).toBe(200);
      expect((await post(`${scoped.url}/vsoc/API`, "GetIncidentTimelineEntries", body)).status).toBe(200);
      expect((await post(scoped.url, "GetIncidentTimelineEntries", body)).status).toBe(404);
    } finally {
      await scoped.server.close();
    }
  });

  it("answers 500 Unexpected Error when the backend fails; the details and request id go to the log", async () => {
    const lines: string[] = [];
    const failing = createMemoryBackend(TEST_DATASET);
    failing.timelineEntries = async () => {
      throw new Error("disk on fire");
    };
    const broken = await startServer({
      backend: failing,
      logger: { stream: { write: (line) => lines.push(line) } },
    });
    try {
      const answer = await post(
        broken.url,
        "GetIncidentTimelineEntries",
        envelope({ "Incident Number": "20240101-1" }),
      );
      expect(answer.status).toBe(500);
      expect(answer.text).toBe('{"Error":"Unexpected Error."}');
      const requestId = answer.headers.get("x-request-id");
      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      const error = logged.find((line) => JSON.stringify(line).includes("disk on fire"));
      expect(error?.reqId).toBe(requestId);
      expect(error?.level).toBe(50);
    } finally {
      await broken.server.close();
    }
  });
});
