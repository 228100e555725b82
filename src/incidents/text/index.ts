/**
 * The text index of an `IncidentSet`: `$regex` on a text field with many distinct values (titles, host
 * names) answered through columns instead of a pass over the records (Russ Cox, "Regular
 * Expression Matching with a Trigram Index"; PostgreSQL `pg_trgm`). The pieces, one idea a file, in text/:
 *
 * - text-column.ts: `TextColumn`, a field's scalar values as value ids (`Int32Array`, one per row) over an
 *   unbounded dictionary of distinct values, with the rows per value. A dictionary column that outgrows
 *   `maxDictionary` becomes a text column instead of being dropped (IncidentSet's `textIndex` option).
 * - corpus-index.ts: `TextIndex`, over the distinct values, a corpus (the values joined in one string, with
 *   their offsets), its ASCII-lowercased copy, and the trigram lists. Built with a large set
 *   (`TextColumn.buildIndex`) or by the first `$regex` query of the field, kept across adds (values added
 *   later are tested one by one until they outnumber an eighth of it, then it is built again), and never
 *   larger than the set's `textIndex.maxBytes` (past it the field has no index and its patterns run on
 *   rows).
 * - fold.ts: trigrams: each UTF-16 unit folded to one of 64 symbols, three symbols a key.
 * - gram-index.ts, id-lists.ts: the postings, `GramIndex`: for each trigram of case-folded text, the ids of
 *   the distinct string values that hold it (ascending), and the algebra of ascending id lists.
 * - gram-query.ts: literal extraction from the RE2 parse, `regexGramQuery`: the trigrams a value must hold
 *   for a pattern to match it, read from RE2's parse tree of the pattern (`parseRegexTree`): literals, small
 *   character classes, concatenation, alternation and repetition, as an AND/OR query over trigrams. A
 *   pattern with no required literal of three characters gives `ALL` (the index cannot narrow it).
 * - candidate-check.ts, literal-proof.ts, chain-proof.ts: the candidate check: `checkLiteral`, a literal
 *   pattern (`^…`, `…$`, with or without `i`) checked on the candidates' spans of the corpus with the
 *   engine's native string search, exactly; `proveLiteral` and `proveChain`, a literal or a literal chain
 *   answered from the trigram lists alone. Other patterns are tested once per candidate value by the
 *   planner (plan/text-leaf.ts).
 *
 * Soundness (the trigram lists only narrow; every candidate is checked with the pattern or, for a literal,
 * on its exact text in the corpus): values and
 * pattern literals are folded alike, one UTF-16 unit at a time, to 64 symbols: ASCII letters to lower case,
 * digits, the other ASCII characters into 27 shared classes, the Kelvin sign to `k` and the long s to `s`
 * (the only non-ASCII characters RE2's case folding equates with ASCII ones), and every other character to a
 * symbol that no query trigram contains. So a value the pattern matches, with or without `i`, holds every
 * trigram the query asks for.
 */

export { checkLiteral } from "./candidate-check.js";
export { proveChain } from "./chain-proof.js";
export { KIND_ASCII, KIND_NON_ASCII, KIND_NOT_STRING, TextIndex } from "./corpus-index.js";
export { foldSymbol, foldVariant } from "./fold.js";
export { GramIndex } from "./gram-index.js";
export { ALL, type GramQuery, gramCount, regexGramQuery } from "./gram-query.js";
export { type LiteralProof, proofEntries, proveLiteral } from "./literal-proof.js";
export {
  AcceptTable,
  DEFAULT_TEXT_INDEX_BYTES,
  TEXT_COMPLEX,
  TEXT_MISSING,
  TEXT_NULL,
  TextColumn,
} from "./text-column.js";
