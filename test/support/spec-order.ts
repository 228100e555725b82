/**
 * The fields of a timeline entry in the order of specification 2.2, written out here once for the tests,
 * independently of the source's own list (`TIMELINE_ENTRY_FIELDS`), so that a change to that list is caught.
 */
export const SPEC_TIMELINE_ENTRY_ORDER = [
  "TimelineID",
  "Time",
  "Summary",
  "Note",
  "EventType",
  "Tactic",
  "Technique",
  "RiskLevel",
  "Description",
  "Author",
] as const;
