/**
 * `incident-query/node`: the library's Node entry, the one place that reads files and streams and runs
 * worker threads (docs/node.md). `matchNdjson` counts, finds the first or streams every match of an NDJSON
 * export (a file, a stream, standard input; gzip or not), reading its bytes once in blocks over worker
 * threads; `fromNdjson` builds an `IncidentSet` from one. The engine's own entry (`incident-query`) stays
 * pure and runs in a browser.
 */

export type { MatchMode } from "./block-scanner.js";
export { NdjsonInputError, type NdjsonInputErrorKind } from "./errors.js";
export {
  type FromNdjsonOptions,
  fromNdjson,
  type MatchNdjsonOptions,
  type MatchNdjsonResult,
  matchNdjson,
  type NdjsonInput,
  type NdjsonMatch,
} from "./match.js";
export type { NdjsonProblem } from "./reader.js";
