/**
 * TriggerIncidentExternalAction (specification 4.2, 6.1; DECISIONS.md 1.9 and 3.3): fires 'On Incident
 * External Action' for the first incident of the request's site that matches the Search Conditions.
 */

import { formatIssues } from "../conditions/issues.js";
import { safeParseSearchConditions } from "../conditions/parse.js";
import type { CommandContext, CommandDefinition } from "./command-context.js";
import { ParamReader } from "./envelope.js";
import { triggerFailure, triggerSuccess } from "./responses.js";
import { checkTriggerData, copyTriggerData } from "./trigger-data.js";
import { ON_INCIDENT_EXTERNAL_ACTION, type TriggeredPlaybook } from "./wire.js";

const CONDITIONS = "Search Conditions";
const TRIGGER_DATA = "Trigger Data";

/**
 * Runs TriggerIncidentExternalAction.
 * Parameters: `Search Conditions` (a non-empty JSON object or array of DECISIONS.md 1, required),
 * `Trigger Data` (a JSON object, required, within the handler's limits, no prototype-named keys).
 * Every playbook of the incident with the trigger runs once, in the backend's order, each receiving its own
 * deep copy of the Trigger Data and a new RuntimeId.
 * @returns 200 body: success with `IncidentId`, `IncidentNo` and `TriggeredPlaybooks` (empty when no
 *   playbook has the trigger), or failure with a message: a missing or ill-typed parameter, every issue of
 *   the Search Conditions with its path (`Invalid 'Search Conditions':` then `path: message` lines), or
 *   `No incident matches the Search Conditions.`
 */
export async function triggerIncidentExternalAction(context: CommandContext): Promise<unknown> {
  const params = new ParamReader(context.params);
  const rawConditions = params.raw(CONDITIONS);
  let condition: Parameters<typeof context.backend.findFirstIncident>[1] | undefined;
  if (rawConditions === undefined) params.missing(CONDITIONS);
  else if (typeof rawConditions !== "object" || rawConditions === null) {
    params.invalid(CONDITIONS, "a JSON object or array", rawConditions);
  } else if (!Array.isArray(rawConditions) && Object.keys(rawConditions).length === 0) {
    params.problems.push(`Parameter '${CONDITIONS}' must not be empty: {} would match every incident.`);
  } else {
    const parsed = safeParseSearchConditions(rawConditions, context.options.parseOptions);
    if (parsed.success) condition = parsed.condition;
    else params.problems.push(`Invalid '${CONDITIONS}':\n${formatIssues(parsed.issues)}`);
  }

  const rawTriggerData = params.raw(TRIGGER_DATA);
  let triggerData: Record<string, unknown> | undefined;
  if (rawTriggerData === undefined) params.missing(TRIGGER_DATA);
  else {
    const checked = checkTriggerData(rawTriggerData, context.options.triggerDataLimits);
    if (checked.ok) triggerData = checked.value;
    else params.problems.push(checked.message);
  }
  if (condition === undefined || triggerData === undefined || params.problems.length > 0) {
    return triggerFailure(
      params.problems.length > 0 ? params.message() : `Parameter '${CONDITIONS}' is invalid.`,
    );
  }

  const site = context.site.name;
  const incident = await context.backend.findFirstIncident(site, condition);
  if (incident === undefined) return triggerFailure("No incident matches the Search Conditions.");
  const playbooks = await context.backend.playbooksWithTrigger(site, incident, ON_INCIDENT_EXTERNAL_ACTION);
  const triggered: TriggeredPlaybook[] = [];
  for (const playbook of playbooks) {
    const run = await context.backend.recordPlaybookRun({
      site,
      incident,
      playbookName: playbook.name,
      triggerData: copyTriggerData(triggerData),
    });
    triggered.push({ RuntimeId: run.runtimeId, PlaybookName: playbook.name });
  }
  return triggerSuccess({
    IncidentId: incident.IncidentId,
    IncidentNo: incident.Number,
    TriggeredPlaybooks: triggered,
  });
}

/** The command's definition for the handler. */
export const TRIGGER_INCIDENT_EXTERNAL_ACTION: CommandDefinition = {
  name: "TriggerIncidentExternalAction",
  run: triggerIncidentExternalAction,
  failure: triggerFailure,
};
