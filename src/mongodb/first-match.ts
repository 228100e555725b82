/**
 * "The first matching incident" (docs/semantics.md 1.9) over a MongoDB collection. Typed structurally (what
 * `firstMatchingIncident` calls of a collection), not with the `mongodb` driver's types, so that the
 * declarations of `incident-query/mongodb` compile in a project that has not installed the driver (it is
 * an optional peer dependency, needed only by the server implementation that passes a collection in). A
 * driver `Collection` is accepted as it is.
 */
import type { Condition } from "../conditions/ast.js";
import {
  type MongoFilter,
  type MongoQuery,
  type MongoSort,
  type ToMongoOptions,
  toMongoFind,
} from "./to-mongo.js";

/**
 * A document as a collection returns it: any object with string keys (the driver's `Document` and
 * `WithId<T>` are such objects).
 */
export type IncidentDocument = { [key: string]: unknown };

/**
 * What `firstMatchingIncident` needs of a collection: `findOne(filter, { sort })`, resolving the first
 * document or `null`. A `mongodb` driver `Collection<T>` has it (its documents are `WithId<T>`).
 */
export interface IncidentCollection<TDocument = IncidentDocument> {
  /**
   * The first document that matches `filter` in the order of `options.sort`, or `null`.
   * @param filter - a MongoDB filter document
   * @param options - `sort`: field path → 1 or -1
   */
  findOne(filter: MongoFilter, options: { sort: MongoSort }): Promise<TDocument | null>;
}

/** Options of `firstMatchingIncident`. */
export interface FirstMatchingIncidentOptions extends ToMongoOptions {
  /**
   * A filter ANDed with the condition, in the collection's field names (not mapped), e.g. the request's
   * site: `{ SiteName: "Security Operations" }` (docs/semantics.md 3.3: the first matching incident *of the
   * request's site*).
   */
  readonly scope?: MongoFilter;
}

/** Reads a dotted path from a returned document (plain sub-documents only; arrays are never dated). */
function readPath(document: unknown, path: string): unknown {
  let value: unknown = document;
  for (const segment of path.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}

/**
 * Finds the first incident of a MongoDB collection that matches a Search Conditions object (docs/semantics.md
 * 1.9): the earliest `CreatedUtcTime`, incidents without a valid one after all dated ones, ties by
 * `IncidentId` ascending. Runs the plan of `toMongoFind`: one `findOne` on the dated incidents (served by
 * the index `{CreatedUtcTime: 1, IncidentId: 1}`), and only when none matches, one on the undated ones
 * (`{IncidentId: 1}`). With `dateStorage: "string"`, when the earliest string has milliseconds, one more
 * `findOne` looks for the same second written without them (`…:00Z` is the instant `…:00.000Z` but sorts
 * after `…:00.500Z`), so mixed string forms are ordered by instant.
 *
 * The document type is the caller's to state, as with the driver's own `findOne<T>()` (it is not
 * checked): `firstMatchingIncident<WithId<Incident>>(collection, condition)`; by default a plain object.
 *
 * @typeParam TDocument - the type of the returned document (default: an object with string keys)
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
export async function firstMatchingIncident<TDocument = IncidentDocument>(
  collection: IncidentCollection<unknown>,
  condition: Condition,
  options: FirstMatchingIncidentOptions = {},
): Promise<TDocument | null> {
  const plan = toMongoFind(condition, options);
  const scoped = (filter: MongoFilter): MongoFilter =>
    options.scope === undefined ? filter : { $and: [options.scope, filter] };
  const findFirst = (query: MongoQuery) => collection.findOne(scoped(query.filter), { sort: query.sort });

  const dated = await findFirst(plan.dated);
  if (dated === null) return (await findFirst(plan.undated)) as TDocument | null;
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
      if (sameSecond !== null) return sameSecond as TDocument;
    }
  }
  return dated as TDocument;
}
