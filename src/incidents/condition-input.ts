/**
 * What `IncidentSet` methods accept: a condition produced by `parseSearchConditions`, used as it is, or raw
 * Search Conditions JSON, which is parsed (docs/semantics.md 1.1).
 *
 * Whether an input is a parsed condition is known by identity (`isParsedCondition`), never by its shape:
 * JSON shaped like a condition node (`{"kind": "eq", "path": ["__proto__"], …}`) is raw Search Conditions
 * like any other JSON and goes through the parser, which refuses it with its issues. So no forged AST can
 * skip the parser's checks (prototype-named segments, labels, limits, RE2 syntax and program size).
 */

import type { Condition } from "../conditions/ast.js";
import type { ParseOptions } from "../conditions/options.js";
import { isParsedCondition, parseSearchConditions } from "../conditions/parse.js";

/**
 * Returns the condition for an input of `findFirst`, `findAll`, `count`, `explain`.
 * @param input - a condition from `parseSearchConditions`, or raw Search Conditions JSON
 * @param options - catalogue and limits used to parse raw JSON (a parsed condition keeps the catalogue it
 *   was parsed with)
 * @returns the parsed condition itself, or the condition parsed from the raw JSON
 * @throws {SearchConditionsError} when the input is raw JSON with issues (an AST-shaped object that the
 *   parser did not produce is raw JSON: its `path` array and `operand` object are issues)
 */
export function toCondition(input: unknown, options: ParseOptions | undefined): Condition {
  return isParsedCondition(input) ? input : parseSearchConditions(input, options);
}
