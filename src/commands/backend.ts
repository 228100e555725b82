/**
 * What the three commands need from the data behind them (docs/semantics.md 3.3). Every method is async so a
 * server can back it with a database; `createMemoryBackend` implements it in memory for tests of playbooks.
 *
 * Contract for implementers: methods resolve `undefined` / `[]` for "not found" and reject only for real
 * failures (the handler turns a rejection into 500 `{"Error": "Unexpected Error."}`). Site names, usernames,
 * incident numbers and artifact names compare exactly (case-sensitively).
 */

import type { Condition } from "../conditions/ast.js";
import type { SearchBudget } from "../incidents/search-budget.js";
import type { TimelineEntryData } from "./wire.js";

/** A site (specification 2.1): where incidents and artifacts live. */
export interface SiteInfo {
  readonly name: string;
  /** IANA time zone for local dates (`Europe/Berlin`); `undefined` means UTC (docs/semantics.md 3.3). */
  readonly timeZone?: string | undefined;
}

/** A user account of the service and the sites it may use. */
export interface UserInfo {
  readonly username: string;
  readonly sites: readonly string[];
}

/**
 * An incident record: `IncidentId` (integer), `Number` (string), `Site`, and any fields of specification
 * 2.3 (`Title`, `Severity`, `CreatedUtcTime`, …) or others.
 */
export interface IncidentRecord {
  readonly IncidentId: number;
  readonly Number: string;
  readonly Site: string;
  readonly [field: string]: unknown;
}

/** A playbook, as far as triggering is concerned. */
export interface PlaybookInfo {
  readonly name: string;
}

/** An artifact type: the integer id and its label (`3`, `"IP Address"`). */
export interface ArtifactTypeInfo {
  readonly id: number;
  readonly label: string;
}

/** An artifact: found by exact name within a site; `(site, name, typeId)` identifies it. */
export interface ArtifactInfo {
  readonly site: string;
  readonly name: string;
  readonly typeId: number;
}

/** What `recordPlaybookRun` is asked to record. */
export interface PlaybookRunRequest {
  readonly site: string;
  readonly incident: IncidentRecord;
  readonly playbookName: string;
  /** The trigger data this run receives: already deep-copied for this run alone. */
  readonly triggerData: Record<string, unknown>;
}

/** A recorded playbook run. */
export interface RecordedPlaybookRun {
  /** A new integer, greater than every RuntimeId given before (docs/semantics.md 3.3). */
  readonly runtimeId: number;
}

/** What `appendNote` is asked to store. */
export interface NoteRequest {
  readonly text: string;
  /** The username of the caller who added the note (docs/semantics.md 3.3: stored with its author). */
  readonly author: string;
}

/** A stored note: the time the backend gave it. */
export interface StoredNote {
  /** When the note was stored. */
  readonly time: Date;
}

/** The data operations of the three commands. */
export interface Backend {
  /** The site of that exact name, or `undefined`. */
  findSite(name: string): Promise<SiteInfo | undefined>;
  /** The user of that exact username, or `undefined`. */
  findUser(username: string): Promise<UserInfo | undefined>;
  /** The incident whose `Number` is `incidentNumber` in the site, or `undefined`. */
  findIncidentByNumber(site: string, incidentNumber: string): Promise<IncidentRecord | undefined>;
  /**
   * The first incident of the site that matches the condition (docs/semantics.md 1.9: earliest
   * `CreatedUtcTime`, then `IncidentId`), or `undefined`. Search within the site, never the first match of
   * all sites filtered afterwards (that misses the site's match when another site's is earlier): with an
   * `IncidentSet` of every site, `set.findFirst(condition, { ...budget, site })`.
   * @param condition - a parsed condition (`toMongoFind` and `IncidentSet` take it as it is)
   * @param budget - the handler's time budget (docs/semantics.md 1.7), when it has one: `maxTimeMS` and the
   *   `clock` to measure it with. A search that runs past it should reject with `SearchTimeoutError`
   *   (`IncidentSet.findFirst(condition, { ...budget, site })` does; a database backend can pass `maxTimeMS` to its
   *   query and map the database's time-out to that error); the command then fails with
   *   `The Search Conditions took longer than N ms to evaluate.`
   */
  findFirstIncident(
    site: string,
    condition: Condition,
    budget?: SearchBudget,
  ): Promise<IncidentRecord | undefined>;
  /** Every timeline entry of the incident, in any order (the command filters and sorts). */
  timelineEntries(site: string, incidentNumber: string): Promise<readonly TimelineEntryData[]>;
  /** The playbooks that have the trigger and apply to the incident, in the order they should run. */
  playbooksWithTrigger(
    site: string,
    incident: IncidentRecord,
    trigger: string,
  ): Promise<readonly PlaybookInfo[]>;
  /** Records (and, in a real service, starts) one playbook run and gives it a new RuntimeId. */
  recordPlaybookRun(run: PlaybookRunRequest): Promise<RecordedPlaybookRun>;
  /** Every artifact type. */
  artifactTypes(): Promise<readonly ArtifactTypeInfo[]>;
  /** The artifacts of the site whose name is exactly `name` (several when types differ). */
  findArtifacts(site: string, name: string): Promise<readonly ArtifactInfo[]>;
  /** Appends a note to the artifact and returns when it was stored. */
  appendNote(artifact: ArtifactInfo, note: NoteRequest): Promise<StoredNote>;
}
