/**
 * The suffix window of an end-anchored pattern (docs/semantics.md 1.7, "Regular expressions: where a pattern
 * is searched").
 *
 * A pattern such as `srv-42\d\d$` can only match the last eight characters of a value: it ends at the end
 * (`$` without `m`, or `\z`) and no match of it is longer than eight UTF-16 code units. Searching the last
 * eight units gives the same answer as searching the whole value, and reads a fixed number of characters
 * instead of all of them. `suffixWindow` finds that width from RE2's parse tree; `windowed` applies it.
 */

import { REGEX_OP, type RegexTreeNode, regexTreeOf } from "./program.js";

/** Windows wider than this are not worth a slice: the value is searched whole. */
export const MAX_WINDOW = 256;

/** The engine's flag bit for case folding in the parse tree (re2js `RE2Flags.FOLD_CASE`). */
const FOLD_CASE = 1;

/**
 * The most UTF-16 code units one match of `node` can take, or -1 when unbounded or when the node asserts
 * something about what surrounds the match (`^`, `$` inside, word boundaries), which a window would change.
 */
function widest(node: RegexTreeNode): number {
  switch (node.op) {
    case REGEX_OP.EMPTY_MATCH:
    case REGEX_OP.NO_MATCH:
      return 0;
    case REGEX_OP.LITERAL: {
      let units = 0;
      const fold = (node.flags & FOLD_CASE) !== 0;
      // A code point past the BMP takes two units; under `i` a non-ASCII letter may fold to one (counted two).
      for (let k = 0; k < node.runes.length; k++) {
        const rune = node.runes[k]!;
        units += rune > 0xffff || (fold && rune > 0x7f) ? 2 : 1;
      }
      return units;
    }
    case REGEX_OP.CHAR_CLASS: {
      let high = 0;
      for (let k = 1; k < node.runes.length; k += 2) high = Math.max(high, node.runes[k]!);
      return high > 0xffff ? 2 : 1;
    }
    case REGEX_OP.ANY_CHAR:
    case REGEX_OP.ANY_CHAR_NOT_NL:
      return 2;
    case REGEX_OP.CAPTURE:
    case REGEX_OP.QUEST:
      return widest(node.subs[0]!);
    case REGEX_OP.REPEAT: {
      if (node.max < 0) return -1;
      const one = widest(node.subs[0]!);
      return one < 0 ? -1 : one * node.max;
    }
    case REGEX_OP.CONCAT: {
      let total = 0;
      for (const sub of node.subs) {
        const w = widest(sub);
        if (w < 0) return -1;
        total += w;
      }
      return total;
    }
    case REGEX_OP.ALTERNATE: {
      let most = 0;
      for (const sub of node.subs) {
        const w = widest(sub);
        if (w < 0) return -1;
        most = Math.max(most, w);
      }
      return most;
    }
    default:
      // STAR, PLUS (unbounded); BEGIN_LINE, END_LINE, BEGIN_TEXT, END_TEXT, WORD_BOUNDARY, NO_WORD_BOUNDARY.
      return -1;
  }
}

/**
 * The suffix window of a pattern: when every match must end at the end of the value (the pattern is a
 * concatenation whose last part is `$` without `m`, or `\z`) and no match can be longer than `w` UTF-16 code
 * units (no unbounded repetition, no other anchor or word boundary anywhere), returns `w`: searching the last
 * `w` units of a value (`windowed`) answers as searching all of it. Otherwise, or when `w` exceeds
 * `MAX_WINDOW`, undefined. Never throws (a pattern the engine refuses has no window).
 * @param source - the pattern, RE2 syntax
 * @param flags - `$options` flags (`i`, `m`, `s`); with `m`, `$` is a line end and there is no window
 * @example suffixWindow("srv-42\\d\\d$", "") //=> 8
 * @example suffixWindow("srv-.*$", "") //=> undefined
 */
export function suffixWindow(source: string, flags: string): number | undefined {
  if (flags.includes("m")) return undefined;
  let tree = regexTreeOf(source, flags);
  if (tree === undefined) return undefined;
  while (tree.op === REGEX_OP.CAPTURE) tree = tree.subs[0]!;
  if (tree.op !== REGEX_OP.CONCAT || tree.subs.length < 2) return undefined;
  const last = tree.subs[tree.subs.length - 1]!;
  if (last.op !== REGEX_OP.END_TEXT) return undefined;
  let total = 0;
  for (let k = 0; k < tree.subs.length - 1; k++) {
    const w = widest(tree.subs[k]!);
    if (w < 0) return undefined;
    total += w;
  }
  return total > MAX_WINDOW ? undefined : total;
}

/**
 * The last `window` code units of `value`, widened by one unit when the cut would split a surrogate pair (so
 * that the window starts on a code point); `value` itself when it is not longer.
 */
export function suffixOf(value: string, window: number): string {
  if (value.length <= window) return value;
  let from = value.length - window;
  const unit = value.charCodeAt(from);
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const before = value.charCodeAt(from - 1);
    if (before >= 0xd800 && before <= 0xdbff) from--;
  }
  return value.slice(from);
}

/**
 * `test` restricted to the suffix window of its pattern (`suffixWindow`): the same answers, reading at most
 * `window + 1` code units of each value.
 */
export function windowed(test: (value: string) => boolean, window: number): (value: string) => boolean {
  return (value) => test(value.length <= window ? value : suffixOf(value, window));
}
