/**
 * The reference answer of a search over a collection, for the IncidentSet tests: the order of
 * docs/semantics.md 1.9 written out plainly (a stable sort by valid `CreatedUtcTime` or +∞, then numeric
 * `IncidentId` or +∞, then position), filtered by `evaluate`. Shares nothing with the set's own order code.
 */

import { expect } from "vitest";
import { recordDateValue } from "../../src/conditions/dates.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { untyped } from "./conditions-input.js";

type Incident = Record<string, unknown>;

function own(record: Incident, key: string): unknown {
  return Object.getOwnPropertyDescriptor(record, key)?.value;
}

/** Every incident that `evaluate` matches, in the order of docs/semantics.md 1.9. */
export function referenceScan<T extends Incident>(incidents: readonly T[], raw: unknown): T[] {
  const condition = parseSearchConditions(raw);
  return incidents
    .map((incident, position) => {
      const id = own(incident, "IncidentId");
      return {
        incident,
        position,
        time: recordDateValue(own(incident, "CreatedUtcTime")) ?? Number.POSITIVE_INFINITY,
        id: typeof id === "number" && Number.isFinite(id) ? id : Number.POSITIVE_INFINITY,
      };
    })
    .sort((a, b) =>
      a.time !== b.time
        ? a.time < b.time
          ? -1
          : 1
        : a.id !== b.id
          ? a.id < b.id
            ? -1
            : 1
          : a.position - b.position,
    )
    .map((entry) => entry.incident)
    .filter((incident) => evaluate(condition, incident));
}

/**
 * Builds a set of the first `split` incidents (modulo their number + 1), checks `count`, `findAll` and
 * `findFirst` of every query against `referenceScan`, then adds the rest one by one and checks again (what
 * a set keeps across queries must follow the rows added since).
 */
export function checkAgainstScanAcrossAdds(
  incidents: readonly Incident[],
  queries: readonly unknown[],
  split: number,
  options: IncidentSetOptions,
): void {
  const cut = incidents.length === 0 ? 0 : split % (incidents.length + 1);
  const set = new IncidentSet(incidents.slice(0, cut), options);
  const check = (rows: readonly Incident[]) => {
    for (const raw of queries) {
      const expected = referenceScan(rows, raw);
      expect(set.count(untyped(raw))).toBe(expected.length);
      expect(set.findAll(untyped(raw))).toEqual(expected);
      expect(set.findFirst(untyped(raw))).toBe(expected[0]);
    }
  };
  check(incidents.slice(0, cut));
  for (const incident of incidents.slice(cut)) set.add(incident);
  check(incidents);
}
