/**
 * The memory backend as a playbook test's double: the playbook-run hook, changes after creation, reset,
 * the incident-set options, and the fixture builders.
 */
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_CATALOG, TEXT_FIELDS } from "../../conditions/catalog.js";
import { parseSearchConditions } from "../../conditions/parse.js";
import { createCommandHandler } from "../handler.js";
import { validateDataset } from "./dataset.js";
import {
  buildArtifact,
  buildDataset,
  buildIncident,
  buildTimelineEntry,
  FIXTURE_PLAYBOOK,
  FIXTURE_SITE,
  FIXTURE_USER,
} from "./fixtures.js";
import { createMemoryBackend } from "./memory-backend.js";

const { setOptionsSeen } = vi.hoisted(() => ({ setOptionsSeen: [] as unknown[] }));
vi.mock("../../incidents/incident-set.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../incidents/incident-set.js")>();
  class RecordingIncidentSet<T extends object> extends original.IncidentSet<T> {
    constructor(...args: ConstructorParameters<typeof original.IncidentSet<T>>) {
      super(...args);
      setOptionsSeen.push(args[1]);
    }
  }
  return { ...original, IncidentSet: RecordingIncidentSet };
});

const NOW = new Date("2024-05-01T12:00:00Z");
const envelope = (CommandParams: Record<string, unknown>) => ({
  Username: FIXTURE_USER,
  Site: FIXTURE_SITE,
  CommandParams,
});
const caller = { username: FIXTURE_USER };

describe("the fixture builders", () => {
  it("fill every field of the default catalogue, and overrides win", () => {
    const incident = buildIncident();
    for (const field of Object.keys(DEFAULT_CATALOG.fields)) {
      expect(incident[field], field).toEqual(expect.any(String));
      expect(incident[field], field).not.toBe("");
    }
    expect(TEXT_FIELDS.every((field) => field in incident)).toBe(true);
    expect(buildIncident({ Severity: "High", Extra: { a: 1 } })).toMatchObject({
      Severity: "High",
      Extra: { a: 1 },
    });
    expect(buildIncident({ CreatedUtcTime: undefined })).not.toHaveProperty("CreatedUtcTime");
    expect(buildTimelineEntry({ Summary: "s" })).toMatchObject({ Summary: "s", TimelineID: 1 });
    expect(buildArtifact({ typeId: 2 })).toEqual({
      name: "10.0.0.1",
      typeId: 2,
      site: FIXTURE_SITE,
      notes: [],
    });
  });

  it("build a valid dataset from only what a test states", () => {
    const dataset = buildDataset({
      incidents: [{ Severity: "Low" }, { Severity: "High", Type: "Malware", Site: "Berlin" }],
      timelineEntries: [{}, { Summary: "second" }],
      artifacts: [{}, { name: "evil.example", typeId: 2 }],
    });
    expect(validateDataset(dataset)).toEqual({ ok: true, dataset });
    expect(dataset.incidents!.map((i) => [i.IncidentId, i.Number, i.Site, i.CreatedUtcTime])).toEqual([
      [1, "20240101-1", FIXTURE_SITE, "2024-01-01T09:01:00Z"],
      [2, "20240101-2", "Berlin", "2024-01-01T09:02:00Z"],
    ]);
    expect(dataset.sites).toEqual([{ name: FIXTURE_SITE }, { name: "Berlin" }]);
    expect(dataset.users).toEqual([{ username: FIXTURE_USER, sites: [FIXTURE_SITE, "Berlin"] }]);
    expect(dataset.playbooks).toEqual([
      {
        name: FIXTURE_PLAYBOOK,
        triggers: ["On Incident External Action"],
        incidentTypes: ["Phishing", "Malware"],
      },
    ]);
    expect(dataset.timelineEntries!.map((e) => e.TimelineID)).toEqual([1, 2]);
    expect(validateDataset(buildDataset())).toMatchObject({ ok: true });
  });
});

describe("the playbook-run hook", () => {
  it("runs for each playbook run before the command answers, and may change the backend", async () => {
    const seen: string[] = [];
    const backend = createMemoryBackend(
      buildDataset({
        playbooks: [
          { name: "Contain", triggers: ["On Incident External Action"], incidentTypes: ["Phishing"] },
          { name: "Notify", triggers: ["On Incident External Action"], incidentTypes: ["Phishing"] },
        ],
      }),
      {
        clock: () => NOW,
        onPlaybookRun: async (run, b) => {
          seen.push(
            `${run.runtimeId} ${run.playbookName} ${run.incidentNumber} ${JSON.stringify(run.triggerData)}`,
          );
          if (run.playbookName === "Contain") {
            b.updateIncident(run.site, run.incidentNumber, { Status: "In Progress" });
            b.addTimelineEntry(
              buildTimelineEntry({
                IncidentNumber: run.incidentNumber,
                TimelineID: 99,
                Summary: "Host isolated",
              }),
            );
          }
        },
      },
    );
    const handler = createCommandHandler(backend);
    const response = await handler(
      "TriggerIncidentExternalAction",
      envelope({ "Search Conditions": { Severity: "Medium" }, "Trigger Data": { ticket: 7 } }),
      caller,
    );
    expect(response.status).toBe(200);
    expect(seen).toEqual(['1 Contain 20240101-1 {"ticket":7}', '2 Notify 20240101-1 {"ticket":7}']);
    expect((await backend.findIncidentByNumber(FIXTURE_SITE, "20240101-1"))?.Status).toBe("In Progress");
    const timeline = await handler(
      "GetIncidentTimelineEntries",
      envelope({ "Incident Number": "20240101-1" }),
      caller,
    );
    if (timeline.status !== 200 || timeline.body.returnData.Status !== "Successful")
      throw new Error("failed");
    expect(timeline.body.returnData.Data.map((e) => e.Summary)).toEqual(["Host isolated"]);
  });

  it("fails the command with 500 when it throws, and reports the error", async () => {
    const errors: unknown[] = [];
    const failure = new Error("playbook broke");
    const backend = createMemoryBackend(buildDataset(), {
      onPlaybookRun: () => {
        throw failure;
      },
    });
    const response = await createCommandHandler(backend, { onError: (e) => errors.push(e) })(
      "TriggerIncidentExternalAction",
      envelope({ "Search Conditions": { Severity: "Medium" }, "Trigger Data": {} }),
      caller,
    );
    expect(response).toEqual({ status: 500, body: { Error: "Unexpected Error." } });
    expect(errors).toEqual([failure]);
  });
});

describe("changes after creation", () => {
  it("is never changed by later changes to the dataset object it was created from", async () => {
    const dataset = buildDataset();
    const incidents = dataset.incidents as unknown as Record<string, unknown>[];
    incidents[0]!.Tags = ["a", { nested: ["b"] }];
    const backend = createMemoryBackend(dataset);
    const before = backend.snapshot();
    incidents[0]!.Severity = "High";
    (incidents[0]!.Tags as unknown[]).push("c");
    ((incidents[0]!.Tags as { nested: string[] }[])[1]!.nested as string[]).push("d");
    incidents.push({ ...incidents[0], IncidentId: 99 });
    expect(backend.snapshot()).toEqual(before);
    const high = parseSearchConditions({ Severity: "High" });
    expect(await backend.findFirstIncident(FIXTURE_SITE, high)).toBeUndefined();
  });

  it("adds incidents that later searches find, validated as in a dataset", async () => {
    const backend = createMemoryBackend(buildDataset());
    const high = parseSearchConditions({ Severity: "High" });
    expect(await backend.findFirstIncident(FIXTURE_SITE, high)).toBeUndefined();
    const added = backend.addIncident(
      buildIncident({ IncidentId: 2, Number: "20240101-2", Severity: "High" }),
    );
    expect(added).toMatchObject({ IncidentId: 2, Severity: "High" });
    expect((await backend.findFirstIncident(FIXTURE_SITE, high))?.IncidentId).toBe(2);
    expect(() => backend.addIncident(buildIncident({ IncidentId: 3, Number: "20240101-2" }))).toThrow(
      expect.objectContaining({
        name: "DatasetError",
        issues: [
          {
            code: "duplicate",
            path: ["incidents", 2, "Number"],
            message: "Duplicate incident Number '20240101-2' in site 'Security Operations'.",
          },
        ],
      }),
    );
    expect(() =>
      backend.addIncident(buildIncident({ IncidentId: 3, Number: "x", Severity: "Urgent" })),
    ).toThrow(/incidents\[2\]\.Severity: Expected one of/);
    expect(backend.snapshot().incidents).toHaveLength(2);
  });

  it("changes and removes incident fields; searches see the change", async () => {
    const backend = createMemoryBackend(
      buildDataset({ incidents: [{ Severity: "Low" }, { Severity: "Low" }] }),
    );
    const changed = backend.updateIncident(FIXTURE_SITE, "20240101-2", {
      Severity: "Critical",
      CustomField1: undefined,
    });
    expect(changed.Severity).toBe("Critical");
    expect(changed).not.toHaveProperty("CustomField1");
    const first = await backend.findFirstIncident(
      FIXTURE_SITE,
      parseSearchConditions({ Severity: "Critical" }),
    );
    expect(first?.Number).toBe("20240101-2");
    expect(() => backend.updateIncident(FIXTURE_SITE, "nope", {})).toThrow(
      new RangeError("No incident 'nope' in site 'Security Operations'."),
    );
    expect(() => backend.updateIncident(FIXTURE_SITE, "20240101-1", { CreatedUtcTime: "yesterday" })).toThrow(
      /CreatedUtcTime is a date field/,
    );
  });

  it("adds timeline entries and artifacts, and applies any change through update", async () => {
    const backend = createMemoryBackend(buildDataset());
    backend.addTimelineEntry(buildTimelineEntry({ TimelineID: 5 }));
    expect(await backend.timelineEntries(FIXTURE_SITE, "20240101-1")).toHaveLength(1);
    expect(() => backend.addTimelineEntry(buildTimelineEntry({ IncidentNumber: "missing" }))).toThrow(
      /timelineEntries\[1\]/,
    );
    backend.addArtifact(buildArtifact({ name: "evil.example", typeId: 2 }));
    expect(await backend.findArtifacts(FIXTURE_SITE, "evil.example")).toEqual([
      { site: FIXTURE_SITE, name: "evil.example", typeId: 2 },
    ]);
    backend.update((current) => ({ ...current, artifacts: [] }));
    expect(await backend.findArtifacts(FIXTURE_SITE, "evil.example")).toEqual([]);
    expect(() =>
      backend.update((current) => ({ ...current, users: [{ username: "x", sites: ["Nowhere"] }] })),
    ).toThrow(/users\[0\]\.sites\[0\]: Unknown site 'Nowhere'/);
    expect(await backend.findUser(FIXTURE_USER)).toBeDefined();
  });
});

describe("reset", () => {
  it("returns to the dataset given at creation and forgets runs, notes and changes", async () => {
    const dataset = buildDataset({ artifacts: [{}] });
    const backend = createMemoryBackend(dataset, { clock: () => NOW });
    const handler = createCommandHandler(backend);
    const trigger = () =>
      handler(
        "TriggerIncidentExternalAction",
        envelope({ "Search Conditions": { Severity: "Medium" }, "Trigger Data": {} }),
        caller,
      );
    await trigger();
    await backend.appendNote({ site: FIXTURE_SITE, name: "10.0.0.1", typeId: 1 }, { text: "n", author: "a" });
    backend.updateIncident(FIXTURE_SITE, "20240101-1", { Severity: "Low" });
    backend.addIncident(buildIncident({ IncidentId: 2, Number: "20240101-2" }));
    const found = await backend.findIncidentByNumber(FIXTURE_SITE, "20240101-2");
    expect(found).toBeDefined();

    backend.reset();
    expect(backend.runs()).toEqual([]);
    expect(backend.notes()).toEqual([]);
    expect(backend.snapshot()).toEqual(createMemoryBackend(dataset).snapshot());
    const again = await trigger();
    if (again.status !== 200 || again.body.returnData.Status !== "Successful") throw new Error("failed");
    expect(again.body.returnData.Data.TriggeredPlaybooks).toEqual([
      { RuntimeId: 1, PlaybookName: FIXTURE_PLAYBOOK },
    ]);
  });
});

describe("incidentSetOptions", () => {
  it("reaches each site's IncidentSet, with the backend's catalogue", () => {
    setOptionsSeen.length = 0;
    const options = { hashFields: ["Number"], maxDictionary: 16, compile: { codegen: false } } as const;
    createMemoryBackend(buildDataset(), { incidentSetOptions: options });
    expect(setOptionsSeen).toEqual([options]);

    setOptionsSeen.length = 0;
    createMemoryBackend(buildDataset(), {
      catalog: DEFAULT_CATALOG,
      incidentSetOptions: { maxDictionary: 8 },
    });
    expect(setOptionsSeen).toEqual([{ maxDictionary: 8, catalog: DEFAULT_CATALOG }]);
  });
});
