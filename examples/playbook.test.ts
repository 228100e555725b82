/**
 * A playbook author's unit test (CI runs it, so it stays true). The code under test talks to the SOAR
 * through the typed client; the test runs it against the in-memory backend, in process (no server, no
 * port), with a hook that plays the triggered playbook's part.
 */
import { type CommandClient, CommandClientError, createCommandClient } from "incident-query/client";
import {
  buildDataset,
  buildTimelineEntry,
  createCommandHandler,
  createMemoryBackend,
  FIXTURE_SITE,
  FIXTURE_USER,
} from "incident-query/commands";
import { beforeEach, describe, expect, it } from "vitest";

/** The code under test: starts containment of the first open high-severity phishing incident. */
async function containPhishing(client: CommandClient, senderIp: string) {
  const { Data } = await client.triggerIncidentExternalAction({
    searchConditions: { Type: "Phishing", Severity: "High", Status: "Open" },
    triggerData: { action: "contain", senderIp },
  });
  await client.addNotesToArtifacts({
    artifactName: senderIp,
    note: `Containment of ${Data.IncidentNo} started.`,
  });
  return Data;
}

// The data: only what the test cares about; the builders fill in every other field.
const backend = createMemoryBackend(
  buildDataset({
    incidents: [
      { Type: "Phishing", Severity: "Low" },
      { Type: "Phishing", Severity: "High" }, // 20240101-2: the one to contain
    ],
    artifacts: [{ name: "203.0.113.9" }],
    playbooks: [
      { name: "Contain Phishing", triggers: ["On Incident External Action"], incidentTypes: ["Phishing"] },
    ],
  }),
  {
    clock: () => new Date("2024-05-01T12:00:00Z"),
    // The playbook's side effects, as the real one would have them.
    onPlaybookRun: (run, b) => {
      b.updateIncident(run.site, run.incidentNumber, { Status: "In Progress" });
      b.addTimelineEntry(
        buildTimelineEntry({
          IncidentNumber: run.incidentNumber,
          TimelineID: 100,
          Summary: "Sender blocked",
        }),
      );
    },
  },
);
const client = createCommandClient({
  handler: createCommandHandler(backend),
  username: FIXTURE_USER,
  site: FIXTURE_SITE,
});

beforeEach(() => backend.reset());

describe("containPhishing", () => {
  it("triggers the playbook on the high-severity incident and notes the sender", async () => {
    const data = await containPhishing(client, "203.0.113.9");

    expect(data).toEqual({
      IncidentId: 2,
      IncidentNo: "20240101-2",
      TriggeredPlaybooks: [{ RuntimeId: 1, PlaybookName: "Contain Phishing" }],
    });
    expect(backend.runs().map((run) => run.triggerData)).toEqual([
      { action: "contain", senderIp: "203.0.113.9" },
    ]);
    expect(backend.notes().map((note) => note.text)).toEqual(["Containment of 20240101-2 started."]);
    const timeline = await client.getIncidentTimelineEntries({ incidentNumber: "20240101-2" });
    expect(timeline.Data.map((entry) => entry.Summary)).toEqual(["Sender blocked"]);
  });

  it("finds nothing to contain once the incident is in progress", async () => {
    await containPhishing(client, "203.0.113.9");
    const error = await containPhishing(client, "203.0.113.9").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandClientError);
    expect(error).toMatchObject({ status: 200, message: "No incident matches the Search Conditions." });
  });
});
