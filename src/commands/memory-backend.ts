/**
 * The in-memory backend: a dataset held in memory, with incidents in one `IncidentSet` per site. It records
 * every playbook run and every note, so that a playbook's unit test can assert what happened. The clock is
 * injectable, so times in answers are reproducible.
 */

import type { Condition } from "../conditions/ast.js";
import type { FieldCatalog } from "../conditions/catalog.js";
import { IncidentSet, type IncidentSetOptions } from "../incidents/incident-set.js";
import type {
  ArtifactInfo,
  ArtifactTypeInfo,
  Backend,
  IncidentRecord,
  NoteRequest,
  PlaybookInfo,
  PlaybookRunRequest,
  RecordedPlaybookRun,
  SiteInfo,
  StoredNote,
  UserInfo,
} from "./backend.js";
import {
  type Dataset,
  DatasetError,
  type DatasetPlaybook,
  type DatasetTimelineEntry,
  validateDataset,
} from "./dataset.js";
import type { TimelineEntryData } from "./wire.js";

/** A playbook run recorded by the memory backend. */
export interface PlaybookRunRecord {
  /** The run's RuntimeId: 1, 2, 3, … in the order runs were recorded. */
  readonly runtimeId: number;
  readonly playbookName: string;
  readonly site: string;
  readonly incidentId: number;
  /** The incident's `Number`. */
  readonly incidentNumber: string;
  /** The trigger data the playbook received (its own deep copy). */
  readonly triggerData: Record<string, unknown>;
  /** When the run was recorded (from the backend's clock). */
  readonly time: Date;
}

/** A note added through the memory backend. */
export interface NoteRecord {
  readonly site: string;
  readonly artifactName: string;
  readonly artifactTypeId: number;
  readonly text: string;
  /** The username of the caller who added it. */
  readonly author: string;
  /** When it was stored (from the backend's clock). */
  readonly time: Date;
}

/** The in-memory backend: a `Backend` plus what a test wants to inspect. */
export interface MemoryBackend extends Backend {
  /** Every playbook run recorded so far, in order (RuntimeIds increasing). A fresh array each call. */
  runs(): readonly PlaybookRunRecord[];
  /** Every note added so far through `appendNote`, in order. A fresh array each call. */
  notes(): readonly NoteRecord[];
  /**
   * The current state as a dataset (the notes added so far included), valid for `createMemoryBackend` and
   * `validateDataset`: save it to resume later.
   */
  snapshot(): Dataset;
}

/** Options of `createMemoryBackend`. */
export interface MemoryBackendOptions {
  /** The clock for note and run times; default the system clock. */
  readonly clock?: () => Date;
  /** The field catalogue for dataset validation and the incident sets (DECISIONS.md 1.6). */
  readonly catalog?: FieldCatalog;
  /** Options of each site's `IncidentSet` (indexes, `compile: { codegen: false }`, limits). */
  readonly incidentSetOptions?: IncidentSetOptions;
}

interface ArtifactState {
  readonly info: ArtifactInfo;
  readonly notes: { text: string; author: string; time: string }[];
}

/**
 * Creates an in-memory backend over a dataset.
 * @param dataset - sites, users, incidents, timeline entries, playbooks, artifact types and artifacts;
 *   validated and copied (the caller's object is never modified); default: empty
 * @param options - `clock` (default the system clock), `catalog`, `incidentSetOptions`
 * @returns a `MemoryBackend`: a `Backend` that also records `runs()` and `notes()`
 * @throws {DatasetError} when the dataset is invalid; `.issues` lists every problem with its path
 * @example
 * const backend = createMemoryBackend(loadSampleDataset(), { clock: () => new Date("2024-05-01T12:00:00Z") });
 * const handler = createCommandHandler(backend);
 */
export function createMemoryBackend(
  dataset: Dataset = {},
  options: MemoryBackendOptions = {},
): MemoryBackend {
  const validated = validateDataset(
    dataset,
    options.catalog === undefined ? {} : { catalog: options.catalog },
  );
  if (!validated.ok) throw new DatasetError(validated.issues);
  const data = validated.dataset;
  const clock = options.clock ?? (() => new Date());
  const now = (): Date => {
    const time = clock();
    if (!(time instanceof Date) || Number.isNaN(time.getTime())) {
      throw new TypeError("The memory backend's clock must return a valid Date.");
    }
    return new Date(time.getTime());
  };

  const sites = new Map<string, SiteInfo>((data.sites ?? []).map((s) => [s.name, { ...s }]));
  const users = new Map<string, UserInfo>(
    (data.users ?? []).map((u) => [u.username, { ...u, sites: [...u.sites] }]),
  );
  const incidentsBySite = new Map<string, IncidentRecord[]>();
  const incidentByNumber = new Map<string, IncidentRecord>();
  for (const incident of data.incidents ?? []) {
    const list = incidentsBySite.get(incident.Site) ?? [];
    list.push(incident);
    incidentsBySite.set(incident.Site, list);
    incidentByNumber.set(key(incident.Site, incident.Number), incident);
  }
  const incidentSets = new Map<string, IncidentSet<IncidentRecord>>();
  for (const [site, list] of incidentsBySite) {
    incidentSets.set(
      site,
      new IncidentSet(list, options.catalog === undefined ? {} : { catalog: options.catalog }),
    );
  }
  const timeline = new Map<string, TimelineEntryData[]>();
  for (const entry of data.timelineEntries ?? []) {
    const k = key(entry.Site, entry.IncidentNumber);
    const list = timeline.get(k) ?? [];
    list.push(toEntryData(entry));
    timeline.set(k, list);
  }
  const playbooks: DatasetPlaybook[] = [...(data.playbooks ?? [])];
  const artifactTypes: ArtifactTypeInfo[] = (data.artifactTypes ?? []).map((t) => ({ ...t }));
  const artifacts = new Map<string, ArtifactState[]>();
  for (const artifact of data.artifacts ?? []) {
    const k = key(artifact.site, artifact.name);
    const list = artifacts.get(k) ?? [];
    list.push({
      info: { site: artifact.site, name: artifact.name, typeId: artifact.typeId },
      notes: (artifact.notes ?? []).map((n) => ({ ...n })),
    });
    artifacts.set(k, list);
  }

  const runLog: PlaybookRunRecord[] = [];
  const noteLog: NoteRecord[] = [];
  let lastRuntimeId = 0;

  return {
    async findSite(name) {
      return sites.get(name);
    },
    async findUser(username) {
      return users.get(username);
    },
    async findIncidentByNumber(site, incidentNumber) {
      return incidentByNumber.get(key(site, incidentNumber));
    },
    async findFirstIncident(site: string, condition: Condition, budget) {
      return incidentSets.get(site)?.findFirst(condition, budget);
    },
    async timelineEntries(site, incidentNumber) {
      return [...(timeline.get(key(site, incidentNumber)) ?? [])];
    },
    async playbooksWithTrigger(site, incident, trigger): Promise<readonly PlaybookInfo[]> {
      return playbooks
        .filter(
          (p) =>
            p.triggers.includes(trigger) &&
            typeof incident.Type === "string" &&
            p.incidentTypes.includes(incident.Type) &&
            (p.sites === undefined || p.sites.includes(site)),
        )
        .map((p) => ({ name: p.name }));
    },
    async recordPlaybookRun(run: PlaybookRunRequest): Promise<RecordedPlaybookRun> {
      const time = now();
      lastRuntimeId += 1;
      runLog.push(
        Object.freeze({
          runtimeId: lastRuntimeId,
          playbookName: run.playbookName,
          site: run.site,
          incidentId: run.incident.IncidentId,
          incidentNumber: run.incident.Number,
          triggerData: run.triggerData,
          time,
        }),
      );
      return { runtimeId: lastRuntimeId };
    },
    async artifactTypes() {
      return artifactTypes.map((t) => ({ ...t }));
    },
    async findArtifacts(site, name) {
      return (artifacts.get(key(site, name)) ?? []).map((a) => ({ ...a.info }));
    },
    async appendNote(artifact: ArtifactInfo, note: NoteRequest): Promise<StoredNote> {
      const state = (artifacts.get(key(artifact.site, artifact.name)) ?? []).find(
        (a) => a.info.typeId === artifact.typeId,
      );
      if (state === undefined) {
        throw new Error(
          `No artifact '${artifact.name}' of type id ${artifact.typeId} in site '${artifact.site}'.`,
        );
      }
      const time = now();
      state.notes.push({ text: note.text, author: note.author, time: time.toISOString() });
      noteLog.push(
        Object.freeze({
          site: artifact.site,
          artifactName: artifact.name,
          artifactTypeId: artifact.typeId,
          text: note.text,
          author: note.author,
          time,
        }),
      );
      return { time: new Date(time.getTime()) };
    },
    runs() {
      return [...runLog];
    },
    notes() {
      return [...noteLog];
    },
    snapshot(): Dataset {
      return {
        sites: [...sites.values()].map((s) =>
          s.timeZone === undefined ? { name: s.name } : { name: s.name, timeZone: s.timeZone },
        ),
        users: [...users.values()].map((u) => ({ username: u.username, sites: [...u.sites] })),
        incidents: structuredClone(data.incidents ?? []),
        timelineEntries: structuredClone(data.timelineEntries ?? []),
        playbooks: structuredClone(playbooks),
        artifactTypes: artifactTypes.map((t) => ({ ...t })),
        artifacts: [...artifacts.values()].flat().map((a) => ({
          name: a.info.name,
          typeId: a.info.typeId,
          site: a.info.site,
          notes: a.notes.map((n) => ({ ...n })),
        })),
      };
    },
  };
}

function key(site: string, name: string): string {
  return JSON.stringify([site, name]);
}

function toEntryData(entry: DatasetTimelineEntry): TimelineEntryData {
  return {
    TimelineID: entry.TimelineID,
    Time: entry.Time,
    Summary: entry.Summary ?? "",
    Note: entry.Note ?? "",
    EventType: entry.EventType ?? "",
    Tactic: [...(entry.Tactic ?? [])],
    Technique: [...(entry.Technique ?? [])],
    RiskLevel: entry.RiskLevel ?? "",
    Description: entry.Description ?? "",
    Author: entry.Author ?? "",
  };
}
