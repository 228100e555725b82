// Search Conditions (docs/semantics.md 1): the syntax (AST, catalogue, operator table, issues, parse,
// print), the reference interpreter (evaluate), the fast path (compile). The main entry re-exports these
// names; the modules behind them (leaf.ts, codegen.ts, regex/) are internal.
// Search Conditions: the AST, the catalogue, options and issues.
export type {
  AllNode,
  AndNode,
  BitsNode,
  BitTest,
  Condition,
  ConditionKind,
  ElementOperators,
  ElemMatchNode,
  EqNode,
  ExistsNode,
  FieldAndNode,
  FieldKind,
  FieldNode,
  FieldNodeOf,
  FieldOperatorNode,
  FieldTarget,
  InNode,
  JsonType,
  ModNode,
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
  TableFieldKind,
  TypeNode,
} from "./ast.js";
export { assertNever } from "./ast.js";
export type { CatalogExtension, FieldCatalog, FieldSpec } from "./catalog.js";
export { DEFAULT_CATALOG, extendCatalog } from "./catalog.js";
export type { CompileOptions, Predicate } from "./compile.js";
export { compile } from "./compile.js";
export { evaluate } from "./evaluate.js";
export type { Issue, IssueCode, IssueDetail, LimitName, PathSegment } from "./issues.js";
export { formatIssues, formatPath, SearchConditionsError } from "./issues.js";
export type { JsonSchema, SearchConditionsJsonSchemaOptions } from "./json-schema.js";
export { searchConditionsJsonSchema } from "./json-schema.js";
export type { CacheName, CacheStats } from "./lru.js";
export { cacheStats, clearCaches } from "./lru.js";
export type { ConditionLimits, ParseOptions } from "./options.js";
export { DEFAULT_LIMITS, MAX_CONDITION_DEPTH } from "./options.js";
// Search Conditions: parse, print, evaluate, compile, translate.
export type { SafeParseResult } from "./parse.js";
export { isParsedCondition, parseSearchConditions, safeParseSearchConditions } from "./parse.js";
export type { SearchConditionsInput, SearchConditionsJson } from "./print.js";
export { explain, toSearchConditions } from "./print.js";
export { matchesEverythingByShape } from "./shape.js";
