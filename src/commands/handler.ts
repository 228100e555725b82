/**
 * The command handler: command name, request body and authenticated caller in; status and body out
 * (docs/architecture.md: no HTTP framework here). Order of checks (docs/semantics.md 3.1, 3):
 * 1. unknown command → 404 `{"Error": "Unknown command 'X'."}` (names match case-insensitively);
 * 2. a body that is not a JSON object → 400 `{"Error": "The body of the request must be a valid JSON object"}`;
 *    a missing or ill-typed `Username`, `Site` or `CommandParams` → 400 naming the fields;
 * 3. a body `Username` that is not the caller → 401 `{"Error": "Invalid authentication key."}`;
 * 4. a caller who may not use the site → 200 with the command's failure body and
 *    `User 'X' has no access to site 'Y'.` (whether or not the site exists);
 * 5. a `CommandParams` key that is a near miss of one of the command's parameters (`DryRun`, `note`) → 200
 *    with the command's failure body naming the parameter, before the command reads or records anything;
 * 6. the command: 200 with its success or failure body.
 * Anything thrown on the way → 500 `{"Error": "Unexpected Error."}`, reported to `onError`; a
 * `BackendUnavailableError` (nothing was done) → 503 `The service is temporarily unavailable: retry after N
 * seconds.` with `retryAfterSeconds`, reported too (docs/semantics.md 3.1); a search past
 * the time budget (`maxTimeMS`, docs/semantics.md 1.7) is not unexpected: it is the command's failure.
 */

import { type ParseOptions, resolveParseOptions } from "../conditions/options.js";
import type { SearchBudget } from "../incidents/search-budget.js";
import { ADD_NOTES_TO_ARTIFACTS } from "./add-notes-to-artifacts.js";
import type { Backend } from "./backend.js";
import type { CommandDefinition, ResolvedCommandOptions } from "./command-context.js";
import { nearMissMessage, nearMissParameters, readEnvelope } from "./envelope.js";
import { GET_INCIDENT_TIMELINE_ENTRIES } from "./get-incident-timeline-entries.js";
import type { Caller, CommandBody, CommandHandler, CommandResponse } from "./handler-types.js";
import { errorResponse, ok } from "./responses.js";
import { DEFAULT_TRIGGER_DATA_LIMITS, type TriggerDataLimits } from "./trigger-data.js";
import { TRIGGER_INCIDENT_EXTERNAL_ACTION } from "./trigger-incident-external-action.js";
import type { TypedCommandHandler } from "./typed-handler.js";
import { unavailableMessage, unavailableRetryAfter } from "./unavailable.js";
import { MESSAGES } from "./wire.js";

/** What `onError` is told besides the error. */
export interface CommandErrorContext {
  /** The command name as requested. */
  readonly command: string;
  /** The caller's username. */
  readonly username: string | undefined;
}

/** Options of `createCommandHandler`. */
export interface CommandHandlerOptions {
  /**
   * Receives every unexpected error (the caller gets only 500 `Unexpected Error.`). Default: write it to
   * `console.error`. An exception thrown by the hook itself is swallowed.
   */
  readonly onError?: (error: unknown, context: CommandErrorContext) => void;
  /** Options for parsing `Search Conditions` (catalogue, limits; docs/semantics.md 1.6, 1.7). */
  readonly parseOptions?: ParseOptions;
  /** Limits on `Trigger Data` (default: depth 32, 65,536 characters of JSON). */
  readonly triggerDataLimits?: Partial<TriggerDataLimits>;
  /** The longest `Note` accepted by AddNotesToArtifacts, in characters (default 65,536). */
  readonly maxNoteLength?: number;
  /**
   * The time budget of TriggerIncidentExternalAction's first-match search, in milliseconds (docs/semantics.md
   * 1.7; MongoDB's name). Passed to `Backend.findFirstIncident`; past it the command fails with
   * `The Search Conditions took longer than N ms to evaluate.` Default: no budget. The reference server
   * passes 2,000.
   */
  readonly maxTimeMS?: number;
  /**
   * The clock that measures `maxTimeMS`: milliseconds from any fixed origin. Default
   * `() => performance.now()`; a test passes a fake. Never called without `maxTimeMS`.
   */
  readonly clock?: () => number;
}

/** The default of `CommandHandlerOptions.maxNoteLength`. */
export const DEFAULT_MAX_NOTE_LENGTH = 65_536;

/** The three commands' definitions (name, parameters, run, failure body), in the specification's order. */
export const COMMAND_DEFINITIONS: readonly CommandDefinition[] = [
  GET_INCIDENT_TIMELINE_ENTRIES,
  TRIGGER_INCIDENT_EXTERNAL_ACTION,
  ADD_NOTES_TO_ARTIFACTS,
];

const COMMANDS: ReadonlyMap<string, CommandDefinition> = new Map(
  COMMAND_DEFINITIONS.map((c) => [c.name.toLowerCase(), c]),
);

/**
 * Creates the handler of the three commands over a backend.
 * @param backend - the data (e.g. `createMemoryBackend(loadSampleDataset())`)
 * @param options - `onError`, `parseOptions`, `triggerDataLimits`, `maxNoteLength`, `maxTimeMS`, `clock`
 * @returns `(command, body, caller) => Promise<{ status, body }>`, which never rejects: 200 with the
 *   bodies of docs/semantics.md 3.2, 400/401/404 with `{ Error }` (docs/semantics.md 3.1), 503 with
 *   `retryAfterSeconds` when the backend rejected with `BackendUnavailableError`, 500
 *   `{"Error": "Unexpected Error."}` for anything else unexpected; typed per command (`TypedCommandHandler`)
 * @throws {TypeError} when `maxTimeMS` is not a finite number ≥ 0 or `clock` is not a function
 * @throws {TypeError | RangeError} when `parseOptions.limits` is not a valid set of limits (docs/semantics.md
 *   1.7, "Raising a limit")
 * @example
 * const handle = createCommandHandler(createMemoryBackend(loadSampleDataset()));
 * await handle("GetIncidentTimelineEntries",
 *   { Username: "alice", Site: "Security Operations", CommandParams: { "Incident Number": "20240102-1" } },
 *   { username: "alice" });
 * //=> { status: 200, body: { error: "", returnData: { Status: "Successful", Data: [...] } } }
 */
export function createCommandHandler(
  backend: Backend,
  options: CommandHandlerOptions = {},
): TypedCommandHandler {
  // Limits are checked once, here, and the checked copy is the one every request uses (docs/semantics.md
  // 1.7, "Raising a limit"): a wrong one throws now, not as a 500 on each request.
  const parseOptions = options.parseOptions ?? {};
  const checked =
    parseOptions.limits === undefined
      ? parseOptions
      : { ...parseOptions, limits: resolveParseOptions(parseOptions).limits };
  const resolved: ResolvedCommandOptions = {
    parseOptions: checked,
    triggerDataLimits: { ...DEFAULT_TRIGGER_DATA_LIMITS, ...options.triggerDataLimits },
    maxNoteLength: options.maxNoteLength ?? DEFAULT_MAX_NOTE_LENGTH,
    searchBudget: searchBudgetOf(options),
  };
  const onError =
    options.onError ??
    ((error: unknown, context: CommandErrorContext) => {
      console.error(`incident-query: unexpected error in command '${context.command}':`, error);
    });

  const handler: CommandHandler = async (command, body, caller): Promise<CommandResponse> => {
    try {
      return await handle(backend, resolved, command, body, caller);
    } catch (error) {
      try {
        onError(error, {
          command: typeof command === "string" ? command : String(command),
          username: typeof caller?.username === "string" ? caller.username : undefined,
        });
      } catch {
        // The hook's own failure must not change the answer.
      }
      // docs/semantics.md 3.1, "When the data cannot be reached": nothing was done, a retry is safe.
      const retryAfterSeconds = unavailableRetryAfter(error);
      if (retryAfterSeconds !== undefined) {
        return { ...errorResponse(503, unavailableMessage(retryAfterSeconds)), retryAfterSeconds };
      }
      return errorResponse(500, MESSAGES.unexpected);
    }
  };
  // The bodies are built by the typed builders of responses.ts, per command.
  return handler as TypedCommandHandler;
}

/**
 * The search budget of the handler's options: undefined without `maxTimeMS`.
 * @throws {TypeError} when `maxTimeMS` is not a finite number ≥ 0 or `clock` is not a function
 * @throws {TypeError | RangeError} when `parseOptions.limits` is not a valid set of limits (docs/semantics.md
 *   1.7, "Raising a limit")
 */
function searchBudgetOf(options: CommandHandlerOptions): SearchBudget | undefined {
  const { maxTimeMS, clock } = options;
  if (maxTimeMS === undefined) return undefined;
  if (typeof maxTimeMS !== "number" || !Number.isFinite(maxTimeMS) || maxTimeMS < 0) {
    throw new TypeError(`maxTimeMS must be a finite number of milliseconds ≥ 0, found ${String(maxTimeMS)}.`);
  }
  if (clock !== undefined && typeof clock !== "function") {
    throw new TypeError(`clock must be a function returning milliseconds, found ${typeof clock}.`);
  }
  return { maxTimeMS, clock: clock ?? (() => performance.now()) };
}

async function handle(
  backend: Backend,
  options: ResolvedCommandOptions,
  command: string,
  body: CommandBody,
  caller: Caller,
): Promise<CommandResponse> {
  const definition = typeof command === "string" ? COMMANDS.get(command.toLowerCase()) : undefined;
  if (definition === undefined) {
    const shown = String(command);
    return errorResponse(404, `Unknown command '${shown.length > 100 ? `${shown.slice(0, 100)}…` : shown}'.`);
  }
  const envelope = readEnvelope(body);
  if (!envelope.ok) return errorResponse(400, envelope.message);
  const { username, site: siteName, params } = envelope.envelope;
  if (typeof caller?.username !== "string" || caller.username !== username) {
    return errorResponse(401, MESSAGES.unauthorized);
  }
  const user = await backend.findUser(username);
  const site = user?.sites.includes(siteName) === true ? await backend.findSite(siteName) : undefined;
  if (site === undefined)
    return ok(definition.failure(`User '${username}' has no access to site '${siteName}'.`));
  // docs/semantics.md 3.2, "Parameter names": a near miss of any parameter is refused before the command
  // reads anything, so that `DryRun` never runs the playbooks the caller meant to preview.
  const nearMisses = nearMissParameters(params, definition.parameters);
  if (nearMisses.length > 0) return ok(definition.failure(nearMissMessage(nearMisses)));
  return ok(await definition.run({ backend, username, site, params, options }));
}
