/**
 * The letters whose case folding is special, in the order the character tables of the regex tests list
 * them: k and s in both cases, then their non-ASCII partners, the Kelvin sign (U+212A, folds with k) and
 * the long s (U+017F, folds with s). chain.test.ts, matcher.test.ts and bit-parallel.test.ts build their
 * pattern and value alphabets around them.
 */
export const FOLDING_LETTERS: readonly string[] = ["k", "K", "s", "S", "\u212A", "\u017F"];

/**
 * Searches by regular expression, with what RE2 answers (`$regex` is a search, not a full match:
 * docs/semantics.md 1.4): `[source, $options flags, value, matches]`. Every engine of src/conditions/regex
 * runs them all (matcher.test.ts: `compileRegex` and its literal fast paths; bit-parallel.test.ts: the
 * bit-parallel matcher alone), each answering as re2js does.
 */
export const SEARCH_CASES: readonly (readonly [string, string, string, boolean])[] = [
  // compileRegex and its literal fast paths.
  // $regex is a search (MongoDB), not a full match.
  ["Phish", "", "Re: Phishing attempt", true],
  ["^Phish", "", "Re: Phishing attempt", false],
  ["^Phish", "", "Phishing attempt", true],
  ["^Phish", "", "phishing attempt", false],
  ["^Phish", "i", "phishing attempt", true],
  ["attempt$", "", "Phishing attempt", true],
  ["attempt$", "", "Phishing attempt\n", false],
  ["^Closed$", "", "Closed", true],
  ["^Closed$", "", "Closed ", false],
  ["^Closed$", "i", "CLOSED", true],
  ["\\.exe$", "", "invoice.exe", true],
  ["\\.exe$", "", "invoiceexe", false],
  ["^second", "", "first\nsecond", false],
  ["^second", "m", "first\nsecond", true],
  ["a.c", "", "a\nc", false],
  ["a.c", "s", "a\nc", true],
  ["^(Phish|Spam)ing", "", "Spamming", false],
  ["^(Phish|Spam)+ing", "", "Spaming", true],
  ["\\bmalware\\b", "i", "New MALWARE sample", true],
  // RE2 folds k with the Kelvin sign and s with the long s: the ASCII fast path must not hide that.
  ["kelvin", "i", "\u212Aelvin", true],
  ["^s$", "i", "\u017F", true],
  ["i", "i", "\u0130", false],
  ["é", "i", "É", true],
  ["", "", "", true],
  ["^$", "", "x", false],
  ["😀", "", "x😀", true],

  // The bit-parallel matcher: assertions, empty matches, surrogates, classes.
  ["abc", "", "xxabcx", true],
  ["abc", "", "xxabx", false],
  ["a\\b", "", "ab", false],
  ["a\\b", "", "a b", true],
  ["\\Ba", "", "ba", true],
  ["^a", "", "ba", false],
  ["^a", "m", "b\na", true],
  ["a$", "", "a\n", false],
  ["a$", "m", "a\n", true],
  ["\\Aa", "m", "b\na", false],
  ["a\\z", "m", "a\nb", false],
  ["(?i)k", "", "\u212A", true],
  ["(?i)é", "", "É", true],
  ["(?i)σ", "", "ς", true],
  ["[ab]*a[ab]{3}c", "", "abbbbac", false],
  ["[ab]*a[ab]{3}c", "", "aabbc", true],
  ["(?:a?){5}b", "", "aaab", true],
  ["", "", "", true],
  ["^$", "", "", true],
  ["^$", "", "x", false],
  ["^$", "m", "x\n", true],
  ["\\B", "", "", true],
  ["\\b", "", "", false],
  ["x*", "", "abc", true],
  ["😀+", "", "a😀", true],
  [".", "", "\ud83d", true],
  ["^.$", "", "😀", true],
  ["^..$", "", "😀", false],
  ["\\x{d83d}", "", "\ud83d\ude00", false],
  ["[^\\x00-\\x{10FFFF}]", "", "abc", false],
  ["a.c", "", "a\nc", false],
  ["a.c", "s", "a\nc", true],
  ["(?:a|b\\b)+c", "", "abc", false],
  ["(?:a|b\\b)+ c", "", "ab c", true],
];
