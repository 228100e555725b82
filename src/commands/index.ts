// incident-query/commands: the three commands as pure handlers over a backend (docs/architecture.md, "Layers").
export type { ArtifactNoteContextItem } from "../artifacts/note-result.js";
// The time budget a Backend receives and the error it rejects with past it (docs/semantics.md 1.7).
export type { SearchBudget } from "../incidents/search-budget.js";
export { SearchTimeoutError } from "../incidents/search-budget.js";
export type {
  ArtifactInfo,
  ArtifactTypeInfo,
  Backend,
  IncidentRecord,
  NoteRequest,
  PlaybookInfo,
  PlaybookRunRequest,
  RecordedPlaybookRun,
  SiteInfo,
  StoredNote,
  UserInfo,
} from "./backend.js";
export type { CommandErrorContext, CommandHandlerOptions } from "./handler.js";
export { createCommandHandler, DEFAULT_MAX_NOTE_LENGTH } from "./handler.js";
export type { Caller, CommandBody, CommandHandler, CommandResponse } from "./handler-types.js";
export { INVALID_JSON } from "./handler-types.js";
export type {
  Dataset,
  DatasetArtifact,
  DatasetDuplicate,
  DatasetIssue,
  DatasetIssueCode,
  DatasetIssueDetail,
  DatasetNote,
  DatasetOptions,
  DatasetPlaybook,
  DatasetSite,
  DatasetTimelineEntry,
  DatasetUser,
  DatasetValidation,
} from "./memory/dataset.js";
export {
  DatasetError,
  DEFAULT_PROGRESS_INTERVAL,
  formatDatasetIssues,
  parseDataset,
  validateDataset,
} from "./memory/dataset.js";
export { datasetIssueMessage } from "./memory/dataset-issues.js";
export type { DatasetFixture, IncidentOverrides } from "./memory/fixtures.js";
export {
  buildArtifact,
  buildDataset,
  buildIncident,
  buildTimelineEntry,
  FIXTURE_ARTIFACT_TYPES,
  FIXTURE_PLAYBOOK,
  FIXTURE_SITE,
  FIXTURE_USER,
} from "./memory/fixtures.js";
export type {
  MemoryBackend,
  MemoryBackendOptions,
  NoteRecord,
  PlaybookRunHook,
  PlaybookRunRecord,
} from "./memory/memory-backend.js";
export { createMemoryBackend } from "./memory/memory-backend.js";
export { loadSampleDataset } from "./memory/sample-dataset.js";
export type { TriggerDataLimits } from "./trigger-data.js";
export { DEFAULT_TRIGGER_DATA_LIMITS } from "./trigger-data.js";
export type {
  CommandResponseBodies,
  CommandResponseBody,
  HandlerErrorStatus,
  TypedCommandHandler,
  TypedCommandResponse,
} from "./typed-handler.js";
export { BackendUnavailableError } from "./unavailable.js";
export type {
  AddNotesResponseBody,
  CommandEnvelope,
  CommandName,
  ErrorResponseBody,
  TimelineEntryData,
  TimelineResponseBody,
  TimelineReturnData,
  TriggeredIncidentData,
  TriggeredPlaybook,
  TriggerResponseBody,
  TriggerReturnData,
} from "./wire.js";
export { COMMAND_NAMES, MESSAGES, ON_INCIDENT_EXTERNAL_ACTION } from "./wire.js";
