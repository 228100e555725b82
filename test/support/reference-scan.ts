/**
 * The reference answer of a search over a collection, for the IncidentSet tests: the order of
 * docs/semantics.md 1.9 written out plainly (a stable sort by valid `CreatedUtcTime` or +∞, then numeric
 * `IncidentId` or +∞, then position), filtered by `evaluate`. Shares nothing with the set's own order code.
 */
import { recordDateValue } from "../../src/conditions/dates.js";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";

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
