// incident-query/client: the typed HTTP client of the three commands.

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
  TimelineParams,
  TriggerParams,
} from "./command-client.js";
export { CommandClientError, createCommandClient, parseRetryAfter } from "./command-client.js";
