/**
 * TriggerIncidentExternalAction (specification 4.2, 6.1; docs/semantics.md 1.9 and 3.3): fires 'On Incident
 * External Action' for the first incident of the request's site that matches the Search Conditions.
 */

import type { Condition } from "../conditions/ast.js";
import { formatIssues, type Issue } from "../conditions/issues.js";
import { resolveParseOptions } from "../conditions/options.js";
import { safeParseSearchConditions } from "../conditions/parse.js";
import { matchesEverythingByShape } from "../conditions/shape.js";
import { SearchTimeoutError } from "../incidents/search-budget.js";
import type { IncidentRecord } from "./backend.js";
import type { CommandContext, CommandDefinition } from "./command-context.js";
import { ParamReader } from "./envelope.js";
import { readJsonTextParam } from "./json-text-param.js";
import { triggerFailure, triggerSuccess } from "./responses.js";
import { checkTriggerData, copyTriggerData } from "./trigger-data.js";
import { ON_INCIDENT_EXTERNAL_ACTION, type TriggeredPlaybook } from "./wire.js";

const CONDITIONS = "Search Conditions";
const TRIGGER_DATA = "Trigger Data";
const DRY_RUN = "Dry Run";
/** The command's parameters (docs/semantics.md 3.3). */
const PARAMETERS = [CONDITIONS, TRIGGER_DATA, DRY_RUN] as const;

/** The refusal of a condition that matches every incident (docs/semantics.md 3.3). */
const EMPTY = `Parameter '${CONDITIONS}' must not be empty: {} would match every incident.`;
const MATCHES_EVERYTHING = `Parameter '${CONDITIONS}' matches every incident by its shape alone, like {}: name at least one field condition.`;

/**
 * Runs TriggerIncidentExternalAction (docs/semantics.md 1.9, 3).
 * Parameters: `Search Conditions` (a non-empty JSON object or array of docs/semantics.md 1, or a string holding
 * one; required), `Trigger Data` (a JSON object or a string holding one; required, within the handler's
 * limits, no prototype-named keys). A condition that matches every incident by its shape alone (`{}`,
 * `[{}]`, `{"$and": [{}]}`, `{"$or": [{}, …]}` and what reduces to them: `matchesEverythingByShape`) is
 * refused. The first matching incident is searched within the handler's time budget (`maxTimeMS`).
 * Every playbook of the incident with the trigger runs once, in the backend's order, each receiving its own
 * deep copy of the Trigger Data and a new RuntimeId. With `Dry Run` `true` (optional; `false`, absent or
 * `null` is a real run) every check and the search are the same, but nothing runs and nothing is recorded
 * (`Backend.recordPlaybookRun` is not called): the answer names the playbooks that would run
 * (docs/semantics.md 3.3, "Dry run").
 * @returns 200 body: success with `IncidentId`, `IncidentNo` and `TriggeredPlaybooks` (empty when no
 *   playbook has the trigger; in a dry run always empty, with `DryRun: true` and `PlaybooksToRun`, the
 *   `{PlaybookName}` of each playbook a real run would start, in the same order), or failure with a message: a missing or ill-typed parameter, every issue of
 *   the Search Conditions with its path (`Invalid 'Search Conditions':` then `path: message` lines), a
 *   condition that matches everything, `No incident matches the Search Conditions.` (followed by a `Warning:`
 *   line for each possible misspelling of a field name, docs/semantics.md 1.1), or
 *   `The Search Conditions took longer than 2000 ms to evaluate.` (the budget's number) when the backend's
 *   search rejects with a `SearchTimeoutError`
 */
export async function triggerIncidentExternalAction(context: CommandContext): Promise<unknown> {
  const params = new ParamReader(context.params, PARAMETERS);
  const { parseOptions, triggerDataLimits, searchBudget } = context.options;
  const rawConditions = params.raw(CONDITIONS);
  let condition: Condition | undefined;
  let warnings: readonly Issue[] = [];
  if (rawConditions === undefined) params.missing(CONDITIONS);
  else {
    const depth = resolveParseOptions(parseOptions).limits.depth;
    const read = readJsonTextParam(CONDITIONS, rawConditions, "objectOrArray", depth);
    if (!read.ok) params.problems.push(read.message);
    else if (typeof read.value !== "object" || read.value === null) {
      params.invalid(CONDITIONS, "a JSON object or array", read.value);
    } else if (!Array.isArray(read.value) && Object.keys(read.value).length === 0) {
      params.problems.push(EMPTY);
    } else {
      const parsed = safeParseSearchConditions(read.value, parseOptions);
      if (!parsed.success) params.problems.push(`Invalid '${CONDITIONS}':\n${formatIssues(parsed.issues)}`);
      else if (matchesEverythingByShape(parsed.condition)) params.problems.push(MATCHES_EVERYTHING);
      else {
        condition = parsed.condition;
        warnings = parsed.warnings;
      }
    }
  }

  const rawTriggerData = params.raw(TRIGGER_DATA);
  let triggerData: Record<string, unknown> | undefined;
  if (rawTriggerData === undefined) params.missing(TRIGGER_DATA);
  else {
    const read = readJsonTextParam(TRIGGER_DATA, rawTriggerData, "object", triggerDataLimits.maxDepth);
    const checked = read.ok ? checkTriggerData(read.value, triggerDataLimits) : read;
    if (checked.ok) triggerData = checked.value;
    else params.problems.push(checked.message);
  }
  const rawDryRun = params.raw(DRY_RUN);
  if (rawDryRun !== undefined && typeof rawDryRun !== "boolean")
    params.invalid(DRY_RUN, "true or false", rawDryRun);
  const dryRun = rawDryRun === true;
  if (condition === undefined || triggerData === undefined || params.problems.length > 0) {
    return triggerFailure(
      params.problems.length > 0 ? params.message() : `Parameter '${CONDITIONS}' is invalid.`,
    );
  }

  const site = context.site.name;
  let incident: IncidentRecord | undefined;
  try {
    incident = await context.backend.findFirstIncident(site, condition, searchBudget);
  } catch (error) {
    const timeout = searchTimeoutOf(error);
    if (timeout === undefined) throw error;
    return triggerFailure(timeout);
  }
  if (incident === undefined) return triggerFailure(noMatch(warnings));
  const playbooks = await context.backend.playbooksWithTrigger(site, incident, ON_INCIDENT_EXTERNAL_ACTION);
  if (dryRun) {
    return triggerSuccess({
      IncidentId: incident.IncidentId,
      IncidentNo: incident.Number,
      TriggeredPlaybooks: [],
      DryRun: true,
      PlaybooksToRun: playbooks.map((playbook) => ({ PlaybookName: playbook.name })),
    });
  }
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

/**
 * The failure when no incident matches (docs/semantics.md 3.3): `No incident matches the Search Conditions.`,
 * then, when the conditions name a possible misspelling of a field (docs/semantics.md 1.1), one line per
 * warning: `Warning: path: message`, the message naming the field it may mean.
 */
function noMatch(warnings: readonly Issue[]): string {
  const base = "No incident matches the Search Conditions.";
  return warnings.length === 0
    ? base
    : `${base}\n${warnings.map((w) => `Warning: ${formatIssues([w])}`).join("\n")}`;
}

/**
 * The failure message for a search that ran past its budget (docs/semantics.md 1.7), or undefined for any other
 * error. Recognised by `instanceof` or, for an error from another copy of the library (an ESM and a CJS
 * build in one process), by its `code` `search_timeout` and its numeric `maxTimeMS`.
 */
function searchTimeoutOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, maxTimeMS } = error as { code?: unknown; maxTimeMS?: unknown };
  if (!(error instanceof SearchTimeoutError) && code !== "search_timeout") return undefined;
  if (typeof maxTimeMS !== "number" || !Number.isFinite(maxTimeMS)) return undefined;
  return `The Search Conditions took longer than ${maxTimeMS} ms to evaluate.`;
}

/** The command's definition for the handler. */
export const TRIGGER_INCIDENT_EXTERNAL_ACTION: CommandDefinition = {
  name: "TriggerIncidentExternalAction",
  parameters: PARAMETERS,
  run: triggerIncidentExternalAction,
  failure: triggerFailure,
};
