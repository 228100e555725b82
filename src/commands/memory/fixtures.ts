/**
 * Fixture builders for tests of playbooks and servers: complete, valid records with overridable fields,
 * so that a test states only what matters to it (`buildIncident({ Severity: "High" })`), and a dataset
 * builder that fills in the site, the user and the rest. Every default is a fixed value (no counters, no
 * clock), so tests do not depend on each other's order.
 */

import type { ArtifactTypeInfo, IncidentRecord } from "../backend.js";
import { ON_INCIDENT_EXTERNAL_ACTION } from "../wire.js";
import type {
  Dataset,
  DatasetArtifact,
  DatasetPlaybook,
  DatasetSite,
  DatasetTimelineEntry,
  DatasetUser,
} from "./dataset.js";

/** The site of every fixture unless overridden. */
export const FIXTURE_SITE = "Security Operations";
/** The user of `buildDataset`, who may use every site of the dataset. */
export const FIXTURE_USER = "analyst";
/** The playbook `buildDataset` adds when none is given: it has the external-action trigger. */
export const FIXTURE_PLAYBOOK = "Fixture Playbook";
/** The artifact types of `buildDataset` when none are given. */
export const FIXTURE_ARTIFACT_TYPES: readonly ArtifactTypeInfo[] = Object.freeze([
  Object.freeze({ id: 1, label: "IP Address" }),
  Object.freeze({ id: 2, label: "Domain" }),
  Object.freeze({ id: 3, label: "Hostname" }),
  Object.freeze({ id: 4, label: "File Hash" }),
]);

/** Fields that replace a fixture's defaults. */
export type IncidentOverrides = { readonly [field: string]: unknown } & Partial<IncidentRecord>;

/**
 * An incident with every field of the default catalogue filled (specification 2.3: the eleven text fields,
 * `IngestionType`, `Severity`, `Status`, `CreatedUtcTime`), `IncidentId` 1, `Number` `20240101-1`, in
 * `FIXTURE_SITE`; `overrides` replace any of them or add others. A field overridden with `undefined` is
 * left out (to test an incident without it).
 * @param overrides - the fields that matter to the test
 * @returns a new incident record, valid in a dataset with its site
 * @example buildIncident({ Severity: "High", CreatedUtcTime: "2024-03-01T09:15:00Z" })
 */
export function buildIncident(overrides: IncidentOverrides = {}): IncidentRecord {
  return withoutUndefined({
    IncidentId: 1,
    Number: "20240101-1",
    Site: FIXTURE_SITE,
    Title: "Suspicious sign-in from a new country",
    Type: "Phishing",
    Stage: "Investigation",
    DataSource: "Microsoft Sentinel",
    IncidentSource: "Azure AD Identity Protection",
    Connection: "Sentinel Production",
    Category: "Identity",
    ExternalKey: "EXT-1",
    CustomField1: "Custom value 1",
    CustomField2: "Custom value 2",
    IngestionType: "Webhook",
    Severity: "Medium",
    Status: "Open",
    CreatedUtcTime: "2024-01-01T09:00:00Z",
    ...overrides,
  }) as IncidentRecord;
}

/**
 * A timeline entry of the incident `20240101-1` of `FIXTURE_SITE` with every field filled; `overrides`
 * replace any of them.
 * @param overrides - the fields that matter to the test
 * @returns a new timeline entry for a dataset
 * @example buildTimelineEntry({ TimelineID: 2, Summary: "Mailbox quarantined" })
 */
export function buildTimelineEntry(overrides: Partial<DatasetTimelineEntry> = {}): DatasetTimelineEntry {
  return {
    IncidentNumber: "20240101-1",
    Site: FIXTURE_SITE,
    TimelineID: 1,
    Time: "2024-01-01 09:05:00",
    Summary: "Alert raised",
    Note: "Raised by the sign-in risk policy.",
    EventType: "Alert",
    Tactic: ["Initial Access"],
    Technique: ["T1078 Valid Accounts"],
    RiskLevel: "Medium",
    Description: "A sign-in from a new country.",
    Author: FIXTURE_USER,
    ...overrides,
  };
}

/**
 * An artifact `10.0.0.1` of type 1 (`IP Address`) in `FIXTURE_SITE`, with no notes; `overrides` replace
 * any field.
 * @param overrides - the fields that matter to the test
 * @returns a new artifact for a dataset
 * @example buildArtifact({ name: "evil.example", typeId: 2 })
 */
export function buildArtifact(overrides: Partial<DatasetArtifact> = {}): DatasetArtifact {
  return { name: "10.0.0.1", typeId: 1, site: FIXTURE_SITE, notes: [], ...overrides };
}

/** What `buildDataset` builds from; every list is optional. */
export interface DatasetFixture {
  /**
   * Incidents, each completed by `buildIncident`. The n-th (from 1) gets `IncidentId` n, `Number`
   * `20240101-n`, `ExternalKey` `EXT-n` and `CreatedUtcTime` n minutes after 2024-01-01T09:00:00Z unless
   * it sets them. Default: one incident.
   */
  readonly incidents?: readonly IncidentOverrides[];
  /** Timeline entries, each completed by `buildTimelineEntry`; the n-th gets `TimelineID` n unless set. */
  readonly timelineEntries?: readonly Partial<DatasetTimelineEntry>[];
  /** Artifacts, each completed by `buildArtifact`. Default: none. */
  readonly artifacts?: readonly Partial<DatasetArtifact>[];
  /**
   * Playbooks. Default: `FIXTURE_PLAYBOOK`, with the trigger `On Incident External Action`, for every
   * incident `Type` of the dataset.
   */
  readonly playbooks?: readonly DatasetPlaybook[];
  /**
   * Sites. Default: `FIXTURE_SITE` and every other site an incident, entry or artifact names, all in UTC.
   */
  readonly sites?: readonly DatasetSite[];
  /** Users. Default: `FIXTURE_USER`, who may use every site. */
  readonly users?: readonly DatasetUser[];
  /** Artifact types. Default: `FIXTURE_ARTIFACT_TYPES`. */
  readonly artifactTypes?: readonly ArtifactTypeInfo[];
}

/**
 * A complete, valid dataset for `createMemoryBackend` from the parts a test cares about.
 * @param fixture - incidents, timeline entries, artifacts, and optionally playbooks, sites, users and
 *   artifact types (see `DatasetFixture` for the defaults)
 * @returns a new dataset (validate it, or give it to `createMemoryBackend`, which does)
 * @example
 * const backend = createMemoryBackend(buildDataset({
 *   incidents: [{ Severity: "Low" }, { Severity: "High", Type: "Malware" }],
 *   artifacts: [{ name: "evil.example", typeId: 2 }],
 * }));
 */
export function buildDataset(fixture: DatasetFixture = {}): Dataset {
  const incidents = (fixture.incidents ?? [{}]).map((overrides, index) =>
    buildIncident({
      IncidentId: index + 1,
      Number: `20240101-${index + 1}`,
      ExternalKey: `EXT-${index + 1}`,
      CreatedUtcTime: new Date(Date.UTC(2024, 0, 1, 9, index + 1)).toISOString().replace(".000Z", "Z"),
      ...overrides,
    }),
  );
  const timelineEntries = (fixture.timelineEntries ?? []).map((overrides, index) =>
    buildTimelineEntry({ TimelineID: index + 1, ...overrides }),
  );
  const artifacts = (fixture.artifacts ?? []).map((overrides) => buildArtifact(overrides));
  const sites =
    fixture.sites ??
    [
      ...new Set([
        FIXTURE_SITE,
        ...incidents.map((i) => i.Site),
        ...timelineEntries.map((e) => e.Site),
        ...artifacts.map((a) => a.site),
      ]),
    ].map((name) => ({ name }));
  const types = [...new Set(incidents.map((i) => i.Type).filter((t): t is string => typeof t === "string"))];
  return {
    sites: sites.map((site) => ({ ...site })),
    users: (fixture.users ?? [{ username: FIXTURE_USER, sites: sites.map((s) => s.name) }]).map((user) => ({
      ...user,
      sites: [...user.sites],
    })),
    incidents,
    timelineEntries,
    playbooks: (
      fixture.playbooks ?? [
        { name: FIXTURE_PLAYBOOK, triggers: [ON_INCIDENT_EXTERNAL_ACTION], incidentTypes: types },
      ]
    ).map((playbook) => structuredClone(playbook)),
    artifactTypes: (fixture.artifactTypes ?? FIXTURE_ARTIFACT_TYPES).map((type) => ({ ...type })),
    artifacts,
  };
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
