/**
 * The in-memory backend: a dataset held in memory, with incidents in one `IncidentSet` per site. It is
 * also the test double of a playbook's unit test: it records every playbook run and every note, runs a
 * hook for each playbook run (the playbook's side effects), can be changed after creation (incidents,
 * timeline entries, artifacts; every change validated as a dataset) and reset. The clock is injectable,
 * so times in answers are reproducible.
 */

import type { Condition } from "../../conditions/ast.js";
import type { FieldCatalog } from "../../conditions/catalog.js";
import { IncidentSet, type IncidentSetOptions } from "../../incidents/incident-set.js";
import type { SearchBudget } from "../../incidents/search-budget.js";
import type {
  ArtifactInfo,
  ArtifactTypeInfo,
  Backend,
  IncidentRecord,
  SiteInfo,
  UserInfo,
} from "../backend.js";
import type { TimelineEntryData } from "../wire.js";
import {
  type Dataset,
  type DatasetArtifact,
  DatasetError,
  type DatasetPlaybook,
  type DatasetTimelineEntry,
  validateDataset,
} from "./dataset.js";
import { playbookApplies, toTimelineEntryData } from "./dataset-records.js";

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

/**
 * Runs after the memory backend records a playbook run, before the command answers: a test's stand-in for
 * the playbook, e.g. adding a timeline entry or changing the incident's `Status` through `backend`.
 * Awaited; an exception (or rejection) fails the command with 500 `Unexpected Error.` and reaches the
 * handler's `onError`.
 */
export type PlaybookRunHook = (run: PlaybookRunRecord, backend: MemoryBackend) => void | Promise<void>;

/** The in-memory backend: a `Backend` plus what a test wants to inspect and change. */
export interface MemoryBackend extends Backend {
  /** Every playbook run recorded so far, in order (RuntimeIds increasing). A fresh array each call. */
  runs(): readonly PlaybookRunRecord[];
  /** Every note added so far through `appendNote`, in order. A fresh array each call. */
  notes(): readonly NoteRecord[];
  /**
   * The current state as a dataset (the changes and notes so far included), valid for
   * `createMemoryBackend` and `validateDataset`: save it to resume later. A fresh copy each call.
   */
  snapshot(): Dataset;
  /**
   * Adds an incident, validated as in a dataset (unique `IncidentId`, `Number` unique within its site, a
   * known `Site`, catalogue fields of the right type). Later searches see it.
   * @returns a copy of the incident as stored
   * @throws {DatasetError} when it is invalid; the paths are those of the dataset it would make
   *   (`incidents[60].Severity`); nothing changes then
   */
  addIncident(incident: IncidentRecord): IncidentRecord;
  /**
   * Changes fields of the incident `incidentNumber` of `site`: `changes` is merged over it, and a field
   * whose new value is `undefined` is removed. Validated as `addIncident`.
   * @returns a copy of the changed incident
   * @throws {RangeError} when the site has no such incident
   * @throws {DatasetError} when the result is invalid (e.g. its timeline entries would lose their incident)
   */
  updateIncident(
    site: string,
    incidentNumber: string,
    changes: Readonly<Record<string, unknown>>,
  ): IncidentRecord;
  /**
   * Adds a timeline entry to an incident (its `Site` and `IncidentNumber`).
   * @throws {DatasetError} when it is invalid (unknown incident, duplicate `TimelineID`, bad `Time`, …)
   */
  addTimelineEntry(entry: DatasetTimelineEntry): void;
  /**
   * Adds an artifact (`(site, name, typeId)` unique, a known type and site).
   * @throws {DatasetError} when it is invalid
   */
  addArtifact(artifact: DatasetArtifact): void;
  /**
   * Replaces the whole state by what `change` makes of a snapshot (any change: remove an artifact, edit a
   * timeline entry, add a user or playbook), validated as a dataset. The recorded runs and notes stay.
   * @param change - receives a fresh snapshot (its own copy: modify or rebuild it) and returns the new dataset
   * @throws {DatasetError} when the result is invalid; nothing changes then
   */
  update(change: (current: Dataset) => Dataset): void;
  /**
   * Returns to the dataset given at creation: changes, notes and recorded runs are forgotten, and
   * RuntimeIds start again at 1. The options (clock, hook) stay.
   */
  reset(): void;
}

/** Options of `createMemoryBackend`. */
export interface MemoryBackendOptions {
  /** The clock for note and run times; default the system clock. */
  readonly clock?: () => Date;
  /**
   * The field catalogue for dataset validation and the incident sets (docs/semantics.md 1.6). When absent,
   * `incidentSetOptions.catalog` is used for both; default `DEFAULT_CATALOG`.
   */
  readonly catalog?: FieldCatalog;
  /**
   * Options of each site's `IncidentSet` (indexes, `compile: { codegen: false }`, `maxDictionary`); its
   * `catalog` is replaced by `catalog` when that is given.
   */
  readonly incidentSetOptions?: IncidentSetOptions;
  /** Runs after each recorded playbook run, to simulate the playbook's side effects (`PlaybookRunHook`). */
  readonly onPlaybookRun?: PlaybookRunHook;
  /**
   * Told how far the validation of the initial dataset has come (`validateDataset`'s `onProgress`: records
   * checked so far, and in all), for a loading report. Not called for later changes.
   */
  readonly onLoadProgress?: (done: number, total: number) => void;
}

interface ArtifactState {
  readonly info: ArtifactInfo;
  readonly notes: { text: string; author: string; time: string }[];
}

/** The indexed state built from a validated dataset. */
interface State {
  readonly sites: Map<string, SiteInfo>;
  readonly users: Map<string, UserInfo>;
  readonly incidents: IncidentRecord[];
  readonly incidentByNumber: Map<string, IncidentRecord>;
  readonly incidentSets: Map<string, IncidentSet<IncidentRecord>>;
  readonly timelineEntries: DatasetTimelineEntry[];
  readonly timeline: Map<string, TimelineEntryData[]>;
  readonly playbooks: DatasetPlaybook[];
  readonly artifactTypes: ArtifactTypeInfo[];
  readonly artifacts: Map<string, ArtifactState[]>;
}

/** Builds the state from a validated dataset, which it takes over (the caller passes its own copy). */
function buildState(data: Dataset, setOptions: IncidentSetOptions): State {
  const incidentsBySite = new Map<string, IncidentRecord[]>();
  const incidentByNumber = new Map<string, IncidentRecord>();
  for (const incident of data.incidents ?? []) {
    const list = incidentsBySite.get(incident.Site) ?? [];
    list.push(incident);
    incidentsBySite.set(incident.Site, list);
    incidentByNumber.set(key(incident.Site, incident.Number), incident);
  }
  const incidentSets = new Map<string, IncidentSet<IncidentRecord>>();
  for (const [site, list] of incidentsBySite) incidentSets.set(site, new IncidentSet(list, setOptions));
  const timeline = new Map<string, TimelineEntryData[]>();
  for (const entry of data.timelineEntries ?? []) {
    const k = key(entry.Site, entry.IncidentNumber);
    const list = timeline.get(k) ?? [];
    list.push(toTimelineEntryData(entry));
    timeline.set(k, list);
  }
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
  return {
    sites: new Map((data.sites ?? []).map((s) => [s.name, { ...s }])),
    users: new Map((data.users ?? []).map((u) => [u.username, { ...u, sites: [...u.sites] }])),
    incidents: [...(data.incidents ?? [])],
    incidentByNumber,
    incidentSets,
    timelineEntries: [...(data.timelineEntries ?? [])],
    timeline,
    playbooks: [...(data.playbooks ?? [])],
    artifactTypes: (data.artifactTypes ?? []).map((t) => ({ ...t })),
    artifacts,
  };
}

/**
 * Creates an in-memory backend over a dataset: the `Backend` of the three commands, and a test double for
 * playbook tests (it records runs and notes, runs a hook for each playbook run, and can be changed and
 * reset).
 * @param dataset - sites, users, incidents, timeline entries, playbooks, artifact types and artifacts;
 *   validated and copied (the caller's object is never modified); default: empty
 * @param options - `clock` (default the system clock), `catalog`, `incidentSetOptions`, `onPlaybookRun`
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
  const catalog = options.catalog ?? options.incidentSetOptions?.catalog;
  const datasetOptions = catalog === undefined ? {} : { catalog };
  const setOptions: IncidentSetOptions = {
    ...options.incidentSetOptions,
    ...(catalog === undefined ? {} : { catalog }),
  };
  const validate = (input: unknown): Dataset => {
    const validated = validateDataset(input, datasetOptions);
    if (!validated.ok) throw new DatasetError(validated.issues);
    return validated.dataset;
  };
  const initial = (() => {
    if (options.onLoadProgress === undefined) return validate(dataset);
    const validated = validateDataset(dataset, { ...datasetOptions, onProgress: options.onLoadProgress });
    if (!validated.ok) throw new DatasetError(validated.issues);
    return validated.dataset;
  })();
  // validateDataset returns a deep copy that shares nothing with `dataset` (tested in dataset.test.ts).
  let state = buildState(initial, setOptions);
  const clock = options.clock ?? (() => new Date());
  const now = (): Date => {
    const time = clock();
    if (!(time instanceof Date) || Number.isNaN(time.getTime())) {
      throw new TypeError("The memory backend's clock must return a valid Date.");
    }
    return new Date(time.getTime());
  };

  let runLog: PlaybookRunRecord[] = [];
  let noteLog: NoteRecord[] = [];
  let lastRuntimeId = 0;

  const snapshot = (): Dataset => ({
    sites: [...state.sites.values()].map((s) =>
      s.timeZone === undefined ? { name: s.name } : { name: s.name, timeZone: s.timeZone },
    ),
    users: [...state.users.values()].map((u) => ({ username: u.username, sites: [...u.sites] })),
    incidents: structuredClone(state.incidents),
    timelineEntries: structuredClone(state.timelineEntries),
    playbooks: structuredClone(state.playbooks),
    artifactTypes: state.artifactTypes.map((t) => ({ ...t })),
    artifacts: [...state.artifacts.values()].flat().map((a) => ({
      name: a.info.name,
      typeId: a.info.typeId,
      site: a.info.site,
      notes: a.notes.map((n) => ({ ...n })),
    })),
  });
  /** Validates the dataset `change` makes of a snapshot and, when valid, makes it the state. */
  const replace = (change: (current: Dataset) => Dataset): void => {
    state = buildState(validate(change(snapshot())), setOptions);
  };

  const backend: MemoryBackend = {
    async findSite(name) {
      return state.sites.get(name);
    },
    async findUser(username) {
      return state.users.get(username);
    },
    async findIncidentByNumber(site, incidentNumber) {
      return state.incidentByNumber.get(key(site, incidentNumber));
    },
    async findFirstIncident(site: string, condition: Condition, budget?: SearchBudget) {
      return state.incidentSets.get(site)?.findFirst(condition, budget);
    },
    async timelineEntries(site, incidentNumber) {
      return [...(state.timeline.get(key(site, incidentNumber)) ?? [])];
    },
    async playbooksWithTrigger(site, incident, trigger) {
      return state.playbooks
        .filter((p) => playbookApplies(p, site, incident, trigger))
        .map((p) => ({ name: p.name }));
    },
    async recordPlaybookRun(run) {
      const time = now();
      lastRuntimeId += 1;
      const record: PlaybookRunRecord = Object.freeze({
        runtimeId: lastRuntimeId,
        playbookName: run.playbookName,
        site: run.site,
        incidentId: run.incident.IncidentId,
        incidentNumber: run.incident.Number,
        triggerData: run.triggerData,
        time,
      });
      runLog.push(record);
      await options.onPlaybookRun?.(record, backend);
      return { runtimeId: record.runtimeId };
    },
    async artifactTypes() {
      return state.artifactTypes.map((t) => ({ ...t }));
    },
    async findArtifacts(site, name) {
      return (state.artifacts.get(key(site, name)) ?? []).map((a) => ({ ...a.info }));
    },
    async appendNote(artifact, note) {
      const found = (state.artifacts.get(key(artifact.site, artifact.name)) ?? []).find(
        (a) => a.info.typeId === artifact.typeId,
      );
      if (found === undefined) {
        throw new Error(
          `No artifact '${artifact.name}' of type id ${artifact.typeId} in site '${artifact.site}'.`,
        );
      }
      const time = now();
      found.notes.push({ text: note.text, author: note.author, time: time.toISOString() });
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
    snapshot,
    addIncident(incident) {
      replace((current) => ({ ...current, incidents: [...(current.incidents ?? []), incident] }));
      return structuredClone(state.incidentByNumber.get(key(incident.Site, incident.Number))!);
    },
    updateIncident(site, incidentNumber, changes) {
      const existing = state.incidentByNumber.get(key(site, incidentNumber));
      if (existing === undefined) {
        throw new RangeError(`No incident '${incidentNumber}' in site '${site}'.`);
      }
      const changed: Record<string, unknown> = { ...existing };
      for (const [field, value] of Object.entries(changes)) {
        if (value === undefined) delete changed[field];
        else changed[field] = value;
      }
      const index = state.incidents.indexOf(existing);
      replace((current) => {
        const incidents = [...(current.incidents ?? [])];
        incidents[index] = changed as IncidentRecord;
        return { ...current, incidents };
      });
      const number = typeof changed.Number === "string" ? changed.Number : incidentNumber;
      const changedSite = typeof changed.Site === "string" ? changed.Site : site;
      return structuredClone(state.incidentByNumber.get(key(changedSite, number))!);
    },
    addTimelineEntry(entry) {
      replace((current) => ({ ...current, timelineEntries: [...(current.timelineEntries ?? []), entry] }));
    },
    addArtifact(artifact) {
      replace((current) => ({ ...current, artifacts: [...(current.artifacts ?? []), artifact] }));
    },
    update(change) {
      replace(change);
    },
    reset() {
      state = buildState(structuredClone(initial), setOptions);
      runLog = [];
      noteLog = [];
      lastRuntimeId = 0;
    },
  };
  return backend;
}

function key(site: string, name: string): string {
  return JSON.stringify([site, name]);
}
