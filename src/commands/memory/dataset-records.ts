/**
 * What every backend reads from a dataset the same way (docs/semantics.md 3.3): which playbooks a trigger runs,
 * and the timeline entry of the wire format.
 */

import type { IncidentRecord } from "../backend.js";
import type { TimelineEntryData } from "../wire.js";
import type { DatasetPlaybook, DatasetTimelineEntry } from "./dataset.js";

/**
 * True when the playbook runs for this trigger on this incident: it has the trigger, the incident's `Type`
 * (a string) is one of its incident types, and it applies to the site (no `sites` means every site).
 */
export function playbookApplies(
  playbook: DatasetPlaybook,
  site: string,
  incident: IncidentRecord,
  trigger: string,
): boolean {
  return (
    playbook.triggers.includes(trigger) &&
    typeof incident.Type === "string" &&
    playbook.incidentTypes.includes(incident.Type) &&
    (playbook.sites === undefined || playbook.sites.includes(site))
  );
}

/** A dataset timeline entry in the shape of specification 2.2, absent text fields as `""`, lists as `[]`. */
export function toTimelineEntryData(entry: DatasetTimelineEntry): TimelineEntryData {
  return {
    TimelineID: entry.TimelineID,
    Time: entry.Time,
    Summary: entry.Summary ?? "",
    Note: entry.Note ?? "",
    EventType: entry.EventType ?? "",
    Tactic: [...(entry.Tactic ?? [])],
    Technique: [...(entry.Technique ?? [])],
    RiskLevel: entry.RiskLevel ?? "",
    Description: entry.Description ?? "",
    Author: entry.Author ?? "",
  };
}
