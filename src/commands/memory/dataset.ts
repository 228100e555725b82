/**
 * The dataset of the in-memory backend: sites, users, incidents, timeline entries, playbooks, artifact
 * types and artifacts, as one JSON document (documented with an example in the README). Loading validates
 * it and reports every problem with its code and path (`incidents[3].Severity: …`), never the first one
 * only. Each record kind is a schema read by the declarative reader of `record-reader.ts`; references
 * between records and uniqueness are checked here. Issue messages come from `dataset-issues.ts`.
 *
 * Untrusted input never crashes the validator, hangs it, or pollutes a prototype: incidents' free-form
 * values are walked iteratively with a depth limit, keys named `__proto__`, `prototype` or `constructor`
 * are refused, and the validated dataset is a fresh copy.
 */

import { DEFAULT_CATALOG, type FieldCatalog, isForbiddenSegment } from "../../conditions/catalog.js";
import { describeValue, formatPath, type PathSegment } from "../../conditions/issues.js";
import type { ArtifactTypeInfo, IncidentRecord } from "../backend.js";
import { type DatasetIssue, makeDatasetIssue } from "./dataset-issues.js";
import { DATASET_KEYS } from "./dataset-keys.js";
import {
  type Field,
  IssueCollector,
  isObject,
  optional,
  own,
  type ReadFields,
  type RecordSchema,
  readRecord,
  required,
  rules,
} from "./record-reader.js";

/** A site of the dataset. */
export interface DatasetSite {
  /** Unique, non-empty. */
  readonly name: string;
  /** IANA time zone (`America/New_York`); absent means UTC. */
  readonly timeZone?: string;
}

/** A user of the dataset and the sites it may use. */
export interface DatasetUser {
  /** Unique, non-empty. */
  readonly username: string;
  /** Names of sites of the dataset. */
  readonly sites: readonly string[];
}

/** A timeline entry of the dataset: the fields of specification 2.2 plus the incident it belongs to. */
export interface DatasetTimelineEntry {
  /** The `Number` of an incident of `Site`. */
  readonly IncidentNumber: string;
  readonly Site: string;
  /** Integer, unique within the incident. */
  readonly TimelineID: number;
  /** `yyyy-MM-dd HH:mm:ss`, in the incident's (the site's) time zone. */
  readonly Time: string;
  /** This and the other text fields default to `""`. */
  readonly Summary?: string;
  readonly Note?: string;
  readonly EventType?: string;
  /** This and `Technique` default to `[]`; each element a non-empty string. */
  readonly Tactic?: readonly string[];
  readonly Technique?: readonly string[];
  readonly RiskLevel?: string;
  readonly Description?: string;
  readonly Author?: string;
}

/** A playbook of the dataset. */
export interface DatasetPlaybook {
  /** Unique, non-empty. */
  readonly name: string;
  /** Trigger names, e.g. `"On Incident External Action"`. */
  readonly triggers: readonly string[];
  /** The playbook runs for incidents whose `Type` is one of these. */
  readonly incidentTypes: readonly string[];
  /** Names of the sites it applies to; absent means every site. */
  readonly sites?: readonly string[];
}

/** A note already on an artifact. */
export interface DatasetNote {
  readonly text: string;
  readonly author: string;
  /** ISO-8601 UTC, `yyyy-MM-ddTHH:mm:ssZ`. */
  readonly time: string;
}

/** An artifact of the dataset; `(site, name, typeId)` is unique. */
export interface DatasetArtifact {
  readonly name: string;
  /** The `id` of an artifact type. */
  readonly typeId: number;
  /** The name of a site. */
  readonly site: string;
  /** Default `[]`. */
  readonly notes?: readonly DatasetNote[];
}

/**
 * The dataset of `createMemoryBackend` (JSON). Every top-level list is optional (default `[]`).
 * `incidents` hold `IncidentId` (an integer of at least 1, unique), `Number` (a non-empty string, unique
 * within the site), `Site` and any
 * field of specification 2.3; catalogue fields must have the catalogue's type (labels for enumerated
 * fields, ISO-8601 UTC strings for `CreatedUtcTime`).
 */
export interface Dataset {
  readonly sites?: readonly DatasetSite[];
  readonly users?: readonly DatasetUser[];
  readonly incidents?: readonly IncidentRecord[];
  readonly timelineEntries?: readonly DatasetTimelineEntry[];
  readonly playbooks?: readonly DatasetPlaybook[];
  readonly artifactTypes?: readonly ArtifactTypeInfo[];
  readonly artifacts?: readonly DatasetArtifact[];
}

export type {
  DatasetDuplicate,
  DatasetIssue,
  DatasetIssueCode,
  DatasetIssueDetail,
} from "./dataset-issues.js";

/** The result of `validateDataset`. */
export type DatasetValidation = { ok: true; dataset: Dataset } | { ok: false; issues: DatasetIssue[] };

/** Options of `validateDataset`. */
export interface DatasetOptions {
  /** The field catalogue incident fields are checked against (docs/semantics.md 1.6); default `DEFAULT_CATALOG`. */
  readonly catalog?: FieldCatalog;
  /**
   * Called as records are read, with how many records of all the lists were read (`done`) and how many
   * there are (`total`): after every `progressInterval` records, and once more after the last one, so the
   * last call is always `(total, total)` (`(0, 0)` for a dataset without records); never twice with the
   * same `done`. Called synchronously; an exception it throws propagates out of `validateDataset`.
   */
  readonly onProgress?: (done: number, total: number) => void;
  /** Records between two `onProgress` calls: a positive integer; default `DEFAULT_PROGRESS_INTERVAL`. */
  readonly progressInterval?: number;
}

/** Records between two `onProgress` calls of `validateDataset` when `progressInterval` is not given. */
export const DEFAULT_PROGRESS_INTERVAL = 10_000;

/**
 * Thrown for an invalid dataset by `createMemoryBackend` (and by the memory backend's changes, which are
 * validated as in a dataset), `loadSampleDataset` and the PostgreSQL backend's loading; `issues` lists every
 * problem.
 */
export class DatasetError extends Error {
  override readonly name = "DatasetError";
  readonly issues: readonly DatasetIssue[];

  constructor(issues: readonly DatasetIssue[]) {
    super(`Invalid dataset:\n${formatDatasetIssues(issues)}`);
    this.issues = issues;
  }
}

/** Formats dataset issues one per line as `path: message`. */
export function formatDatasetIssues(issues: readonly DatasetIssue[]): string {
  return issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join("\n");
}

/** At most this many issues are listed; one more issue (`more_issues`) says how many were left out. */
export const MAX_DATASET_ISSUES = 1000;
/** Nesting depth allowed inside an incident's free-form fields. */
export const MAX_DATASET_DEPTH = 32;

type ListKey = (typeof DATASET_KEYS)[number];
/** The dataset's lists, each as the input holds it, before validation. */
type Lists = Record<ListKey, readonly unknown[]>;

// The record kinds, one schema each (keys in the order of the records they produce).
const SITE: RecordSchema<DatasetSite> = {
  what: "a site",
  open: false,
  fields: { name: required(rules.text()), timeZone: optional(rules.text("timeZone")) },
};
const USER: RecordSchema<DatasetUser> = {
  what: "a user",
  open: false,
  fields: { username: required(rules.text()), sites: required(rules.strings) },
};
const emptyText = () => "";
const emptyList = () => [];
const TIMELINE_ENTRY: RecordSchema<DatasetTimelineEntry> = {
  what: "a timeline entry",
  open: false,
  fields: {
    IncidentNumber: required(rules.text()),
    Site: required(rules.text()),
    TimelineID: required(rules.integer()),
    Time: required(rules.text("localTime")),
    Summary: optional(rules.blankText, emptyText),
    Note: optional(rules.blankText, emptyText),
    EventType: optional(rules.blankText, emptyText),
    Tactic: optional(rules.strings, emptyList),
    Technique: optional(rules.strings, emptyList),
    RiskLevel: optional(rules.blankText, emptyText),
    Description: optional(rules.blankText, emptyText),
    Author: optional(rules.blankText, emptyText),
  },
};
const PLAYBOOK: RecordSchema<DatasetPlaybook> = {
  what: "a playbook",
  open: false,
  fields: {
    name: required(rules.text()),
    triggers: required(rules.strings),
    incidentTypes: required(rules.strings),
    sites: optional(rules.strings),
  },
};
const ARTIFACT_TYPE: RecordSchema<ArtifactTypeInfo> = {
  what: "an artifact type",
  open: false,
  fields: { id: required(rules.integer(0)), label: required(rules.text()) },
};
const NOTE: RecordSchema<DatasetNote> = {
  what: "a note",
  open: false,
  fields: {
    text: required(rules.text()),
    author: required(rules.text()),
    time: required(rules.text("isoUtc")),
  },
};
const ARTIFACT: RecordSchema<DatasetArtifact> = {
  what: "an artifact",
  open: false,
  fields: {
    name: required(rules.text()),
    typeId: required(rules.integer(0)),
    site: required(rules.text()),
    notes: optional(rules.records("notes", NOTE as RecordSchema<object>), emptyList),
  },
};

/** The keys every incident has; the catalogue's fields join them in `incidentSchema`. */
interface IncidentKeys {
  readonly IncidentId: number;
  readonly Number: string;
  readonly Site: string;
}

const INCIDENT_SCHEMAS = new WeakMap<FieldCatalog, RecordSchema<IncidentKeys>>();

/**
 * The schema of an incident under a catalogue: open (any other key is free-form JSON), `IncidentId` (an
 * integer of at least 1), `Number` and `Site` required, and every catalogue field but `Number` by its kind.
 */
function incidentSchema(catalog: FieldCatalog): RecordSchema<IncidentKeys> {
  let schema = INCIDENT_SCHEMAS.get(catalog);
  if (schema !== undefined) return schema;
  const fields: Record<string, Field<unknown>> = {
    IncidentId: required(rules.integer(1)),
    Number: required(rules.text()),
    Site: required(rules.text()),
  };
  for (const [field, spec] of Object.entries(catalog.fields)) {
    if (Object.hasOwn(fields, field)) continue;
    const segments = field.split(".");
    fields[field] =
      segments.length === 1
        ? { rule: { kind: "catalog", field, spec }, required: false }
        : { rule: { kind: "catalog", field, spec }, required: false, segments };
  }
  schema = { what: "an incident", open: true, fields: fields as RecordSchema<IncidentKeys>["fields"] };
  INCIDENT_SCHEMAS.set(catalog, schema);
  return schema;
}

/** Counts records and calls `onProgress` (see `DatasetOptions`). */
class Progress {
  private done = 0;
  private next: number;

  constructor(
    private readonly total: number,
    private readonly every: number,
    private readonly report: ((done: number, total: number) => void) | undefined,
  ) {
    this.next = every;
  }

  tick(): void {
    if (++this.done === this.next) {
      this.next += this.every;
      this.report?.(this.done, this.total);
    }
  }

  finish(): void {
    if (this.report !== undefined && (this.total === 0 || this.total % this.every !== 0)) {
      this.report(this.total, this.total);
    }
  }
}

/** What the readers of one validation share. */
interface Context {
  readonly out: IssueCollector;
  readonly progress: Progress;
  readonly siteNames: Set<string>;
  /** Incident Numbers by site, of every incident whose `Number` and `Site` are valid. */
  readonly incidentNumbers: Map<string, Set<string>>;
  readonly typeIds: Set<number>;
}

/**
 * Validates an untrusted dataset (usually `JSON.parse` of a file) and returns a fresh, normalised copy
 * (defaults filled in) or every problem with its code and path.
 *
 * References are checked against every record whose key fields are valid, even when another of its fields
 * is not, so that one problem is reported once rather than again at every reference.
 * @param input - anything
 * @param options - the field catalogue for incident fields, and a progress callback
 * @returns `{ ok: true, dataset }` or `{ ok: false, issues }` (at most `MAX_DATASET_ISSUES` + 1)
 * @throws TypeError when `onProgress` is given and is not a function, or `progressInterval` is given and is
 *   not a positive safe integer; whatever `onProgress` throws. Never throws for any `input`.
 * @example validateDataset({ sites: [{ name: "HQ", timeZone: "Mars/Base" }] })
 * //=> { ok: false, issues: [{ code: "invalid_time_zone", path: ["sites", 0, "timeZone"], message: "Expected an IANA time zone name …" }] }
 */
export function validateDataset(input: unknown, options: DatasetOptions = {}): DatasetValidation {
  const catalog = options.catalog ?? DEFAULT_CATALOG;
  const every = options.progressInterval ?? DEFAULT_PROGRESS_INTERVAL;
  if (!Number.isSafeInteger(every) || every < 1) {
    throw new TypeError(`progressInterval must be a positive integer, found ${describeValue(every)}.`);
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== "function") {
    throw new TypeError(`onProgress must be a function, found ${describeValue(options.onProgress)}.`);
  }
  const out = new IssueCollector(MAX_DATASET_ISSUES);
  // Each list as the input holds it; empty where the input has none (or, an issue, not an array).
  const lists = {} as Lists;
  for (const key of DATASET_KEYS) lists[key] = [];
  if (!isObject(input)) {
    out.add({ code: "invalid_type", expected: "a dataset object", found: input }, []);
  } else {
    for (const key of Object.keys(input)) {
      if (!(DATASET_KEYS as readonly string[]).includes(key)) {
        out.add({ code: "unknown_key", key, what: "the dataset", allowed: DATASET_KEYS }, [key]);
      }
    }
    for (const key of DATASET_KEYS) {
      const value = own(input, key);
      if (Array.isArray(value)) lists[key] = value;
      else if (value !== undefined)
        out.add({ code: "invalid_type", expected: "an array", found: value }, [key]);
    }
  }
  let total = 0;
  for (const key of DATASET_KEYS) total += lists[key].length;
  const ctx: Context = {
    out,
    progress: new Progress(total, every, options.onProgress),
    siteNames: new Set(),
    incidentNumbers: new Map(),
    typeIds: new Set(),
  };
  const dataset: Required<Dataset> = {
    sites: readSites(lists.sites, ctx),
    users: readUsers(lists.users, ctx),
    incidents: readIncidents(lists.incidents, incidentSchema(catalog), ctx),
    timelineEntries: readTimelineEntries(lists.timelineEntries, ctx),
    playbooks: readPlaybooks(lists.playbooks, ctx),
    artifactTypes: readArtifactTypes(lists.artifactTypes, ctx),
    artifacts: readArtifacts(lists.artifacts, ctx),
  };
  ctx.progress.finish();
  const issues = out.finish();
  return issues.length > 0 ? { ok: false, issues } : { ok: true, dataset };
}

/**
 * Parses and validates a dataset file's text.
 * @param jsonText - the JSON document
 * @param options - as `validateDataset`
 * @returns as `validateDataset`; text that is not JSON is one `invalid_json` issue at the root
 * @throws as `validateDataset`, for invalid options only
 */
export function parseDataset(jsonText: string, options: DatasetOptions = {}): DatasetValidation {
  let input: unknown;
  try {
    input = JSON.parse(jsonText);
  } catch (error) {
    return {
      ok: false,
      issues: [makeDatasetIssue({ code: "invalid_json", reason: (error as Error).message }, [])],
    };
  }
  return validateDataset(input, options);
}

/** Reads each record of a list by its schema and hands the valid fields to `check`. */
function eachRecord<T extends object>(
  list: readonly unknown[],
  key: ListKey,
  schema: RecordSchema<T>,
  ctx: Context,
  check: (fields: ReadFields<T>, path: readonly PathSegment[], ok: boolean) => void,
): void {
  for (let index = 0; index < list.length; index++) {
    const path = [key, index];
    const read = readRecord(schema, list[index], path, ctx.out);
    if (read !== undefined) check(read.fields, path, read.ok);
    ctx.progress.tick();
  }
}

function reportUnknownSites(
  sites: readonly string[] | undefined,
  path: readonly PathSegment[],
  ctx: Context,
): void {
  if (sites === undefined) return;
  for (let index = 0; index < sites.length; index++) {
    const site = sites[index]!;
    if (!ctx.siteNames.has(site)) ctx.out.add({ code: "unknown_site", site }, [...path, "sites", index]);
  }
}

/** Adds `name` to `seen`, or records it as a `duplicate` of `what` at `path` when it is there already. */
function uniqueName(
  ctx: Context,
  seen: Set<string>,
  what: "site name" | "username" | "playbook name",
  name: string,
  path: readonly PathSegment[],
): void {
  if (seen.has(name)) ctx.out.add({ code: "duplicate", what, name }, path);
  else seen.add(name);
}

function readSites(list: readonly unknown[], ctx: Context): DatasetSite[] {
  const result: DatasetSite[] = [];
  eachRecord(list, "sites", SITE, ctx, (site, path, ok) => {
    if (site.name === undefined) return;
    uniqueName(ctx, ctx.siteNames, "site name", site.name, [...path, "name"]);
    if (ok) result.push(site as DatasetSite);
  });
  return result;
}

function readUsers(list: readonly unknown[], ctx: Context): DatasetUser[] {
  const result: DatasetUser[] = [];
  const seen = new Set<string>();
  eachRecord(list, "users", USER, ctx, (user, path, ok) => {
    reportUnknownSites(user.sites, path, ctx);
    if (user.username === undefined || user.sites === undefined) return;
    uniqueName(ctx, seen, "username", user.username, [...path, "username"]);
    if (ok) result.push(user as DatasetUser);
  });
  return result;
}

function readIncidents(
  list: readonly unknown[],
  schema: RecordSchema<IncidentKeys>,
  ctx: Context,
): IncidentRecord[] {
  const result: IncidentRecord[] = [];
  const ids = new Set<number>();
  const { out } = ctx;
  for (let index = 0; index < list.length; index++) {
    const raw = list[index];
    const path: PathSegment[] = ["incidents", index];
    ctx.progress.tick();
    if (!isObject(raw)) {
      out.add({ code: "invalid_type", expected: "an incident object", found: raw }, path);
      continue;
    }
    const before = out.count;
    const copy = copyIncident(raw, path, out);
    const { IncidentId: id, Number: number, Site: site } = readRecord(schema, raw, path, out)!.fields;
    if (site !== undefined && !ctx.siteNames.has(site))
      out.add({ code: "unknown_site", site }, [...path, "Site"]);
    if (id !== undefined) {
      if (ids.has(id)) out.add({ code: "duplicate", what: "IncidentId", id }, [...path, "IncidentId"]);
      else ids.add(id);
    }
    if (number !== undefined && site !== undefined) {
      const numbers = getOrAdd(ctx.incidentNumbers, site, () => new Set<string>());
      if (numbers.has(number)) {
        out.add({ code: "duplicate", what: "incident Number", number, site }, [...path, "Number"]);
      } else numbers.add(number);
    }
    if (copy !== undefined && out.count === before) result.push(copy as IncidentRecord);
  }
  return result;
}

function readTimelineEntries(list: readonly unknown[], ctx: Context): DatasetTimelineEntry[] {
  const result: DatasetTimelineEntry[] = [];
  // TimelineIDs by site, then by incident Number.
  const seen = new Map<string, Map<string, Set<number>>>();
  eachRecord(list, "timelineEntries", TIMELINE_ENTRY, ctx, (entry, path, ok) => {
    const { Site: site, IncidentNumber: number, TimelineID: id } = entry;
    let known = true;
    if (site !== undefined && !ctx.siteNames.has(site)) {
      ctx.out.add({ code: "unknown_site", site }, [...path, "Site"]);
      known = false;
    } else if (
      site !== undefined &&
      number !== undefined &&
      ctx.incidentNumbers.get(site)?.has(number) !== true
    ) {
      ctx.out.add({ code: "unknown_incident", number, site }, [...path, "IncidentNumber"]);
      known = false;
    }
    if (site !== undefined && number !== undefined && id !== undefined) {
      const ids = getOrAdd(
        getOrAdd(seen, site, () => new Map<string, Set<number>>()),
        number,
        () => new Set<number>(),
      );
      if (ids.has(id)) {
        ctx.out.add({ code: "duplicate", what: "TimelineID", id, incident: number }, [...path, "TimelineID"]);
        known = false;
      } else ids.add(id);
    }
    if (ok && known) result.push(entry as DatasetTimelineEntry);
  });
  return result;
}

function readPlaybooks(list: readonly unknown[], ctx: Context): DatasetPlaybook[] {
  const result: DatasetPlaybook[] = [];
  const seen = new Set<string>();
  eachRecord(list, "playbooks", PLAYBOOK, ctx, (playbook, path, ok) => {
    reportUnknownSites(playbook.sites, path, ctx);
    if (
      playbook.name === undefined ||
      playbook.triggers === undefined ||
      playbook.incidentTypes === undefined
    ) {
      return;
    }
    uniqueName(ctx, seen, "playbook name", playbook.name, [...path, "name"]);
    if (ok) result.push(playbook as DatasetPlaybook);
  });
  return result;
}

function readArtifactTypes(list: readonly unknown[], ctx: Context): ArtifactTypeInfo[] {
  const result: ArtifactTypeInfo[] = [];
  const labels = new Set<string>();
  eachRecord(list, "artifactTypes", ARTIFACT_TYPE, ctx, (type, path, ok) => {
    const { id, label } = type;
    if (id !== undefined) {
      if (ctx.typeIds.has(id))
        ctx.out.add({ code: "duplicate", what: "artifact type id", id }, [...path, "id"]);
      else ctx.typeIds.add(id);
    }
    if (label !== undefined) {
      // Labels are matched ignoring case and surrounding spaces (docs/semantics.md 3.3): they must differ beyond that.
      const normal = label.trim().toLowerCase();
      if (labels.has(normal)) {
        ctx.out.add({ code: "duplicate", what: "artifact type label", label }, [...path, "label"]);
      }
      if (/^\d+$/.test(normal)) ctx.out.add({ code: "numeric_label", label }, [...path, "label"]);
      labels.add(normal);
    }
    if (ok) result.push(type as ArtifactTypeInfo);
  });
  return result;
}

function readArtifacts(list: readonly unknown[], ctx: Context): DatasetArtifact[] {
  const result: DatasetArtifact[] = [];
  // Artifact names by site, then by type id.
  const seen = new Map<string, Map<number, Set<string>>>();
  eachRecord(list, "artifacts", ARTIFACT, ctx, (artifact, path, ok) => {
    const { name, typeId, site } = artifact;
    if (typeId !== undefined && !ctx.typeIds.has(typeId)) {
      ctx.out.add({ code: "unknown_artifact_type", id: typeId }, [...path, "typeId"]);
    }
    if (site !== undefined && !ctx.siteNames.has(site))
      ctx.out.add({ code: "unknown_site", site }, [...path, "site"]);
    if (name !== undefined && site !== undefined && typeId !== undefined) {
      const names = getOrAdd(
        getOrAdd(seen, site, () => new Map<number, Set<string>>()),
        typeId,
        () => new Set<string>(),
      );
      if (names.has(name)) ctx.out.add({ code: "duplicate", what: "artifact", name, typeId, site }, path);
      else names.add(name);
    }
    if (ok) result.push(artifact as DatasetArtifact);
  });
  return result;
}

/** The value of `key` in `map`, added by `make` when absent. */
function getOrAdd<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

type Json = Record<string, unknown>;

function isLeaf(value: unknown): boolean {
  return (
    value === null ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

function isPlainObject(value: unknown): value is Json {
  if (!isObject(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

interface Frame {
  readonly source: Json | unknown[];
  readonly target: Json | unknown[];
  readonly path: readonly PathSegment[];
  readonly depth: number;
}

/**
 * Copies an incident as free-form JSON, refusing prototype-named keys, non-JSON values and nesting deeper
 * than `MAX_DATASET_DEPTH`. Iterative, so deep input cannot overflow the stack; a path is built only for a
 * nested value or a problem, because this runs once per incident.
 * @returns the copy, or `undefined` after reporting its problems
 */
function copyIncident(raw: Json, path: readonly PathSegment[], out: IssueCollector): Json | undefined {
  if (!isPlainObject(raw)) {
    out.add({ code: "invalid_type", expected: "a JSON value", found: raw }, path);
    return undefined;
  }
  // A spread is the fastest copy of a flat record; nested values are then replaced by their copies.
  const copy: Json = Object.getOwnPropertySymbols(raw).length === 0 ? { ...raw } : {};
  const stack: Frame[] = [];
  let ok = copyChildren(raw, copy, path, 1, stack, out);
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > MAX_DATASET_DEPTH) {
      out.add({ code: "too_deep", max: MAX_DATASET_DEPTH }, frame.path);
      ok = false;
    } else if (!copyChildren(frame.source, frame.target, frame.path, frame.depth, stack, out)) ok = false;
  }
  return ok ? copy : undefined;
}

/**
 * Copies the leaves of one object or array into `target` and pushes a frame for each nested one (copied
 * later, in last-in first-out order); false after reporting a problem.
 */
function copyChildren(
  source: Json | unknown[],
  target: Json | unknown[],
  path: readonly PathSegment[],
  depth: number,
  stack: Frame[],
  out: IssueCollector,
): boolean {
  let ok = true;
  if (Array.isArray(source)) {
    const array = target as unknown[];
    for (let index = 0; index < source.length; index++) {
      const copy = copyValue(source[index], path, index, depth, stack, out);
      if (copy === INVALID) ok = false;
      else array.push(copy);
    }
    return ok;
  }
  const object = target as Json;
  for (const key of Object.keys(source)) {
    if (isForbiddenSegment(key)) {
      out.add({ code: "forbidden_key", key }, [...path, key]);
      ok = false;
      continue;
    }
    const copy = copyValue(source[key], path, key, depth, stack, out);
    if (copy === INVALID) ok = false;
    else object[key] = copy;
  }
  return ok;
}

const INVALID: unique symbol = Symbol("invalid");

/** A leaf as it is, an empty container whose frame is pushed, or `INVALID` after reporting it. */
function copyValue(
  child: unknown,
  path: readonly PathSegment[],
  key: PathSegment,
  depth: number,
  stack: Frame[],
  out: IssueCollector,
): unknown {
  if (isLeaf(child)) return child;
  if (Array.isArray(child) || isPlainObject(child)) {
    const copy: Json | unknown[] = Array.isArray(child) ? [] : {};
    stack.push({ source: child, target: copy, path: [...path, key], depth: depth + 1 });
    return copy;
  }
  out.add({ code: "invalid_type", expected: "a JSON value", found: child }, [...path, key]);
  return INVALID;
}
