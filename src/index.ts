// incident-query: the engine's public API (DESIGN.md). Explicit named exports only; the commands, server,
// client and MongoDB helper have their own entry points (incident-query/commands, /server, /client, /mongodb).

// Artifact note results.
export type { ArtifactNoteContextItem, ArtifactNoteInput, ArtifactNoteResult } from "./artifacts/index.js";
export { buildArtifactNoteResult, formatLocalDate, renderNoteResultTable } from "./artifacts/index.js";
// Search Conditions: the AST, catalogue, options, issues; parse, print, evaluate, compile.
export type {
  AllNode,
  AndNode,
  CatalogExtension,
  CompileOptions,
  Condition,
  ConditionKind,
  ConditionLimits,
  ElementOperators,
  ElemMatchNode,
  EqNode,
  ExistsNode,
  FieldAndNode,
  FieldCatalog,
  FieldKind,
  FieldNode,
  FieldOperatorNode,
  FieldSpec,
  FieldTarget,
  InNode,
  Issue,
  IssueCode,
  IssueDetail,
  JsonSchema,
  JsonType,
  LimitName,
  ModNode,
  NeNode,
  NinNode,
  NorNode,
  NotNode,
  Operand,
  OrderedOperand,
  OrNode,
  ParseOptions,
  PathSegment,
  Predicate,
  RangeBound,
  RangeBounds,
  RangeNode,
  RegexNode,
  SafeParseResult,
  SearchConditionsJson,
  SearchConditionsJsonSchemaOptions,
  SizeNode,
  TypeNode,
} from "./conditions/index.js";
export {
  assertNever,
  compile,
  DEFAULT_CATALOG,
  DEFAULT_LIMITS,
  evaluate,
  explain,
  extendCatalog,
  formatIssues,
  formatPath,
  isParsedCondition,
  MAX_CONDITION_DEPTH,
  matchesEverythingByShape,
  parseSearchConditions,
  SearchConditionsError,
  safeParseSearchConditions,
  searchConditionsJsonSchema,
  toSearchConditions,
} from "./conditions/index.js";
// Incident sets.
export type {
  BudgetTimer,
  IncidentSetFootprint,
  IncidentSetOptions,
  IncidentSetPlan,
  NdjsonByteReader,
  NdjsonSource,
  SearchBudget,
} from "./incidents/index.js";
export { BUDGET_CHECK_INTERVAL, IncidentSet, SearchTimeoutError, startBudget } from "./incidents/index.js";
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
