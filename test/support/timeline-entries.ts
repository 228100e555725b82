/**
 * The neutral empty text of a timeline entry: each text field `""`, `Tactic` and `Technique` `[]`, in the
 * order of the `TimelineEntry` interface (src/timeline/entry.ts). It is what `validateDataset` fills in for
 * the fields an entry leaves out, and what the timeline tests build their entries on. A new object (and new
 * arrays) at each call, so that no two entries share one.
 */
export function emptyEntryText() {
  return {
    Summary: "",
    Note: "",
    EventType: "",
    Tactic: [] as string[],
    Technique: [] as string[],
    RiskLevel: "",
    Description: "",
    Author: "",
  };
}
