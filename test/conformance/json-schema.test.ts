/**
 * The JSON Schema of Search Conditions (src/conditions/json-schema.ts, docs/semantics.md 1.10) against the
 * conformance tables: every condition the parser accepts validates (the match cases, the jstests cases, and
 * generated conditions), and every issue case the schema can express fails it. Validated by ajv (draft
 * 2020-12), as editors and API tools would.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG, extendCatalog, type FieldCatalog } from "../../src/conditions/catalog.js";
import type { IssueCode } from "../../src/conditions/issues.js";
import { searchConditionsJsonSchema } from "../../src/conditions/json-schema.js";
import { safeParseSearchConditions } from "../../src/conditions/parse.js";
import { hostileInputArb, searchConditionsArb } from "../arbitraries/conditions.js";
import { allCases } from "./harness.js";
import { issueCases } from "./issue-cases.js";
import type { IssueCase } from "./types.js";

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const validators = new Map<string, ValidateFunction>();

/** The schema's validator for a catalogue and limits (compiled once per pair). */
function validatorFor(catalog: FieldCatalog = DEFAULT_CATALOG, limits?: object): ValidateFunction {
  const key = JSON.stringify([catalog, limits ?? null]);
  const known = validators.get(key);
  if (known !== undefined) return known;
  const validate = ajv.compile(searchConditionsJsonSchema({ catalog, ...(limits ? { limits } : {}) }));
  validators.set(key, validate);
  return validate;
}

/** The input as it travels in a request body: `undefined` when it is not JSON (a Date, a getter's throw, NaN). */
function asJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True when the JSON form of the input means what the input means (nothing lost on the way). */
function sameAsJson(value: unknown, json: unknown, catalog?: FieldCatalog): boolean {
  const a = safeParseSearchConditions(value, catalog ? { catalog } : {});
  const b = safeParseSearchConditions(json, catalog ? { catalog } : {});
  return a.success === b.success;
}

describe("the JSON Schema of Search Conditions: valid conditions validate", () => {
  const valid = allCases.filter((c) => {
    const json = asJson(c.conditions);
    return (
      json !== undefined &&
      sameAsJson(c.conditions, json, c.catalog) &&
      safeParseSearchConditions(json, c.catalog ? { catalog: c.catalog } : {}).success
    );
  });

  it("checks most of the conformance table (the cases whose conditions are JSON)", () => {
    expect(valid.length).toBeGreaterThan(allCases.length * 0.8);
  });

  it.each(valid.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const validate = validatorFor(c.catalog);
    const json = asJson(c.conditions);
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
  });

  it("generated conditions that parse validate (soundness: the schema never refuses a valid condition)", () => {
    const validate = validatorFor();
    fc.assert(
      fc.property(fc.oneof(searchConditionsArb(), hostileInputArb()), (input) => {
        const json = asJson(input);
        if (json === undefined || !safeParseSearchConditions(json).success) return;
        expect(validate(json), `${JSON.stringify(json)}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

/**
 * Issue codes a schema cannot state (the parser's own checks): RE2 syntax and program sizes; nesting depth
 * and node count; impossible calendar dates and epochs out of range (`invalid_date` on a well-formed text).
 */
const BEYOND_A_SCHEMA: ReadonlySet<IssueCode> = new Set([
  "invalid_regex",
  "regex_program_too_large",
  "regex_programs_too_large",
]);

/** The value at an issue's path in a JSON value. */
function valueAt(json: unknown, path: readonly (string | number)[]): unknown {
  let value = json;
  for (const segment of path) value = (value as Record<string | number, unknown> | undefined)?.[segment];
  return value;
}

/** Why the schema cannot refuse this issue case, or undefined when it must. */
function beyondTheSchema(c: IssueCase): string | undefined {
  const json = asJson(c.conditions);
  if (json === undefined || !sameAsJson(c.conditions, json, c.catalog)) return "not JSON as written";
  const limits = (c.options as { limits?: Record<string, number> } | undefined)?.limits ?? {};
  const beyond = c.issues.every((issue) => {
    if (BEYOND_A_SCHEMA.has(issue.code)) return true;
    // The operands of $elemMatch, $type and $mod are described loosely (docs/semantics.md 1.10): the
    // parser judges them.
    if (issue.code === "unknown_type" || issue.code === "invalid_mod") return true;
    if (issue.path.some((segment) => segment === "$elemMatch" || segment === "$type" || segment === "$mod"))
      return true;
    if (issue.code === "invalid_date") {
      // Well-formed but impossible (2024-02-30, an epoch past 9999): the parser's calendar, not a pattern.
      const found = valueAt(json, issue.path);
      return (
        typeof found === "string" &&
        /^(-?[0-9]{1,16}|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(\.[0-9]{3})?Z)$/.test(found)
      );
    }
    if (issue.code === "limit_exceeded") {
      return (
        limits.depth !== undefined ||
        limits.nodes !== undefined ||
        c.name.startsWith("default depth") ||
        c.name.startsWith("default nodes") ||
        /depth|nodes|nest/i.test(c.name)
      );
    }
    return false;
  });
  return beyond ? "only issues beyond a schema" : undefined;
}

describe("the JSON Schema of Search Conditions: issue cases it can express fail it", () => {
  const expressible = issueCases.filter((c) => beyondTheSchema(c) === undefined);

  it("expresses most issue cases", () => {
    expect(expressible.length).toBeGreaterThan(issueCases.length * 0.6);
  });

  it.each(expressible.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const limits = (c.options as { limits?: object } | undefined)?.limits;
    const validate = validatorFor(c.catalog, limits);
    expect(validate(asJson(c.conditions))).toBe(false);
  });

  it.each([
    ["wrong operand type", { Number: 123 }],
    ["wrong operand type in $in", { Title: { $in: ["a", 1] } }],
    ["a bare string on the date field", { CreatedUtcTime: { $gt: "2024-01-01T00:00:00Z" } }],
    ["unknown operator", { Title: { $where: "1" } }],
    ["unknown operator at condition level", { $where: "1" }],
    ["a logical operator inside a field", { Title: { $or: [{ Title: "x" }] } }],
    ["unknown label", { Severity: "Hihg" }],
    ["unknown label among pipe alternatives", { IngestionType: "Webhook|Fil" }],
    ["unknown label in $nin", { Status: { $nin: ["Open", "Opened"] } }],
    ["a near miss of a field name", { severity: "High" }],
    ["$options alone", { Title: { $options: "i" } }],
    ["a repeated flag", { Title: { $regex: "a", $options: "ii" } }],
    ["$regex on the date field", { CreatedUtcTime: { $regex: "^2024" } }],
    ["an empty $or", { $or: [] }],
    ["a plain object as a value", { Title: { en: "x" } }],
    ["an array as a value", { Title: ["a", "b"] }],
    ["a $date without Z", { CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00" } } }],
    ["a negative $size", { Tags: { $size: -1 } }],
    ["an empty alternative", { Status: "Open||Closed" }],
    ["a forbidden segment", { "a.__proto__.b": 1 }],
  ])("refuses %s", (_what, conditions) => {
    expect(safeParseSearchConditions(conditions).success).toBe(false);
    expect(validatorFor()(conditions)).toBe(false);
  });

  it("follows the catalogue: added labels and fields, strict catalogues", () => {
    const catalog = extendCatalog(DEFAULT_CATALOG, {
      fields: { Priority: { kind: "enum", labels: ["P1", "P2"] } },
      labels: { Severity: ["Unassigned"] },
      alternativeFields: ["Priority"],
      strictFields: true,
    });
    const validate = validatorFor(catalog);
    expect(validate({ Severity: "Unassigned", Priority: "P1 | P2" })).toBe(true);
    expect(validate({ Priority: "P3" })).toBe(false);
    expect(validate({ Owner: "alice" })).toBe(false);
    expect(validatorFor()({ Owner: "alice", Priority: "P3" })).toBe(true);
  });
});
