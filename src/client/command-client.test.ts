import { describe, expect, expectTypeOf, it } from "vitest";
import { BERLIN, HQ, setup } from "../../test/support/commands-fixtures.js";
import type { CommandHandler } from "../commands/handler-types.js";
import { INVALID_JSON } from "../commands/handler-types.js";
import type { TimelineEntryData, TriggeredIncidentData } from "../commands/wire.js";
import { CommandClientError, createCommandClient, parseRetryAfter } from "./command-client.js";

const KEYS: Record<string, string> = { "key-alice": "alice", "key-bob": "bob" };
const TOKENS: Record<string, string> = { "jwt-alice": "alice" };

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A fetch that authenticates like the server (d3key / d3jwt) and calls the handler. */
function fakeFetch(handler: CommandHandler, sent: Sent[] = []): typeof fetch {
  return async (input, init) => {
    const url = String(input);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    let body: unknown;
    try {
      body = JSON.parse(String(init?.body));
    } catch {
      body = INVALID_JSON;
    }
    sent.push({ url, headers, body });
    const match = /\/Command\/([^/]+)$/i.exec(new URL(url).pathname);
    if (init?.method !== "POST" || match === null)
      return Response.json({ Error: "Not found." }, { status: 404 });
    const user =
      headers.d3key !== undefined
        ? KEYS[headers.d3key]
        : headers.d3jwt !== undefined
          ? TOKENS[headers.d3jwt]
          : undefined;
    if (user === undefined) return Response.json({ Error: "Invalid authentication key." }, { status: 401 });
    const answer = await handler(decodeURIComponent(match[1]!), body, { username: user });
    return Response.json(answer.body, { status: answer.status });
  };
}

function client(overrides: Record<string, unknown> = {}, sent: Sent[] = []) {
  const { handler, backend } = setup();
  return {
    backend,
    sent,
    client: createCommandClient({
      baseUrl: "https://soar.example/api/",
      apiKey: "key-alice",
      username: "alice",
      site: HQ,
      fetch: fakeFetch(handler, sent),
      ...overrides,
    } as Parameters<typeof createCommandClient>[0]),
  };
}

describe("createCommandClient", () => {
  it("refuses options without exactly one credential or with a bad base URL", () => {
    const base = { baseUrl: "https://x.example", username: "a", site: "s" };
    expect(() => createCommandClient(base as never)).toThrow(TypeError);
    expect(() => createCommandClient({ ...base, apiKey: "k", jwt: "j" } as never)).toThrow(TypeError);
    expect(() => createCommandClient({ ...base, baseUrl: "not a url", apiKey: "k" })).toThrow(TypeError);
  });

  it("sends the envelope with the d3key header to {baseUrl}/Command/{Name} and returns returnData", async () => {
    const { client: c, sent } = client();
    const returnData = await c.getIncidentTimelineEntries({
      incidentNumber: "20240101-1",
      filter: "alice",
      sortOrder: "DESC",
    });
    expect(returnData.Status).toBe("Successful");
    expect(returnData.Data.map((e) => e.TimelineID)).toEqual([13, 12]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("https://soar.example/api/Command/GetIncidentTimelineEntries");
    expect(sent[0]!.headers).toMatchObject({ d3key: "key-alice", "content-type": "application/json" });
    expect(sent[0]!.headers.d3jwt).toBeUndefined();
    expect(sent[0]!.body).toEqual({
      Username: "alice",
      Site: HQ,
      CommandParams: { "Incident Number": "20240101-1", Filter: "alice", "Sort Order": "DESC" },
    });
  });

  it("sends a JWT in the d3jwt header", async () => {
    const { client: c, sent } = client({ apiKey: undefined, jwt: "jwt-alice" });
    await c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
    expect(sent[0]!.headers.d3jwt).toBe("jwt-alice");
    expect(sent[0]!.headers.d3key).toBeUndefined();
    expect(sent[0]!.body).toMatchObject({ CommandParams: { "Incident Number": "20240101-1" } });
  });

  it("triggers and returns the typed returnData", async () => {
    const { client: c, backend } = client();
    const returnData = await c.triggerIncidentExternalAction({
      searchConditions: { Severity: "High" },
      triggerData: { ticket: 7 },
    });
    expect(returnData).toEqual({
      Status: "Successful",
      Data: {
        IncidentId: 2,
        IncidentNo: "20240101-2",
        TriggeredPlaybooks: [{ RuntimeId: 1, PlaybookName: "Enrichment" }],
      },
    });
    expect(backend.runs()[0]!.triggerData).toEqual({ ticket: 7 });
  });

  it("adds a note, in the call's site when one is given", async () => {
    const { client: c, sent } = client();
    const answer = await c.addNotesToArtifacts(
      { artifactName: "berlin-host", artifactType: "Hostname", note: "n" },
      { site: BERLIN },
    );
    expect(answer.returnData).toBe("Successful");
    expect(answer.contextData).toEqual([
      {
        "Artifact Name": "berlin-host",
        "Artifact Type": "Hostname",
        Note: "n",
        LastModifiedLocalDate: "03/10/2024 08:30 AM",
        Result: "Successful",
      },
    ]);
    expect(answer.result).toContain("<table>");
    expect(sent[0]!.body).toMatchObject({ Site: BERLIN });
  });

  it("throws a CommandClientError with status 200 for a command-level error", async () => {
    const { client: c } = client();
    const error = await c.getIncidentTimelineEntries({ incidentNumber: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandClientError);
    expect(error).toMatchObject({
      status: 200,
      command: "GetIncidentTimelineEntries",
      message: "Incident 'nope' was not found in site 'HQ'.",
    });
    expect((error as CommandClientError).body).toEqual({
      error: "Incident 'nope' was not found in site 'HQ'.",
      returnData: { Status: "Failed", Data: [] },
    });
  });

  it("throws a CommandClientError carrying the status and Error of a non-200 answer", async () => {
    const { client: c } = client({ apiKey: "wrong" });
    const error = await c.addNotesToArtifacts({ artifactName: "a", note: "n" }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "CommandClientError",
      status: 401,
      message: "Invalid authentication key.",
    });
  });

  it("gives the raw body through send, without checking error", async () => {
    const { client: c } = client();
    expect(await c.send("getincidenttimelineentries", {})).toEqual({
      error: "Missing required parameter 'Incident Number'.",
      returnData: { Status: "Failed", Data: [] },
    });
    await expect(c.send("NoSuchCommand", {})).rejects.toMatchObject({
      status: 404,
      message: "Unknown command 'NoSuchCommand'.",
    });
  });

  it("reports a failed request as status 0 with its cause", async () => {
    const cause = new TypeError("fetch failed");
    const c = createCommandClient({
      baseUrl: "https://x.example",
      apiKey: "k",
      username: "a",
      site: "s",
      fetch: async () => Promise.reject(cause),
    });
    const error = await c.send("AddNotesToArtifacts", {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, cause });
  });

  it("reports a 200 body that is not a JSON object", async () => {
    const c = createCommandClient({
      baseUrl: "https://x.example",
      apiKey: "k",
      username: "a",
      site: "s",
      fetch: async () => new Response("<html>proxy</html>", { status: 200 }),
    });
    await expect(c.getIncidentTimelineEntries({ incidentNumber: "1" })).rejects.toMatchObject({
      status: 200,
      message: "GetIncidentTimelineEntries answered 200 with a body that is not a JSON object.",
    });
  });

  it("has typed results", () => {
    const { client: c } = client();
    expectTypeOf(c.getIncidentTimelineEntries).returns.resolves.toEqualTypeOf<{
      Status: "Successful";
      Data: TimelineEntryData[];
    }>();
    expectTypeOf(c.triggerIncidentExternalAction).returns.resolves.toEqualTypeOf<{
      Status: "Successful";
      Data: TriggeredIncidentData;
    }>();
    // @ts-expect-error: incidentNumber is required
    void c.getIncidentTimelineEntries({ filter: "x" }).catch(() => {});
  });
});

describe("429 retries", () => {
  /** A fetch answering 429 `times` times (with the given Retry-After), then delegating. */
  function throttled(times: number, retryAfter: string | null, then: typeof fetch) {
    let calls = 0;
    const fetchImpl: typeof fetch = async (input, init) => {
      calls++;
      if (calls <= times) {
        return Response.json(
          { Error: "The request exceeds rate limits or is otherwise blocked by rate limiting policies." },
          { status: 429, headers: retryAfter === null ? {} : { "Retry-After": retryAfter } },
        );
      }
      return then(input, init);
    };
    return { fetchImpl, calls: () => calls };
  }

  function clientWith(fetchImpl: typeof fetch, extra: Record<string, unknown> = {}) {
    const waits: number[] = [];
    const c = createCommandClient({
      baseUrl: "https://soar.example",
      apiKey: "key-alice",
      username: "alice",
      site: HQ,
      fetch: fetchImpl,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...extra,
    } as Parameters<typeof createCommandClient>[0]);
    return { c, waits };
  }

  it("retries after Retry-After and then succeeds", async () => {
    const { handler } = setup();
    const t = throttled(2, "2", fakeFetch(handler));
    const { c, waits } = clientWith(t.fetchImpl);
    const returnData = await c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
    expect(returnData.Data).toHaveLength(4);
    expect(waits).toEqual([2000, 2000]);
    expect(t.calls()).toBe(3);
  });

  it("waits one second when Retry-After is absent", async () => {
    const { handler } = setup();
    const t = throttled(1, null, fakeFetch(handler));
    const { c, waits } = clientWith(t.fetchImpl);
    await c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
    expect(waits).toEqual([1000]);
  });

  it("gives up after maxRetries with the 429 status and message", async () => {
    const { handler } = setup();
    const t = throttled(100, "1", fakeFetch(handler));
    const { c, waits } = clientWith(t.fetchImpl, { maxRetries: 2 });
    const error = await c
      .getIncidentTimelineEntries({ incidentNumber: "20240101-1" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 429,
      retryAfterMs: 1000,
      message: "The request exceeds rate limits or is otherwise blocked by rate limiting policies.",
    });
    expect(waits).toEqual([1000, 1000]);
    expect(t.calls()).toBe(3);
  });

  it("does not wait longer than maxRetryDelayMs", async () => {
    const { handler } = setup();
    const t = throttled(1, "120", fakeFetch(handler));
    const { c, waits } = clientWith(t.fetchImpl, { maxRetryDelayMs: 30_000 });
    await expect(c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).rejects.toMatchObject({
      status: 429,
      retryAfterMs: 120_000,
    });
    expect(waits).toEqual([]);
    expect(t.calls()).toBe(1);
  });

  it("stops waiting when the call is aborted", async () => {
    const { handler } = setup();
    const t = throttled(1, "30", fakeFetch(handler));
    const c = createCommandClient({
      baseUrl: "https://soar.example",
      apiKey: "key-alice",
      username: "alice",
      site: HQ,
      fetch: t.fetchImpl,
    });
    const controller = new AbortController();
    const pending = c.getIncidentTimelineEntries(
      { incidentNumber: "20240101-1" },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("stop")), 10);
    await expect(pending).rejects.toThrow("stop");
    expect(t.calls()).toBe(1);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2024-01-01T00:00:00Z");
  it.each([
    [null, undefined],
    ["0", 0],
    ["3", 3000],
    [" 10 ", 10_000],
    ["Mon, 01 Jan 2024 00:00:05 GMT", 5000],
    ["Sun, 31 Dec 2023 23:59:00 GMT", 0],
    ["soon", undefined],
    ["-1", undefined],
    ["1.5", undefined],
  ])("%j → %j", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("createCommandClient over HTTP: the time limit of one answer (timeoutMs)", () => {
  const options = { baseUrl: "https://soar.example", apiKey: "key-alice", username: "alice", site: HQ };
  /** A fetch that never answers: it settles only when its signal aborts. */
  const silent: typeof fetch = (_url, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
    });

  it("fails with a CommandClientError of status 0 when the server never answers", async () => {
    const c = createCommandClient({ ...options, fetch: silent, timeoutMs: 50 });
    // The message names the limit that fired; how late a busy machine fires it is no verdict.
    const error = await c
      .getIncidentTimelineEntries({ incidentNumber: "20240101-1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandClientError);
    expect((error as CommandClientError).status).toBe(0);
    expect((error as Error).message).toBe(
      "The request to GetIncidentTimelineEntries took longer than 50 ms.",
    );
  });

  it("counts the body too: headers that arrive, then a body that stalls", async () => {
    const stalling: typeof fetch = async (_url, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"error":'));
          init?.signal?.addEventListener("abort", () => controller.error(init.signal?.reason), {
            once: true,
          });
        },
      });
      return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
    };
    const c = createCommandClient({ ...options, fetch: stalling, timeoutMs: 50 });
    await expect(c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).rejects.toThrow(
      "took longer than 50 ms",
    );
  });

  it("leaves the caller's own abort as it is", async () => {
    const c = createCommandClient({ ...options, fetch: silent, timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = c.getIncidentTimelineEntries(
      { incidentNumber: "20240101-1" },
      { signal: controller.signal },
    );
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("refuses a time limit that is not a positive number", () => {
    for (const timeoutMs of [0, -1, Number.NaN, "30" as unknown as number]) {
      expect(() => createCommandClient({ ...options, fetch: silent, timeoutMs }), String(timeoutMs)).toThrow(
        /'timeoutMs' must be a positive number/,
      );
    }
    expect(() =>
      createCommandClient({ ...options, fetch: silent, timeoutMs: Number.POSITIVE_INFINITY }),
    ).not.toThrow();
  });
});

describe("createCommandClient over HTTP: the size limit of one answer (maxResponseBytes)", () => {
  const options = { baseUrl: "https://soar.example", apiKey: "key-alice", username: "alice", site: HQ };
  const ok = '{"returnData":{"Status":"Successful","Data":[]},"error":""}';

  /** A fetch answering `chunks` as a stream (no Content-Length), recording whether the body was cancelled. */
  function streaming(chunks: () => Iterable<Uint8Array>) {
    const state = { pulled: 0, cancelled: false };
    const fetchImpl: typeof fetch = async () => {
      const source = chunks()[Symbol.iterator]();
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = source.next();
          if (next.done) controller.close();
          else {
            state.pulled += next.value.byteLength;
            controller.enqueue(next.value);
          }
        },
        cancel() {
          state.cancelled = true;
        },
      });
      return new Response(body, { status: 200 });
    };
    return { fetchImpl, state };
  }

  it("reads an answer up to the limit", async () => {
    const bytes = new TextEncoder().encode(ok);
    const { fetchImpl } = streaming(() => [bytes.subarray(0, 5), bytes.subarray(5)]);
    const c = createCommandClient({ ...options, fetch: fetchImpl, maxResponseBytes: bytes.length });
    await expect(c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).resolves.toMatchObject({
      Data: [],
    });
  });

  it("stops reading an endless body past the limit and closes it", async () => {
    const { fetchImpl, state } = streaming(function* () {
      for (;;) yield new Uint8Array(64 * 1024).fill(0x20);
    });
    const c = createCommandClient({ ...options, fetch: fetchImpl, maxResponseBytes: 1_000_000 });
    const pending = c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
    await expect(pending).rejects.toBeInstanceOf(CommandClientError);
    await expect(pending).rejects.toMatchObject({
      status: 0,
      message: "The answer to GetIncidentTimelineEntries is longer than 1000000 bytes; it was not read.",
    });
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(1_000_000 + 3 * 64 * 1024);
  });

  it("refuses at once a body whose Content-Length is over the limit", async () => {
    let cancelled = false;
    const fetchImpl: typeof fetch = async () =>
      new Response(
        new ReadableStream({
          cancel() {
            cancelled = true;
          },
        }),
        { status: 200, headers: { "content-length": "2000" } },
      );
    const c = createCommandClient({ ...options, fetch: fetchImpl, maxResponseBytes: 1999 });
    await expect(c.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).rejects.toMatchObject({
      status: 0,
      message: "The answer to GetIncidentTimelineEntries is longer than 1999 bytes; it was not read.",
    });
    expect(cancelled).toBe(true);
  });

  it("counts bytes, not characters, and decodes UTF-8 split across chunks", async () => {
    const text = '{"returnData":{"Status":"Successful","Data":[{"Note":"é€😀"}]},"error":""}';
    const bytes = new TextEncoder().encode(text);
    const chunks = [...bytes].map((b) => new Uint8Array([b]));
    const c1 = createCommandClient({
      ...options,
      fetch: streaming(() => chunks).fetchImpl,
      maxResponseBytes: bytes.length,
    });
    await expect(c1.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).resolves.toMatchObject({
      Data: [{ Note: "é€😀" }],
    });
    const c2 = createCommandClient({
      ...options,
      fetch: streaming(() => chunks).fetchImpl,
      maxResponseBytes: text.length,
    });
    await expect(c2.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).rejects.toMatchObject({
      status: 0,
    });
  });

  it("refuses a size limit that is not a positive number", () => {
    for (const maxResponseBytes of [0, -1, Number.NaN, "30" as unknown as number]) {
      expect(
        () => createCommandClient({ ...options, fetch: streaming(() => []).fetchImpl, maxResponseBytes }),
        String(maxResponseBytes),
      ).toThrow(/'maxResponseBytes' must be a positive number/);
    }
  });
});
