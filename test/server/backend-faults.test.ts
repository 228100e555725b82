/**
 * What the server answers when its backend fails (docs/semantics.md 3.1, "When the data cannot be
 * reached"): a `BackendUnavailableError` (nothing was done) is 503 with `Retry-After` and the
 * exact sentence; any other rejection is 500 `Unexpected Error.`; a backend that never answers is 500 at
 * `commandTimeoutMs` (default `requestTimeoutMs`), never a hang. The real databases are attacked in
 * `test/postgres/faults.test.ts`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type Backend, BackendUnavailableError, createMemoryBackend } from "../../src/commands/index.js";
import { envelope, post, type RunningServer, startServer, TEST_DATASET } from "./fixtures.js";

const running: RunningServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.server.close();
});

/** The memory backend over the test dataset, with `findSite` replaced. */
function backendWith(findSite: Backend["findSite"]): Backend {
  const memory = createMemoryBackend(TEST_DATASET);
  return { ...memory, findSite };
}

const timeline = envelope({ "Incident Number": "20240101-1" });

describe("a backend that cannot be reached", () => {
  it("BackendUnavailableError is 503 with Retry-After and the exact sentence", async () => {
    const r = await startServer({
      backend: backendWith(async () => {
        throw new BackendUnavailableError("no connection", { retryAfterSeconds: 2.2 });
      }),
    });
    running.push(r);
    const answer = await post(r.url, "GetIncidentTimelineEntries", timeline);
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("3");
    expect(answer.text).toBe('{"Error":"The service is temporarily unavailable: retry after 3 seconds."}');
  });

  it("recognises the error of another copy of the library by its code", async () => {
    const foreign = Object.assign(new Error("elsewhere"), {
      code: "backend_unavailable",
      retryAfterSeconds: 1,
    });
    const r = await startServer({
      backend: backendWith(async () => {
        throw foreign;
      }),
    });
    running.push(r);
    const answer = await post(r.url, "GetIncidentTimelineEntries", timeline);
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(answer.json).toEqual({ Error: "The service is temporarily unavailable: retry after 1 second." });
  });

  it("any other rejection is 500 Unexpected Error., with no Retry-After", async () => {
    const r = await startServer({
      backend: backendWith(async () => {
        throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
      }),
    });
    running.push(r);
    const answer = await post(r.url, "GetIncidentTimelineEntries", timeline);
    expect(answer.status).toBe(500);
    expect(answer.headers.get("retry-after")).toBeNull();
    expect(answer.text).toBe('{"Error":"Unexpected Error."}');
  });

  it("a backend that never answers is 500 at commandTimeoutMs, and the server answers others meanwhile", async () => {
    let calls = 0;
    const r = await startServer({
      commandTimeoutMs: 300,
      backend: backendWith(async (name) => {
        calls++;
        if (calls === 1) return new Promise(() => {}); // never settles
        return { name };
      }),
    });
    running.push(r);
    const started = performance.now();
    const hung = post(r.url, "GetIncidentTimelineEntries", timeline);
    // While the first request hangs, a second one is answered.
    const other = await post(r.url, "GetIncidentTimelineEntries", timeline);
    expect(other.status).toBe(200);
    const answer = await hung;
    const elapsed = performance.now() - started;
    expect(answer.status).toBe(500);
    expect(answer.text).toBe('{"Error":"Unexpected Error."}');
    // Never before the timeout; how late a busy machine answers is no verdict (the test's timeout guards
    // against a hang).
    expect(elapsed).toBeGreaterThanOrEqual(290);
  });

  it("commandTimeoutMs defaults to requestTimeoutMs", async () => {
    // 2 s: long enough that a busy machine still delivers the request within it (a late request would be
    // 408). Which timeout cut the command is read from the server's log (it names the commandTimeoutMs in
    // force), not from the elapsed time, which a busy machine stretches.
    const lines: string[] = [];
    const r = await startServer({
      requestTimeoutMs: 2_000,
      backend: backendWith(() => new Promise(() => {})),
      logger: { stream: { write: (line: string) => lines.push(line) } },
    });
    running.push(r);
    const started = performance.now();
    const answer = await post(r.url, "GetIncidentTimelineEntries", timeline);
    expect(answer.status).toBe(500);
    // Never before the timeout (a lower bound, which load cannot break).
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_990);
    const late = lines.map((line) => JSON.parse(line) as { commandTimeoutMs?: number; msg?: string });
    expect(late.filter((entry) => entry.commandTimeoutMs !== undefined)).toEqual([
      expect.objectContaining({ commandTimeoutMs: 2_000, msg: "the command did not answer within 2000 ms" }),
    ]);
  });

  it("refuses a commandTimeoutMs that is not a positive integer", async () => {
    await expect(() => startServer({ commandTimeoutMs: 0 })).rejects.toThrow(
      /commandTimeoutMs must be a positive integer/,
    );
  });

  it("a command that succeeds is not touched by the deadline", async () => {
    const r = await startServer({ commandTimeoutMs: 5_000 });
    running.push(r);
    const answer = await post(r.url, "GetIncidentTimelineEntries", timeline);
    expect(answer.status).toBe(200);
    expect((answer.json as { returnData: { Status: string } }).returnData.Status).toBe("Successful");
  });
});
