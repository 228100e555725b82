/**
 * GetIncidentTimelineEntries (specification 4.1; docs/semantics.md 2 and 3.3): the timeline entries of one
 * incident of the request's site, filtered by `Filter` and sorted by `Sort Order`.
 */

import { InvalidSortOrderError, parseSortOrder, queryTimeline, type SortOrder } from "../timeline/index.js";
import type { CommandContext, CommandDefinition } from "./command-context.js";
import { ParamReader } from "./envelope.js";
import { timelineFailure, timelineSuccess } from "./responses.js";
import type { TimelineEntryData } from "./wire.js";

const INCIDENT_NUMBER = "Incident Number";
const FILTER = "Filter";
const SORT_ORDER = "Sort Order";
/** The command's parameters (docs/semantics.md 3.3). */
const PARAMETERS = [INCIDENT_NUMBER, FILTER, SORT_ORDER] as const;

/**
 * Runs GetIncidentTimelineEntries.
 * Parameters: `Incident Number` (string, required), `Filter` (string), `Sort Order` (`ASC`, `ascending`,
 * `DESC`, `descending`, any case, surrounding white space ignored; empty or blank means ascending).
 * @returns 200 body: success with the entries (shape of specification 2.2), or failure with a message:
 *   a missing or ill-typed parameter, an unknown sort order token, or
 *   `Incident 'N' was not found in site 'S'.`
 */
export async function getIncidentTimelineEntries(context: CommandContext): Promise<unknown> {
  const params = new ParamReader(context.params, PARAMETERS);
  const incidentNumber = params.requiredString(INCIDENT_NUMBER);
  const filter = params.optionalString(FILTER);
  // Any token, string or not, goes to parseSortOrder, whose refusal names the accepted tokens (semantics 2).
  const sortToken = params.raw(SORT_ORDER);
  let sortOrder: SortOrder | undefined;
  if (sortToken !== undefined) {
    try {
      sortOrder = parseSortOrder(sortToken);
    } catch (error) {
      if (!(error instanceof InvalidSortOrderError)) throw error;
      params.problems.push(error.message);
    }
  }
  if (incidentNumber === undefined || params.problems.length > 0) return timelineFailure(params.message());

  const incident = await context.backend.findIncidentByNumber(context.site.name, incidentNumber);
  if (incident === undefined) {
    return timelineFailure(`Incident '${incidentNumber}' was not found in site '${context.site.name}'.`);
  }
  const entries = await context.backend.timelineEntries(context.site.name, incidentNumber);
  const result = queryTimeline(entries, {
    ...(filter === undefined ? {} : { filter }),
    ...(sortOrder === undefined ? {} : { sortOrder }),
  });
  return timelineSuccess(result.map(toWire));
}

/** Keeps exactly the fields of specification 2.2, in its order. */
function toWire(entry: TimelineEntryData): TimelineEntryData {
  return {
    TimelineID: entry.TimelineID,
    Time: entry.Time,
    Summary: entry.Summary,
    Note: entry.Note,
    EventType: entry.EventType,
    Tactic: [...entry.Tactic],
    Technique: [...entry.Technique],
    RiskLevel: entry.RiskLevel,
    Description: entry.Description,
    Author: entry.Author,
  };
}

/** The command's definition for the handler. */
export const GET_INCIDENT_TIMELINE_ENTRIES: CommandDefinition = {
  name: "GetIncidentTimelineEntries",
  parameters: PARAMETERS,
  run: getIncidentTimelineEntries,
  failure: timelineFailure,
};
