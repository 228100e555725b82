/**
 * "The first matching incident" (DECISIONS.md 1.9) over a MongoDB collection, through the official
 * `mongodb` driver's collection interface. The driver is imported as types only: it is an optional peer
 * dependency, needed only by the server implementation that passes a collection in.
 */
import type { Collection, Document, Filter, WithId } from "mongodb";
import type { Condition } from "../conditions/ast.js";
import {
  type MongoFilter,
  type MongoQuery,
  type ToMongoOptions,
  toMongoFind,
} from "../conditions/to-mongo.js";

/** What `firstMatchingIncident` needs of a collection: `findOne(filter, { sort })`. */
export type IncidentCollection<TSchema extends Document = Document> = Pick<Collection<TSchema>, "findOne">;

/** Options of `firstMatchingIncident`. */
export interface FirstMatchingIncidentOptions<TSchema extends Document = Document> extends ToMongoOptions {
  /**
   * A filter ANDed with the condition, in the collection's field names (not mapped), e.g. the request's
   * site: `{ SiteName: "Security Operations" }` (DECISIONS.md 3.3: the first matching incident *of the
   * request's site*).
   */
  readonly scope?: Filter<TSchema>;
}

/** Reads a dotted path from a returned document (plain sub-documents only; arrays are never dated). */
function readPath(document: Document, path: string): unknown {
  let value: unknown = document;
  for (const segment of path.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}

/**
 * Finds the first incident of a MongoDB collection that matches a Search Conditions object (DECISIONS.md
 * 1.9): the earliest `CreatedUtcTime`, incidents without a valid one after all dated ones, ties by
 * `IncidentId` ascending. Runs the plan of `toMongoFind`: one `findOne` on the dated incidents (served by
 * the index `{CreatedUtcTime: 1, IncidentId: 1}`), and only when none matches, one on the undated ones
 * (`{IncidentId: 1}`). With `dateStorage: "string"`, when the earliest string has milliseconds, one more
 * `findOne` looks for the same second written without them (`…:00Z` is the instant `…:00.000Z` but sorts
 * after `…:00.500Z`), so mixed string forms are ordered by instant.
 *
 * @param collection - a `mongodb` `Collection` (or anything with its `findOne`)
 * @param condition - a Condition from `parseSearchConditions` (only parsed conditions are accepted)
 * @param options - `dateStorage`, `fieldMap` (as `toMongoFilter`) and `scope`, a filter ANDed in
 * @returns the incident document, or `null` when no incident matches
 * @throws {TypeError} as `toMongoFind`: invalid options, or a condition that `parseSearchConditions` did not
 *   produce (docs/semantics.md 1.1), before any query is sent
 * @throws whatever the driver throws (network, authorisation, query errors), unchanged
 * @example await firstMatchingIncident(db.collection("incidents"), parseSearchConditions({ Severity: "High" }))
 *   //=> { _id: …, IncidentId: 7, Severity: "High", CreatedUtcTime: 2024-03-01T09:15:00.000Z, … }
 */
export async function firstMatchingIncident<TSchema extends Document = Document>(
  collection: IncidentCollection<TSchema>,
  condition: Condition,
  options: FirstMatchingIncidentOptions<TSchema> = {},
): Promise<WithId<TSchema> | null> {
  const plan = toMongoFind(condition, options);
  const scoped = (filter: MongoFilter): Filter<TSchema> =>
    (options.scope === undefined ? filter : { $and: [options.scope, filter] }) as Filter<TSchema>;
  const findFirst = (query: MongoQuery) => collection.findOne(scoped(query.filter), { sort: query.sort });

  const dated = await findFirst(plan.dated);
  if (dated === null) return findFirst(plan.undated);
  if (plan.dateStorage === "string") {
    const created = readPath(dated, plan.fields.createdUtcTime);
    if (typeof created === "string" && created.length === 24) {
      // The lexically first string is P.SSSZ; only "PZ" (= P.000) can be earlier, and "P.000Z" ties with it.
      const second = created.slice(0, 19);
      const sameSecond = await findFirst({
        filter: {
          $and: [
            plan.dated.filter,
            { [plan.fields.createdUtcTime]: { $in: [`${second}Z`, `${second}.000Z`] } },
          ],
        },
        sort: { [plan.fields.incidentId]: 1 },
      });
      if (sameSecond !== null) return sameSecond;
    }
  }
  return dated;
}
