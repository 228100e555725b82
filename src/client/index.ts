// incident-query/client: the typed client of the three commands, over HTTP or in process (a handler).

export type { Caller, CommandHandler } from "../commands/handler-types.js";
export type {
  ArtifactNoteContextItem,
  TimelineEntryData,
  TriggeredIncidentData,
  TriggeredPlaybook,
} from "../commands/wire.js";
export type {
  AddNoteParams,
  CallOptions,
  CommandClient,
  CommandClientCredentials,
  CommandClientOptions,
  HttpCommandClientOptions,
  InProcessCommandClientOptions,
  TimelineParams,
  TriggerParams,
} from "./command-client.js";
export { CommandClientError, createCommandClient, parseRetryAfter } from "./command-client.js";
