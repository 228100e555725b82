// incident-query: the engine's public API (DESIGN.md). Explicit named exports only; the commands, server,
// client and MongoDB helper have their own entry points (incident-query/commands, /server, /client, /mongodb).

// Artifact note results.
export type { ArtifactNoteContextItem, ArtifactNoteInput, ArtifactNoteResult } from "./artifacts/index.js";
export { buildArtifactNoteResult, formatLocalDate, renderNoteResultTable } from "./artifacts/index.js";
// Search Conditions: the AST, the catalogue, options and issues.
export type {
  AllNode,
  AndNode,
  Condition,
  ConditionKind,
  EqNode,
  ExistsNode,
  FieldAndNode,
  FieldKind,
  FieldNode,
  FieldOperatorNode,
  FieldTarget,
  InNode,
  NeNode,
  NinNode,
  NorNode,
  NotNode,
  Operand,
  OrderedOperand,
  OrNode,
  RangeBound,
  RangeBounds,
  RangeNode,
  RegexNode,
  SizeNode,
} from "./conditions/ast.js";
export { assertNever } from "./conditions/ast.js";
export type { CatalogExtension, FieldCatalog, FieldSpec } from "./conditions/catalog.js";
export { DEFAULT_CATALOG, extendCatalog } from "./conditions/catalog.js";
export type { CompileOptions, Predicate } from "./conditions/compile.js";
export { compile } from "./conditions/compile.js";
export { evaluate } from "./conditions/evaluate.js";
export type { Issue, IssueCode, IssueDetail, LimitName, PathSegment } from "./conditions/issues.js";
export { formatIssues, formatPath, SearchConditionsError } from "./conditions/issues.js";
export type { ConditionLimits, ParseOptions } from "./conditions/options.js";
export { DEFAULT_LIMITS } from "./conditions/options.js";
// Search Conditions: parse, print, evaluate, compile, translate.
export type { SafeParseResult } from "./conditions/parse.js";
export { isParsedCondition, parseSearchConditions, safeParseSearchConditions } from "./conditions/parse.js";
export type { SearchConditionsJson } from "./conditions/print.js";
export { explain, toSearchConditions } from "./conditions/print.js";
export { matchesEverythingByShape } from "./conditions/shape.js";
// Incident sets.
export type {
  BudgetTimer,
  IncidentSetFootprint,
  IncidentSetOptions,
  IncidentSetPlan,
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
