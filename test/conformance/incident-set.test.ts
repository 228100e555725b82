/**
 * Runs every conformance match case through `IncidentSet`: each case's incidents in one set, queried with
 * `count`, `findAll` and `findFirst`, with the default columns and with every column dropped (row predicate
 * only), with raw JSON and with the parsed condition. The expected answers come from the table; the order
 * is DECISIONS.md 1.9's.
 */
import { describe, expect, it } from "vitest";
import { recordDateValue } from "../../src/conditions/dates.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet, type IncidentSetOptions } from "../../src/incidents/incident-set.js";
import { matchCases } from "./match-cases.js";

type Incident = Record<string, unknown>;

/** DECISIONS.md 1.9: earliest valid CreatedUtcTime, undated last; then numeric IncidentId; then position. */
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

const layouts: [string, IncidentSetOptions][] = [
  ["default columns", {}],
  ["no columns (row predicate only)", { dictionaryFields: [], hashFields: [] }],
  ["tiny dictionaries, closures", { maxDictionary: 1, compile: { codegen: false } }],
];

describe.each(layouts)("conformance: IncidentSet (%s)", (_layout, options) => {
  describe.each(matchCases.map((matchCase) => [matchCase.name, matchCase] as const))(
    "%s",
    (_name, matchCase) => {
      it(`(${matchCase.rule})`, () => {
        const setOptions: IncidentSetOptions =
          matchCase.catalog === undefined ? options : { ...options, catalog: matchCase.catalog };
        const incidents = matchCase.incidents.map((entry) => entry.incident);
        const set = new IncidentSet(incidents, setOptions);
        const expected = inCreationOrder(
          matchCase.incidents.filter((entry) => entry.matches).map((e) => e.incident),
        );
        const condition = parseSearchConditions(
          matchCase.conditions,
          matchCase.catalog === undefined ? undefined : { catalog: matchCase.catalog },
        );
        const where = `case "${matchCase.name}" (${matchCase.rule})`;
        for (const query of [matchCase.conditions, condition]) {
          expect(set.count(query), `${where}: count`).toBe(expected.length);
          expect(set.findAll(query), `${where}: findAll`).toEqual(expected);
          expect(set.findFirst(query), `${where}: findFirst`).toBe(expected[0]);
        }
        // One incident at a time, added after construction.
        matchCase.incidents.forEach(({ incident, matches }, index) => {
          const single = new IncidentSet<Incident>([], setOptions).add(incident);
          expect(single.count(condition), `${where}: incident #${index} alone`).toBe(matches ? 1 : 0);
        });
      });
    },
  );
});
