import { describe, expect, it } from "vitest";
import { DATASET, HQ } from "../../../test/support/commands-fixtures.js";
import { parseSearchConditions } from "../../conditions/parse.js";
import { DatasetError, validateDataset } from "./dataset.js";
import { createMemoryBackend } from "./memory-backend.js";

describe("createMemoryBackend", () => {
  it("refuses an invalid dataset with every issue", () => {
    let caught: unknown;
    try {
      createMemoryBackend({
        sites: [{ name: "HQ", timeZone: "Nowhere/City" }],
        users: [{ username: "a", sites: ["X"] }],
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DatasetError);
    expect((caught as DatasetError).issues.map((i) => i.path)).toEqual([
      ["sites", 0, "timeZone"],
      ["users", 0, "sites", 0],
    ]);
    expect((caught as DatasetError).message).toContain("sites[0].timeZone: Expected an IANA time zone name");
  });

  it("works without a dataset", async () => {
    const backend = createMemoryBackend();
    expect(await backend.findSite("HQ")).toBeUndefined();
    expect(await backend.findUser("alice")).toBeUndefined();
    expect(await backend.findFirstIncident("HQ", parseSearchConditions({ Title: "x" }))).toBeUndefined();
    expect(await backend.artifactTypes()).toEqual([]);
  });

  it("never modifies the caller's dataset", async () => {
    const copy = structuredClone(DATASET);
    const backend = createMemoryBackend(copy, { clock: () => new Date(0) });
    await backend.appendNote({ site: HQ, name: "10.0.0.5", typeId: 1 }, { text: "n", author: "alice" });
    expect(copy).toEqual(DATASET);
  });

  it("finds incidents by number within a site and the first match by docs/semantics.md 1.9", async () => {
    const backend = createMemoryBackend(DATASET);
    expect((await backend.findIncidentByNumber(HQ, "20240101-1"))?.IncidentId).toBe(1);
    expect(await backend.findIncidentByNumber("Berlin", "20240101-1")).toBeUndefined();
    const first = await backend.findFirstIncident(
      HQ,
      parseSearchConditions({ Severity: { $in: ["High", "Medium"] } }),
    );
    expect(first?.IncidentId).toBe(2);
  });

  it("selects playbooks by trigger, incident Type and site", async () => {
    const backend = createMemoryBackend(DATASET);
    const phishing = (await backend.findIncidentByNumber(HQ, "20240101-1"))!;
    expect(await backend.playbooksWithTrigger(HQ, phishing, "On Incident External Action")).toEqual([
      { name: "Phishing Triage" },
      { name: "Enrichment" },
    ]);
    expect(await backend.playbooksWithTrigger("Berlin", phishing, "On Incident External Action")).toEqual([
      { name: "Phishing Triage" },
      { name: "Enrichment" },
      { name: "Berlin Privacy Review" },
    ]);
    expect(await backend.playbooksWithTrigger(HQ, phishing, "On Incident Escalation")).toEqual([
      { name: "Escalation Mail" },
    ]);
    expect(await backend.playbooksWithTrigger(HQ, phishing, "on incident external action")).toEqual([]);
  });

  it("records runs with increasing RuntimeIds and the clock's time", async () => {
    let now = Date.parse("2024-05-01T00:00:00Z");
    const clock = () => {
      now += 1000;
      return new Date(now);
    };
    const backend = createMemoryBackend(DATASET, { clock });
    const incident = (await backend.findIncidentByNumber(HQ, "20240101-1"))!;
    const a = await backend.recordPlaybookRun({
      site: HQ,
      incident,
      playbookName: "A",
      triggerData: { x: 1 },
    });
    const b = await backend.recordPlaybookRun({ site: HQ, incident, playbookName: "B", triggerData: {} });
    expect([a.runtimeId, b.runtimeId]).toEqual([1, 2]);
    expect(backend.runs().map((r) => [r.runtimeId, r.playbookName, r.time.toISOString()])).toEqual([
      [1, "A", "2024-05-01T00:00:01.000Z"],
      [2, "B", "2024-05-01T00:00:02.000Z"],
    ]);
    // runs() is a fresh array: changing it changes nothing recorded.
    (backend.runs() as unknown[]).length = 0;
    expect(backend.runs()).toHaveLength(2);
  });

  it("refuses a clock that does not return a valid Date", async () => {
    const backend = createMemoryBackend(DATASET, { clock: () => new Date(Number.NaN) });
    await expect(
      backend.appendNote({ site: HQ, name: "10.0.0.5", typeId: 1 }, { text: "n", author: "alice" }),
    ).rejects.toThrow(TypeError);
    expect(backend.notes()).toEqual([]);
  });

  it("rejects a note for an artifact it does not have", async () => {
    const backend = createMemoryBackend(DATASET);
    await expect(
      backend.appendNote({ site: HQ, name: "10.0.0.5", typeId: 2 }, { text: "n", author: "a" }),
    ).rejects.toThrow(/No artifact '10.0.0.5' of type id 2/);
  });

  it("snapshots its state as a valid dataset that resumes where it left off", async () => {
    const backend = createMemoryBackend(DATASET, { clock: () => new Date("2024-06-01T10:00:00Z") });
    await backend.appendNote(
      { site: HQ, name: "corp.example", typeId: 6 },
      { text: "resolved", author: "alice" },
    );
    const snapshot = backend.snapshot();
    const validated = validateDataset(snapshot);
    expect(validated).toEqual({ ok: true, dataset: snapshot });
    const artifact = snapshot.artifacts!.find((a) => a.name === "corp.example" && a.typeId === 6)!;
    expect(artifact.notes).toEqual([{ text: "resolved", author: "alice", time: "2024-06-01T10:00:00.000Z" }]);
    const resumed = createMemoryBackend(snapshot);
    expect(resumed.snapshot()).toEqual(snapshot);
  });
});
