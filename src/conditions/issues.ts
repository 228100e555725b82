/**
 * Issues are data (docs/semantics.md 1.8): `{ code, path, message }`, where `path` lists the keys and array
 * indexes from the root of the Search Conditions to the offending value, and `message` is one sentence
 * saying what was expected and what was found. Every message is produced here, in one `switch`.
 */

import { assertNever } from "./ast.js";
import { ISO_UTC_FORMAT, parseIsoUtc } from "./dates.js";
import { FOLD_CODE_POINTS_PER_INSTRUCTION } from "./regex/program.js";

/** One step of an issue path: an object key or an array index. */
export type PathSegment = string | number;

/**
 * The details of an issue, by code; the message is derived from them by `issueMessage`.
 * `found` values are described with `describeValue`.
 */
export type IssueDetail =
  /** A value of the wrong JSON type: e.g. the root is not an object or array, `$exists` is not a boolean. */
  | { code: "invalid_type"; expected: string; found: unknown }
  /** `[]` at the root, or an empty `$and`/`$or`/`$nor`. */
  | { code: "empty_array"; what: string }
  /** A `$`-key that is not an operator of docs/semantics.md 1.3, or `$where`/`$expr`/`$function`. */
  | { code: "unknown_operator"; operator: string; allowed: readonly string[] }
  /** A known operator where it may not stand: a field operator at condition level, or `$and` on a field. */
  | { code: "misplaced_operator"; operator: string; where: "condition" | "field" | "not" }
  /** `__proto__`, `prototype` or `constructor` as a key or path segment (docs/semantics.md 1.1). */
  | { code: "forbidden_key"; key: string }
  /** A field path with an empty segment (`"a..b"`, `".a"`, `""`). */
  | { code: "invalid_field_path"; field: string }
  /**
   * A key outside the catalogue that equals a catalogue field once case, spaces, `_` and `-` are ignored
   * (`reason` `near_miss`, the field in `suggestion`), or any other key outside a strict catalogue
   * (`reason` `strict`, the nearest field in `suggestion` when one is near) (docs/semantics.md 1.1).
   */
  | { code: "unknown_field"; field: string; reason: "near_miss" | "strict"; suggestion?: string }
  /**
   * A warning, never an error: a key outside an open catalogue within a small edit distance of a catalogue
   * field (`Sevrity`, `Titel`): kept as an open field, named beside the condition (docs/semantics.md 1.1,
   * "Near misses by spelling").
   */
  | { code: "possible_misspelling"; field: string; suggestion: string }
  /** An object mixing `$`-keys and plain keys. */
  | { code: "mixed_operator_object"; operatorKeys: readonly string[]; plainKeys: readonly string[] }
  /** A plain object as a field's direct value (hint: dotted paths). */
  | { code: "object_value"; field: string }
  /** An array as a field's direct value (hint: `$in`). */
  | { code: "array_value"; field: string }
  /** A `$date` operand that is not a valid timestamp of the format. */
  | { code: "invalid_date"; found: unknown }
  /** A bare string (or other non-`$date` operand) in equality or comparison on a catalogue date field. */
  | { code: "date_operand_required"; field: string; found: unknown }
  /** An operand of the wrong kind for a catalogue text or enumerated field, or for an operator. */
  | { code: "operand_type"; field: string; fieldKind: string; expected: string; found: unknown }
  /** A label outside an enumerated field's labels. */
  | { code: "unknown_label"; field: string; label: string; labels: readonly string[]; suggestion?: string }
  /** An empty alternative in a pipe-alternatives string (`"Webhook|"`). */
  | { code: "empty_alternative"; field: string; value: string }
  /**
   * A `$regex` pattern that RE2 refuses. `reason` is the engine's; `unsupported`, when the pattern uses a
   * construct RE2 does not have (lookaround, backreferences, …), names it in our words.
   */
  | { code: "invalid_regex"; pattern: string; reason: string; unsupported?: string }
  /** A `$regex` whose program exceeds the per-pattern budget of docs/semantics.md 1.7 (`found` instructions). */
  | { code: "regex_program_too_large"; pattern: string; max: number; found: number; atLeast?: boolean }
  /**
   * The programs of one condition's `$regex` patterns exceed the total budget of docs/semantics.md 1.7; reported
   * at the pattern that crosses it (`found`: the total up to and including it). Later patterns are not
   * examined.
   */
  | { code: "regex_programs_too_large"; max: number; found: number }
  /** `$options` with a flag other than `i`, `m`, `s`, or a flag twice, or `$options` without `$regex`. */
  | { code: "invalid_regex_options"; options: string; reason: string }
  /**
   * A `$type` name or number that is not a type of docs/semantics.md 1.3: unknown (`reason` `unknown`), or one
   * of MongoDB's BSON types that no JSON record holds (`not_json`, named in `bsonType`).
   */
  | { code: "unknown_type"; found: string | number; reason: "unknown" | "not_json"; bsonType?: string }
  /** A `$mod` operand that is not `[divisor, remainder]` as docs/semantics.md 1.3 says (`reason` says how). */
  | { code: "invalid_mod"; reason: string; found: unknown }
  /** `$size` that is not a non-negative integer. */
  | { code: "invalid_size"; found: unknown }
  /** A limit of docs/semantics.md 1.7 exceeded. */
  | { code: "limit_exceeded"; limit: LimitName; max: number; found?: number };

/** The names of the limits of docs/semantics.md 1.7. */
export type LimitName = "depth" | "nodes" | "setSize" | "stringLength" | "patternLength";

/** Every issue code. */
export type IssueCode = IssueDetail["code"];

/**
 * One problem found in Search Conditions (docs/semantics.md 1.8), or a warning beside a valid condition
 * (code `possible_misspelling`, docs/semantics.md 1.1). Besides the sentence, the typed detail a caller
 * needs, so that nothing is read out of `message`: `suggestion`, `expected`, `found`, each present when the
 * issue has one.
 */
export interface Issue {
  readonly code: IssueCode;
  readonly path: readonly PathSegment[];
  readonly message: string;
  /**
   * The replacement the input most likely meant: the catalogue field of a near miss (`unknown_field`,
   * `possible_misspelling`) or the label of an `unknown_label`.
   */
  readonly suggestion?: string;
  /** What was expected, in words (`a string`, `one of 'High', 'Low'`, `a field of the catalogue`). */
  readonly expected?: string;
  /** What was found: the key or label as written, or the value described (`the number 123`). */
  readonly found?: string;
}

/**
 * Builds an issue from its detail and path; the message comes from `issueMessage`, the typed detail
 * (`suggestion`, `expected`, `found`) from `detail`.
 * @param detail - what went wrong
 * @param path - keys and indexes from the root to the offending value
 */
export function makeIssue(detail: IssueDetail, path: readonly PathSegment[]): Issue {
  return { code: detail.code, path: [...path], message: issueMessage(detail), ...issueFacts(detail) };
}

/** The typed detail of an issue (see `Issue`): only the facts the detail has. */
function issueFacts(detail: IssueDetail): Pick<Issue, "suggestion" | "expected" | "found"> {
  switch (detail.code) {
    case "unknown_field":
    case "possible_misspelling":
      return {
        ...(detail.suggestion === undefined ? {} : { suggestion: detail.suggestion }),
        expected: "a field of the catalogue",
        found: detail.field,
      };
    case "unknown_label":
      return {
        ...(detail.suggestion === undefined ? {} : { suggestion: detail.suggestion }),
        expected: `one of ${detail.labels.map((l) => `'${l}'`).join(", ")}`,
        found: detail.label,
      };
    case "invalid_type":
    case "operand_type":
      return { expected: detail.expected, found: describeValue(detail.found) };
    case "unknown_operator":
      return { expected: `one of ${detail.allowed.join(", ")}`, found: detail.operator };
    case "invalid_date":
    case "date_operand_required":
    case "invalid_mod":
    case "invalid_size":
      return { found: describeValue(detail.found) };
    default:
      return {};
  }
}

const FIELD_KIND_TEXT: Record<string, string> = {
  enum: "an enumerated",
  open: "an open",
  text: "a text",
  date: "a date",
};

/** The `$type` operands, for messages (docs/semantics.md 1.3). */
const TYPE_LIST =
  "double, int, long, decimal or number (1, 16, 18, 19), string (2), object (3), array (4), bool (8), date (9), null (10)";

const LIMIT_TEXT: Record<LimitName, string> = {
  depth: "nesting depth",
  nodes: "number of nodes in one condition",
  setSize: "number of values in one $in, $nin or $all",
  stringLength: "length of one string operand",
  patternLength: "length of one regex pattern",
};

/** The one place where issue messages are written: one sentence, what was expected and what was found. */
export function issueMessage(detail: IssueDetail): string {
  switch (detail.code) {
    case "invalid_type":
      return `Expected ${detail.expected}, found ${describeValue(detail.found)}${dateObjectHint(detail.found)}.`;
    case "empty_array":
      return `Expected a non-empty array for ${detail.what}, found an empty array.`;
    case "unknown_operator":
      return `Unknown operator '${detail.operator}': expected one of ${detail.allowed.join(", ")}.`;
    case "misplaced_operator":
      return detail.where === "condition"
        ? `The field operator '${detail.operator}' cannot stand at condition level: put it under a field, e.g. {"Field": {"${detail.operator}": …}}.`
        : detail.where === "field"
          ? `The logical operator '${detail.operator}' cannot stand under a field: put it at condition level, e.g. {"${detail.operator}": [{"Field": …}]}.`
          : `The operator '${detail.operator}' cannot stand inside $not: expected field operators or $regex.`;
    case "forbidden_key":
      return `The key '${detail.key}' is not allowed in Search Conditions.`;
    case "invalid_field_path":
      return `Expected a field path of dot-separated non-empty names, found '${detail.field}'.`;
    case "unknown_field":
      return detail.reason === "strict"
        ? `'${truncate(detail.field)}' is not a field of the catalogue, which allows only its own fields${detail.suggestion === undefined ? "." : `; did you mean '${detail.suggestion}'?`}`
        : `'${truncate(detail.field)}' is not a field of the catalogue: field names are case-sensitive; did you mean '${detail.suggestion}'?`;
    case "possible_misspelling":
      return `'${truncate(detail.field)}' is not a field of the catalogue (kept as an open field, matched as written); did you mean '${detail.suggestion}'?`;
    case "mixed_operator_object":
      return `Expected either operators or field names in one object, found both (${detail.operatorKeys.join(", ")} and ${detail.plainKeys.join(", ")}).`;
    case "object_value":
      return `Expected a value or an operator object for '${detail.field}', found a plain object: use a dotted field path such as '${detail.field}.Name' to match inside it.`;
    case "array_value":
      return `Expected a value for '${detail.field}', found an array: use {"$in": [...]} to match any of several values.`;
    case "invalid_date":
      return `Expected a date of the format ${ISO_UTC_FORMAT} (e.g. 2024-03-01T12:00:00Z) or {"$numberLong": "<epoch ms>"}, found ${describeValue(detail.found)}${dateObjectHint(detail.found, true)}.`;
    case "date_operand_required":
      return `${detail.field} is a date field: expected a {"$date": "${ISO_UTC_FORMAT}"} operand, found ${describeValue(detail.found)}${dateHint(detail.found)}.`;
    case "operand_type":
      return `${detail.field} is ${FIELD_KIND_TEXT[detail.fieldKind] ?? `a ${detail.fieldKind}`} field: expected ${detail.expected}, found ${describeValue(detail.found)}.`;
    case "unknown_label":
      return `'${detail.label}' is not a label of ${detail.field}: expected one of ${detail.labels.map((l) => `'${l}'`).join(", ")}${detail.suggestion === undefined ? "" : `; did you mean '${detail.suggestion}'?`}`.replace(
        /([^?])$/,
        "$1.",
      );
    case "empty_alternative":
      return `Expected non-empty alternatives separated by '|' for ${detail.field}, found ${JSON.stringify(detail.value)}.`;
    case "invalid_regex":
      return detail.unsupported === undefined
        ? `Expected a regular expression in RE2 syntax, found ${JSON.stringify(truncate(detail.pattern))}: ${detail.reason}.`
        : `Expected a regular expression in RE2 syntax, found ${JSON.stringify(truncate(detail.pattern))}: ${detail.unsupported} (RE2: ${detail.reason}).`;
    case "regex_program_too_large":
      return `Expected a regular expression that compiles to at most ${detail.max} instructions, found ${JSON.stringify(truncate(detail.pattern))}, which compiles to ${detail.atLeast === true ? "at least " : ""}${detail.found} (a counted repetition x{n} counts x n times, a character class once per range, case folding of a wide range once per ${FOLD_CODE_POINTS_PER_INSTRUCTION} characters).`;
    case "regex_programs_too_large":
      return `Expected the regular expressions of one condition to compile to at most ${detail.max} instructions in all, found ${detail.found} up to this one (the patterns after it were not examined).`;
    case "invalid_regex_options":
      return `Expected $options of the flags i, m, s, each at most once, found ${JSON.stringify(detail.options)}: ${detail.reason}.`;
    case "unknown_type":
      return detail.reason === "not_json"
        ? `Expected a $type of the JSON types (${TYPE_LIST}), found ${JSON.stringify(detail.found)}: MongoDB's '${detail.bsonType}' type, which no JSON record holds.`
        : `Expected a $type of the JSON types (${TYPE_LIST}), found ${JSON.stringify(truncate(String(detail.found)))}${typeof detail.found === "string" ? "" : " (not a type number)"}.`;
    case "invalid_mod":
      return `Expected $mod: [divisor, remainder], two numbers whose integer parts fit in 64 bits, the divisor not 0, found ${describeValue(detail.found)}: ${detail.reason}.`;
    case "invalid_size":
      return `Expected a non-negative integer for $size, found ${describeValue(detail.found)}.`;
    case "limit_exceeded":
      return `Expected the ${LIMIT_TEXT[detail.limit]} to be at most ${detail.max}, found ${detail.found === undefined ? "more" : detail.found}.`;
    default:
      return assertNever(detail);
  }
}

/** For a bare string that is a valid timestamp, the `$date` wrapping to write instead. */
function dateHint(found: unknown): string {
  return typeof found === "string" && parseIsoUtc(found) !== undefined
    ? `; write {"$date": ${JSON.stringify(found)}}`
    : "";
}

const getTime = Date.prototype.getTime;

/**
 * For a JS Date where an operand was expected (Search Conditions are JSON: a Date object is not one), the
 * Extended JSON operand to write instead: `{"$date": "<toISOString()>"}` (only the string when the Date stood
 * inside `$date`); nothing for an invalid Date, an instant outside the years 0000–9999, or anything else. The time is read through the intrinsic `getTime`.
 */
function dateObjectHint(found: unknown, insideDate = false): string {
  let ms: number;
  try {
    if (!(found instanceof Date)) return "";
    ms = getTime.call(found);
  } catch {
    return "";
  }
  if (!Number.isFinite(ms)) return "";
  const iso = new Date(ms).toISOString();
  if (parseIsoUtc(iso) !== ms) return "";
  return insideDate
    ? `; write ${JSON.stringify(iso)} instead`
    : `; write {"$date": ${JSON.stringify(iso)}} instead`;
}

function truncate(text: string, max = 60): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * Describes a JSON value for a message: `the number 123`, `the string "x"`, `an array`, `an object`, `null`.
 * Never throws, whatever the value.
 */
export function describeValue(value: unknown): string {
  try {
    return describeUnsafe(value);
  } catch {
    // A revoked proxy throws from Array.isArray and instanceof.
    return "an unreadable value";
  }
}

function describeUnsafe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(truncate(value))}`;
    case "number":
      return `the number ${String(value)}`;
    case "boolean":
      return `the boolean ${String(value)}`;
    case "object":
      return value instanceof Date ? "a Date" : "an object";
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Prints an issue path: `["CreatedUtcTime", "$gt", "$date"]` → `CreatedUtcTime.$gt.$date`,
 * `[0, "Title"]` → `[0].Title`, `["$or", 1, "Severity"]` → `$or[1].Severity`; the root is `(root)`.
 * Keys that contain `.`, `[` or spaces are quoted: `["a.b"]` → `["a.b"]`.
 */
export function formatPath(path: readonly PathSegment[]): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[^.[\]\s"]+$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/**
 * Thrown by `parseSearchConditions` (and everything that accepts raw Search Conditions JSON) when the input
 * is invalid. `issues` lists every problem found, never empty; `message` lists them as `path: message`.
 */
export class SearchConditionsError extends Error {
  override readonly name = "SearchConditionsError";
  readonly issues: readonly [Issue, ...Issue[]];

  constructor(issues: readonly [Issue, ...Issue[]]) {
    super(formatIssues(issues));
    this.issues = issues;
  }
}

/** Formats issues one per line as `path: message` (the CLI and the command error strings use this). */
export function formatIssues(issues: readonly Issue[]): string {
  return issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join("\n");
}
