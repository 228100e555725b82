/**
 * Problems of a dataset are data, as for Search Conditions (docs/semantics.md 1.8): `{ code, path, message }`,
 * where `path` lists the keys and indexes from the root of the dataset to the offending value and `message`
 * is one sentence saying what was expected and what was found. Every message is produced here, in one
 * `switch`.
 */

import { assertNever } from "../../conditions/ast.js";
import { describeValue, type PathSegment } from "../../conditions/issues.js";

/** What a `duplicate` issue repeats; each names the scope in which it must be unique. */
export type DatasetDuplicate =
  | { readonly what: "site name"; readonly name: string }
  | { readonly what: "username"; readonly name: string }
  | { readonly what: "IncidentId"; readonly id: number }
  | { readonly what: "incident Number"; readonly number: string; readonly site: string }
  | { readonly what: "TimelineID"; readonly id: number; readonly incident: string }
  | { readonly what: "playbook name"; readonly name: string }
  | { readonly what: "artifact type id"; readonly id: number }
  | { readonly what: "artifact type label"; readonly label: string }
  | { readonly what: "artifact"; readonly name: string; readonly typeId: number; readonly site: string };

/**
 * The details of a dataset issue, by code; `datasetIssueMessage` derives the message from them.
 * `found` values are described with `describeValue`.
 */
export type DatasetIssueDetail =
  /** `parseDataset` was given text that is not JSON; `reason` is the JSON parser's. */
  | { readonly code: "invalid_json"; readonly reason: string }
  /** A value of the wrong JSON type: the root, a top-level list, a record, a field, a list element. */
  | { readonly code: "invalid_type"; readonly expected: string; readonly found: unknown }
  /** A required field is absent. */
  | { readonly code: "missing_field"; readonly key: string; readonly expected: string }
  /** A key outside a closed record kind (every kind but incidents) or outside the top-level lists. */
  | {
      readonly code: "unknown_key";
      readonly key: string;
      readonly what: string;
      readonly allowed: readonly string[];
    }
  /** `__proto__`, `prototype` or `constructor` as a key inside an incident. */
  | { readonly code: "forbidden_key"; readonly key: string }
  /** An incident's free-form value nested deeper than `max` levels. */
  | { readonly code: "too_deep"; readonly max: number }
  /** A site's `timeZone` that is not an IANA time zone name. */
  | { readonly code: "invalid_time_zone"; readonly found: string }
  /** A time that is not of `format` (a timeline entry's `Time`, a note's `time`). */
  | { readonly code: "invalid_time"; readonly format: string; readonly found: unknown }
  /** A catalogue text or date field of an incident holding a value of the wrong kind (docs/semantics.md 1.6). */
  | {
      readonly code: "field_type";
      readonly field: string;
      readonly fieldKind: "text" | "date";
      readonly expected: string;
      readonly found: unknown;
    }
  /** A catalogue enumerated field of an incident holding something other than one of its labels. */
  | {
      readonly code: "unknown_label";
      readonly field: string;
      readonly labels: readonly string[];
      readonly found: unknown;
    }
  /** A reference to a site, incident or artifact type the dataset does not hold. */
  | { readonly code: "unknown_site"; readonly site: string }
  | { readonly code: "unknown_incident"; readonly number: string; readonly site: string }
  | { readonly code: "unknown_artifact_type"; readonly id: number }
  /** A value that must be unique (in the scope `duplicate` names) seen a second time. */
  | ({ readonly code: "duplicate" } & DatasetDuplicate)
  /** An artifact type label made of digits only: it would read as a type id (docs/semantics.md 3.3). */
  | { readonly code: "numeric_label"; readonly label: string }
  /** The last issue of a list cut at `MAX_DATASET_ISSUES`: how many more were found. */
  | { readonly code: "more_issues"; readonly count: number };

/** Every dataset issue code. */
export type DatasetIssueCode = DatasetIssueDetail["code"];

/** One problem of a dataset: its code, where (keys and indexes from the root) and what, as one sentence. */
export interface DatasetIssue {
  readonly code: DatasetIssueCode;
  readonly path: PathSegment[];
  readonly message: string;
}

/** Builds a dataset issue; the message comes from `datasetIssueMessage`. */
export function makeDatasetIssue(detail: DatasetIssueDetail, path: readonly PathSegment[]): DatasetIssue {
  return { code: detail.code, path: [...path], message: datasetIssueMessage(detail) };
}

/**
 * The one place where dataset messages are written: one sentence naming what was expected and what was
 * found. Two kinds name it by their first word instead: a `duplicate` names the repeated value and the scope
 * where it must be unique (`Duplicate incident Number '7' in site 'HQ'.`), and `more_issues` counts what
 * was left out.
 */
export function datasetIssueMessage(detail: DatasetIssueDetail): string {
  switch (detail.code) {
    case "invalid_json":
      return `Expected a JSON document: found text that is not JSON (${detail.reason.replace(/\.$/, "")}).`;
    case "invalid_type":
      return `Expected ${detail.expected}, found ${describeValue(detail.found)}.`;
    case "missing_field":
      return `Missing '${detail.key}': expected ${detail.expected}, found nothing.`;
    case "unknown_key":
      return `Unknown key '${detail.key}' in ${detail.what}: expected ${detail.allowed.join(", ")}.`;
    case "forbidden_key":
      return `Expected a key other than '__proto__', 'prototype' and 'constructor', found '${detail.key}'.`;
    case "too_deep":
      return `Expected at most ${detail.max} levels of nesting, found more.`;
    case "invalid_time_zone":
      return `Expected an IANA time zone name such as 'Europe/Berlin', found '${detail.found}'.`;
    case "invalid_time":
      return `Expected a time of the format ${detail.format}, found ${describeValue(detail.found)}.`;
    case "field_type":
      return `${detail.field} is a ${detail.fieldKind} field: expected ${detail.expected}, found ${describeValue(detail.found)}.`;
    case "unknown_label":
      return `Expected one of ${detail.labels.map((l) => `'${l}'`).join(", ")} for ${detail.field}, found ${describeValue(detail.found)}.`;
    case "unknown_site":
      return `Unknown site '${detail.site}': expected the name of a site in 'sites'.`;
    case "unknown_incident":
      return `Unknown incident '${detail.number}' in site '${detail.site}': expected the Number of an incident of that site in 'incidents'.`;
    case "unknown_artifact_type":
      return `Unknown artifact type id ${detail.id}: expected the id of a type in 'artifactTypes'.`;
    case "duplicate":
      return `Duplicate ${duplicateText(detail)}.`;
    case "numeric_label":
      return `Expected a label that is not a number, found '${detail.label}': it would read as a type id.`;
    case "more_issues":
      return `${detail.count} more problems were found and not listed.`;
    default:
      return assertNever(detail);
  }
}

function duplicateText(duplicate: DatasetDuplicate): string {
  switch (duplicate.what) {
    case "site name":
    case "username":
    case "playbook name":
      return `${duplicate.what} '${duplicate.name}'`;
    case "IncidentId":
    case "artifact type id":
      return `${duplicate.what} ${duplicate.id}`;
    case "incident Number":
      return `incident Number '${duplicate.number}' in site '${duplicate.site}'`;
    case "TimelineID":
      return `TimelineID ${duplicate.id} in incident '${duplicate.incident}'`;
    case "artifact type label":
      return `artifact type label '${duplicate.label}' (labels are compared ignoring case)`;
    case "artifact":
      return `artifact '${duplicate.name}' of type id ${duplicate.typeId} in site '${duplicate.site}'`;
    default:
      return assertNever(duplicate);
  }
}
