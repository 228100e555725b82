// Inputs of IncidentSet's search methods (findFirst, findAll, count, explain) that their public type
// (`Condition | SearchConditionsInput`) does not describe, passed on purpose. The type states the shape a
// caller writes; the parser still checks any value at run time, and these tests hold it to that.
import type { SearchConditionsInput } from "../../src/conditions/print.js";

/**
 * A value the public type refuses (a string, a forged AST, a hostile Proxy, a nesting past the limits),
 * passed to a search method to prove the run-time checks refuse it with `SearchConditionsError`.
 * @param value - any value
 * @returns the same value, typed as the search input it pretends to be
 */
export function hostile(value: unknown): SearchConditionsInput {
  return value as SearchConditionsInput;
}

/**
 * Raw Search Conditions JSON whose static type is lost (drawn by fast-check, read from a table of jstests
 * facts, built by a generator): a JSON object or array the parser checks at run time.
 * @param value - the generated JSON
 * @returns the same value, typed as raw Search Conditions input
 */
export function untyped(value: unknown): SearchConditionsInput {
  return value as SearchConditionsInput;
}
