/**
 * The typed client of the commands issue used against the reference server over real HTTP: each command,
 * a command-level failure, a 401, a JWT, and a 429 retried after `Retry-After`.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CommandClientError, createCommandClient } from "../../src/client/index.js";
import { createMemoryBackend } from "../../src/commands/index.js";
import { BERLIN, KEYS, type RunningServer, SOC, startServer, TEST_DATASET } from "./fixtures.js";

const SECRET = "client-test-secret-0123456789";
let running: RunningServer;
const backend = createMemoryBackend(TEST_DATASET);
beforeAll(async () => {
  running = await startServer({ backend, basePath: "/VSOC/api", jwt: { secret: SECRET } });
});
afterAll(async () => {
  await running.server.close();
});

const client = () =>
  createCommandClient({
    baseUrl: `${running.url}/VSOC/api`,
    apiKey: KEYS.analyst,
    username: "analyst",
    site: SOC,
  });

describe("createCommandClient against the server", () => {
  it("reads timeline entries", async () => {
    const answer = await client().getIncidentTimelineEntries({
      incidentNumber: "20240101-1",
      sortOrder: "DESC",
    });
    expect(answer.Status).toBe("Successful");
    expect(answer.Data.map((entry) => entry.TimelineID)).toEqual([2, 1]);
  });

  it("triggers the external action", async () => {
    const answer = await client().triggerIncidentExternalAction({
      searchConditions: { Severity: { $in: ["Critical"] } },
      triggerData: { from: "client" },
    });
    expect(answer.Data).toMatchObject({ IncidentId: 102, IncidentNo: "20240102-1" });
    expect(answer.Data.TriggeredPlaybooks.map((p) => p.PlaybookName)).toEqual(["Notify Owner"]);
  });

  it("adds a note, on another site given per call", async () => {
    const before = backend.notes().length;
    const answer = await client().addNotesToArtifacts({
      artifactName: "dup",
      artifactType: "Domain",
      note: "from the client",
    });
    expect(answer.contextData[0]).toMatchObject({ "Artifact Name": "dup", "Artifact Type": "Domain" });
    expect(backend.notes().length).toBe(before + 1);
    await expect(
      client().getIncidentTimelineEntries({ incidentNumber: "20240103-1" }, { site: BERLIN }),
    ).resolves.toMatchObject({ Status: "Successful", Data: [] });
  });

  it("raises a command-level failure as CommandClientError with status 200", async () => {
    const error = await client()
      .getIncidentTimelineEntries({ incidentNumber: "nope" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandClientError);
    expect((error as CommandClientError).status).toBe(200);
    expect((error as CommandClientError).message).toContain("nope");
  });

  it("raises 401 for a wrong key, and works with a JWT", async () => {
    const wrong = createCommandClient({
      baseUrl: `${running.url}/VSOC/api`,
      apiKey: "wrong",
      username: "analyst",
      site: SOC,
    });
    const error = await wrong
      .getIncidentTimelineEntries({ incidentNumber: "20240101-1" })
      .catch((e: unknown) => e);
    expect((error as CommandClientError).status).toBe(401);

    const jwt = await new SignJWT({ sub: "lead" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("1m")
      .sign(new TextEncoder().encode(SECRET));
    const lead = createCommandClient({
      baseUrl: `${running.url}/VSOC/api`,
      jwt,
      username: "lead",
      site: SOC,
    });
    await expect(lead.getIncidentTimelineEntries({ incidentNumber: "20240101-1" })).resolves.toMatchObject({
      Status: "Successful",
    });
  });

  it("retries a 429 after the server's Retry-After", async () => {
    // A window of 3 s: the second request falls in it even on a busy machine, so it is limited.
    const limited = await startServer({ rateLimit: 1, rateLimitWindowMs: 3_000 });
    try {
      const waits: number[] = [];
      const limitedClient = createCommandClient({
        baseUrl: limited.url,
        apiKey: KEYS.analyst,
        username: "analyst",
        site: SOC,
        sleep: (ms) => {
          waits.push(ms);
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      });
      await limitedClient.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
      await limitedClient.getIncidentTimelineEntries({ incidentNumber: "20240101-1" });
      expect(waits.length).toBeGreaterThanOrEqual(1);
      expect(waits[0]).toBeGreaterThanOrEqual(1000);
    } finally {
      await limited.server.close();
    }
  });
});
