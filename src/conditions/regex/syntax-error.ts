/**
 * The error of a `$regex` pattern outside RE2 syntax, and the names of the constructs RE2 refuses
 * (docs/semantics.md 1.4). Shared by the parser, the fast paths' matcher (`matcher.ts`) and the reference
 * interpreter (`evaluate.ts`), which compile patterns with different code: this module matches nothing.
 */

/**
 * Constructs outside RE2 syntax, recognized by the fragment the engine quotes in its reason, and what we
 * call them (issue messages name the construct first, then quote the engine: docs/semantics.md 1.4).
 */
const UNSUPPORTED: readonly (readonly [RegExp, string])[] = [
  [/`\(\?<[=!]/, "lookbehind ((?<=…), (?<!…)) is not supported"],
  [/`\(\?[=!]/, "lookahead ((?=…), (?!…)) is not supported"],
  [/`\(\?>/, "atomic groups ((?>…)) are not supported"],
  [/`\(\?\(/, "conditionals ((?(1)…|…)) are not supported"],
  [/`\(\?#/, "comments ((?#…)) are not supported"],
  [/`\(\?P`/, "backreferences and recursion by name ((?P=name), (?P>name)) are not supported"],
  [/`\\[1-9kg]/, "backreferences (\\1, \\k<name>) are not supported"],
  [/`(?:[*+?]|\{[^`]*\})\+`/, "possessive quantifiers (a*+, a++, a?+, a{n}+) are not supported"],
  [
    /`(?:[*+?]|\{[^`]*\})\??[*?+]`/,
    "a repetition of a repetition (a**) is not allowed: group it first, as in (?:a*)*",
  ],
  [/`\\C`/, "\\C (any byte) is not supported"],
  [/`\\Z`/, "\\Z is not supported: use $ (or \\z) for the end of the value"],
  [/`\\u`/, "\\u escapes are not supported: write \\x{hhhh}"],
  [/`\\[GKRXhN]`/, "this Perl/PCRE escape is not supported"],
  [/`\(\?[imsU-]*[a-zA-Z]/, "only the inline flags i, m, s and U are supported ((?i), (?s:…))"],
  [/`\(\?/, "this group syntax is not supported"],
];

/**
 * Names, in our words, the construct outside RE2 syntax that the engine's reason points at: lookaround,
 * backreferences, possessive quantifiers, atomic groups, `\C`, … (docs/semantics.md 1.4).
 * @param reason - the engine's reason, as in `RegexSyntaxError.reason` or `RegexMeasure`
 * @returns a phrase such as `lookbehind ((?<=…), (?<!…)) is not supported`, or `undefined` when the pattern
 *   is merely malformed (the engine's reason then says it all)
 * @example unsupportedRegexFeature("invalid named capture: `(?<=a)b`") //=> "lookbehind ((?<=…), (?<!…)) is not supported"
 */
export function unsupportedRegexFeature(reason: string): string | undefined {
  for (const [pattern, phrase] of UNSUPPORTED) if (pattern.test(reason)) return phrase;
  return undefined;
}

/** The reason RE2 gives for refusing a pattern, without the engine's generic prefix. */
export function regexErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp: /, "");
}

/**
 * Thrown by `compileRegex` for a pattern outside RE2 syntax. `reason` is the engine's explanation, e.g.
 * ``invalid escape sequence: `\1` `` (docs/semantics.md 1.4: the issue message quotes it).
 */
export class RegexSyntaxError extends SyntaxError {
  override readonly name = "RegexSyntaxError";
  readonly pattern: string;
  readonly reason: string;

  constructor(pattern: string, reason: string) {
    const unsupported = unsupportedRegexFeature(reason);
    super(
      unsupported === undefined
        ? `Invalid regular expression ${JSON.stringify(pattern)}: ${reason}.`
        : `Invalid regular expression ${JSON.stringify(pattern)}: ${unsupported} (RE2: ${reason}).`,
    );
    this.pattern = pattern;
    this.reason = reason;
  }
}
