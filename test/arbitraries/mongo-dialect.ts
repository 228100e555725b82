/**
 * Conversion of raw Search Conditions and incident records to the plain MongoDB query dialect understood
 * by a reference engine (mingo), for differential tests. This is the *obvious* translation, written
 * without the library, so that a bug in the library's own translation (`toMongoFilter`) cannot hide here:
 *
 * - `{"$date": "…"}` and `{"$date": {"$numberLong": "…"}}` operands become JS `Date` objects;
 * - pipe alternatives on alternative fields (`"Webhook|File"`) become `{"$in": [trimmed parts]}`
 *   (docs/semantics.md 1.2);
 * - a top-level array becomes `{"$or": [...]}` (docs/semantics.md 1.1);
 * - `$regex` with `$options` is passed as is; everything else is passed as is.
 *
 * Records: an ISO-8601 UTC string in a catalogue date field is our extension (docs/semantics.md 1.5); MongoDB
 * stores BSON dates, so `toMongoRecord` turns those strings into `Date` objects (elements of arrays too).
 * Only valid raw Search Conditions are converted (the output of `searchConditionsArb`).
 */
import { DEFAULT_CATALOG, type FieldCatalog, isAlternativeField } from "../../src/conditions/catalog.js";
import { parseIsoUtc } from "../../src/conditions/dates.js";

const LOGICAL = new Set(["$and", "$or", "$nor"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** `{"$date": …}` → `Date`; anything else unchanged. */
function convertOperand(value: unknown): unknown {
  if (isPlainObject(value) && Object.keys(value).length === 1 && "$date" in value) {
    const date = value.$date;
    if (typeof date === "string") return new Date(parseIsoUtc(date) ?? Number.NaN);
    if (isPlainObject(date) && typeof date.$numberLong === "string")
      return new Date(Number(date.$numberLong));
  }
  if (Array.isArray(value)) return value.map(convertOperand);
  return value;
}

function convertOperatorObject(ops: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [op, operand] of Object.entries(ops)) {
    out[op] =
      op === "$not" && isPlainObject(operand) ? convertOperatorObject(operand) : convertOperand(operand);
  }
  return out;
}

function convertFieldValue(field: string, value: unknown, catalog: FieldCatalog): unknown {
  if (typeof value === "string" && value.includes("|") && isAlternativeField(catalog, field)) {
    return { $in: value.split("|").map((part) => part.trim()) };
  }
  if (isPlainObject(value) && Object.keys(value).every((k) => k.startsWith("$")) && !("$date" in value)) {
    return convertOperatorObject(value);
  }
  return convertOperand(value);
}

function convertObject(condition: Record<string, unknown>, catalog: FieldCatalog): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(condition)) {
    out[key] =
      LOGICAL.has(key) && Array.isArray(value)
        ? value.map((child) => convertObject(child as Record<string, unknown>, catalog))
        : convertFieldValue(key, value, catalog);
  }
  return out;
}

/**
 * Converts valid raw Search Conditions to the MongoDB query dialect (see the file comment).
 * @param raw - a JSON object or a non-empty array of objects that parses without issues
 * @param catalog - the catalogue that names the alternative fields (default `DEFAULT_CATALOG`)
 * @returns a MongoDB query object with `Date` operands
 */
export function toMongoDialect(
  raw: unknown,
  catalog: FieldCatalog = DEFAULT_CATALOG,
): Record<string, unknown> {
  if (Array.isArray(raw)) {
    return { $or: raw.map((child) => convertObject(child as Record<string, unknown>, catalog)) };
  }
  return convertObject(raw as Record<string, unknown>, catalog);
}

/**
 * Copies a record for a MongoDB engine: valid ISO-8601 UTC strings in the catalogue date fields (top-level
 * fields only, and elements of arrays there) become `Date` objects, as a BSON store would hold them.
 * @param record - an incident record (plain object)
 * @param catalog - the catalogue that names the date fields (default `DEFAULT_CATALOG`)
 */
export function toMongoRecord(
  record: Record<string, unknown>,
  catalog: FieldCatalog = DEFAULT_CATALOG,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record };
  for (const [field, spec] of Object.entries(catalog.fields)) {
    if (spec.kind !== "date" || !Object.hasOwn(out, field)) continue;
    const value = out[field];
    const asDate = (v: unknown) => {
      const ms = typeof v === "string" ? parseIsoUtc(v) : undefined;
      return ms === undefined ? v : new Date(ms);
    };
    out[field] = Array.isArray(value) ? value.map(asDate) : asDate(value);
  }
  return out;
}

/**
 * Rewrites every `$all` of a MongoDB query (as produced by `toMongoDialect`) into the equivalent the MongoDB
 * manual gives for it: `{f: {$all: [a, b]}}` is `{$and: [{f: a}, {f: b}]}` (so it matches a scalar field
 * equal to every operand, and `[null]` matches a missing field). Operator objects that hold `$all` are split
 * into one clause per operator, and `$not` around them becomes `$nor`. `$all: []` is kept (matches nothing).
 * Used to tell mingo's `$all`, which matches arrays only, from a real disagreement.
 */
export function desugarAll(query: Record<string, unknown>): Record<string, unknown> {
  const clauses: Record<string, unknown>[] = [];
  let changed = false;
  for (const [key, value] of Object.entries(query)) {
    if (LOGICAL.has(key) && Array.isArray(value)) {
      clauses.push({ [key]: value.map((child) => desugarAll(child as Record<string, unknown>)) });
    } else if (isPlainObject(value) && hasAll(value)) {
      changed = true;
      clauses.push(...fieldClauses(key, value));
    } else {
      clauses.push({ [key]: value });
    }
  }
  if (!changed) {
    return Object.fromEntries(clauses.flatMap((clause) => Object.entries(clause)));
  }
  return { $and: clauses };
}

function hasAll(ops: Record<string, unknown>): boolean {
  return (Array.isArray(ops.$all) && ops.$all.length > 0) || (isPlainObject(ops.$not) && hasAll(ops.$not));
}

function fieldClauses(field: string, ops: Record<string, unknown>): Record<string, unknown>[] {
  const clauses: Record<string, unknown>[] = [];
  const rest: Record<string, unknown> = {};
  for (const [op, operand] of Object.entries(ops)) {
    if (op === "$all" && Array.isArray(operand) && operand.length > 0) {
      for (const value of operand) clauses.push({ [field]: { $eq: value } });
    } else if (op === "$not" && isPlainObject(operand) && hasAll(operand)) {
      clauses.push({ $nor: [{ $and: fieldClauses(field, operand) }] });
    } else {
      rest[op] = operand;
    }
  }
  if (Object.keys(rest).length > 0) clauses.unshift({ [field]: rest });
  return clauses;
}
