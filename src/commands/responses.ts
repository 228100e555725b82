/**
 * The exact response bodies of docs/semantics.md 3.2 (HTTP 200: lowercase `error`) and of specification 7 /
 * docs/semantics.md 3.1 (other statuses: capitalised `Error`).
 */

import type { ArtifactNoteContextItem } from "../artifacts/note-result.js";
import type { CommandResponse } from "./handler-types.js";
import type {
  AddNotesResponseBody,
  ErrorResponseBody,
  TimelineEntryData,
  TimelineResponseBody,
  TriggeredIncidentData,
  TriggerResponseBody,
} from "./wire.js";

/** A non-200 answer: `{ "Error": message }`. */
export function errorResponse(status: number, message: string): CommandResponse {
  const body: ErrorResponseBody = { Error: message };
  return { status, body };
}

/** A 200 answer. */
export function ok(body: unknown): CommandResponse {
  return { status: 200, body };
}

/** GetIncidentTimelineEntries success. */
export function timelineSuccess(entries: readonly TimelineEntryData[]): TimelineResponseBody {
  return { error: "", returnData: { Status: "Successful", Data: entries } };
}

/** GetIncidentTimelineEntries failure (200). */
export function timelineFailure(message: string): TimelineResponseBody {
  return { error: message, returnData: { Status: "Failed", Data: [] } };
}

/** TriggerIncidentExternalAction success. */
export function triggerSuccess(data: TriggeredIncidentData): TriggerResponseBody {
  return { error: "", returnData: { Status: "Successful", Data: data } };
}

/** TriggerIncidentExternalAction failure (200). */
export function triggerFailure(message: string): TriggerResponseBody {
  return { error: message, returnData: { Status: "Failed", Data: {} } };
}

/** AddNotesToArtifacts success. */
export function addNotesSuccess(result: string, item: ArtifactNoteContextItem): AddNotesResponseBody {
  return { result, error: "", returnData: "Successful", contextData: [item] };
}

/** AddNotesToArtifacts failure (200). */
export function addNotesFailure(message: string): AddNotesResponseBody {
  return { result: "", error: message, returnData: "Failed", contextData: [] };
}
