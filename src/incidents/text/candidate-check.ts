/**
 * The candidate check on the corpus (text/index.ts has the map): a literal pattern (`^…`, `…$`, with or
 * without `i`) checked on the candidates' spans of the corpus with the engine's native string search,
 * exactly (docs/semantics.md 1.4). Other patterns are tested once per candidate value by the planner
 * (plan/text-leaf.ts).
 */

import type { RegexLiteral } from "../../conditions/regex/matcher.js";
import type { BudgetTimer } from "../search-budget.js";
import { KIND_NON_ASCII, KIND_NOT_STRING, type TextIndex } from "./corpus-index.js";

/**
 * Answers a literal pattern (`analyzeLiteral`: plain text, `^text`, `text$`, `^text$`, with or without `i`)
 * for the candidate value ids of a text index, calling `accept(id)` for each id it matches and `undecided(id)`
 * for each id it cannot decide here (a case-insensitive literal on a value with non-ASCII characters: RE2's
 * Unicode folding, e.g. the Kelvin sign as `k`, is left to the pattern). Exact otherwise: a match must lie
 * within the value's span of the corpus (docs/semantics.md 1.4: a search, `^`/`$` at the value's ends).
 * Values that are not strings are passed over (neither accepted nor undecided: the caller tests them).
 * @param candidates - ids below `index.count`, ascending
 * @param timer - the query's budget timer, ticked once per candidate checked here
 * @throws {SearchTimeoutError} from `timer`
 * @returns false when the index has no corpus, or the lowered corpus a case-insensitive literal needs does not
 *   fit the budget (nothing was called: test the candidates with the pattern instead); true otherwise
 */
export function checkLiteral(
  index: TextIndex,
  literal: RegexLiteral,
  candidates: ArrayLike<number>,
  timer: BudgetTimer,
  accept: (id: number) => void,
  undecided: (id: number) => void,
): boolean {
  const corpus = literal.ignoreCase ? index.lowered() : index.corpus;
  if (corpus === undefined) return false; // no corpus within the budget
  const text = literal.ignoreCase ? literal.text.toLowerCase() : literal.text;
  const n = text.length;
  const { starts, kinds } = index;
  const ignoreCase = literal.ignoreCase;
  // Unanchored: the first occurrence at or after a value's start, reused while it lies ahead of the next
  // candidates (ids ascend, so do their starts): about one native search per matching value.
  let found = -1;
  let exhausted = false;
  for (let k = 0; k < candidates.length; k++) {
    const id = candidates[k]!;
    const kind = kinds[id]!;
    if (kind === KIND_NOT_STRING) continue; // the caller tests the values that are not strings
    if (ignoreCase && kind === KIND_NON_ASCII) {
      undecided(id);
      continue;
    }
    timer.tick();
    const start = starts[id]!;
    const end = starts[id + 1]! - 1;
    let match: boolean;
    if (literal.anchorStart && literal.anchorEnd) match = end - start === n && corpus.startsWith(text, start);
    else if (literal.anchorStart) match = end - start >= n && corpus.startsWith(text, start);
    else if (literal.anchorEnd) match = end - start >= n && corpus.startsWith(text, end - n);
    else {
      if (!exhausted && found < start) {
        found = corpus.indexOf(text, start);
        exhausted = found < 0;
      }
      match = !exhausted && found + n <= end;
    }
    if (match) accept(id);
  }
  return true;
}
