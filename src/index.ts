// incident-query: the engine's public API. Explicit named exports only (DESIGN.md).
export type {
  AllNode,
  AndNode,
  Condition,
  ConditionKind,
  EqNode,
  ExistsNode,
  FieldKind,
  FieldNode,
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
  RangeNode,
  RegexNode,
  SizeNode,
} from "./conditions/ast.js";
export { assertNever } from "./conditions/ast.js";
export type { CatalogExtension, FieldCatalog, FieldSpec } from "./conditions/catalog.js";
export { DEFAULT_CATALOG, extendCatalog } from "./conditions/catalog.js";
export type { Issue, IssueCode, PathSegment } from "./conditions/issues.js";
export { formatIssues, formatPath, SearchConditionsError } from "./conditions/issues.js";
