/**
 * Rate limiting per credential (docs/semantics.md 3.1: 429 with the specification's body and `Retry-After`)
 * and the request log (one structured line per request, never a credential), over real HTTP.
 */
import { describe, expect, it } from "vitest";
import { envelope, KEYS, post, send, startServer } from "./fixtures.js";

const RATE_LIMITED =
  '{"Error":"The request exceeds rate limits or is otherwise blocked by rate limiting policies."}';
const timeline = envelope({ "Incident Number": "20240101-1" });

describe("rate limit", () => {
  it("answers 429 with Retry-After after the limit, per user, and again after the window", async () => {
    // A window of 5 s: the six requests below fit in it on a busy machine (milliseconds each), and the
    // test still sees it end.
    const { server, url } = await startServer({ rateLimit: 3, rateLimitWindowMs: 5_000 });
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await post(url, "GetIncidentTimelineEntries", timeline);
        expect(answer.status).toBe(200);
        expect(answer.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
      }
      const limited = await post(url, "GetIncidentTimelineEntries", timeline);
      expect(limited.status).toBe(429);
      expect(limited.text).toBe(RATE_LIMITED);
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(5);

      // Every command shares the user's budget, whatever the body.
      expect((await post(url, "AddNotesToArtifacts", "not json")).status).toBe(429);
      // Another user has a budget of its own.
      const lead = await post(url, "GetIncidentTimelineEntries", envelope(timeline.CommandParams, "lead"), {
        d3key: KEYS.lead,
      });
      expect(lead.status).toBe(200);

      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
      expect((await post(url, "GetIncidentTimelineEntries", timeline)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("limits failed authentications per client address, so keys cannot be guessed at line speed", async () => {
    const { server, url } = await startServer({ rateLimit: 2 });
    try {
      expect((await post(url, "GetIncidentTimelineEntries", timeline, { d3key: "guess-1" })).status).toBe(
        401,
      );
      expect((await post(url, "GetIncidentTimelineEntries", timeline, { d3key: "guess-2" })).status).toBe(
        401,
      );
      const third = await post(url, "GetIncidentTimelineEntries", timeline, { d3key: "guess-3" });
      expect(third.status).toBe(429);
      expect(third.text).toBe(RATE_LIMITED);
      expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
      // Past the address's budget a right key is answered as the wrong ones were: a guess that happens to be
      // right must not stand out (the budget of an authenticated user is counted apart, per user).
      const right = await post(url, "GetIncidentTimelineEntries", timeline);
      expect(right.status).toBe(429);
      expect(right.text).toBe(RATE_LIMITED);
    } finally {
      await server.close();
    }
  });
});

describe("request log", () => {
  it("writes one JSON line per request with id, command, status and time, and never a credential", async () => {
    const lines: string[] = [];
    const { server, url } = await startServer({
      logger: { stream: { write: (line) => lines.push(line) } },
    });
    try {
      const ok = await post(url, "GetIncidentTimelineEntries", timeline);
      const bad = await post(url, "AddNotesToArtifacts", "[]");
      const denied = await post(url, "TriggerIncidentExternalAction", timeline, {
        d3jwt: "some.secret.token",
      });
      await send(`${url}/healthz?d3key=${KEYS.lead}`, { method: "GET" });
      // The log line follows the answer: wait for the fourth (bounded: 600 polls, a hang guard).
      const logged = () => lines.filter((line) => line.includes('"msg":"request"')).length;
      for (let i = 0; i < 600 && logged() < 4; i++) await new Promise((resolve) => setTimeout(resolve, 50));

      const requests = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === "request");
      expect(requests).toHaveLength(4);
      expect(requests[0]).toMatchObject({
        reqId: ok.headers.get("x-request-id"),
        method: "POST",
        path: "/Command/GetIncidentTimelineEntries",
        command: "GetIncidentTimelineEntries",
        user: "analyst",
        status: 200,
      });
      expect(typeof requests[0]?.ms).toBe("number");
      expect(requests[1]).toMatchObject({ reqId: bad.headers.get("x-request-id"), status: 400 });
      expect(requests[2]).toMatchObject({
        reqId: denied.headers.get("x-request-id"),
        status: 401,
        authFailure: "jwt_not_configured",
      });
      expect(requests[3]).toMatchObject({ path: "/healthz", status: 200 });

      const everything = lines.join("\n");
      expect(everything).not.toContain(KEYS.analyst);
      expect(everything).not.toContain(KEYS.lead);
      expect(everything).not.toContain("some.secret.token");
    } finally {
      await server.close();
    }
  });
});
