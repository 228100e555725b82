/**
 * `IncidentSet` through the conformance harness, in every column layout: the default columns, no columns
 * (row predicate only), tiny dictionaries with closures, and dictionary columns or hash indexes on every
 * single-segment field the case's condition names (open fields included). Each case's incidents go into
 * one set; the answers come from `findAll`, and the adapter checks that `count` and `findFirst` agree with
 * it, that raw JSON and the parsed condition answer alike, that the order is docs/semantics.md 1.9's, and that
 * each incident added alone to an empty set gets the same answer (for the transcribed jstests, whose
 * collections are larger, in the default layout only: a set per incident is the slow part of this file).
 */
import { expect } from "vitest";
import { recordDateValue } from "../../src/conditions/dates.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { untyped } from "../support/conditions-input.js";
import { type Incident, runConformance } from "./harness.js";
import type { EngineName } from "./skips.js";

/** docs/semantics.md 1.9: earliest valid CreatedUtcTime, undated last; then numeric IncidentId; then position. */
function inCreationOrder(incidents: readonly Incident[]): Incident[] {
  const own = (record: Incident, key: string) =>
    Object.getOwnPropertyDescriptor(record, key)?.value as unknown;
  const keyed = incidents.map((incident, position) => {
    const id = own(incident, "IncidentId");
    return {
      incident,
      position,
      time: recordDateValue(own(incident, "CreatedUtcTime")) ?? Number.POSITIVE_INFINITY,
      id: typeof id === "number" && Number.isFinite(id) ? id : Number.POSITIVE_INFINITY,
    };
  });
  keyed.sort((a, b) =>
    a.time !== b.time
      ? a.time < b.time
        ? -1
        : 1
      : a.id !== b.id
        ? a.id < b.id
          ? -1
          : 1
        : a.position - b.position,
  );
  return keyed.map((entry) => entry.incident);
}

/** The single-segment field paths a raw condition names (operands and operator keys excluded). */
function conditionFields(conditions: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(conditions)) {
    for (const item of conditions) conditionFields(item, out);
  } else if (typeof conditions === "object" && conditions !== null) {
    for (const [key, value] of Object.entries(conditions)) {
      if (key === "$and" || key === "$or" || key === "$nor") conditionFields(value, out);
      else if (!key.startsWith("$") && !key.includes(".")) out.add(key);
    }
  }
  return out;
}

const layouts: [EngineName, (conditions: unknown) => IncidentSetOptions][] = [
  ["incident-set:default", () => ({})],
  ["incident-set:no-columns", () => ({ dictionaryFields: [], hashFields: [] })],
  ["incident-set:tiny-dictionaries", () => ({ maxDictionary: 1, compile: { codegen: false } })],
  [
    "incident-set:open-dictionaries",
    (conditions) => ({ dictionaryFields: [...conditionFields(conditions)], hashFields: [] }),
  ],
  [
    "incident-set:open-hashes",
    (conditions) => ({ dictionaryFields: [], hashFields: [...conditionFields(conditions)] }),
  ],
];

for (const [engine, layout] of layouts) {
  runConformance({
    engine,
    run: (conditions, incidents, catalog, matchCase) => {
      const options: IncidentSetOptions = { ...layout(conditions), catalog };
      const set = new IncidentSet(incidents, options);
      const condition = parseSearchConditions(conditions, { catalog });
      const found = set.findAll(condition);
      expect(found, "findAll returns the matches in creation order").toEqual(inCreationOrder(found));
      for (const query of [conditions, condition]) {
        expect(set.findAll(untyped(query)), "findAll (raw and parsed)").toEqual(found);
        expect(set.count(untyped(query)), "count agrees with findAll").toBe(found.length);
        expect(set.findFirst(untyped(query)), "findFirst is the first of findAll").toBe(found[0]);
      }
      const matched = new Set(found);
      const checkAlone = matchCase.source === undefined || engine === "incident-set:default";
      return incidents.map((incident, index) => {
        if (checkAlone) {
          const alone = new IncidentSet<Incident>([], options).add(incident).count(condition);
          expect(alone, `incident #${index} added alone to an empty set`).toBe(matched.has(incident) ? 1 : 0);
        }
        return matched.has(incident);
      });
    },
  });
}
