/**
 * A server implementer's first hour (the README's quick start shows this file; CI runs it, so it stays
 * true): parse untrusted Search Conditions, match them, index incidents, and answer the three commands over
 * your own data through the command handler.
 */

import { compile, IncidentSet, parseSearchConditions, safeParseSearchConditions } from "incident-query";
import { type Backend, createCommandHandler, type IncidentRecord } from "incident-query/commands";
import { expect, it } from "vitest";

// --- Search Conditions: parse once, then match, compiled or through an indexed set ---------------------
// Two sites; the earliest phishing incident of all is the other site's (EMEA SOC), not SOC's.
const incidents: IncidentRecord[] = [
  {
    IncidentId: 3,
    Number: "20240101-1",
    Site: "EMEA SOC",
    Title: "Phishing: payroll",
    Severity: "High",
    IngestionType: "Webhook",
    Type: "Phishing",
    CreatedUtcTime: "2024-01-01T08:00:00Z",
  },
  {
    IncidentId: 1,
    Number: "20240102-1",
    Site: "SOC",
    Title: "Phishing: invoice",
    Severity: "High",
    IngestionType: "Webhook",
    Type: "Phishing",
    CreatedUtcTime: "2024-01-02T09:00:00Z",
  },
  {
    IncidentId: 2,
    Number: "20240103-1",
    Site: "SOC",
    Title: "Malware on WS-12",
    Severity: "Critical",
    IngestionType: "File",
    Type: "Malware",
    CreatedUtcTime: "2024-01-03T10:30:00Z",
  },
];

const conditions = parseSearchConditions({
  IngestionType: "Webhook|File",
  Title: { $regex: "^Phish" },
  Severity: { $in: ["High", "Critical"] },
  CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } },
});
const isMatch = compile(conditions); // (incident) => boolean
const set = new IncidentSet(incidents); // indexed and columnar, every site; your objects are not modified

// Untrusted input: every problem, each with its path.
const bad = safeParseSearchConditions({ Severity: "Hihg", CreatedUtcTime: { $gt: "2024-01-01" } });
// bad.issues → [{ code: "unknown_label", path: ["Severity"], message: "… did you mean 'High'?" },
//               { code: "date_operand_required", path: ["CreatedUtcTime", "$gt"], message: "…" }]

// --- The three commands over your own data: implement Backend, hand it to the handler ----------------
const backend: Backend = {
  async findSite(name) {
    return name === "SOC" ? { name, timeZone: "Europe/Berlin" } : undefined;
  },
  async findUser(username) {
    return username === "analyst" ? { username, sites: ["SOC"] } : undefined;
  },
  async findIncidentByNumber(site, number) {
    return incidents.find((i) => i.Site === site && i.Number === number);
  },
  async findFirstIncident(site, condition, budget) {
    // Your database would translate the condition (incident-query/mongodb, /postgres); here: the set,
    // searched within the caller's site (never "the first of all sites, if it is ours").
    return set.findFirst(condition, { ...budget, site });
  },
  async timelineEntries() {
    return [];
  },
  async playbooksWithTrigger(_site, incident) {
    return incident.Type === "Phishing" ? [{ name: "Phishing Triage" }] : [];
  },
  async recordPlaybookRun() {
    return { runtimeId: ++lastRuntimeId };
  },
  async artifactTypes() {
    return [{ id: 1, label: "IP Address" }];
  },
  async findArtifacts(site, name) {
    return name === "203.0.113.9" ? [{ site, name, typeId: 1 }] : [];
  },
  async appendNote() {
    return { time: new Date("2024-05-01T12:00:00Z") };
  },
};
let lastRuntimeId = 0;
const handle = createCommandHandler(backend, { maxTimeMS: 2000 });

it("answers as the README says", async () => {
  expect(isMatch(incidents[0]!)).toBe(true);
  expect(set.findFirst(conditions)?.Site).toBe("EMEA SOC"); // the first of all sites
  expect(set.findFirst(conditions, { site: "SOC" })?.Number).toBe("20240102-1");
  expect(bad.success ? [] : bad.issues.map(({ code, path }) => ({ code, path }))).toEqual([
    { code: "unknown_label", path: ["Severity"] },
    { code: "date_operand_required", path: ["CreatedUtcTime", "$gt"] },
  ]);
  const answer = await handle(
    "TriggerIncidentExternalAction",
    {
      Username: "analyst",
      Site: "SOC",
      CommandParams: { "Search Conditions": { Type: "Phishing" }, "Trigger Data": { by: "README" } },
    },
    { username: "analyst" }, // the caller your authentication established
  );
  expect(answer).toEqual({
    status: 200,
    body: {
      error: "",
      returnData: {
        Status: "Successful",
        Data: {
          IncidentId: 1,
          IncidentNo: "20240102-1",
          TriggeredPlaybooks: [{ RuntimeId: 1, PlaybookName: "Phishing Triage" }],
        },
      },
    },
  });
});
