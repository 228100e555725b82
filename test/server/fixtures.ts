/**
 * Shared fixtures of the end-to-end server tests: a small dataset, servers on 127.0.0.1 port 0, and a
 * `post` helper over the real network stack (Node's fetch).
 */
import type { FastifyInstance } from "fastify";
import type { Dataset } from "../../src/commands/index.js";
import { createServer, type ServerOptions } from "../../src/server/index.js";

export const SOC = "Security Operations";
export const BERLIN = "Berlin Lab";
export const KEYS = { analyst: "analyst-key-0123456789", lead: "lead-key-9876543210" } as const;

/** Two sites, two users (the lead may not use Berlin Lab), four incidents, entries, playbooks, artifacts. */
export const TEST_DATASET: Dataset = {
  sites: [{ name: SOC }, { name: BERLIN, timeZone: "Europe/Berlin" }],
  users: [
    { username: "analyst", sites: [SOC, BERLIN] },
    { username: "lead", sites: [SOC] },
  ],
  incidents: [
    {
      IncidentId: 101,
      Number: "20240101-1",
      Site: SOC,
      Title: "Phishing mail reported",
      Type: "Phishing",
      Severity: "High",
      Status: "Open",
      IngestionType: "Webhook",
      CreatedUtcTime: "2024-01-01T08:00:00Z",
    },
    {
      IncidentId: 102,
      Number: "20240102-1",
      Site: SOC,
      Title: "Malware on host",
      Type: "Malware",
      Severity: "Critical",
      Status: "In Progress",
      IngestionType: "Schedule Job",
      CreatedUtcTime: "2024-01-02T08:00:00Z",
    },
    {
      IncidentId: 103,
      Number: "20240104-1",
      Site: SOC,
      Title: "Badge reader offline",
      Type: "Facility",
      Severity: "Informational",
      Status: "On Hold",
      IngestionType: "Manual Creation",
      CreatedUtcTime: "2024-01-04T08:00:00Z",
    },
    {
      IncidentId: 201,
      Number: "20240103-1",
      Site: BERLIN,
      Title: "Phishing in the lab",
      Type: "Phishing",
      Severity: "Low",
      Status: "Open",
      IngestionType: "Manual Creation",
      CreatedUtcTime: "2024-01-03T08:00:00Z",
    },
  ],
  timelineEntries: [
    {
      IncidentNumber: "20240101-1",
      Site: SOC,
      TimelineID: 1,
      Time: "2024-01-01 08:00:00",
      Summary: "Mail reported",
      Note: "User forwarded the mail",
      EventType: "Report",
      Tactic: ["Initial Access"],
      Technique: ["T1566"],
      RiskLevel: "High",
      Description: "A user reported a phishing mail.",
      Author: "analyst",
    },
    {
      IncidentNumber: "20240101-1",
      Site: SOC,
      TimelineID: 2,
      Time: "2024-01-01 09:30:00",
      Summary: "Sender blocked",
      Note: "Blocked at the gateway",
      EventType: "Containment",
      Tactic: [],
      Technique: [],
      RiskLevel: "Medium",
      Description: "The sender domain was blocked.",
      Author: "lead",
    },
  ],
  playbooks: [
    { name: "Phishing Response", triggers: ["On Incident External Action"], incidentTypes: ["Phishing"] },
    {
      name: "Notify Owner",
      triggers: ["On Incident External Action"],
      incidentTypes: ["Phishing", "Malware"],
    },
    { name: "Nightly Report", triggers: ["On Schedule"], incidentTypes: ["Phishing"] },
  ],
  artifactTypes: [
    { id: 1, label: "IP Address" },
    { id: 2, label: "Domain" },
  ],
  artifacts: [
    { name: "10.0.0.5", typeId: 1, site: SOC },
    { name: "evil.example", typeId: 2, site: SOC },
    { name: "dup", typeId: 1, site: SOC },
    { name: "dup", typeId: 2, site: SOC },
  ],
};

/** A server on 127.0.0.1, port 0, with its base URL; close it with `server.close()`. */
export interface RunningServer {
  readonly server: FastifyInstance;
  readonly url: string;
}

/** Starts a server over the test dataset (unless `options` names another handler, backend or dataset). */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const server = createServer({
    dataset: TEST_DATASET,
    apiKeys: [
      { username: "analyst", key: KEYS.analyst },
      { username: "lead", key: KEYS.lead },
    ],
    ...options,
  });
  await server.listen({ host: "127.0.0.1", port: 0 });
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { server, url: `http://127.0.0.1:${address.port}` };
}

/** An HTTP answer: status, headers, raw text and the parsed JSON body (or `undefined`). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

/** Sends one request and reads the answer whole. */
export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? "POST",
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** POSTs a JSON body to a command with an API key (of `user`, default analyst). */
export function post(
  base: string,
  command: string,
  body: unknown,
  headers: Record<string, string> = { d3key: KEYS.analyst },
): Promise<Answer> {
  return send(`${base}/Command/${command}`, {
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The envelope of a request of `user` on `site`. */
export const envelope = (CommandParams: unknown, Username = "analyst", Site = SOC) => ({
  Username,
  Site,
  CommandParams,
});
