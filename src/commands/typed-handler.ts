/**
 * The response types of `createCommandHandler`, per command: a test that calls the handler reads
 * `response.body.returnData.Data` without a cast once it has checked `response.status === 200`.
 * `CommandHandler` (handler-types.ts) stays the loose contract that adapters accept and that anyone may
 * implement; a `TypedCommandHandler` is also a `CommandHandler`.
 */

import type { Caller, CommandBody } from "./handler-types.js";
import type {
  AddNotesResponseBody,
  CommandName,
  ErrorResponseBody,
  TimelineResponseBody,
  TriggerResponseBody,
} from "./wire.js";

/** The HTTP 200 body of each command (docs/semantics.md 3.2), by the command's name. */
export interface CommandResponseBodies {
  readonly GetIncidentTimelineEntries: TimelineResponseBody;
  readonly TriggerIncidentExternalAction: TriggerResponseBody;
  readonly AddNotesToArtifacts: AddNotesResponseBody;
}

/**
 * The 200 body for a command name: the command's own body when the name is spelled as in the
 * specification (`"GetIncidentTimelineEntries"`); any command's for another literal (the handler also
 * accepts other cases, `"getincidenttimelineentries"`, which the type system cannot map); `unknown` when
 * the name is only known to be a `string`.
 */
export type CommandResponseBody<C extends string> = string extends C
  ? unknown
  : C extends CommandName
    ? CommandResponseBodies[C]
    : CommandResponseBodies[CommandName];

/**
 * The statuses other than 200 that the command handler answers (docs/semantics.md 3.1): 400 (the body is not
 * a JSON object, or an envelope field is missing or ill-typed), 401 (the body's `Username` is not the
 * caller), 404 (unknown command), 500 (unexpected failure), 503 (the backend was unavailable and did
 * nothing; the response then carries `retryAfterSeconds`). A server adds its own (413, 415, 429, …).
 */
export type HandlerErrorStatus = 400 | 401 | 404 | 500 | 503;

/**
 * A response of `createCommandHandler` for command `C`: 200 with the command's body (success or
 * command-level failure, told apart by `error`), or an error status with `{ Error }`. Narrow on `status`.
 */
export type TypedCommandResponse<C extends string = CommandName> =
  | { readonly status: 200; readonly body: CommandResponseBody<C> }
  | {
      readonly status: HandlerErrorStatus;
      readonly body: ErrorResponseBody;
      /** Only on a 503: seconds for `Retry-After` (docs/semantics.md 3.1). */
      readonly retryAfterSeconds?: number;
    };

/**
 * The handler `createCommandHandler` returns: a `CommandHandler` whose responses are typed by the command
 * name it is called with.
 * @example
 * const response = await handler("GetIncidentTimelineEntries", body, { username: "alice" });
 * if (response.status === 200) response.body.returnData.Data; // TimelineEntryData[] on success
 */
export type TypedCommandHandler = <C extends string>(
  command: C,
  body: CommandBody,
  caller: Caller,
) => Promise<TypedCommandResponse<C>>;
