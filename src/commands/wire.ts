/**
 * The wire types of the three commands: request parameters and response bodies exactly as they travel
 * as JSON (specification 2.1, 2.2, 2.4, 2.5, 4, 7; docs/semantics.md 3.2). Shared by the handler, the server
 * and the typed client (which imports these as types only).
 */

import type { ArtifactNoteContextItem } from "../artifacts/note-result.js";
import type { TimelineEntry } from "../timeline/entry.js";

export type { ArtifactNoteContextItem } from "../artifacts/note-result.js";

/** The three commands, spelled as in the specification (section 1). URLs match them case-insensitively. */
export const COMMAND_NAMES = [
  "GetIncidentTimelineEntries",
  "TriggerIncidentExternalAction",
  "AddNotesToArtifacts",
] as const;

/** One of `COMMAND_NAMES`. */
export type CommandName = (typeof COMMAND_NAMES)[number];

/** The playbook trigger that TriggerIncidentExternalAction fires (specification 6.1). */
export const ON_INCIDENT_EXTERNAL_ACTION = "On Incident External Action";

/** The request envelope (specification 2.1). */
export interface CommandEnvelope<P extends object = Record<string, unknown>> {
  readonly Username: string;
  readonly Site: string;
  readonly CommandParams: P;
}

/**
 * A timeline entry as returned by GetIncidentTimelineEntries (specification 2.2): `TimelineID`, `Time`
 * (`yyyy-MM-dd HH:mm:ss` in the incident's time zone), `Summary`, `Note`, `EventType`, `Tactic`,
 * `Technique`, `RiskLevel`, `Description`, `Author`. The timeline engine's `TimelineEntry`.
 */
export type TimelineEntryData = TimelineEntry;

/** A playbook run reported by TriggerIncidentExternalAction (specification 2.4). */
export interface TriggeredPlaybook {
  /** A new integer for each run, increasing across the service (docs/semantics.md 3.3). */
  readonly RuntimeId: number;
  readonly PlaybookName: string;
}

/** `returnData.Data` of a successful TriggerIncidentExternalAction (specification 4.2). */
export interface TriggeredIncidentData {
  readonly IncidentId: number;
  /** The incident's `Number`. */
  readonly IncidentNo: string;
  /** The playbooks that ran; always empty in a dry run (docs/semantics.md 3.3, "Dry run"). */
  readonly TriggeredPlaybooks: readonly TriggeredPlaybook[];
  /** Present, `true`, only in the answer to a `Dry Run`: nothing ran and nothing was recorded. */
  readonly DryRun?: true;
  /** In a dry run only: the playbooks a real run would start, in the order it would start them. */
  readonly PlaybooksToRun?: readonly { readonly PlaybookName: string }[];
}

/** `returnData` of GetIncidentTimelineEntries (specification 4.1, docs/semantics.md 3.2). */
export type TimelineReturnData =
  | { readonly Status: "Successful"; readonly Data: readonly TimelineEntryData[] }
  | { readonly Status: "Failed"; readonly Data: readonly [] };

/** `returnData` of TriggerIncidentExternalAction (specification 4.2, docs/semantics.md 3.2). */
export type TriggerReturnData =
  | { readonly Status: "Successful"; readonly Data: TriggeredIncidentData }
  | { readonly Status: "Failed"; readonly Data: Record<string, never> };

/** The 200 body of GetIncidentTimelineEntries: `error` is `""` on success. */
export interface TimelineResponseBody {
  readonly error: string;
  readonly returnData: TimelineReturnData;
}

/** The 200 body of TriggerIncidentExternalAction: `error` is `""` on success. */
export interface TriggerResponseBody {
  readonly error: string;
  readonly returnData: TriggerReturnData;
}

/** The 200 body of AddNotesToArtifacts (specification 4.3, docs/semantics.md 3.2). */
export interface AddNotesResponseBody {
  /** The HTML table on success, `""` on failure. */
  readonly result: string;
  readonly error: string;
  /** `Successful` or `Failed`. */
  readonly returnData: "Successful" | "Failed";
  /** One item on success, none on failure. */
  readonly contextData: readonly ArtifactNoteContextItem[];
}

/** The body of every non-200 answer (specification 7): one field `Error`, capital E. */
export interface ErrorResponseBody {
  readonly Error: string;
}

/** The fixed messages of specification 7 and docs/semantics.md 3.1. */
export const MESSAGES = Object.freeze({
  badBody: "The body of the request must be a valid JSON object",
  unauthorized: "Invalid authentication key.",
  unexpected: "Unexpected Error.",
  rateLimited: "The request exceeds rate limits or is otherwise blocked by rate limiting policies.",
});
