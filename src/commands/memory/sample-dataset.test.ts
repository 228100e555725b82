/**
 * The bundled sample dataset: valid, up to date with its generator, and as rich as the issue asks (two or
 * more sites in different time zones, 60 incidents using every documented field and label, timelines of
 * 5–40 entries with tactics and techniques, playbooks, artifact names shared across types). It also drives
 * the three commands end to end.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generateSampleDataset } from "../../../scripts/generate-sample-dataset.js";
import {
  INGESTION_TYPE_LABELS,
  SEVERITY_LABELS,
  STATUS_LABELS,
  TEXT_FIELDS,
} from "../../conditions/catalog.js";
import { createCommandHandler } from "../handler.js";
import { validateDataset } from "./dataset.js";
import { createMemoryBackend } from "./memory-backend.js";
import { loadSampleDataset } from "./sample-dataset.js";

const sample = loadSampleDataset();

describe("loadSampleDataset", () => {
  it("is valid and matches examples/sample-dataset.json", () => {
    const file = JSON.parse(
      readFileSync(new URL("../../../examples/sample-dataset.json", import.meta.url), "utf8"),
    );
    const validated = validateDataset(file);
    expect(validated.ok).toBe(true);
    if (validated.ok) expect(sample).toEqual(validated.dataset);
  });

  it("is what scripts/generate-sample-dataset.ts generates (re-run it after changing the script)", () => {
    const file = JSON.parse(
      readFileSync(new URL("../../../examples/sample-dataset.json", import.meta.url), "utf8"),
    );
    expect(generateSampleDataset()).toEqual(file);
  });

  it("ships its incidents as examples/incidents.json for the CLI's match command", () => {
    const file = JSON.parse(
      readFileSync(new URL("../../../examples/incidents.json", import.meta.url), "utf8"),
    );
    expect(file).toEqual(generateSampleDataset().incidents);
  });

  it("returns a fresh copy on every call", () => {
    const a = loadSampleDataset();
    (a.incidents as unknown[]).length = 0;
    expect(loadSampleDataset().incidents).toHaveLength(60);
  });

  it("has at least two sites in different time zones", () => {
    const zones = new Set(sample.sites!.map((s) => s.timeZone));
    expect(sample.sites!.length).toBeGreaterThanOrEqual(2);
    expect(zones.size).toBe(sample.sites!.length);
  });

  it("has 60 incidents using every documented field and every label", () => {
    const incidents = sample.incidents!;
    expect(incidents).toHaveLength(60);
    for (const field of [...TEXT_FIELDS, "IngestionType", "Severity", "Status", "CreatedUtcTime"]) {
      expect(
        incidents.every((i) => i[field] !== undefined),
        field,
      ).toBe(true);
    }
    const used = (field: string) => new Set(incidents.map((i) => i[field]));
    expect([...used("IngestionType")].sort()).toEqual([...INGESTION_TYPE_LABELS].sort());
    expect([...used("Severity")].sort()).toEqual([...SEVERITY_LABELS].sort());
    expect([...used("Status")].sort()).toEqual([...STATUS_LABELS].sort());
    for (const site of sample.sites!) expect(incidents.some((i) => i.Site === site.name)).toBe(true);
  });

  it("gives every incident a timeline of 5 to 40 entries with tactics and techniques", () => {
    const counts = new Map<string, number>();
    for (const e of sample.timelineEntries!)
      counts.set(`${e.Site}/${e.IncidentNumber}`, (counts.get(`${e.Site}/${e.IncidentNumber}`) ?? 0) + 1);
    expect(counts.size).toBe(60);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThanOrEqual(5);
      expect(count).toBeLessThanOrEqual(40);
    }
    expect(Math.min(...counts.values())).toBe(5);
    expect(Math.max(...counts.values())).toBe(40);
    expect(sample.timelineEntries!.every((e) => e.Tactic!.length > 0 && e.Technique!.length > 0)).toBe(true);
  });

  it("has playbooks with and without the external-action trigger, and artifact names shared across types", () => {
    const external = sample.playbooks!.filter((p) => p.triggers.includes("On Incident External Action"));
    expect(external.length).toBeGreaterThan(0);
    expect(external.length).toBeLessThan(sample.playbooks!.length);
    const byName = new Map<string, Set<number>>();
    for (const a of sample.artifacts!) {
      const key = `${a.site}/${a.name}`;
      byName.set(key, (byName.get(key) ?? new Set()).add(a.typeId));
    }
    expect([...byName.values()].filter((types) => types.size > 1).length).toBeGreaterThanOrEqual(2);
  });
});

describe("the sample through the commands", () => {
  const clock = () => new Date("2024-07-01T16:05:00Z");
  const handler = createCommandHandler(createMemoryBackend(loadSampleDataset(), { clock }));
  const call = (command: string, site: string, params: unknown) =>
    handler(command, { Username: "soc-admin", Site: site, CommandParams: params }, { username: "soc-admin" });

  it("reads a timeline in both orders, DESC the reverse of ASC", async () => {
    const incident = sample.incidents![1]!;
    const asc = await call("GetIncidentTimelineEntries", incident.Site, {
      "Incident Number": incident.Number,
    });
    const desc = await call("GetIncidentTimelineEntries", incident.Site, {
      "Incident Number": incident.Number,
      "Sort Order": "DESC",
    });
    const ids = (r: { body: unknown }) =>
      (r.body as { returnData: { Data: { TimelineID: number }[] } }).returnData.Data.map((e) => e.TimelineID);
    expect(ids(asc)).toHaveLength(40);
    expect(ids(desc)).toEqual([...ids(asc)].reverse());
  });

  it("triggers the first phishing incident of a site and runs its playbooks", async () => {
    const response = await call("TriggerIncidentExternalAction", "Security Operations", {
      "Search Conditions": { Type: "Phishing" },
      "Trigger Data": { source: "test" },
    });
    const body = response.body as {
      error: string;
      returnData: { Data: { TriggeredPlaybooks: { PlaybookName: string }[] } };
    };
    expect(body.error).toBe("");
    expect(body.returnData.Data.TriggeredPlaybooks.map((p) => p.PlaybookName)).toEqual([
      "Phishing Triage",
      "Indicator Enrichment",
    ]);
  });

  it("needs the type for a name shared across types, and formats the date in the site's zone", async () => {
    const ambiguous = await call("AddNotesToArtifacts", "APAC SOC", {
      "Artifact Name": "admin",
      Note: "checked",
    });
    expect((ambiguous.body as { error: string }).error).toBe(
      "Several artifacts are named 'admin' in site 'APAC SOC' (types 'User Account', 'Hostname'): set 'Artifact Type' to choose one.",
    );
    const response = await call("AddNotesToArtifacts", "APAC SOC", {
      "Artifact Name": "admin",
      "Artifact Type": "user account",
      Note: "checked",
    });
    expect((response.body as { contextData: unknown[] }).contextData).toEqual([
      {
        "Artifact Name": "admin",
        "Artifact Type": "User Account",
        Note: "checked",
        LastModifiedLocalDate: "07/01/2024 09:35 PM",
        Result: "Successful",
      },
    ]);
  });
});
