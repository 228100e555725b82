/**
 * Model-based test of the three commands (fc.commands): random interleavings of
 * TriggerIncidentExternalAction, AddNotesToArtifacts and GetIncidentTimelineEntries, through the handler
 * and the memory backend, checked after every step against a simple model: every playbook run and every
 * note is recorded (nothing lost, nothing extra), RuntimeIds are unique and increasing, reads change
 * nothing. A second property runs batches of commands concurrently.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { IncidentRecord } from "../../src/commands/backend.js";
import type { CommandHandler } from "../../src/commands/handler-types.js";
import type { MemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { BERLIN, DATASET, HQ, NO_ZONE, setup } from "../support/commands-fixtures.js";
import { fcOptions } from "../support/fc.js";

interface ModelRun {
  readonly runtimeId: number;
  readonly playbookName: string;
  readonly incidentId: number;
  readonly triggerData: unknown;
}
interface ModelNote {
  readonly site: string;
  readonly artifactName: string;
  readonly artifactTypeId: number;
  readonly text: string;
  readonly author: string;
}
interface Model {
  runs: ModelRun[];
  notes: ModelNote[];
}
interface Real {
  backend: MemoryBackend;
  handler: CommandHandler;
}

const SITES = [HQ, BERLIN, NO_ZONE, "Nowhere"];
const USERS = ["alice", "bob"];
const INCIDENTS = DATASET.incidents!;

function mayUse(user: string, site: string): boolean {
  return DATASET.users!.some((u) => u.username === user && u.sites.includes(site));
}

function call(real: Real, command: string, user: string, site: string, params: unknown) {
  return real.handler(command, { Username: user, Site: site, CommandParams: params }, { username: user });
}

/** The model's answer to "the first incident of the site with field = value" (docs/semantics.md 1.9). */
function firstIncident(site: string, field: string, value: string): IncidentRecord | undefined {
  return INCIDENTS.filter((i) => i.Site === site && i[field] === value).sort(
    (a, b) =>
      Date.parse(String(a.CreatedUtcTime)) - Date.parse(String(b.CreatedUtcTime)) ||
      a.IncidentId - b.IncidentId,
  )[0];
}

function playbooksFor(site: string, incident: IncidentRecord): string[] {
  return DATASET.playbooks!.filter(
    (p) =>
      p.triggers.includes("On Incident External Action") &&
      p.incidentTypes.includes(String(incident.Type)) &&
      (p.sites === undefined || p.sites.includes(site)),
  ).map((p) => p.name);
}

function checkRecords(model: Model, real: Real): void {
  expect(
    real.backend.runs().map((r) => ({
      runtimeId: r.runtimeId,
      playbookName: r.playbookName,
      incidentId: r.incidentId,
      triggerData: r.triggerData,
    })),
  ).toEqual(model.runs);
  expect(
    real.backend.notes().map((n) => ({
      site: n.site,
      artifactName: n.artifactName,
      artifactTypeId: n.artifactTypeId,
      text: n.text,
      author: n.author,
    })),
  ).toEqual(model.notes);
  const ids = real.backend.runs().map((r) => r.runtimeId);
  for (let i = 1; i < ids.length; i++) expect(ids[i]!).toBeGreaterThan(ids[i - 1]!);
}

class TriggerCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: string,
    readonly site: string,
    readonly field: string,
    readonly value: string,
    readonly triggerData: Record<string, unknown>,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const response = await call(real, "TriggerIncidentExternalAction", this.user, this.site, {
      "Search Conditions": { [this.field]: this.value },
      "Trigger Data": this.triggerData,
    });
    expect(response.status).toBe(200);
    const body = response.body as {
      error: string;
      returnData: { Status: string; Data: Record<string, unknown> };
    };
    const incident = firstIncident(this.site, this.field, this.value);
    if (!mayUse(this.user, this.site)) {
      expect(body.error).toBe(`User '${this.user}' has no access to site '${this.site}'.`);
    } else if (incident === undefined) {
      expect(body.error).toBe("No incident matches the Search Conditions.");
    } else {
      const last = model.runs.at(-1)?.runtimeId ?? 0;
      const names = playbooksFor(this.site, incident);
      expect(body).toEqual({
        error: "",
        returnData: {
          Status: "Successful",
          Data: {
            IncidentId: incident.IncidentId,
            IncidentNo: incident.Number,
            TriggeredPlaybooks: names.map((PlaybookName, i) => ({ RuntimeId: last + 1 + i, PlaybookName })),
          },
        },
      });
      names.forEach((playbookName, i) => {
        model.runs.push({
          runtimeId: last + 1 + i,
          playbookName,
          incidentId: incident.IncidentId,
          triggerData: this.triggerData,
        });
      });
    }
    checkRecords(model, real);
  }
  toString(): string {
    return `trigger(${this.user}@${this.site}, ${this.field}=${this.value})`;
  }
}

class AddNoteCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: string,
    readonly site: string,
    readonly name: string,
    readonly type: number | string | undefined,
    readonly text: string,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const response = await call(real, "AddNotesToArtifacts", this.user, this.site, {
      "Artifact Name": this.name,
      ...(this.type === undefined ? {} : { "Artifact Type": this.type }),
      Note: this.text,
    });
    expect(response.status).toBe(200);
    const body = response.body as { error: string; contextData: { Note: string; "Artifact Name": string }[] };
    const typeId =
      this.type === undefined
        ? undefined
        : typeof this.type === "number"
          ? this.type
          : DATASET.artifactTypes!.find((t) => t.label.toLowerCase() === String(this.type).toLowerCase())?.id;
    const candidates = DATASET.artifacts!.filter(
      (a) => a.site === this.site && a.name === this.name && (typeId === undefined || a.typeId === typeId),
    );
    if (!mayUse(this.user, this.site)) {
      expect(body.error).toBe(`User '${this.user}' has no access to site '${this.site}'.`);
    } else if (this.text.trim() === "") {
      expect(body.error).toBe("Parameter 'Note' must not be empty.");
    } else if (candidates.length === 1) {
      expect(body.error).toBe("");
      expect(body.contextData).toHaveLength(1);
      expect(body.contextData[0]!.Note).toBe(this.text);
      model.notes.push({
        site: this.site,
        artifactName: this.name,
        artifactTypeId: candidates[0]!.typeId,
        text: this.text,
        author: this.user,
      });
    } else {
      expect(body.error).not.toBe("");
      expect(body.contextData).toEqual([]);
    }
    checkRecords(model, real);
  }
  toString(): string {
    return `addNote(${this.user}@${this.site}, ${this.name}, ${String(this.type)}, ${JSON.stringify(this.text)})`;
  }
}

class ReadTimelineCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: string,
    readonly site: string,
    readonly number: string,
    readonly sortOrder: string,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const response = await call(real, "GetIncidentTimelineEntries", this.user, this.site, {
      "Incident Number": this.number,
      "Sort Order": this.sortOrder,
    });
    const body = response.body as { error: string; returnData: { Data: { TimelineID: number }[] } };
    const exists = INCIDENTS.some((i) => i.Site === this.site && i.Number === this.number);
    if (!mayUse(this.user, this.site))
      expect(body.error).toBe(`User '${this.user}' has no access to site '${this.site}'.`);
    else if (!exists)
      expect(body.error).toBe(`Incident '${this.number}' was not found in site '${this.site}'.`);
    else {
      const expected = DATASET.timelineEntries!.filter(
        (e) => e.Site === this.site && e.IncidentNumber === this.number,
      )
        .map((e) => e.TimelineID)
        .sort((a, b) => a - b);
      expect(body.returnData.Data.map((e) => e.TimelineID).sort((a, b) => a - b)).toEqual(expected);
    }
    checkRecords(model, real);
  }
  toString(): string {
    return `read(${this.user}@${this.site}, ${this.number}, ${this.sortOrder})`;
  }
}

const user = fc.constantFrom(...USERS);
const site = fc.constantFrom(...SITES);
const FORBIDDEN = ["__proto__", "constructor", "prototype"];
/** True when no key at any depth is prototype-named (those are refused, which another test covers). */
function noForbiddenKeys(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(noForbiddenKeys);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).every(([k, v]) => !FORBIDDEN.includes(k) && noForbiddenKeys(v));
  }
  return true;
}
const json = fc
  .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
  .filter(noForbiddenKeys);
const triggerCommand = fc
  .tuple(
    user,
    site,
    fc.oneof(
      fc.tuple(fc.constant("Number"), fc.constantFrom(...INCIDENTS.map((i) => i.Number), "none")),
      fc.tuple(fc.constant("Severity"), fc.constantFrom("Critical", "High", "Medium", "Low")),
      fc.tuple(fc.constant("Type"), fc.constantFrom("Phishing", "Malware", "Policy Violation", "Ransomware")),
    ),
    json,
  )
  .map(([u, s, [field, value], data]) => new TriggerCommand(u, s, field, value, data));
const addNoteCommand = fc
  .tuple(
    user,
    site,
    fc.constantFrom(...DATASET.artifacts!.map((a) => a.name), "unknown"),
    fc.constantFrom<number | string | undefined>(undefined, 1, 2, 6, "domain", "Hostname"),
    fc.oneof(fc.string({ maxLength: 20 }), fc.constant("<b>bold</b> & 'quoted'")),
  )
  .map(([u, s, n, t, text]) => new AddNoteCommand(u, s, n, t, text));
const readCommand = fc
  .tuple(
    user,
    site,
    fc.constantFrom(...INCIDENTS.map((i) => i.Number), "none"),
    fc.constantFrom("ASC", "desc", ""),
  )
  .map(([u, s, n, o]) => new ReadTimelineCommand(u, s, n, o));

describe("the three commands against a model", () => {
  it("never lose a note or a playbook run, and RuntimeIds increase (fc.commands)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([triggerCommand, addNoteCommand, readCommand], { maxCommands: 40 }),
        async (commands) => {
          const { backend, handler } = setup();
          await fc.asyncModelRun(
            () => ({ model: { runs: [], notes: [] }, real: { backend, handler } }),
            commands,
          );
        },
      ),
      fcOptions(150),
    );
  });

  it("keep every run and note when commands run concurrently", async () => {
    const anyCommand = fc.oneof(triggerCommand, addNoteCommand, readCommand);
    await fc.assert(
      fc.asyncProperty(fc.array(anyCommand, { minLength: 1, maxLength: 25 }), async (commands) => {
        const { backend, handler } = setup();
        const real = { backend, handler };
        const responses = await Promise.all(
          commands.map((c) => {
            if (c instanceof TriggerCommand) {
              return call(real, "TriggerIncidentExternalAction", c.user, c.site, {
                "Search Conditions": { [c.field]: c.value },
                "Trigger Data": c.triggerData,
              });
            }
            if (c instanceof AddNoteCommand) {
              return call(real, "AddNotesToArtifacts", c.user, c.site, {
                "Artifact Name": c.name,
                ...(c.type === undefined ? {} : { "Artifact Type": c.type }),
                Note: c.text,
              });
            }
            return call(real, "GetIncidentTimelineEntries", c.user, c.site, { "Incident Number": c.number });
          }),
        );
        const reported = responses.flatMap((r) => {
          const data = (
            r.body as { returnData?: { Data?: { TriggeredPlaybooks?: { RuntimeId: number }[] } } }
          ).returnData?.Data;
          return data?.TriggeredPlaybooks?.map((p) => p.RuntimeId) ?? [];
        });
        const recorded = backend.runs().map((r) => r.runtimeId);
        expect([...reported].sort((a, b) => a - b)).toEqual(recorded);
        expect(recorded).toEqual(recorded.map((_, i) => i + 1));
        const notesAnswered = responses.filter(
          (r) => (r.body as { contextData?: unknown[] }).contextData?.length === 1,
        ).length;
        expect(backend.notes()).toHaveLength(notesAnswered);
      }),
      fcOptions(100),
    );
  });
});
