// incident-query/mongodb: Search Conditions as MongoDB queries, and the first matching incident of a
// collection. The translation (`toMongoFilter`, `toMongoFind`) is pure and also exported by the main entry
// (`incident-query`), where earlier versions had it; this entry gathers everything MongoDB in one place.
// Its declarations never name the `mongodb` driver, so they compile in a project without it.

export type {
  FirstMatchingIncidentOptions,
  IncidentCollection,
  IncidentDocument,
} from "./first-match.js";
export { firstMatchingIncident } from "./first-match.js";
export type { MongoRegex } from "./regex-dialect.js";
export type {
  DateStorage,
  MongoFilter,
  MongoFind,
  MongoQuery,
  MongoSort,
  ToMongoOptions,
} from "./to-mongo.js";
export { toMongoFilter, toMongoFind } from "./to-mongo.js";
