// Timelines (docs/semantics.md 2, specification 2.2): explicit named exports only (docs/architecture.md).
export type {
  TimelineEntry,
  TimelineEntryProblem,
  TimelineProblemCode,
  TimelineValidation,
} from "./entry.js";
export {
  formatTimelineProblems,
  isValidTimelineTime,
  TIMELINE_ENTRY_FIELDS,
  TIMELINE_SEARCHED_FIELDS,
  TIMELINE_TIME_FORMAT,
  validateTimelineEntries,
} from "./entry.js";
export type { TimelineFilter } from "./filter.js";
export { createTimelineFilter, filterTimelineEntries, foldTimelineText } from "./filter.js";
export type { TimelineQuery } from "./query.js";
export { createTimelineIndex, queryTimeline, TimelineIndex } from "./query.js";
export type { SortOrder, SortOrderInput } from "./sort.js";
export {
  InvalidSortOrderError,
  parseSortOrder,
  SORT_ORDER_TOKENS,
  sortTimelineEntries,
  timelineTimeKey,
} from "./sort.js";
