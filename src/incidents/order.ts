/**
 * The order of "the first matching incident" (DECISIONS.md 1.9): the earliest `CreatedUtcTime` first;
 * incidents without a valid `CreatedUtcTime` come after every dated one; ties, and the undated among
 * themselves, go by `IncidentId` ascending. Incidents whose `IncidentId` is not a finite number come after
 * those with one (keeping their input order: callers break remaining ties by position).
 */
import { recordDateValue } from "../conditions/dates.js";

/** The sort key of one incident: `time` is epoch ms or +Infinity when undated; `id` is +Infinity when absent. */
export interface OrderKey {
  readonly time: number;
  readonly id: number;
}

/**
 * Reads the order key of an incident record; never throws. Fields are read as own data properties, as
 * `evaluate` reads them: an accessor counts as absent and is never called.
 */
export function orderKeyOf(incident: object): OrderKey {
  const created = recordDateValue(ownDataValue(incident, "CreatedUtcTime"));
  const rawId = ownDataValue(incident, "IncidentId");
  return {
    time: created ?? Number.POSITIVE_INFINITY,
    id: typeof rawId === "number" && Number.isFinite(rawId) ? rawId : Number.POSITIVE_INFINITY,
  };
}

function ownDataValue(record: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(record, key);
  return descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined;
}

/** True when key `a` comes strictly before key `b` (equal keys: false, so the earlier position wins). */
export function isBefore(a: OrderKey, b: OrderKey): boolean {
  return a.time < b.time || (a.time === b.time && a.id < b.id);
}

/** A comparator for `Array.prototype.sort` over order keys (stable sort keeps input order on ties). */
export function compareOrderKeys(a: OrderKey, b: OrderKey): number {
  return a.time === b.time ? (a.id === b.id ? 0 : a.id < b.id ? -1 : 1) : a.time < b.time ? -1 : 1;
}
