/**
 * A small, readable dataset for the command tests, and helpers to call the handler.
 */

import { type CommandHandlerOptions, createCommandHandler } from "../../src/commands/handler.js";
import type { CommandResponse } from "../../src/commands/handler-types.js";
import type { Dataset } from "../../src/commands/memory/dataset.js";
import { createMemoryBackend, type MemoryBackend } from "../../src/commands/memory/memory-backend.js";

export const HQ = "HQ";
export const BERLIN = "Berlin";
export const NO_ZONE = "No Zone";

/** The fixed time of the test clock: 2024-03-10T07:30:00Z (03:30 AM in New York, 08:30 AM in Berlin). */
export const NOW = new Date("2024-03-10T07:30:00Z");

export const DATASET: Dataset = {
  sites: [
    { name: HQ, timeZone: "America/New_York" },
    { name: BERLIN, timeZone: "Europe/Berlin" },
    { name: NO_ZONE },
  ],
  users: [
    { username: "alice", sites: [HQ, BERLIN, NO_ZONE] },
    { username: "bob", sites: [BERLIN] },
    { username: "carol", sites: [] },
  ],
  incidents: [
    {
      IncidentId: 1,
      Number: "20240101-1",
      Site: HQ,
      Title: "Credential phishing",
      Type: "Phishing",
      Severity: "High",
      Status: "Open",
      IngestionType: "Webhook",
      CreatedUtcTime: "2024-01-01T10:00:00Z",
    },
    {
      IncidentId: 2,
      Number: "20240101-2",
      Site: HQ,
      Title: "Trojan on WS-1",
      Type: "Malware",
      Severity: "High",
      Status: "In Progress",
      IngestionType: "Schedule Job",
      CreatedUtcTime: "2024-01-01T09:00:00Z",
    },
    {
      IncidentId: 3,
      Number: "20240102-1",
      Site: BERLIN,
      Title: "Phishing in Berlin",
      Type: "Phishing",
      Severity: "Low",
      Status: "Open",
      CreatedUtcTime: "2024-01-02T08:00:00Z",
    },
    {
      IncidentId: 4,
      Number: "20240103-1",
      Site: HQ,
      Title: "Unapproved tool",
      Type: "Policy Violation",
      Severity: "Medium",
      Status: "Closed",
      CreatedUtcTime: "2024-01-03T08:00:00Z",
    },
  ],
  timelineEntries: [
    entry(
      "20240101-1",
      HQ,
      11,
      "2024-01-01 05:10:00",
      "Alert raised",
      "Alert",
      ["Initial Access"],
      ["T1566 Phishing"],
      "System",
    ),
    entry("20240101-1", HQ, 12, "2024-01-01 05:40:00", "User interviewed", "Note", [], [], "alice"),
    entry(
      "20240101-1",
      HQ,
      10,
      "2024-01-01 05:40:00",
      "Sender blocked",
      "Task",
      ["Execution"],
      ["T1204 User Execution"],
      "bob",
    ),
    entry("20240101-1", HQ, 13, "2024-01-01 06:00:00", "Escalated to Tier 2", "Escalation", [], [], "alice"),
    entry(
      "20240102-1",
      BERLIN,
      20,
      "2024-01-02 09:00:00",
      "Alert raised",
      "Alert",
      ["Initial Access"],
      [],
      "System",
    ),
  ],
  playbooks: [
    { name: "Phishing Triage", triggers: ["On Incident External Action"], incidentTypes: ["Phishing"] },
    {
      name: "Enrichment",
      triggers: ["On Artifact Added", "On Incident External Action"],
      incidentTypes: ["Phishing", "Malware"],
    },
    { name: "Escalation Mail", triggers: ["On Incident Escalation"], incidentTypes: ["Phishing", "Malware"] },
    {
      name: "Berlin Privacy Review",
      triggers: ["On Incident External Action"],
      incidentTypes: ["Phishing"],
      sites: [BERLIN],
    },
  ],
  artifactTypes: [
    { id: 1, label: "IP Address" },
    { id: 2, label: "Domain" },
    { id: 6, label: "Hostname" },
  ],
  artifacts: [
    { name: "10.0.0.5", typeId: 1, site: HQ },
    { name: "corp.example", typeId: 2, site: HQ },
    { name: "corp.example", typeId: 6, site: HQ },
    {
      name: "berlin-host",
      typeId: 6,
      site: BERLIN,
      notes: [{ text: "old", author: "bob", time: "2024-01-01T00:00:00Z" }],
    },
    { name: "nozone-host", typeId: 6, site: NO_ZONE },
  ],
};

function entry(
  IncidentNumber: string,
  Site: string,
  TimelineID: number,
  Time: string,
  Summary: string,
  EventType: string,
  Tactic: string[],
  Technique: string[],
  Author: string,
) {
  return {
    IncidentNumber,
    Site,
    TimelineID,
    Time,
    Summary,
    Note: `${Summary} (note)`,
    EventType,
    Tactic,
    Technique,
    RiskLevel: "Medium",
    Description: `${Summary}.`,
    Author,
  };
}

/** A memory backend over `DATASET` with the clock fixed at `NOW`, and a handler over it. */
export function setup(options: CommandHandlerOptions = {}) {
  const backend: MemoryBackend = createMemoryBackend(DATASET, { clock: () => NOW });
  const errors: unknown[] = [];
  const handler = createCommandHandler(backend, { onError: (error) => errors.push(error), ...options });
  /** Calls a command as `caller` (default alice) with the envelope for `site` (default HQ). */
  const call = (
    command: string,
    params: unknown,
    { site = HQ, user = "alice" }: { site?: string; user?: string } = {},
  ) => handler(command, { Username: user, Site: site, CommandParams: params }, { username: user });
  return { backend, handler, call, errors };
}

/** The body of a response, for exact comparisons. */
export function bodyOf(response: CommandResponse): unknown {
  return response.body;
}

/**
 * The 200 answer of a command that succeeded (docs/semantics.md 3.2), written out here rather than taken
 * from the handler's own builders: `{ status: 200, body: { error: "", returnData: { Status: "Successful", Data } } }`.
 */
export function successful(data: unknown) {
  return { status: 200, body: { error: "", returnData: { Status: "Successful", Data: data } } };
}
