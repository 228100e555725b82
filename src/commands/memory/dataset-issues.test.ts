/**
 * Dataset issues are data: each code, a dataset that produces it, and the path it is reported at; every
 * message is one sentence that names what was expected and what was found.
 */
import { describe, expect, it } from "vitest";
import { MAX_DATASET_DEPTH, MAX_DATASET_ISSUES, parseDataset, validateDataset } from "./dataset.js";
import type { DatasetDuplicate, DatasetIssue, DatasetIssueCode } from "./dataset-issues.js";
import { datasetIssueMessage } from "./dataset-issues.js";

const SITES = [{ name: "HQ" }];
const INCIDENT = { IncidentId: 1, Number: "1", Site: "HQ" };
const ENTRY = { IncidentNumber: "1", Site: "HQ", TimelineID: 1, Time: "2024-01-01 00:00:00" };

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { d: value };
  return value;
}

interface Case {
  /** Validated with `validateDataset`, or parsed with `parseDataset` when a string. */
  readonly input: unknown;
  readonly path: readonly (string | number)[];
  /** Text the message must contain: how it names what was found. */
  readonly found: string;
}

/** One case per code; a `Record` over the codes, so that a new code without a case does not compile. */
const CASES: Record<DatasetIssueCode, Case> = {
  invalid_json: { input: "{ sites: [", path: [], found: "text that is not JSON" },
  invalid_type: { input: { sites: [{ name: 5 }] }, path: ["sites", 0, "name"], found: "the number 5" },
  missing_field: { input: { sites: [{}] }, path: ["sites", 0, "name"], found: "found nothing" },
  unknown_key: {
    input: { sites: [{ name: "HQ", zone: "UTC" }] },
    path: ["sites", 0, "zone"],
    found: "'zone'",
  },
  forbidden_key: {
    input: {
      sites: SITES,
      incidents: [JSON.parse('{"IncidentId":1,"Number":"1","Site":"HQ","__proto__":{}}')],
    },
    path: ["incidents", 0, "__proto__"],
    found: "'__proto__'",
  },
  too_deep: {
    input: { sites: SITES, incidents: [{ ...INCIDENT, Custom: nested(MAX_DATASET_DEPTH + 5) }] },
    path: ["incidents", 0, "Custom", ...Array<string>(MAX_DATASET_DEPTH - 1).fill("d")],
    found: "found more",
  },
  invalid_time_zone: {
    input: { sites: [{ name: "HQ", timeZone: "Mars/Base" }] },
    path: ["sites", 0, "timeZone"],
    found: "'Mars/Base'",
  },
  invalid_time: {
    input: {
      sites: SITES,
      incidents: [INCIDENT],
      timelineEntries: [{ ...ENTRY, Time: "2024-01-01T00:00:00Z" }],
    },
    path: ["timelineEntries", 0, "Time"],
    found: '"2024-01-01T00:00:00Z"',
  },
  field_type: {
    input: { sites: SITES, incidents: [{ ...INCIDENT, CreatedUtcTime: "yesterday" }] },
    path: ["incidents", 0, "CreatedUtcTime"],
    found: '"yesterday"',
  },
  unknown_label: {
    input: { sites: SITES, incidents: [{ ...INCIDENT, Status: "Opne" }] },
    path: ["incidents", 0, "Status"],
    found: '"Opne"',
  },
  unknown_site: {
    input: {
      sites: SITES,
      playbooks: [{ name: "P", triggers: [], incidentTypes: [], sites: ["HQ", "Moon"] }],
    },
    path: ["playbooks", 0, "sites", 1],
    found: "'Moon'",
  },
  unknown_incident: {
    input: { sites: SITES, incidents: [INCIDENT], timelineEntries: [{ ...ENTRY, IncidentNumber: "9" }] },
    path: ["timelineEntries", 0, "IncidentNumber"],
    found: "'9'",
  },
  unknown_artifact_type: {
    input: { sites: SITES, artifacts: [{ name: "a", typeId: 9, site: "HQ" }] },
    path: ["artifacts", 0, "typeId"],
    found: "id 9",
  },
  duplicate: {
    input: {
      sites: SITES,
      users: [
        { username: "a", sites: [] },
        { username: "a", sites: ["HQ"] },
      ],
    },
    path: ["users", 1, "username"],
    found: "'a'",
  },
  numeric_label: {
    input: { artifactTypes: [{ id: 1, label: " 42 " }] },
    path: ["artifactTypes", 0, "label"],
    found: "' 42 '",
  },
  more_issues: {
    input: { incidents: Array.from({ length: MAX_DATASET_ISSUES + 3 }, () => 1) },
    path: [],
    found: "3 more",
  },
};

function issuesOf(input: unknown): DatasetIssue[] {
  const result = typeof input === "string" ? parseDataset(input) : validateDataset(input);
  if (result.ok) throw new Error("expected issues");
  return result.issues;
}

/** One sentence: a capital letter or a quote first, one final period, no sentence break inside. */
function expectOneSentence(message: string): void {
  expect(message).toMatch(/^[A-Z0-9'"]/);
  expect(message).toMatch(/[^.]\.$/);
  expect(message).not.toMatch(/\n/);
  expect(message.slice(0, -1)).not.toMatch(/[.!?]\s+[A-Z]/);
}

describe("dataset issue codes", () => {
  it.each(Object.entries(CASES))(
    "%s: reported at its path, one sentence naming what was found",
    (code, c) => {
      const issues = issuesOf(c.input);
      const issue = code === "more_issues" ? issues.at(-1)! : issues[0]!;
      expect({ code: issue.code, path: issue.path }).toEqual({ code, path: c.path });
      expectOneSentence(issue.message);
      expect(issue.message).toContain(c.found);
      // What was expected: said outright, or by the first word for duplicates and the count of the rest.
      if (code === "duplicate") expect(issue.message).toMatch(/^Duplicate /);
      else if (code !== "more_issues") expect(issue.message).toMatch(/expected/i);
    },
  );

  it("lists the problems of a large dataset in the same order as their records, the count last", () => {
    const issues = issuesOf(CASES.more_issues.input);
    expect(issues).toHaveLength(MAX_DATASET_ISSUES + 1);
    expect(issues.slice(0, 3).map((i) => i.path)).toEqual([
      ["incidents", 0],
      ["incidents", 1],
      ["incidents", 2],
    ]);
    expect(issues.at(-1)).toEqual({
      code: "more_issues",
      path: [],
      message: "3 more problems were found and not listed.",
    });
  });

  const duplicates: [DatasetDuplicate, string][] = [
    [{ what: "site name", name: "HQ" }, "Duplicate site name 'HQ'."],
    [{ what: "username", name: "a" }, "Duplicate username 'a'."],
    [{ what: "IncidentId", id: 7 }, "Duplicate IncidentId 7."],
    [
      { what: "incident Number", number: "20240101-2", site: "Security Operations" },
      "Duplicate incident Number '20240101-2' in site 'Security Operations'.",
    ],
    [{ what: "TimelineID", id: 3, incident: "1" }, "Duplicate TimelineID 3 in incident '1'."],
    [{ what: "playbook name", name: "P" }, "Duplicate playbook name 'P'."],
    [{ what: "artifact type id", id: 1 }, "Duplicate artifact type id 1."],
    [
      { what: "artifact type label", label: "ip" },
      "Duplicate artifact type label 'ip' (labels are compared ignoring case).",
    ],
    [
      { what: "artifact", name: "a", typeId: 1, site: "HQ" },
      "Duplicate artifact 'a' of type id 1 in site 'HQ'.",
    ],
  ];
  it.each(duplicates)("words the duplicate %j with its scope", (duplicate, message) => {
    expect(datasetIssueMessage({ code: "duplicate", ...duplicate })).toBe(message);
  });

  it("reports every duplicate kind at its path in a dataset", () => {
    const issues = issuesOf({
      sites: [{ name: "HQ" }, { name: "HQ" }],
      users: [
        { username: "u", sites: [] },
        { username: "u", sites: [] },
      ],
      incidents: [INCIDENT, { ...INCIDENT }],
      timelineEntries: [ENTRY, { ...ENTRY }],
      playbooks: [
        { name: "P", triggers: [], incidentTypes: [] },
        { name: "P", triggers: [], incidentTypes: [] },
      ],
      artifactTypes: [
        { id: 1, label: "IP" },
        { id: 1, label: "ip" },
      ],
      artifacts: [
        { name: "a", typeId: 1, site: "HQ" },
        { name: "a", typeId: 1, site: "HQ" },
      ],
    });
    expect(issues.map((i) => [i.code, i.path])).toEqual([
      ["duplicate", ["sites", 1, "name"]],
      ["duplicate", ["users", 1, "username"]],
      ["duplicate", ["incidents", 1, "IncidentId"]],
      ["duplicate", ["incidents", 1, "Number"]],
      ["duplicate", ["timelineEntries", 1, "TimelineID"]],
      ["duplicate", ["playbooks", 1, "name"]],
      ["duplicate", ["artifactTypes", 1, "id"]],
      ["duplicate", ["artifactTypes", 1, "label"]],
      ["duplicate", ["artifacts", 1]],
    ]);
    for (const issue of issues) expectOneSentence(issue.message);
  });

  it("gives every issue of a dataset with many problems a code and a one-sentence message", () => {
    const issues = issuesOf({
      extra: 1,
      sites: [{ name: "HQ", timeZone: "" }, "HQ", { name: " " }],
      users: [{ username: "u", sites: "HQ" }, { sites: [1, ""] }],
      incidents: [{ IncidentId: 0, Number: 1, Site: "Moon", Title: [], Custom: () => 1, Severity: null }],
      timelineEntries: [{ ...ENTRY, TimelineID: 1.5, Tactic: [""], Summary: 3, Time: "2024-02-30 00:00:00" }],
      playbooks: [{ name: "P", triggers: "x" }],
      artifactTypes: [{ id: -1, label: 3 }],
      artifacts: [
        { name: "a", typeId: 1, site: "Moon", notes: [{ text: "t", author: "a", time: "now" }, 5] },
      ],
    });
    expect(issues.length).toBeGreaterThan(15);
    for (const issue of issues) {
      expect(issue.code).toMatch(/^[a-z_]+$/);
      expectOneSentence(issue.message);
      expect(issue.message).toMatch(/expected/i);
    }
  });
});
