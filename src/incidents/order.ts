/**
 * The order of "the first matching incident" (docs/semantics.md 1.9): the earliest `CreatedUtcTime` first;
 * incidents without a valid `CreatedUtcTime` come after every dated one; ties, and the undated among
 * themselves, go by `IncidentId` ascending. Incidents whose `IncidentId` is not a finite number come after
 * those with one (keeping their input order: callers break remaining ties by position).
 */
import { recordDateValue } from "../conditions/dates.js";
import { ownDataValue } from "./columns.js";

/** The sort key of one incident: `time` is epoch ms or +Infinity when undated; `id` is +Infinity when absent. */
export interface OrderKey {
  readonly time: number;
  readonly id: number;
}

/**
 * Reads the order key of an incident record; never throws. Fields are read as docs/semantics.md 1.1 (revised)
 * reads them: own properties, data or accessor (a getter called once; one that throws, or a record whose
 * properties cannot be read, counts as missing).
 */
export function orderKeyOf(incident: object): OrderKey {
  let created: number | undefined;
  try {
    created = recordDateValue(readField(incident, "CreatedUtcTime"));
  } catch {
    created = undefined; // a Date-like object whose getTime throws is not a valid date
  }
  const rawId = readField(incident, "IncidentId");
  return {
    time: created ?? Number.POSITIVE_INFINITY,
    id: typeof rawId === "number" && Number.isFinite(rawId) ? rawId : Number.POSITIVE_INFINITY,
  };
}

function readField(record: object, key: string): unknown {
  try {
    return ownDataValue(record, key);
  } catch {
    return undefined;
  }
}

/** True when key `a` comes strictly before key `b` (equal keys: false, so the earlier position wins). */
export function isBefore(a: OrderKey, b: OrderKey): boolean {
  return a.time < b.time || (a.time === b.time && a.id < b.id);
}

/** A comparator for `Array.prototype.sort` over order keys (stable sort keeps input order on ties). */
export function compareOrderKeys(a: OrderKey, b: OrderKey): number {
  return a.time === b.time ? (a.id === b.id ? 0 : a.id < b.id ? -1 : 1) : a.time < b.time ? -1 : 1;
}
