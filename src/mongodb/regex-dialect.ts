/**
 * The regex dialect of MongoDB: `$regex` patterns rewritten from RE2 syntax (docs/semantics.md 1.4) to PCRE
 * patterns with the same meaning in MongoDB (and, where the syntax allows, in JavaScript). Used by
 * `toMongoFilter` for every `$regex` it writes.
 * Pure: a string-to-string rewrite, no I/O.
 */

/** A `$regex` operand in MongoDB form: the pattern (PCRE syntax) and its `$options` (empty or `"i"`). */
export interface MongoRegex {
  readonly pattern: string;
  readonly options: string;
}

/** RE2 flags in effect at a point of a pattern. `U` (ungreedy) does not change whether a pattern matches. */
interface Flags {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
}

/** POSIX classes of RE2 (ASCII), as class ranges that PCRE and JavaScript read alike. */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\x09 ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\x09-\\x0D ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * RE2's `\w` under the `i` flag, as class content: RE2 folds the class, which adds U+017F (long s, folds
 * to `s`) and U+212A (Kelvin sign, folds to `k`); PCRE's and JavaScript's `\w` stay ASCII.
 */
const WORD_FOLDED = "\\w\u017F\u212A";

/** RE2's `\s` (no vertical tab), as class content. */
const SPACE_CLASS = "\\x09\\x0A\\x0C\\x0D ";

/**
 * A code point as a pattern character that means itself in PCRE and JavaScript, inside or outside a
 * class: ASCII letters, digits and space as themselves, other printable ASCII escaped with `\`, control
 * characters as `\xHH`, everything else as the character.
 */
function literalChar(cp: number): string {
  if (cp < 0x20 || cp === 0x7f) return `\\x${cp.toString(16).toUpperCase().padStart(2, "0")}`;
  if (cp < 0x80) {
    const ch = String.fromCharCode(cp);
    return /[0-9A-Za-z _]/.test(ch) ? ch : `\\${ch}`;
  }
  return String.fromCodePoint(cp);
}

class RegexTranslator {
  private pos = 0;

  constructor(
    private readonly source: string,
    private readonly baseI: boolean,
  ) {}

  private fail(reason: string): never {
    throw new TypeError(`Cannot translate the pattern ${JSON.stringify(this.source)} to MongoDB: ${reason}.`);
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.pos + offset];
  }

  /** Reads one code point. */
  private next(): number {
    const cp = this.source.codePointAt(this.pos);
    if (cp === undefined) this.fail("unexpected end of pattern");
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  translate(flags: Flags): string {
    const out = this.sequence(flags, this.baseI);
    if (this.pos < this.source.length) this.fail("unbalanced ')'");
    return out;
  }

  /**
   * Translates up to the closing `)` of the current group (not consumed) or the end. `emittedI` is the
   * case-insensitivity in effect in the output at the start; inline `(?i)` changes open `(?i:` / `(?-i:`
   * wrappers, closed at `|` and at the end (RE2 and PCRE both keep an inline flag to the group's end).
   */
  private sequence(entryFlags: Flags, emittedI: boolean): string {
    let flags = entryFlags;
    let out = "";
    let wrapper = false;
    // The last atom: where it starts in `out`, whether a quantifier follows it already, and whether it is an
    // assertion that PCRE and JavaScript cannot quantify bare (`^`, `\b`, `\B`).
    let atomStart = 0;
    let quantified = false;
    let assertion = false;
    const closeWrapper = () => {
      if (wrapper) out += ")";
      wrapper = false;
    };
    const atom = (text: string) => {
      // An inline flag takes effect at the next atom: a wrapper is closed or opened here, not at the flag
      // group, so that a quantifier right after the group still applies to the atom before it.
      if (wrapper && flags.i === emittedI) closeWrapper();
      if (!wrapper && flags.i !== emittedI) {
        out += flags.i ? "(?i:" : "(?-i:";
        wrapper = true;
      }
      atomStart = out.length;
      quantified = false;
      assertion = text === "^" || text === "\\b" || text === "\\B";
      out += text;
    };
    /**
     * Appends a quantifier to the last atom. RE2 lets a quantifier follow a flag group (`a+(?s)?`: the `?`
     * repeats `a+`) and an assertion (`^*`); PCRE and JavaScript would read `a+?` (lazy) and refuse `^*`, so
     * such an atom is grouped first.
     */
    const quantifier = (text: string) => {
      if (quantified || assertion) out = `${out.slice(0, atomStart)}(?:${out.slice(atomStart)})`;
      out += text;
      quantified = true;
      assertion = false;
    };
    const inner = () => (wrapper ? flags.i : emittedI);
    while (this.pos < this.source.length) {
      const ch = this.peek()!;
      if (ch === ")") break;
      if (ch === "|") {
        this.pos++;
        closeWrapper();
        out += "|";
        continue;
      }
      if (ch === "(") {
        const group = this.group(flags);
        if (group.setFlags !== undefined) {
          flags = group.setFlags;
          continue;
        }
        const current = flags;
        atom("");
        out += `(?:${this.sequence(group.flags ?? current, inner())}`;
        if (this.peek() !== ")") this.fail("missing ')'");
        this.pos++;
        out += ")";
        continue;
      }
      if (ch === "*" || ch === "+" || ch === "?") {
        this.pos++;
        let text = ch;
        if (this.peek() === "?") {
          this.pos++;
          text += "?";
        }
        quantifier(text);
        continue;
      }
      if (ch === "{") {
        const repeat = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos, this.pos + 12));
        if (repeat !== null) {
          this.pos += repeat[0].length;
          let text = repeat[0];
          if (this.peek() === "?") {
            this.pos++;
            text += "?";
          }
          quantifier(text);
          continue;
        }
        this.pos++;
        atom("\\{");
        continue;
      }
      if (ch === "[") {
        atom(this.charClass(flags.i));
        continue;
      }
      const flagged = flaggedAtom(ch, flags);
      if (flagged !== undefined) {
        this.pos++;
        atom(flagged);
        continue;
      }
      if (ch === "\\") {
        atom(this.escapeOutside(flags.i));
        continue;
      }
      atom(literalChar(this.next()));
    }
    closeWrapper();
    return out;
  }

  /**
   * Reads `(` and what makes it special: `(?:`, `(?P<name>`, `(?<name>`, `(?flags)`, `(?flags:`.
   * Returns `setFlags` for a flag setting (no group), else the group's flags (when it has its own).
   */
  private group(flags: Flags): { setFlags?: Flags; flags?: Flags } {
    this.pos++; // (
    if (this.peek() !== "?") return {};
    this.pos++;
    if (this.peek() === ":") {
      this.pos++;
      return {};
    }
    if (this.peek() === "P" && this.peek(1) === "<") this.pos++;
    if (this.peek() === "<") {
      const close = this.source.indexOf(">", this.pos);
      if (close < 0 || /^[=!]/.test(this.source.slice(this.pos + 1)))
        this.fail("lookaround is not RE2 syntax");
      this.pos = close + 1;
      return {};
    }
    let { i, m, s } = flags;
    let negate = false;
    while (this.pos < this.source.length) {
      const c = this.source[this.pos++]!;
      if (c === "-") negate = true;
      else if (c === "i") i = !negate;
      else if (c === "m") m = !negate;
      else if (c === "s") s = !negate;
      else if (c === "U") {
        // Ungreedy: changes which match is reported, never whether one exists.
      } else if (c === ")") return { setFlags: { i, m, s } };
      else if (c === ":") return { flags: { i, m, s } };
      else this.fail(`unsupported group syntax '(?${c}'`);
    }
    return this.fail("missing ')'");
  }

  /** Hex or octal escape digits after `\x` / `\0`–`\7`, as a code point. */
  private numericEscape(kind: string): number {
    if (kind === "x") {
      if (this.peek() === "{") {
        const close = this.source.indexOf("}", this.pos);
        if (close < 0) this.fail("missing '}' in \\x{…}");
        const cp = Number.parseInt(this.source.slice(this.pos + 1, close), 16);
        this.pos = close + 1;
        if (!(cp >= 0 && cp <= 0x10ffff)) this.fail("invalid \\x{…} escape");
        return cp;
      }
      const digits = this.source.slice(this.pos, this.pos + 2);
      if (!/^[0-9A-Fa-f]{2}$/.test(digits)) this.fail("invalid \\x escape");
      this.pos += 2;
      return Number.parseInt(digits, 16);
    }
    // RE2: `\0` and `\1`–`\7` followed by an octal digit start an octal escape (up to three digits);
    // a lone `\1`–`\7` would be a backreference, which RE2 refuses.
    if (kind !== "0" && !/[0-7]/.test(this.peek() ?? ""))
      this.fail(`backreference '\\${kind}' is not RE2 syntax`);
    let digits = kind;
    while (digits.length < 3 && /[0-7]/.test(this.peek() ?? "")) digits += this.source[this.pos++];
    return Number.parseInt(digits, 8);
  }

  private static readonly CONTROL: Readonly<Record<string, number>> = {
    a: 7,
    f: 12,
    t: 9,
    n: 10,
    r: 13,
    v: 11,
  };

  /** A `\p…`/`\P…` Unicode class, passed through (PCRE reads the same names). */
  private unicodeClass(kind: string): string {
    if (this.peek() === "{") {
      const close = this.source.indexOf("}", this.pos);
      if (close < 0) this.fail("missing '}' in \\p{…}");
      const name = this.source.slice(this.pos, close + 1);
      this.pos = close + 1;
      return `\\${kind}${name}`;
    }
    return `\\${kind}${String.fromCodePoint(this.next())}`;
  }

  /** An escape outside a class. */
  private escapeOutside(ignoreCase: boolean): string {
    this.pos++; // backslash
    const c = this.peek();
    if (c === undefined) this.fail("trailing backslash");
    this.pos++;
    switch (c) {
      case "A":
        return "^";
      case "z":
        return "(?:(?![\\s\\S]))";
      case "b":
      case "B":
      case "d":
      case "D":
        return `\\${c}`;
      case "w":
        return ignoreCase ? `[${WORD_FOLDED}]` : "\\w";
      case "W":
        return ignoreCase ? `[^${WORD_FOLDED}]` : "\\W";
      case "s":
        return `[${SPACE_CLASS}]`;
      case "S":
        return `[^${SPACE_CLASS}]`;
      case "p":
      case "P":
        return this.unicodeClass(c);
      case "Q": {
        const end = this.source.indexOf("\\E", this.pos);
        const text = this.source.slice(this.pos, end < 0 ? undefined : end);
        this.pos = end < 0 ? this.source.length : end + 2;
        let out = "";
        for (const ch of text) out += literalChar(ch.codePointAt(0)!);
        return out;
      }
      case "E":
        return "";
      default:
        return literalChar(this.escapedChar(c));
    }
  }

  /** The code point of a character escape (`\n`, `\x41`, `\101`, `\.`) whose letter `c` was read. */
  private escapedChar(c: string): number {
    const control = RegexTranslator.CONTROL[c];
    if (control !== undefined) return control;
    if (c === "x") return this.numericEscape("x");
    if (/[0-7]/.test(c)) return this.numericEscape(c);
    if (/[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(c)) return c.codePointAt(0)!;
    return this.fail(`unsupported escape '\\${c}'`);
  }

  /**
   * A bracketed class `[…]`, `[^…]`, with ranges, escapes, Perl, POSIX and Unicode classes. Members that
   * are complements (`\S`, `[:^alpha:]`) have no class syntax that PCRE and JavaScript read alike, so a
   * class holding them is rewritten: `[P\S]` → `(?:[P]|[^\t\n\f\r ])`, and `[^P\S]` (a character in
   * every complemented set's complement and not in P) → `(?:(?![P])[\t\n\f\r ])`.
   */
  private charClass(ignoreCase: boolean): string {
    this.pos++; // [
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.pos++;
    }
    let items = "";
    const complements: string[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail("missing ']'");
      if (c === "]" && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === "[" && this.peek(1) === ":") {
        const close = this.source.indexOf(":]", this.pos + 2);
        if (close >= 0) {
          let name = this.source.slice(this.pos + 2, close);
          this.pos = close + 2;
          const negatedPosix = name.startsWith("^");
          if (negatedPosix) name = name.slice(1);
          const ranges = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
          if (ranges === undefined) this.fail(`unknown POSIX class '${name}'`);
          if (negatedPosix) complements.push(ranges);
          else items += ranges;
          continue;
        }
      }
      const lo = this.classAtom(ignoreCase);
      if (typeof lo === "object") {
        complements.push(lo.not);
        continue;
      }
      if (typeof lo === "string") {
        items += lo;
        continue;
      }
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const hi = this.classAtom(ignoreCase);
        if (typeof hi !== "number") this.fail("a class cannot end a range");
        items += `${literalChar(lo)}-${literalChar(hi)}`;
        continue;
      }
      items += literalChar(lo);
    }
    if (complements.length === 0) return `[${negated ? "^" : ""}${items}]`;
    if (!negated) {
      const parts = complements.map((set) => `[^${set}]`);
      if (items !== "") parts.unshift(`[${items}]`);
      return `(?:${parts.join("|")})`;
    }
    const [last, ...others] = complements as [string, ...string[]];
    return `(?:${items === "" ? "" : `(?![${items}])`}${others.map((set) => `(?=[${set}])`).join("")}[${last}])`;
  }

  /**
   * One element of a class: a code point, class text (`\d`, `\p{L}`, RE2's `\s`), or a complemented
   * set (`\S`: `{ not: "\t\n\f\r " }`).
   */
  private classAtom(ignoreCase: boolean): number | string | { readonly not: string } {
    if (this.peek() !== "\\") return this.next();
    this.pos++;
    const c = this.peek();
    if (c === undefined) this.fail("trailing backslash");
    this.pos++;
    switch (c) {
      case "d":
      case "D":
        return `\\${c}`;
      case "w":
        return ignoreCase ? WORD_FOLDED : "\\w";
      case "W":
        return ignoreCase ? { not: WORD_FOLDED } : "\\W";
      case "s":
        return SPACE_CLASS;
      case "S":
        // Not `\S`: PCRE's also excludes the vertical tab, JavaScript's the Unicode spaces.
        return { not: SPACE_CLASS };
      case "p":
      case "P":
        return this.unicodeClass(c);
      default:
        return this.escapedChar(c);
    }
  }
}

/** The translation of `.`, `^` and `$`, which depends on the flags only; undefined for any other character. */
function flaggedAtom(ch: string, flags: Flags): string | undefined {
  switch (ch) {
    case ".":
      return flags.s ? "[\\s\\S]" : "[^\\n]";
    case "^":
      return flags.m ? "(?:(?<![^\\n]))" : "^";
    case "$":
      return flags.m ? "(?:(?![^\\n]))" : "(?:(?![\\s\\S]))";
    default:
      return undefined;
  }
}

/**
 * Rewrites a `$regex` pattern from RE2 syntax (docs/semantics.md 1.4) to a PCRE pattern with the same meaning
 * in MongoDB (also valid JavaScript for everything but `\p` classes, negated POSIX classes and inline
 * `(?i)` changes):
 * - the `m` and `s` flags are applied while rewriting: `^`/`$` become `^`/`(?![\s\S])` (text start and
 *   very end) or, under `m`, `(?<![^\n])`/`(?![^\n])` (line boundaries at `\n` only); `.` becomes `[^\n]`,
 *   or `[\s\S]` under `s`; `\A` → `^`, `\z` → `(?![\s\S])`;
 * - `\s` becomes `[\t\n\f\r ]` (PCRE's and JavaScript's `\s` also match the vertical tab, JavaScript's
 *   Unicode spaces too); POSIX classes become ASCII ranges;
 * - literal characters are escaped (`{` included, which PCRE2 10.43+ may read as a quantifier);
 *   groups become non-capturing; `(?U)` is dropped (greediness never changes whether a value matches).
 * Only `i` remains as an option.
 * @param source - a pattern in RE2 syntax
 * @param flags - `$options`: `i`, `m`, `s`
 * @returns `{ pattern, options }` for `{ $regex: pattern, $options: options }`
 * @throws {TypeError} when the pattern is not RE2 syntax (the parser refuses those first)
 * @example toMongoRegex("host$", "") //=> { pattern: "host(?:(?![\\s\\S]))", options: "" }
 */
export function toMongoRegex(source: string, flags: string): MongoRegex {
  const i = flags.includes("i");
  const pattern = new RegexTranslator(source, i).translate({
    i,
    m: flags.includes("m"),
    s: flags.includes("s"),
  });
  return { pattern, options: i ? "i" : "" };
}
