/**
 * Timeline entries (specification 2.2): the type, the `Time` format, and the validation of untrusted
 * entries. Validation reads own properties only and builds fresh entries, so nothing of the input (extra
 * keys, `__proto__`, later mutation) reaches the result.
 */

import { describeValue } from "../conditions/issues.js";
import { isValidTimelineTime, TIMELINE_TIME_FORMAT, timelineTimeKey } from "./time.js";

export { isValidTimelineTime, TIMELINE_TIME_FORMAT } from "./time.js";

/**
 * One timeline entry of an incident, as returned by GetIncidentTimelineEntries (specification 2.2).
 * Every field is required; strings may be empty.
 */
export interface TimelineEntry {
  /** Identifier of the entry: a safe integer. */
  readonly TimelineID: number;
  /** Event time, `yyyy-MM-dd HH:mm:ss` in the incident's time zone (docs/semantics.md 2). */
  readonly Time: string;
  readonly Summary: string;
  readonly Note: string;
  readonly EventType: string;
  /** Attack tactics associated with the entry. */
  readonly Tactic: readonly string[];
  /** Attack techniques associated with the entry. */
  readonly Technique: readonly string[];
  readonly RiskLevel: string;
  readonly Description: string;
  readonly Author: string;
}

/** The fields of a timeline entry that Filter searches before `Time`, in the order of specification 2.2. */
const SEARCHED_BEFORE_TIME = [
  "Summary",
  "Note",
  "EventType",
  "Tactic",
  "Technique",
  "RiskLevel",
  "Description",
  "Author",
] as const;

/** The fields of a timeline entry in the order of specification 2.2. */
export const TIMELINE_ENTRY_FIELDS = [
  "TimelineID",
  "Time",
  ...SEARCHED_BEFORE_TIME,
] as const satisfies readonly (keyof TimelineEntry)[];

/** The fields that Filter searches (docs/semantics.md 2): the string fields and each element of the arrays. */
export const TIMELINE_SEARCHED_FIELDS = [
  ...SEARCHED_BEFORE_TIME,
  "Time",
] as const satisfies readonly (keyof TimelineEntry)[];

/** Why a timeline entry (or the input holding the entries) is invalid. */
export type TimelineProblemCode =
  /** The input is not an array of entries. */
  | "not_array"
  /** An entry is not a JSON object (null, an array, a string, …). */
  | "not_object"
  /** A field of specification 2.2 is absent (own properties only). */
  | "missing_field"
  /** A field, or an element of `Tactic`/`Technique`, has the wrong type; `TimelineID` is not a safe integer. */
  | "invalid_type"
  /** `Time` is a string but not a valid `yyyy-MM-dd HH:mm:ss` date and time. */
  | "invalid_time";

/** One problem found by `validateTimelineEntries`. */
export interface TimelineEntryProblem {
  readonly code: TimelineProblemCode;
  /** Index of the entry in the input array; `-1` when the input itself is not an array. */
  readonly index: number;
  /**
   * The field's name (`"Time"`), with the element index for array elements (`"Tactic[2]"`); `""` when the
   * whole entry (or the input) is at fault.
   */
  readonly field: string;
  /** One sentence: what was expected and what was found. */
  readonly message: string;
}

/** The result of `validateTimelineEntries`: the entries, or every problem found (never an empty list). */
export type TimelineValidation =
  | { readonly ok: true; readonly entries: TimelineEntry[] }
  | { readonly ok: false; readonly problems: readonly [TimelineEntryProblem, ...TimelineEntryProblem[]] };

const STRING_FIELDS = ["Summary", "Note", "EventType", "RiskLevel", "Description", "Author"] as const;

/**
 * Validates untrusted timeline entries (specification 2.2), reporting every problem, not only the first.
 * Each entry must be an object with all ten fields as own properties: `TimelineID` a safe integer, `Time` a
 * valid `yyyy-MM-dd HH:mm:ss` (see `isValidTimelineTime`), `Tactic` and `Technique` arrays of strings, the
 * other fields strings (empty allowed; `null` is ill-typed). Extra fields are ignored.
 * @param input - parsed JSON, expected to be an array of entries
 * @returns `{ ok: true, entries }` with fresh entries holding exactly the ten fields in specification order
 *   (arrays copied; the input is never modified nor referenced), or `{ ok: false, problems }` listing
 *   `{ code, index, field, message }` for each problem in input order. Never throws on JSON input.
 * @example validateTimelineEntries([{ TimelineID: 1, Time: "2024-02-30 10:00:00", … }])
 *   //=> { ok: false, problems: [{ code: "invalid_time", index: 0, field: "Time", message: "Expected … found …" }] }
 */
export function validateTimelineEntries(input: unknown): TimelineValidation {
  if (!Array.isArray(input)) {
    return {
      ok: false,
      problems: [
        problem("not_array", -1, "", `Expected an array of timeline entries, found ${describeValue(input)}.`),
      ],
    };
  }
  const problems: TimelineEntryProblem[] = [];
  const entries: TimelineEntry[] = [];
  for (let index = 0; index < input.length; index++) {
    const entry = validateTimelineEntryAt(input[index], index, problems);
    if (entry !== undefined) entries.push(entry);
  }
  const [first, ...rest] = problems;
  return first === undefined ? { ok: true, entries } : { ok: false, problems: [first, ...rest] };
}

/**
 * Formats problems one per line as `entry <n>, <field>: <message>` (`input: …` for a non-array input,
 * `entry <n>: …` for a whole-entry problem), for the CLI and command error strings. `n` counts entries from
 * 1 (`entry 1` is the first, `problem.index` 0), as the CLI counts records and lines (docs/semantics.md 2);
 * an array element inside a field keeps its JSON index (`Tactic[0]` is the field's first element).
 * @param problems - as `validateTimelineEntries` returns them
 * @returns one line per problem, joined with `\n`; never throws
 * @example formatTimelineProblems([{ code: "invalid_type", index: 0, field: "TimelineID", message: "Expected an integer, found the string \"x\"." }])
 * //=> 'entry 1, TimelineID: Expected an integer, found the string "x".'
 */
export function formatTimelineProblems(problems: readonly TimelineEntryProblem[]): string {
  return problems
    .map((p) => {
      const n = p.index + 1;
      const where = p.index < 0 ? "input" : p.field === "" ? `entry ${n}` : `entry ${n}, ${p.field}`;
      return `${where}: ${p.message}`;
    })
    .join("\n");
}

/**
 * Validates one untrusted timeline entry as `validateTimelineEntries` does (same rule, same problems), for
 * callers that stream entries one at a time (the CLI). Not part of the package's public entry.
 * @param value - parsed JSON
 * @param index - the entry's index, written into each problem
 * @param problems - receives this entry's problems, in specification order
 * @returns a fresh entry, or `undefined` when a problem was found
 */
export function validateTimelineEntryAt(
  value: unknown,
  index: number,
  problems: TimelineEntryProblem[],
): TimelineEntry | undefined {
  // The fast path: a valid entry costs ten own-property reads, type checks and one object (no closures,
  // no intermediate objects). Anything else is re-read by the detailed path below, which lists problems.
  const fast = readValidEntry(value);
  return fast ?? validateEntryInDetail(value, index, problems);
}

const hasOwn = Object.hasOwn;

function readValidEntry(value: unknown): TimelineEntry | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const {
    TimelineID: id,
    Time: time,
    Summary: summary,
    Note: note,
    EventType: eventType,
    Tactic: tactic,
    Technique: technique,
    RiskLevel: riskLevel,
    Description: description,
    Author: author,
  } = v;
  if (
    !Number.isSafeInteger(id) ||
    timelineTimeKey(time) === undefined ||
    typeof summary !== "string" ||
    typeof note !== "string" ||
    typeof eventType !== "string" ||
    typeof riskLevel !== "string" ||
    typeof description !== "string" ||
    typeof author !== "string"
  ) {
    return undefined;
  }
  const tacticCopy = copyStrings(tactic);
  if (tacticCopy === undefined) return undefined;
  const techniqueCopy = copyStrings(technique);
  if (techniqueCopy === undefined) return undefined;
  // The values were read through the prototype chain: an inherited field counts as missing.
  if (
    !hasOwn(v, "TimelineID") ||
    !hasOwn(v, "Time") ||
    !hasOwn(v, "Summary") ||
    !hasOwn(v, "Note") ||
    !hasOwn(v, "EventType") ||
    !hasOwn(v, "Tactic") ||
    !hasOwn(v, "Technique") ||
    !hasOwn(v, "RiskLevel") ||
    !hasOwn(v, "Description") ||
    !hasOwn(v, "Author")
  ) {
    return undefined;
  }
  return {
    TimelineID: id as number,
    Time: time as string,
    Summary: summary,
    Note: note,
    EventType: eventType,
    Tactic: tacticCopy,
    Technique: techniqueCopy,
    RiskLevel: riskLevel,
    Description: description,
    Author: author,
  };
}

/** A copy of an array of strings, or `undefined` when `value` is not one (holes count as non-strings). */
function copyStrings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const array: readonly unknown[] = value;
  for (let i = 0; i < array.length; i++) if (typeof array[i] !== "string") return undefined;
  return array.slice() as string[];
}

function validateEntryInDetail(
  value: unknown,
  index: number,
  problems: TimelineEntryProblem[],
): TimelineEntry | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(
      problem("not_object", index, "", `Expected a timeline entry object, found ${describeValue(value)}.`),
    );
    return undefined;
  }
  const before = problems.length;
  const read = (field: string): { present: boolean; value: unknown } => {
    if (!Object.hasOwn(value, field)) {
      problems.push(problem("missing_field", index, field, `Expected the field ${field}, found nothing.`));
      return { present: false, value: undefined };
    }
    return { present: true, value: (value as Record<string, unknown>)[field] };
  };

  const id = read("TimelineID");
  if (id.present && !Number.isSafeInteger(id.value)) {
    problems.push(
      problem("invalid_type", index, "TimelineID", `Expected an integer, found ${describeValue(id.value)}.`),
    );
  }
  const time = read("Time");
  if (time.present) {
    if (typeof time.value !== "string") {
      problems.push(
        problem(
          "invalid_type",
          index,
          "Time",
          `Expected a string of the format ${TIMELINE_TIME_FORMAT}, found ${describeValue(time.value)}.`,
        ),
      );
    } else if (!isValidTimelineTime(time.value)) {
      problems.push(
        problem(
          "invalid_time",
          index,
          "Time",
          `Expected a date and time of the format ${TIMELINE_TIME_FORMAT} (e.g. 2024-03-01 12:00:00) naming a real calendar date, found ${describeValue(time.value)}.`,
        ),
      );
    }
  }
  const text = (field: (typeof STRING_FIELDS)[number]): string | undefined => {
    const read_ = read(field);
    if (!read_.present) return undefined;
    if (typeof read_.value === "string") return read_.value;
    problems.push(
      problem("invalid_type", index, field, `Expected a string, found ${describeValue(read_.value)}.`),
    );
    return undefined;
  };
  // Spec order, so that problems come in the order of specification 2.2.
  const summary = text("Summary");
  const note = text("Note");
  const eventType = text("EventType");
  const tactic = readStringArray(read("Tactic"), index, "Tactic", problems);
  const technique = readStringArray(read("Technique"), index, "Technique", problems);
  const riskLevel = text("RiskLevel");
  const description = text("Description");
  const author = text("Author");

  if (problems.length > before) return undefined;
  return {
    TimelineID: id.value as number,
    Time: time.value as string,
    Summary: summary as string,
    Note: note as string,
    EventType: eventType as string,
    Tactic: tactic as string[],
    Technique: technique as string[],
    RiskLevel: riskLevel as string,
    Description: description as string,
    Author: author as string,
  };
}

function readStringArray(
  read: { present: boolean; value: unknown },
  index: number,
  field: string,
  problems: TimelineEntryProblem[],
): string[] | undefined {
  if (!read.present) return undefined;
  if (!Array.isArray(read.value)) {
    problems.push(
      problem(
        "invalid_type",
        index,
        field,
        `Expected an array of strings, found ${describeValue(read.value)}.`,
      ),
    );
    return undefined;
  }
  const out: string[] = [];
  const array: readonly unknown[] = read.value;
  for (let i = 0; i < array.length; i++) {
    const element = array[i];
    if (typeof element === "string") out.push(element);
    else {
      problems.push(
        problem(
          "invalid_type",
          index,
          `${field}[${i}]`,
          `Expected a string, found ${describeValue(element)}.`,
        ),
      );
    }
  }
  return out;
}

function problem(
  code: TimelineProblemCode,
  index: number,
  field: string,
  message: string,
): TimelineEntryProblem {
  return { code, index, field, message };
}
