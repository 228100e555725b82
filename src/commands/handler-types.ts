/**
 * The contract between the command layer and its adapters (server, CLI, tests): a command handler turns
 * a command name, a request body and the authenticated caller into a status and a response body. It knows
 * nothing of HTTP frameworks (docs/architecture.md, "Layers").
 */

/** Marks a request body that was not valid JSON (the adapter could not parse it). */
export const INVALID_JSON: unique symbol = Symbol.for("incident-query.invalid-json");

/** The request body as the adapter read it: parsed JSON, or `INVALID_JSON`. */
export type CommandBody = unknown;

/** The authenticated caller: the user the credential belongs to (docs/semantics.md 3.1). */
export interface Caller {
  readonly username: string;
}

/** A response: HTTP-like status and the JSON body of the specification (section 4, 7; docs/semantics.md 3.2). */
export interface CommandResponse {
  readonly status: number;
  readonly body: unknown;
  /**
   * Only on a 503 (the backend was unavailable and did nothing; docs/semantics.md 3.1): whole seconds
   * after which a retry may succeed, for the `Retry-After` header.
   */
  readonly retryAfterSeconds?: number;
}

/**
 * Handles one command.
 * @param command - the command name from the URL, any case (`GetIncidentTimelineEntries`)
 * @param body - the parsed JSON body, or `INVALID_JSON`
 * @param caller - the authenticated caller
 * @returns 200 with the command's body; 400 (bad body or envelope), 401 (the body's `Username` is not the
 *   caller) or 404 (unknown command) with `{ Error }`; 503 with `retryAfterSeconds` when the backend was
 *   unavailable and did nothing; 500 `{"Error": "Unexpected Error."}` for anything else unexpected.
 *   Never rejects.
 */
export type CommandHandler = (command: string, body: CommandBody, caller: Caller) => Promise<CommandResponse>;
