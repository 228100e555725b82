// incident-query: the engine's public API (docs/architecture.md). Explicit named exports, but for Search
// Conditions, whose entry (conditions/index.ts) is public whole. The commands, server and client have their
// own entry points (incident-query/commands, /server, /client). Everything MongoDB is in
// incident-query/mongodb; the pure translation (toMongoFilter, toMongoFind) is also re-exported here, where
// earlier versions had it (the first-match helper, which takes a driver collection, is not).

// Artifact note results.
export type { ArtifactNoteContextItem, ArtifactNoteInput, ArtifactNoteResult } from "./artifacts/index.js";
export { buildArtifactNoteResult, formatLocalDate, renderNoteResultTable } from "./artifacts/index.js";
// Search Conditions: the AST, catalogue, options, issues; parse, print, evaluate, compile (every name of
// conditions/index.ts, which lists them).
export * from "./conditions/index.js";
// Incident sets.
export type {
  BlockKernel,
  BlockKernelFactory,
  BudgetTimer,
  IncidentSetFootprint,
  IncidentSetOptions,
  IncidentSetPlan,
  KernelTest,
  NdjsonByteReader,
  NdjsonReading,
  NdjsonSource,
  SearchBudget,
  SearchOptions,
} from "./incidents/index.js";
export {
  BUDGET_CHECK_INTERVAL,
  budgetedPredicate,
  IncidentSet,
  SearchTimeoutError,
  startBudget,
} from "./incidents/index.js";
export type {
  DateStorage,
  MongoFilter,
  MongoFind,
  MongoQuery,
  MongoRegex,
  MongoSort,
  ToMongoOptions,
} from "./mongodb/index.js";
export { toMongoFilter, toMongoFind } from "./mongodb/index.js";
// Timelines.
export type {
  SortOrder,
  SortOrderInput,
  TimelineEntry,
  TimelineEntryProblem,
  TimelineFilter,
  TimelineProblemCode,
  TimelineQuery,
  TimelineValidation,
} from "./timeline/index.js";
export {
  createTimelineIndex,
  InvalidSortOrderError,
  parseSortOrder,
  queryTimeline,
  SORT_ORDER_TOKENS,
  TimelineIndex,
  validateTimelineEntries,
} from "./timeline/index.js";
