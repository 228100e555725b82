/**
 * `$regex` and `$options` in an operator object (docs/semantics.md 1.4, 1.7): the pattern and the flags are
 * read as the keys come, then, once the object's flags are known (they change a class's ranges under `i`),
 * every pattern is measured against the program budgets BEFORE anything is compiled (parse only, then
 * count: regex/program.ts). Regular expressions are compiled elsewhere, by evaluation.
 */
import type { PathSegment } from "./issues.js";
import type { OperatorObject, ParseContext } from "./parse-context.js";
import { measurePattern } from "./regex/matcher.js";
import { unsupportedRegexFeature } from "./regex/syntax-error.js";

/** What a date field takes instead of `$regex`. */
const DATE_REGEX_EXPECTED =
  'a {"$date": …} range such as {"$gte": {"$date": "2024-03-01T00:00:00Z"}} instead of $regex';

/**
 * `$regex`: a pattern string of at most `patternLength` characters (1.4), kept in its slot until
 * `checkRegexes` measures it with the object's flags. Refused on a date field.
 * @returns false when it was refused (issue recorded)
 */
export function readPattern(
  parser: ParseContext,
  state: OperatorObject,
  value: unknown,
  path: readonly PathSegment[],
): boolean {
  state.sawRegex = true;
  const { field } = state;
  if (field.kind === "date") {
    // Whether an ISO string or a BSON/JS date is stored would decide the answer: refused (README).
    parser.issue(
      {
        code: "operand_type",
        field: field.name,
        fieldKind: field.kind,
        expected: DATE_REGEX_EXPECTED,
        found: value,
      },
      path,
    );
    return false;
  }
  const source = parser.readString(value, path, "a pattern string for $regex", "patternLength");
  if (source === undefined) return false;
  // MongoDB refuses a pattern holding the NUL character (jstests regex/regex_error.js): so do we
  // (docs/semantics.md 1.4), rather than match what MongoDB would never run. `\x00` matches a NUL.
  if (source.includes("\u0000")) {
    parser.issue(
      {
        code: "invalid_regex",
        pattern: source,
        reason:
          "it contains the NUL character (U+0000), which MongoDB refuses in a pattern; write \\x00 to match a NUL",
      },
      path,
    );
    return false;
  }
  state.slots.push({ regex: source, path });
  return true;
}

/**
 * `$options`: flags from `i`, `m`, `s`, each once, kept sorted (1.4).
 * @returns false when it was refused (issue recorded)
 */
export function readFlags(
  parser: ParseContext,
  state: OperatorObject,
  value: unknown,
  path: readonly PathSegment[],
): boolean {
  const flags = parser.readString(value, path, "a string of regex flags for $options", "stringLength");
  if (flags === undefined) return false;
  const reason = flagsProblem(flags);
  if (reason !== undefined) {
    parser.issue({ code: "invalid_regex_options", options: flags, reason }, path);
    return false;
  }
  state.flags = { value: [...flags].sort().join(""), path };
  return true;
}

/**
 * After the keys: `$options` needs a `$regex` in the same object, and every pattern is measured with the
 * object's flags (they change a class's ranges under `i`).
 * @returns false when any was refused (issues recorded)
 */
export function checkRegexes(parser: ParseContext, state: OperatorObject): boolean {
  let valid = true;
  const { flags } = state;
  if (flags !== undefined && !state.sawRegex) {
    parser.issue(
      {
        code: "invalid_regex_options",
        options: flags.value,
        reason: "$options needs a $regex in the same operator object",
      },
      flags.path,
    );
    valid = false;
  }
  for (const slot of state.slots) {
    if ("regex" in slot && !checkProgram(parser, slot.regex, flags?.value ?? "", slot.path)) valid = false;
  }
  return valid;
}

/**
 * A `$regex` pattern in RE2 syntax whose program fits the budgets of 1.7, measured BEFORE anything is
 * compiled (parse only, then count: see regex/program.ts). Each pattern's size is added to the condition's
 * running total; once the total has been exceeded, later patterns are not examined (not even parsed), so
 * refusing the largest input costs at most a few pattern parses.
 * @returns true when the pattern is valid and fits
 */
function checkProgram(
  parser: ParseContext,
  source: string,
  flags: string,
  path: readonly PathSegment[],
): boolean {
  const { regexProgramSize, regexProgramTotal } = parser.options.limits;
  if (parser.programTotal > regexProgramTotal) return false;
  const limit = Math.min(regexProgramSize, regexProgramTotal - parser.programTotal);
  const measure = measurePattern(source, flags, limit);
  if (!measure.ok) {
    const reason = measure.reason.length > 200 ? `${measure.reason.slice(0, 200)}…` : measure.reason;
    const unsupported = unsupportedRegexFeature(measure.reason);
    parser.issue(
      unsupported === undefined
        ? { code: "invalid_regex", pattern: source, reason }
        : { code: "invalid_regex", pattern: source, reason, unsupported },
      path,
    );
    return false;
  }
  parser.programTotal += measure.size;
  if (measure.size > regexProgramSize) {
    parser.issue(
      measure.partial === true
        ? {
            code: "regex_program_too_large",
            pattern: source,
            max: regexProgramSize,
            found: measure.size,
            atLeast: true,
          }
        : { code: "regex_program_too_large", pattern: source, max: regexProgramSize, found: measure.size },
      path,
    );
    return false;
  }
  if (parser.programTotal > regexProgramTotal) {
    parser.issue(
      { code: "regex_programs_too_large", max: regexProgramTotal, found: parser.programTotal },
      path,
    );
    return false;
  }
  return true;
}

/** Why `$options` is refused, or undefined: flags from `i`, `m`, `s`, each at most once (1.4). */
function flagsProblem(options: string): string | undefined {
  const seen = new Set<string>();
  for (const flag of options) {
    if (flag !== "i" && flag !== "m" && flag !== "s") {
      return `the flag ${JSON.stringify(flag)} is not supported`;
    }
    if (seen.has(flag)) return `the flag '${flag}' appears more than once`;
    seen.add(flag);
  }
  return undefined;
}
