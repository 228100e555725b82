/**
 * The Filter of GetIncidentTimelineEntries (docs/semantics.md 2): the term is trimmed; an empty term keeps every
 * entry; otherwise an entry is kept when the term occurs, ignoring case, as a literal substring of one of
 * `Summary`, `Note`, `EventType`, an element of `Tactic`, an element of `Technique`, `RiskLevel`,
 * `Description`, `Author`, `Time`.
 *
 * "Ignoring case" is defined precisely (our decision, the docs being silent): the term and each field are
 * put in Unicode normalisation form NFC, then compared code point by code point under Unicode *simple* case
 * folding (CaseFolding.txt, statuses C and S) — the comparison of a JavaScript `/…/iu` regular expression.
 * Terms up to 32 code units are matched with such an expression; longer ones, and `TimelineIndex`, compare
 * folded texts (`foldTimelineText`) with `indexOf`, which keeps every search linear; tests hold the two
 * forms together. For the common case of an ASCII term (other than `;` and `` ` ``), a value is searched in
 * its raw text first, without normalising it, and only a raw hit is confirmed on the NFC text: NFC never
 * creates an occurrence of such a term (see `isRawSearchable`); an `indexOf` prefilter on the term's rarest
 * character skips most values before any regular expression. The answers are the same.
 *
 * So `ÉVÉNEMENT` matches `événement` (precomposed or decomposed), `Σ`, `σ` and `ς` match one another,
 * `ẞ` matches `ß`, the Kelvin sign matches `k`; but `ß` does not match `ss` (that is full folding) and `İ`
 * matches only itself (no Turkish rules). Every character of the term is literal: `a.b*` and `(admin` have
 * no special meaning. A term never matches across two fields or two elements of an array.
 */

import type { TIMELINE_SEARCHED_FIELDS } from "./entry.js";

/** Characters that may change under NFC: code points from U+0300 up (every string below is already NFC). */
const MAY_CHANGE_UNDER_NFC = /[\u0300-\uffff]/;
const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/** A prepared Filter term, reusable across entries and queries. */
export interface TimelineFilter {
  /** The term as it is matched: trimmed and in NFC; `""` keeps every entry. */
  readonly term: string;
  /** Whether the filter keeps every entry (the term is empty after trimming). */
  readonly keepsAll: boolean;
  /**
   * Whether the filter keeps `entry`. Reads own properties only; a field of the wrong type (a number
   * `Summary`, a `Tactic` that is not an array, a non-string element) is not searched. Never throws on
   * plain data (JSON values, plain objects). Linear in the length of the searched text.
   */
  matches(entry: unknown): boolean;
}

/**
 * Prepares a Filter term (docs/semantics.md 2; the case folding is described at the top of this module).
 * @param term - the raw term; surrounding white space (`String.prototype.trim`) is ignored
 * @returns the prepared filter
 * @throws {TypeError} when `term` is not a string
 * @example createTimelineFilter("  ÉVÉNEMENT ").matches({ Summary: "Un événement" }) //=> true
 */
export function createTimelineFilter(term: string): TimelineFilter {
  if (typeof term !== "string") throw new TypeError("Expected the Filter term to be a string.");
  const normalized = term.trim().normalize("NFC");
  if (normalized === "") return { term: "", keepsAll: true, matches: () => true };
  const text = textMatcher(normalized);
  // Fields are read with direct property accesses (fast, monomorphic); ownership is checked only on a hit.
  const list = (value: unknown): boolean => {
    if (!Array.isArray(value)) return false;
    const array: readonly unknown[] = value;
    for (let i = 0; i < array.length; i++) {
      if (text(array[i]) && Object.hasOwn(array, i)) return true;
    }
    return false;
  };
  const own = Object.hasOwn;
  return {
    term: normalized,
    keepsAll: false,
    matches(entry: unknown): boolean {
      if (typeof entry !== "object" || entry === null) return false;
      const e = entry as Partial<Record<SearchedField, unknown>>;
      return (
        (text(e.Summary) && own(e, "Summary")) ||
        (text(e.Note) && own(e, "Note")) ||
        (text(e.EventType) && own(e, "EventType")) ||
        (list(e.Tactic) && own(e, "Tactic")) ||
        (list(e.Technique) && own(e, "Technique")) ||
        (text(e.RiskLevel) && own(e, "RiskLevel")) ||
        (text(e.Description) && own(e, "Description")) ||
        (text(e.Author) && own(e, "Author")) ||
        (text(e.Time) && own(e, "Time"))
      );
    },
  };
}

type SearchedField = (typeof TIMELINE_SEARCHED_FIELDS)[number];

/**
 * Terms up to this many UTF-16 code units are matched with a `/…/iu` regular expression (fastest, no
 * allocation); a backtracking literal search costs up to (field length × term length), so longer terms
 * are matched by folding each field and searching with `indexOf`, which stays linear.
 */
const SHORT_TERM = 32;

/** The matcher of one searched value: the raw-text path where it is exact (`isRawSearchable`), else NFC. */
function textMatcher(term: string): (value: unknown) => boolean {
  const exact = term.length <= SHORT_TERM ? regexMatcher(term) : foldedMatcher(term);
  return isRawSearchable(term) ? rawTextMatcher(term, exact) : exact;
}

/**
 * ASCII characters from the most to the least frequent in timeline text, roughly: white space, the common
 * letters of English, digits and the separators of times, addresses and identifiers, the rarer letters; a
 * character not listed counts as rarer than every listed one. A heuristic only: it picks the character that
 * the raw-text prefilter looks for, never the answer.
 */
const FREQUENT_FIRST = " etaoinsrhldcum0123456789-:.,/_fpgwybvkxjqz";

/**
 * Terms whose rarest character is listed before this position in `FREQUENT_FIRST` (white space and the
 * thirteen commonest letters) are not prefiltered: most values hold such a character, so the `indexOf`
 * calls would cost more than they save (bench/timeline.ts).
 */
const PREFILTER_FROM = FREQUENT_FIRST.indexOf("m");

/** A character that keeps a term off the raw-text path: non-ASCII, `;` or `` ` ``. */
const NOT_RAW_SEARCHABLE = /[;`\u0080-\uffff]/;

/**
 * Whether `term` (NFC, non-empty) can be searched in a value's raw text, skipping the value's NFC
 * normalisation: ASCII only, and neither `;` nor `` ` ``. Why this is exact: NFC never creates an occurrence
 * of such a term. Every code point whose canonical decomposition holds an ASCII character holds it first,
 * and either is one of the singletons U+037E → `;`, U+1FEF → `` ` ``, U+212A → `K` (the Kelvin sign already
 * matches `k` under simple case folding), or recomposes that character with the mark that follows it (so
 * the ASCII character does not survive); ASCII characters never combine with what precedes them, and
 * canonical reordering moves only combining marks. So the ASCII characters of an NFC text are ASCII
 * characters of the raw text, adjacent there when adjacent in the NFC text, except `;`, `` ` `` and `K` from
 * those singletons. filter.test.ts checks these facts over every code point. A raw hit is then confirmed on
 * the NFC text (NFC can destroy an occurrence: `e` + U+0301 becomes `é`).
 */
function isRawSearchable(term: string): boolean {
  return !NOT_RAW_SEARCHABLE.test(term);
}

/**
 * The characters that a value's raw text must hold one of for a raw-searchable `term` to occur in it, or an
 * empty list when the term is not worth prefiltering: the simple case folding class
 * (`asciiFoldingClass`) of the term's rarest character by `FREQUENT_FIRST`, unless that character is one
 * of the commonest (`PREFILTER_FROM`).
 * @param term - a non-empty raw-searchable term
 * @example rawPrefilterCharacters("MIMIKATZ") //=> ["z", "Z"]
 */
export function rawPrefilterCharacters(term: string): string[] {
  let rarest = term.charAt(0);
  let rank = -1;
  for (const c of term) {
    const at = FREQUENT_FIRST.indexOf(c.toLowerCase());
    const r = at === -1 ? FREQUENT_FIRST.length : at;
    if (r > rank) {
      rarest = c;
      rank = r;
    }
  }
  return rank < PREFILTER_FROM ? [] : asciiFoldingClass(rarest);
}

/**
 * The simple case folding class of an ASCII character: its two cases, plus U+212A KELVIN SIGN for `k` and
 * U+017F LONG S for `s`, or the character alone when caseless (filter.test.ts checks every ASCII character
 * against `/…/iu` over every code point).
 * @param c - one ASCII character
 */
export function asciiFoldingClass(c: string): string[] {
  const lower = c.toLowerCase();
  const upper = c.toUpperCase();
  const members = lower === upper ? [c] : [lower, upper];
  if (lower === "k") members.push("\u212A");
  if (lower === "s") members.push("\u017F");
  return members;
}

/**
 * The raw-text matcher of a raw-searchable term (`isRawSearchable`): a value shorter than the term, or
 * without one of `rawPrefilterCharacters(term)`, cannot hold it; otherwise `exact` decides (for a short
 * term, the raw text is tested first and only a hit is confirmed on the NFC text).
 */
function rawTextMatcher(term: string, exact: (value: unknown) => boolean): (value: unknown) => boolean {
  const minLength = term.length;
  const [a, b, c] = rawPrefilterCharacters(term);
  // One-character `indexOf` scans far faster than a case-insensitive regular expression (bench/timeline.ts).
  const lacks = (value: string): boolean =>
    a !== undefined &&
    value.indexOf(a) === -1 &&
    (b === undefined || (value.indexOf(b) === -1 && (c === undefined || value.indexOf(c) === -1)));
  if (minLength > SHORT_TERM) {
    return (value) => typeof value === "string" && value.length >= minLength && !lacks(value) && exact(value);
  }
  const pattern = literalPattern(term);
  return (value) => {
    if (typeof value !== "string" || value.length < minLength || lacks(value) || !pattern.test(value)) {
      return false;
    }
    return !MAY_CHANGE_UNDER_NFC.test(value) || pattern.test(value.normalize("NFC"));
  };
}

/** A `/…/iu` regular expression matching `term` literally (simple case folding). */
function literalPattern(term: string): RegExp {
  return new RegExp(term.replace(REGEX_SYNTAX, "\\$&"), "iu");
}

function regexMatcher(term: string): (value: unknown) => boolean {
  const pattern = literalPattern(term);
  const minLength = term.length;
  // Simple case folding never changes a string's length in UTF-16 code units (checked over every code
  // point in filter.test.ts), so a field shorter than the term, once in NFC, cannot hold it.
  return (value) => {
    if (typeof value !== "string") return false;
    const nfc = MAY_CHANGE_UNDER_NFC.test(value) ? value.normalize("NFC") : value;
    return nfc.length >= minLength && pattern.test(nfc);
  };
}

function foldedMatcher(term: string): (value: unknown) => boolean {
  const folded = foldTimelineText(term);
  return (value) => typeof value === "string" && containsFolded(foldTimelineText(value), folded);
}

/**
 * Whether the folded `text` holds the folded `term` as the rule means it: a plain `indexOf`, except that a
 * lone surrogate at either end of the term may not match half of a surrogate pair of the text (a
 * code point comparison, as `/…/u` does). Linear in the text's length.
 * @param text - a folded text (`foldTimelineText`)
 * @param term - a folded, non-empty term
 */
export function containsFolded(text: string, term: string): boolean {
  let at = text.indexOf(term);
  const last = term.length - 1;
  const startsLow = isLowSurrogate(term.charCodeAt(0));
  const endsHigh = isHighSurrogate(term.charCodeAt(last));
  if (!startsLow && !endsHigh) return at !== -1;
  while (at !== -1) {
    const splitsStart = startsLow && at > 0 && isHighSurrogate(text.charCodeAt(at - 1));
    const splitsEnd = endsHigh && isLowSurrogate(text.charCodeAt(at + last + 1));
    if (!splitsStart && !splitsEnd) return true;
    at = text.indexOf(term, at + 1);
  }
  return false;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Filters timeline entries by a term (docs/semantics.md 2; see `createTimelineFilter`). Never modifies
 * `entries` or its elements.
 * @param entries - the entries (validated or not: ill-typed fields are simply not searched)
 * @param term - the raw Filter term; empty or white space only keeps every entry
 * @returns a new array with the kept entries, in input order
 * @throws {TypeError} when `entries` is not an array or `term` is not a string
 * @example filterTimelineEntries(entries, "(admin").map((e) => e.TimelineID) //=> [4]
 */
export function filterTimelineEntries<T>(entries: readonly T[], term: string): T[] {
  if (!Array.isArray(entries)) throw new TypeError("Expected an array of timeline entries.");
  const filter = createTimelineFilter(term);
  if (filter.keepsAll) return entries.slice();
  const kept: T[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as T;
    if (filter.matches(entry)) kept.push(entry);
  }
  return kept;
}

/**
 * Representatives of the cased code points met so far (at most the ~3,000 cased code points of Unicode:
 * caseless ones are not stored), so that each costs its regular expression once. Memoisation only: the
 * fold is a pure function.
 */
const foldCache = new Map<string, string>();

/**
 * Folds a text for literal case-insensitive search: NFC, then each code point replaced by one fixed member
 * of its simple case folding class. Two texts match under the Filter's rule exactly where their folds
 * match as plain strings, so a folded text can be searched with `indexOf` (used by `TimelineIndex`).
 * The fold has the same length as the NFC text, in UTF-16 code units.
 * @param text - any string; never throws
 * @example foldTimelineText("ÉVÉNEMENT Σ") === foldTimelineText("événement ς") //=> true
 */
export function foldTimelineText(text: string): string {
  const nfc = MAY_CHANGE_UNDER_NFC.test(text) ? text.normalize("NFC") : text;
  return LOWER_CASE_DIFFERS.test(nfc) ? foldByCodePoint(nfc) : nfc.toLowerCase();
}

/**
 * The code points where `String.prototype.toLowerCase` of a text is not the fold: those whose
 * representative is not their lower case (µ, ſ, ς, ϐ, …, and İ, whose lower case is two code points), and
 * capital sigma (lower-cased to ς at the end of a word). Everywhere else the lower case of a text is its
 * fold, computed natively. filter.test.ts recomputes this set over every code point.
 */
const LOWER_CASE_DIFFERS =
  /\u0345|[\u00b5\u0130\u017f\u03a3\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u1c80-\u1c88\u1e9b\u1fbe\u1fd3\u1fe3\ufb05]/;

/** The fold of an NFC text, code point by code point (the definition; `foldTimelineText` is the fast form). */
export function foldByCodePoint(nfc: string): string {
  return nfc.replace(/[A-Z\u{80}-\u{10FFFF}]+/gu, foldRun);
}

function foldRun(run: string): string {
  let out = "";
  for (const c of run) out += foldCodePointCached(c);
  return out;
}

function foldCodePointCached(c: string): string {
  let folded = foldCache.get(c);
  if (folded === undefined) {
    if (c.toUpperCase() === c && c.toLowerCase() === c && !FOLDING_EXCEPTIONS.has(c)) return c;
    folded = foldCodePoint(c);
    foldCache.set(c, folded);
  }
  return folded;
}

/**
 * Classes that the lower and upper cases do not connect (Unicode 14 added these simple foldings): the
 * first two pairs are also canonically equivalent, so NFC text never holds U+1FD3 or U+1FE3.
 */
const FOLDING_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  ["\u1FD3", "\u0390"],
  ["\u1FE3", "\u03B0"],
  ["\uFB05", "\uFB06"],
]);

/**
 * The representative of a code point's simple case folding class: the lower case of its upper case, else
 * its lower case, else itself — the first of these that is one code point of the same class (tested with a
 * `/^…$/iu` regular expression, the definition of the class) — with three exceptions that the cases do not
 * connect. filter.test.ts checks, over every code point, that this is one fixed representative per class.
 * @param c - one code point, as a string
 */
export function foldCodePoint(c: string): string {
  const exception = FOLDING_EXCEPTIONS.get(c);
  if (exception !== undefined) return exception;
  const upper = c.toUpperCase();
  const lower = c.toLowerCase();
  if (upper === c && lower === c) return c;
  const candidates = isOneCodePoint(upper) ? [upper.toLowerCase(), lower] : [lower];
  for (const candidate of candidates) {
    if (isOneCodePoint(candidate) && sameFoldingClass(candidate, c)) return candidate;
  }
  return c;
}

/** Whether two code points are equal under simple case folding (JavaScript's `iu` comparison). */
export function sameFoldingClass(a: string, b: string): boolean {
  return new RegExp(`^${a.replace(REGEX_SYNTAX, "\\$&")}$`, "iu").test(b);
}

function isOneCodePoint(s: string): boolean {
  if (s.length === 1) return true;
  if (s.length !== 2) return false;
  const high = s.charCodeAt(0);
  const low = s.charCodeAt(1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}
