// incident-query/incidents: the indexed incident set (docs/architecture.md). Explicit named exports only.
export type { BlockKernel, BlockKernelFactory, KernelTest } from "./block-kernel.js";
export type {
  IncidentSetFootprint,
  IncidentSetOptions,
  IncidentSetPlan,
  NdjsonReading,
  SearchOptions,
} from "./incident-set.js";
export { DEFAULT_HASH_FIELDS, IncidentSet } from "./incident-set.js";
export type { NdjsonByteReader, NdjsonSource } from "./ndjson.js";
export type { BudgetTimer, SearchBudget } from "./search-budget.js";
export {
  BUDGET_CHECK_INTERVAL,
  budgetedPredicate,
  SearchTimeoutError,
  startBudget,
} from "./search-budget.js";
