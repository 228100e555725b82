/**
 * A declarative reader of untrusted JSON records: each record kind of the dataset is a small schema
 * (field → rule, required or optional, default), and one generic reader walks it, reporting every problem
 * with its path as a dataset issue. Rules are data, interpreted in one `switch`; references between
 * records and uniqueness stay with the dataset, which knows the other records.
 *
 * Only own properties are read, so a key inherited from a prototype is never taken for a field.
 */

import { isValidTimeZone } from "../../artifacts/note-result.js";
import { assertNever } from "../../conditions/ast.js";
import type { FieldSpec as CatalogFieldSpec } from "../../conditions/catalog.js";
import { ISO_UTC_FORMAT, parseIsoUtc } from "../../conditions/dates.js";
import type { PathSegment } from "../../conditions/issues.js";
import { timelineTimeKey } from "../../timeline/sort.js";
import { TIMELINE_TIME_FORMAT } from "../../timeline/time.js";
import { type DatasetIssue, type DatasetIssueDetail, makeDatasetIssue } from "./dataset-issues.js";

/** A check a string must pass once its type is right. */
export type StringFormat = "timeZone" | "localTime" | "isoUtc";

/** How one field's value is read. */
export type Rule =
  /** A string; blank (empty or spaces only) only when `blank`; then checked against `format`. */
  | { readonly kind: "string"; readonly blank?: boolean; readonly format?: StringFormat }
  /** A safe integer of at least `min` (any safe integer when `min` is absent). */
  | { readonly kind: "integer"; readonly min?: number }
  /** An array of non-blank strings, copied. */
  | { readonly kind: "strings" }
  /** An array of records of `schema`, each read by the same reader. */
  | { readonly kind: "records"; readonly plural: string; readonly schema: RecordSchema<object> }
  /**
   * A field of the catalogue (docs/semantics.md 1.6): absent and `null` are accepted; otherwise a string for a
   * text field, a label for an enumerated field, an ISO-8601 UTC string for a date field (fields outside
   * the catalogue are open and have no rule).
   */
  | { readonly kind: "catalog"; readonly field: string; readonly spec: CatalogFieldSpec };

/** One field of a schema: its rule, whether it is required, and the value an absent optional field takes. */
export interface Field<V> {
  readonly rule: Rule;
  readonly required: boolean;
  /** Called for each record where the field is absent (a fresh value each time); absent stays absent without it. */
  readonly fallback?: () => V;
  /** For a dotted key of an open schema: its segments, read one level at a time. */
  readonly segments?: readonly string[];
  /** Phantom: the type the field reads to. */
  readonly _type?: V;
}

/**
 * A record kind: `what` names one record in messages (`a site`), `fields` maps each key to its field, and
 * `open` says whether keys outside `fields` are allowed (incidents) or reported as `unknown_key`.
 */
export interface RecordSchema<T extends object> {
  readonly what: string;
  readonly open: boolean;
  readonly fields: { readonly [K in keyof T]-?: Field<Exclude<T[K], undefined>> };
}

/** A required field. */
export function required<V>(rule: Rule): Field<V> {
  return { rule, required: true };
}

/** An optional field; with `fallback`, an absent field takes its value. */
export function optional<V>(rule: Rule, fallback?: () => V): Field<V> {
  return fallback === undefined ? { rule, required: false } : { rule, required: false, fallback };
}

/** Rules, by the type they read to. */
export const rules = {
  text: (format?: StringFormat): Rule => (format === undefined ? TEXT : { kind: "string", format }),
  blankText: { kind: "string", blank: true } as Rule,
  integer: (min?: number): Rule => (min === undefined ? { kind: "integer" } : { kind: "integer", min }),
  strings: { kind: "strings" } as Rule,
  records: (plural: string, schema: RecordSchema<object>): Rule => ({ kind: "records", plural, schema }),
};
const TEXT: Rule = { kind: "string" };

/** The issues of one validation, capped at `max`; past the cap only a count is kept. */
export class IssueCollector {
  readonly issues: DatasetIssue[] = [];
  private dropped = 0;

  constructor(private readonly max: number) {}

  /** Records an issue at `path` (copied). */
  add(detail: DatasetIssueDetail, path: readonly PathSegment[]): void {
    if (this.issues.length < this.max) this.issues.push(makeDatasetIssue(detail, path));
    else this.dropped++;
  }

  /** How many issues were found so far, listed or not. */
  get count(): number {
    return this.issues.length + this.dropped;
  }

  /** The issues, with a last `more_issues` issue when some were left out. */
  finish(): DatasetIssue[] {
    if (this.dropped > 0)
      this.issues.push(makeDatasetIssue({ code: "more_issues", count: this.dropped }, []));
    return this.issues;
  }
}

type Json = Record<string, unknown>;

/** True for a JSON object (not an array, not `null`). */
export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fields of a read record: each valid field, or its fallback when absent (catalogue fields are only checked, never kept). */
export type ReadFields<T extends object> = { -readonly [K in keyof T]?: Exclude<T[K], undefined> };

/** A record as read: `fields` holds every valid field; `ok` is false when any issue was reported for it. */
export interface ReadRecord<T extends object> {
  readonly fields: ReadFields<T>;
  readonly ok: boolean;
}

/**
 * Reads one record of `schema`: an object (else one `invalid_type` issue and `undefined`), no unknown keys
 * unless the schema is open, every required field present, every present field valid by its rule.
 * @param schema - the record kind
 * @param raw - the untrusted value
 * @param path - where `raw` stands, from the root of the dataset
 * @param out - receives every problem
 */
export function readRecord<T extends object>(
  schema: RecordSchema<T>,
  raw: unknown,
  path: readonly PathSegment[],
  out: IssueCollector,
): ReadRecord<T> | undefined {
  if (!isObject(raw)) {
    out.add({ code: "invalid_type", expected: `${schema.what} object`, found: raw }, path);
    return undefined;
  }
  const before = out.count;
  const fields = schema.fields as Readonly<Record<string, Field<unknown>>>;
  if (!schema.open) {
    for (const key of Object.keys(raw)) {
      if (!Object.hasOwn(fields, key)) {
        out.add({ code: "unknown_key", key, what: schema.what, allowed: Object.keys(fields) }, [
          ...path,
          key,
        ]);
      }
    }
  }
  const result: Json = {};
  for (const key in fields) {
    const field = fields[key]!;
    const value = field.segments === undefined ? own(raw, key) : ownPath(raw, field.segments);
    if (value === undefined) {
      if (field.required)
        out.add({ code: "missing_field", key, expected: expectedOf(field.rule) }, [...path, key]);
      else if (field.fallback !== undefined) result[key] = field.fallback();
      continue;
    }
    const read = readValue(field.rule, value, path, field.segments ?? key, out);
    // Catalogue fields are only checked: the open record they stand in is copied whole by its owner.
    if (read !== INVALID && field.rule.kind !== "catalog") result[key] = read;
  }
  return { fields: result as ReadFields<T>, ok: out.count === before };
}

const INVALID: unique symbol = Symbol("invalid");

/** What a rule expects, for `missing_field` and `invalid_type`. */
function expectedOf(rule: Rule): string {
  switch (rule.kind) {
    case "string":
      return rule.blank === true ? "a string" : "a non-empty string";
    case "integer":
      return rule.min === undefined ? "an integer" : `an integer of at least ${rule.min}`;
    case "strings":
      return "an array of strings";
    case "records":
      return `an array of ${rule.plural}`;
    case "catalog":
      return "a value";
    default:
      return assertNever(rule);
  }
}

/** The path of a field: `key` under `base`, or the segments of a dotted key of an open schema. */
function pathOf(base: readonly PathSegment[], key: string | readonly string[]): PathSegment[] {
  return typeof key === "string" ? [...base, key] : [...base, ...key];
}

/** Records that `value` is not of `rule`'s type (its path built only now), and returns `INVALID`. */
function invalidType(
  rule: Rule,
  value: unknown,
  base: readonly PathSegment[],
  key: string | readonly string[],
  out: IssueCollector,
): typeof INVALID {
  out.add({ code: "invalid_type", expected: expectedOf(rule), found: value }, pathOf(base, key));
  return INVALID;
}

function readValue(
  rule: Rule,
  value: unknown,
  base: readonly PathSegment[],
  key: string | readonly string[],
  out: IssueCollector,
): unknown {
  // Paths are built only when there is a problem: this runs for every field of every record.
  switch (rule.kind) {
    case "string": {
      if (typeof value !== "string" || (rule.blank !== true && isBlank(value))) {
        return invalidType(rule, value, base, key, out);
      }
      const problem = rule.format === undefined ? undefined : formatProblem(rule.format, value);
      if (problem !== undefined) {
        out.add(problem, pathOf(base, key));
        return INVALID;
      }
      return value;
    }
    case "integer":
      if (
        typeof value !== "number" ||
        !Number.isSafeInteger(value) ||
        value < (rule.min ?? Number.MIN_SAFE_INTEGER)
      ) {
        // An integer past 2^53 − 1 loses digits in JSON.parse: say so, not "not an integer".
        const unsafe = Number.isInteger(value) && !Number.isSafeInteger(value);
        const expected = unsafe
          ? `${expectedOf(rule)} and at most ${Number.MAX_SAFE_INTEGER} (2^53 − 1, the largest exact integer)`
          : expectedOf(rule);
        out.add({ code: "invalid_type", expected, found: value }, pathOf(base, key));
        return INVALID;
      }
      return value;
    case "strings": {
      if (!Array.isArray(value)) {
        return invalidType(rule, value, base, key, out);
      }
      let ok = true;
      const copy: string[] = [];
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (typeof item !== "string" || isBlank(item)) {
          out.add({ code: "invalid_type", expected: "a non-empty string", found: item }, [
            ...pathOf(base, key),
            index,
          ]);
          ok = false;
        } else copy.push(item);
      }
      return ok ? copy : INVALID;
    }
    case "records": {
      if (!Array.isArray(value)) {
        return invalidType(rule, value, base, key, out);
      }
      let ok = true;
      const records: unknown[] = [];
      const path = pathOf(base, key);
      for (let index = 0; index < value.length; index++) {
        const read = readRecord(rule.schema, value[index], [...path, index], out);
        if (read === undefined || !read.ok) ok = false;
        else records.push(read.fields);
      }
      return ok ? records : INVALID;
    }
    case "catalog":
      return readCatalogValue(rule, value, base, key, out);
    default:
      return assertNever(rule);
  }
}

function readCatalogValue(
  rule: Extract<Rule, { kind: "catalog" }>,
  value: unknown,
  base: readonly PathSegment[],
  key: string | readonly string[],
  out: IssueCollector,
): unknown {
  const { field, spec } = rule;
  if (value === null) return value;
  switch (spec.kind) {
    case "text":
      if (typeof value === "string") return value;
      out.add(
        { code: "field_type", field, fieldKind: "text", expected: "a string", found: value },
        pathOf(base, key),
      );
      return INVALID;
    case "enum":
      if (typeof value === "string" && spec.labels.includes(value)) return value;
      out.add({ code: "unknown_label", field, labels: spec.labels, found: value }, pathOf(base, key));
      return INVALID;
    case "date":
      if (typeof value === "string" && parseIsoUtc(value) !== undefined) return value;
      out.add(
        { code: "field_type", field, fieldKind: "date", expected: ISO_UTC_FORMAT, found: value },
        pathOf(base, key),
      );
      return INVALID;
    default:
      return assertNever(spec);
  }
}

function formatProblem(format: StringFormat, value: string): DatasetIssueDetail | undefined {
  switch (format) {
    case "timeZone":
      return isValidTimeZone(value) ? undefined : { code: "invalid_time_zone", found: value };
    case "localTime":
      return timelineTimeKey(value) === undefined
        ? { code: "invalid_time", format: TIMELINE_TIME_FORMAT, found: value }
        : undefined;
    case "isoUtc":
      return parseIsoUtc(value) === undefined
        ? { code: "invalid_time", format: ISO_UTC_FORMAT, found: value }
        : undefined;
    default:
      return assertNever(format);
  }
}

function isBlank(text: string): boolean {
  return text.trim() === "";
}

/** An own property, `undefined` when absent. */
export function own(obj: Json, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** An own property path through objects, `undefined` when any step is absent or not an object. */
function ownPath(obj: Json, segments: readonly string[]): unknown {
  let current: unknown = obj;
  for (const segment of segments) {
    if (!isObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}
