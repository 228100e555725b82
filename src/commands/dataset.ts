/**
 * The dataset of the in-memory backend: sites, users, incidents, timeline entries, playbooks, artifact
 * types and artifacts, as one JSON document (documented with an example in the README). Loading validates
 * it and reports every problem with its path (`incidents[3].Severity: …`), never the first one only.
 *
 * Untrusted input never crashes the validator, hangs it, or pollutes a prototype: objects are walked
 * iteratively with a depth limit, keys named `__proto__`, `prototype` or `constructor` are refused, and the
 * validated dataset is a fresh copy.
 */

import { isValidTimeZone } from "../artifacts/note-result.js";
import { DEFAULT_CATALOG, type FieldCatalog, isForbiddenSegment } from "../conditions/catalog.js";
import { parseIsoUtc } from "../conditions/dates.js";
import { describeValue, formatPath, type PathSegment } from "../conditions/issues.js";
import { timelineTimeKey } from "../timeline/sort.js";
import type { ArtifactTypeInfo, IncidentRecord } from "./backend.js";

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
  /** Default `""`. */
  readonly Summary?: string;
  readonly Note?: string;
  readonly EventType?: string;
  /** Default `[]`. */
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
 * `incidents` hold `IncidentId` (integer, unique), `Number` (string, unique within the site), `Site` and any
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

/** One problem of a dataset: where (keys and indexes from the root) and what. */
export interface DatasetIssue {
  readonly path: PathSegment[];
  readonly message: string;
}

/** The result of `validateDataset`. */
export type DatasetValidation = { ok: true; dataset: Dataset } | { ok: false; issues: DatasetIssue[] };

/** Options of `validateDataset`. */
export interface DatasetOptions {
  /** The field catalogue incident fields are checked against (DECISIONS.md 1.6); default `DEFAULT_CATALOG`. */
  readonly catalog?: FieldCatalog;
}

/** Thrown by `createMemoryBackend` for an invalid dataset; `issues` lists every problem. */
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

/** At most this many issues are listed; one more issue says how many were left out. */
export const MAX_DATASET_ISSUES = 1000;
/** Nesting depth allowed inside an incident's free-form fields. */
export const MAX_DATASET_DEPTH = 32;

const TOP_LEVEL_KEYS = [
  "sites",
  "users",
  "incidents",
  "timelineEntries",
  "playbooks",
  "artifactTypes",
  "artifacts",
] as const;
const TIMELINE_TEXT_FIELDS = ["Summary", "Note", "EventType", "RiskLevel", "Description", "Author"] as const;
const TIMELINE_LIST_FIELDS = ["Tactic", "Technique"] as const;
const TIMELINE_KEYS = [
  "IncidentNumber",
  "Site",
  "TimelineID",
  "Time",
  ...TIMELINE_TEXT_FIELDS,
  ...TIMELINE_LIST_FIELDS,
] as const;

type Json = Record<string, unknown>;

class Collector {
  readonly issues: DatasetIssue[] = [];
  private dropped = 0;

  add(path: readonly PathSegment[], message: string): void {
    if (this.issues.length < MAX_DATASET_ISSUES) this.issues.push({ path: [...path], message });
    else this.dropped++;
  }

  finish(): DatasetIssue[] {
    if (this.dropped > 0) {
      this.issues.push({ path: [], message: `${this.dropped} more problems were found and not listed.` });
    }
    return this.issues;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates an untrusted dataset (usually `JSON.parse` of a file) and returns a fresh, normalised copy
 * (defaults filled in) or every problem with its path.
 * @param input - anything
 * @param options - the field catalogue for incident fields
 * @returns `{ ok: true, dataset }` or `{ ok: false, issues }` (at most `MAX_DATASET_ISSUES` + 1); never throws
 * @example validateDataset({ sites: [{ name: "HQ", timeZone: "Mars/Base" }] })
 * //=> { ok: false, issues: [{ path: ["sites", 0, "timeZone"], message: "Expected an IANA time zone name …" }] }
 */
export function validateDataset(input: unknown, options: DatasetOptions = {}): DatasetValidation {
  const catalog = options.catalog ?? DEFAULT_CATALOG;
  const out = new Collector();
  if (!isObject(input)) {
    out.add([], `Expected a dataset object, found ${describeValue(input)}.`);
    return { ok: false, issues: out.finish() };
  }
  for (const key of Object.keys(input)) {
    if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key)) {
      out.add([key], `Unknown dataset key '${key}': expected ${TOP_LEVEL_KEYS.join(", ")}.`);
    }
  }
  const lists: Partial<Record<(typeof TOP_LEVEL_KEYS)[number], unknown[]>> = {};
  for (const key of TOP_LEVEL_KEYS) {
    const value = Object.hasOwn(input, key) ? input[key] : undefined;
    if (value === undefined) lists[key] = [];
    else if (Array.isArray(value)) lists[key] = value;
    else out.add([key], `Expected an array, found ${describeValue(value)}.`);
  }

  // References are checked against every record whose key fields are valid, even when another of its
  // fields is not, so that one problem is reported once rather than again at every reference.
  const siteNames = new Set<string>();
  const sites = validateSites(lists.sites ?? [], siteNames, out);
  const users = validateUsers(lists.users ?? [], siteNames, out);
  const incidentKeys = new Set<string>();
  const incidents = validateIncidents(lists.incidents ?? [], siteNames, incidentKeys, catalog, out);
  const timelineEntries = validateTimeline(lists.timelineEntries ?? [], siteNames, incidentKeys, out);
  const playbooks = validatePlaybooks(lists.playbooks ?? [], siteNames, out);
  const typeIds = new Set<number>();
  const artifactTypes = validateArtifactTypes(lists.artifactTypes ?? [], typeIds, out);
  const artifacts = validateArtifacts(lists.artifacts ?? [], siteNames, typeIds, out);

  const issues = out.finish();
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    dataset: { sites, users, incidents, timelineEntries, playbooks, artifactTypes, artifacts },
  };
}

/**
 * Parses and validates a dataset file's text.
 * @param jsonText - the JSON document
 * @returns as `validateDataset`; text that is not JSON is one issue at the root; never throws
 */
export function parseDataset(jsonText: string, options: DatasetOptions = {}): DatasetValidation {
  let input: unknown;
  try {
    input = JSON.parse(jsonText);
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: [], message: `Expected a JSON document: ${(error as Error).message}.` }],
    };
  }
  return validateDataset(input, options);
}

function siteKey(site: string, name: string): string {
  return JSON.stringify([site, name]);
}

/** Checks an element is an object with only `allowed` keys; reports the others. */
function checkObject(
  value: unknown,
  path: PathSegment[],
  allowed: readonly string[],
  what: string,
  out: Collector,
) {
  if (!isObject(value)) {
    out.add(path, `Expected ${what} object, found ${describeValue(value)}.`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      out.add([...path, key], `Unknown key '${key}' in ${what}: expected ${allowed.join(", ")}.`);
    }
  }
  return value;
}

function readString(
  obj: Json,
  key: string,
  path: PathSegment[],
  out: Collector,
  { required = true, nonEmpty = true }: { required?: boolean; nonEmpty?: boolean } = {},
): string | undefined {
  const value = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (value === undefined) {
    if (required)
      out.add([...path, key], `Missing '${key}': expected a ${nonEmpty ? "non-empty " : ""}string.`);
    return undefined;
  }
  if (typeof value !== "string" || (nonEmpty && value.trim() === "")) {
    out.add(
      [...path, key],
      `Expected a ${nonEmpty ? "non-empty " : ""}string, found ${describeValue(value)}.`,
    );
    return undefined;
  }
  return value;
}

function readInteger(
  obj: Json,
  key: string,
  path: PathSegment[],
  out: Collector,
  min = 0,
): number | undefined {
  const value = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (value === undefined) {
    out.add([...path, key], `Missing '${key}': expected an integer.`);
    return undefined;
  }
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    out.add([...path, key], `Expected an integer of at least ${min}, found ${describeValue(value)}.`);
    return undefined;
  }
  return value;
}

function readStringList(
  obj: Json,
  key: string,
  path: PathSegment[],
  out: Collector,
  required: boolean,
): string[] | undefined {
  const value = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (value === undefined) {
    if (required) out.add([...path, key], `Missing '${key}': expected an array of strings.`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    out.add([...path, key], `Expected an array of strings, found ${describeValue(value)}.`);
    return undefined;
  }
  let ok = true;
  value.forEach((item, index) => {
    if (typeof item !== "string" || item.trim() === "") {
      out.add([...path, key, index], `Expected a non-empty string, found ${describeValue(item)}.`);
      ok = false;
    }
  });
  return ok ? [...(value as string[])] : undefined;
}

function checkSiteRefs(
  names: readonly string[],
  siteNames: Set<string>,
  path: PathSegment[],
  out: Collector,
) {
  names.forEach((name, index) => {
    if (!siteNames.has(name)) out.add([...path, index], `Unknown site '${name}': it is not in 'sites'.`);
  });
}

function validateSites(list: unknown[], seen: Set<string>, out: Collector): DatasetSite[] {
  const result: DatasetSite[] = [];
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["sites", i];
    const obj = checkObject(raw, path, ["name", "timeZone"], "a site", out);
    if (obj === undefined) return;
    const name = readString(obj, "name", path, out);
    const timeZone = readString(obj, "timeZone", path, out, { required: false });
    if (timeZone !== undefined && !isValidTimeZone(timeZone)) {
      out.add(
        [...path, "timeZone"],
        `Expected an IANA time zone name such as 'Europe/Berlin', found '${timeZone}'.`,
      );
    }
    if (name === undefined) return;
    if (seen.has(name)) out.add([...path, "name"], `Duplicate site name '${name}'.`);
    seen.add(name);
    result.push(timeZone === undefined ? { name } : { name, timeZone });
  });
  return result;
}

function validateUsers(list: unknown[], siteNames: Set<string>, out: Collector): DatasetUser[] {
  const result: DatasetUser[] = [];
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["users", i];
    const obj = checkObject(raw, path, ["username", "sites"], "a user", out);
    if (obj === undefined) return;
    const username = readString(obj, "username", path, out);
    const sites = readStringList(obj, "sites", path, out, true);
    if (sites !== undefined) checkSiteRefs(sites, siteNames, [...path, "sites"], out);
    if (username === undefined || sites === undefined) return;
    if (seen.has(username)) out.add([...path, "username"], `Duplicate username '${username}'.`);
    seen.add(username);
    result.push({ username, sites });
  });
  return result;
}

/**
 * Copies a free-form JSON value, refusing prototype-named keys, non-JSON values and excessive depth.
 * Iterative, so deep input cannot overflow the stack.
 */
function copyJson(value: unknown, path: PathSegment[], out: Collector): { ok: boolean; value: unknown } {
  let ok = true;
  const problem = (p: PathSegment[], message: string) => {
    out.add(p, message);
    ok = false;
  };
  const isLeaf = (v: unknown) =>
    v === null ||
    typeof v === "string" ||
    typeof v === "boolean" ||
    (typeof v === "number" && Number.isFinite(v));
  if (isLeaf(value)) return { ok, value };
  const rootCopy: unknown = Array.isArray(value) ? [] : {};
  if (!Array.isArray(value) && !isPlainObject(value)) {
    problem(path, `Expected a JSON value, found ${describeValue(value)}.`);
    return { ok, value: undefined };
  }
  const stack: { source: unknown; target: Json | unknown[]; path: PathSegment[]; depth: number }[] = [
    { source: value, target: rootCopy as Json | unknown[], path, depth: 1 },
  ];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > MAX_DATASET_DEPTH) {
      problem(frame.path, `Expected at most ${MAX_DATASET_DEPTH} levels of nesting, found more.`);
      continue;
    }
    const entries: [PathSegment, unknown][] = Array.isArray(frame.source)
      ? frame.source.map((v, i) => [i, v])
      : Object.entries(frame.source as Json);
    for (const [key, child] of entries) {
      const childPath = [...frame.path, key];
      if (typeof key === "string" && isForbiddenSegment(key)) {
        problem(childPath, `The key '${key}' is not allowed.`);
        continue;
      }
      let copy: unknown;
      if (isLeaf(child)) copy = child;
      else if (Array.isArray(child) || isPlainObject(child)) {
        copy = Array.isArray(child) ? [] : {};
        stack.push({
          source: child,
          target: copy as Json | unknown[],
          path: childPath,
          depth: frame.depth + 1,
        });
      } else {
        problem(childPath, `Expected a JSON value, found ${describeValue(child)}.`);
        continue;
      }
      if (Array.isArray(frame.target)) frame.target.push(copy);
      else frame.target[key as string] = copy;
    }
  }
  return { ok, value: rootCopy };
}

function isPlainObject(value: unknown): value is Json {
  if (!isObject(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function readPath(record: Json, segments: readonly string[]): unknown {
  let current: unknown = record;
  for (const segment of segments) {
    if (!isObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function validateIncidents(
  list: unknown[],
  siteNames: Set<string>,
  numbers: Set<string>,
  catalog: FieldCatalog,
  out: Collector,
): IncidentRecord[] {
  const result: IncidentRecord[] = [];
  const ids = new Set<number>();
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["incidents", i];
    if (!isObject(raw)) {
      out.add(path, `Expected an incident object, found ${describeValue(raw)}.`);
      return;
    }
    const before = out.issues.length;
    const copied = copyJson(raw, path, out);
    const id = readInteger(raw, "IncidentId", path, out, 1);
    const number = readString(raw, "Number", path, out);
    const site = readString(raw, "Site", path, out);
    if (site !== undefined && !siteNames.has(site)) {
      out.add([...path, "Site"], `Unknown site '${site}': it is not in 'sites'.`);
    }
    if (id !== undefined) {
      if (ids.has(id)) out.add([...path, "IncidentId"], `Duplicate IncidentId ${id}.`);
      ids.add(id);
    }
    if (number !== undefined && site !== undefined) {
      const key = siteKey(site, number);
      if (numbers.has(key))
        out.add([...path, "Number"], `Duplicate incident Number '${number}' in site '${site}'.`);
      numbers.add(key);
    }
    for (const [field, spec] of Object.entries(catalog.fields)) {
      const value = readPath(raw, field.split("."));
      if (value === undefined || value === null || field === "Number") continue;
      const fieldPath = [...path, ...field.split(".")];
      if (spec.kind === "text" && typeof value !== "string") {
        out.add(fieldPath, `${field} is a text field: expected a string, found ${describeValue(value)}.`);
      } else if (spec.kind === "enum" && (typeof value !== "string" || !spec.labels.includes(value))) {
        out.add(
          fieldPath,
          `Expected one of ${spec.labels.map((l) => `'${l}'`).join(", ")} for ${field}, found ${describeValue(value)}.`,
        );
      } else if (spec.kind === "date" && (typeof value !== "string" || parseIsoUtc(value) === undefined)) {
        out.add(
          fieldPath,
          `${field} is a date field: expected yyyy-MM-ddTHH:mm:ssZ, found ${describeValue(value)}.`,
        );
      }
    }
    if (out.issues.length === before && copied.ok) result.push(copied.value as IncidentRecord);
  });
  return result;
}

function validateTimeline(
  list: unknown[],
  siteNames: Set<string>,
  incidentKeys: Set<string>,
  out: Collector,
): DatasetTimelineEntry[] {
  const result: DatasetTimelineEntry[] = [];
  const ids = new Set<string>();
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["timelineEntries", i];
    const obj = checkObject(raw, path, TIMELINE_KEYS, "a timeline entry", out);
    if (obj === undefined) return;
    const before = out.issues.length;
    const incidentNumber = readString(obj, "IncidentNumber", path, out);
    const site = readString(obj, "Site", path, out);
    const timelineId = readInteger(obj, "TimelineID", path, out, Number.MIN_SAFE_INTEGER);
    const time = readString(obj, "Time", path, out);
    if (time !== undefined && timelineTimeKey(time) === undefined) {
      out.add(
        [...path, "Time"],
        `Expected a time of the format yyyy-MM-dd HH:mm:ss, found ${describeValue(time)}.`,
      );
    }
    if (site !== undefined && !siteNames.has(site)) {
      out.add([...path, "Site"], `Unknown site '${site}': it is not in 'sites'.`);
    } else if (
      site !== undefined &&
      incidentNumber !== undefined &&
      !incidentKeys.has(siteKey(site, incidentNumber))
    ) {
      out.add([...path, "IncidentNumber"], `No incident '${incidentNumber}' in site '${site}'.`);
    }
    if (site !== undefined && incidentNumber !== undefined && timelineId !== undefined) {
      const key = JSON.stringify([site, incidentNumber, timelineId]);
      if (ids.has(key))
        out.add(
          [...path, "TimelineID"],
          `Duplicate TimelineID ${timelineId} in incident '${incidentNumber}'.`,
        );
      ids.add(key);
    }
    const texts: Record<string, string> = {};
    for (const field of TIMELINE_TEXT_FIELDS) {
      texts[field] = readString(obj, field, path, out, { required: false, nonEmpty: false }) ?? "";
    }
    const tactic = readStringList(obj, "Tactic", path, out, false) ?? [];
    const technique = readStringList(obj, "Technique", path, out, false) ?? [];
    if (out.issues.length !== before) return;
    result.push({
      IncidentNumber: incidentNumber!,
      Site: site!,
      TimelineID: timelineId!,
      Time: time!,
      Summary: texts.Summary!,
      Note: texts.Note!,
      EventType: texts.EventType!,
      Tactic: tactic,
      Technique: technique,
      RiskLevel: texts.RiskLevel!,
      Description: texts.Description!,
      Author: texts.Author!,
    });
  });
  return result;
}

function validatePlaybooks(list: unknown[], siteNames: Set<string>, out: Collector): DatasetPlaybook[] {
  const result: DatasetPlaybook[] = [];
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["playbooks", i];
    const obj = checkObject(raw, path, ["name", "triggers", "incidentTypes", "sites"], "a playbook", out);
    if (obj === undefined) return;
    const name = readString(obj, "name", path, out);
    const triggers = readStringList(obj, "triggers", path, out, true);
    const incidentTypes = readStringList(obj, "incidentTypes", path, out, true);
    const sites = readStringList(obj, "sites", path, out, false);
    if (sites !== undefined) checkSiteRefs(sites, siteNames, [...path, "sites"], out);
    if (name === undefined || triggers === undefined || incidentTypes === undefined) return;
    if (seen.has(name)) out.add([...path, "name"], `Duplicate playbook name '${name}'.`);
    seen.add(name);
    result.push(
      sites === undefined ? { name, triggers, incidentTypes } : { name, triggers, incidentTypes, sites },
    );
  });
  return result;
}

function validateArtifactTypes(list: unknown[], ids: Set<number>, out: Collector): ArtifactTypeInfo[] {
  const result: ArtifactTypeInfo[] = [];
  const labels = new Set<string>();
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["artifactTypes", i];
    const obj = checkObject(raw, path, ["id", "label"], "an artifact type", out);
    if (obj === undefined) return;
    const before = out.issues.length;
    const id = readInteger(obj, "id", path, out);
    const label = readString(obj, "label", path, out);
    if (id !== undefined) {
      if (ids.has(id)) out.add([...path, "id"], `Duplicate artifact type id ${id}.`);
      ids.add(id);
    }
    if (label !== undefined) {
      // Labels are matched ignoring case and surrounding spaces (DECISIONS.md 3.3): they must differ beyond that.
      const normal = label.trim().toLowerCase();
      if (labels.has(normal)) {
        out.add(
          [...path, "label"],
          `Duplicate artifact type label '${label}' (labels are compared ignoring case).`,
        );
      }
      if (/^\d+$/.test(normal)) {
        out.add(
          [...path, "label"],
          `Expected a label that is not a number, found '${label}': it would read as a type id.`,
        );
      }
      labels.add(normal);
    }
    if (out.issues.length === before) result.push({ id: id!, label: label! });
  });
  return result;
}

function validateArtifacts(
  list: unknown[],
  siteNames: Set<string>,
  typeIds: Set<number>,
  out: Collector,
): DatasetArtifact[] {
  const result: DatasetArtifact[] = [];
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const path: PathSegment[] = ["artifacts", i];
    const obj = checkObject(raw, path, ["name", "typeId", "site", "notes"], "an artifact", out);
    if (obj === undefined) return;
    const before = out.issues.length;
    const name = readString(obj, "name", path, out);
    const typeId = readInteger(obj, "typeId", path, out);
    const site = readString(obj, "site", path, out);
    if (typeId !== undefined && !typeIds.has(typeId)) {
      out.add([...path, "typeId"], `Unknown artifact type id ${typeId}: it is not in 'artifactTypes'.`);
    }
    if (site !== undefined && !siteNames.has(site))
      out.add([...path, "site"], `Unknown site '${site}': it is not in 'sites'.`);
    const notes: DatasetNote[] = [];
    const rawNotes = Object.hasOwn(obj, "notes") ? obj.notes : undefined;
    if (rawNotes !== undefined && !Array.isArray(rawNotes)) {
      out.add([...path, "notes"], `Expected an array of notes, found ${describeValue(rawNotes)}.`);
    } else {
      (rawNotes ?? []).forEach((rawNote: unknown, n: number) => {
        const notePath: PathSegment[] = [...path, "notes", n];
        const note = checkObject(rawNote, notePath, ["text", "author", "time"], "a note", out);
        if (note === undefined) return;
        const text = readString(note, "text", notePath, out);
        const author = readString(note, "author", notePath, out);
        const time = readString(note, "time", notePath, out);
        if (time !== undefined && parseIsoUtc(time) === undefined) {
          out.add(
            [...notePath, "time"],
            `Expected a time of the format yyyy-MM-ddTHH:mm:ssZ, found ${describeValue(time)}.`,
          );
        } else if (text !== undefined && author !== undefined && time !== undefined) {
          notes.push({ text, author, time });
        }
      });
    }
    if (name !== undefined && site !== undefined && typeId !== undefined) {
      const key = JSON.stringify([site, name, typeId]);
      if (seen.has(key))
        out.add(path, `Duplicate artifact '${name}' of type id ${typeId} in site '${site}'.`);
      seen.add(key);
    }
    if (out.issues.length === before) result.push({ name: name!, typeId: typeId!, site: site!, notes });
  });
  return result;
}
