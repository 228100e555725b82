/**
 * A JSON Schema (draft 2020-12) of Search Conditions, generated from the field catalogue (catalog.ts) and THE
 * operator table (operators.ts), for editors and API tools (docs/semantics.md 1.10, "The JSON Schema").
 *
 * The schema is a sound approximation of the parser: every input that `parseSearchConditions` accepts
 * validates against it, and it refuses what a schema can say is wrong — a value of the wrong kind for its
 * field (a number on a text field, a bare string on the date field), an unknown or misplaced operator, a label
 * outside an enumerated field, a field-name near miss (`severity`), an ill-formed field path or `$date`, a plain
 * object or array as a direct value, `$options` without `$regex`, a malformed flag string, an empty array of
 * conditions, strings and sets over the limits. What it cannot say is left to the parser: RE2 syntax and
 * program sizes, impossible calendar dates (`2024-02-30`), the epoch range of `$numberLong`, nesting depth and
 * node count, duplicate keys.
 *
 * Pure: no I/O, builds a fresh plain object on every call.
 */
import type { FieldKind } from "./ast.js";
import { DEFAULT_CATALOG, type FieldCatalog, foldFieldName } from "./catalog.js";
import { DATE_REF, type JsonSchema, type OperandSchemaContext, operandSchema } from "./operand-rules.js";
import {
  type FieldOperatorSpec,
  OPERATORS,
  type OperatorPlace,
  type OperatorSpec,
  operatorAllowedAt,
} from "./operators.js";
import { type ConditionLimits, DEFAULT_LIMITS } from "./options.js";

export type { JsonSchema } from "./operand-rules.js";

/** Options of `searchConditionsJsonSchema`. */
export interface SearchConditionsJsonSchemaOptions {
  /** The field catalogue the schema describes (default `DEFAULT_CATALOG`, docs/semantics.md 1.6). */
  readonly catalog?: FieldCatalog;
  /** The limits whose string lengths and set sizes the schema states (default `DEFAULT_LIMITS`, 1.7). */
  readonly limits?: Partial<ConditionLimits>;
  /** The schema's `$id` (default: none), e.g. the URL it is served at. */
  readonly id?: string;
}

/** The JSON Schema dialect of the generated schema. */
export const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

/**
 * Generates the JSON Schema of Search Conditions for a catalogue (docs/semantics.md 1.10): the root is a
 * condition object or a non-empty array of them; each catalogue field gets the value forms and operators its
 * kind allows (labels of enumerated fields, pipe alternatives of alternative fields, `$date` on date fields);
 * other keys are open fields (or refused, for a strict catalogue); every operator comes from the operator
 * table, so a new row appears in the schema without a change here (each operand rule carries the schema of
 * its operand: `OPERAND_RULES` in operand-rules.ts, which the compiler checks complete).
 * @param options - `catalog`, `limits`, `id`
 * @returns a JSON Schema object (draft 2020-12), plain JSON: `JSON.stringify` it to serve or save it
 * @throws never for a catalogue made by `extendCatalog`
 * @example
 * const schema = searchConditionsJsonSchema();
 * new Ajv2020().validate(schema, { Severity: "Hihg" }) //=> false
 */
export function searchConditionsJsonSchema(options: SearchConditionsJsonSchemaOptions = {}): {
  readonly [keyword: string]: unknown;
} {
  const catalog = options.catalog ?? DEFAULT_CATALOG;
  const limits: ConditionLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const builder = new Builder(catalog, limits);
  const condition = builder.conditionObject();
  return {
    $schema: JSON_SCHEMA_DIALECT,
    ...(options.id === undefined ? {} : { $id: options.id }),
    title: "Search Conditions",
    description:
      "Search Conditions of the incident command interface (TriggerIncidentExternalAction): a condition object " +
      "(the AND of its entries) or a non-empty array of condition objects (their OR). Generated from the field " +
      "catalogue and the operator table of incident-query; the parser also checks what a schema cannot " +
      "(regular-expression syntax and size, calendar dates, nesting depth).",
    anyOf: [
      { $ref: "#/$defs/condition" },
      { type: "array", minItems: 1, items: { $ref: "#/$defs/condition" } },
    ],
    $defs: { condition, ...builder.defs },
  };
}

const LOGICAL_DESCRIPTION: Readonly<Record<string, string>> = {
  $and: "All of these condition objects match.",
  $or: "At least one of these condition objects matches.",
  $nor: "None of these condition objects matches.",
};

/** A field path (1.1): dot-separated segments, none empty, none starting with `$`. */
const FIELD_PATH = /^[^.$][^.]*(\.[^.$][^.]*)*$/;

/** The `$ref` of a definition of `$defs` (a JSON pointer in a URI fragment). */
function defRef(key: string): string {
  return `#/$defs/${encodeURIComponent(key.replace(/~/g, "~0").replace(/\//g, "~1"))}`;
}

const ISO_UTC_PATTERN =
  "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{3})?Z$";

/** `text` escaped for a JSON Schema `pattern` (ECMA-262 with the `u` flag: only syntax characters escaped). */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/**
 * A pattern matching exactly the keys whose folded form (`foldFieldName`: lower case, without spaces, `_`
 * and `-`) is `folded`: each character case-insensitive where its case pair folds back to it, separators
 * allowed anywhere.
 */
function foldedNamePattern(folded: string): string {
  const sep = "[\\s_-]*";
  let pattern = `^${sep}`;
  for (const char of folded) {
    const upper = char.toUpperCase();
    pattern +=
      upper !== char && [...upper].length === 1 && upper.toLowerCase() === char
        ? `[${escapeRegex(char)}${escapeRegex(upper)}]`
        : escapeRegex(char);
    pattern += sep;
  }
  return `${pattern}$`;
}

/** A string with an empty pipe alternative: a `|` with only white space before it, after it or between two. */
const EMPTY_ALTERNATIVE = "^\\s*\\||\\|\\s*\\||\\|\\s*$";

/** `$all` of `$elemMatch` objects (`{"$all": [{"$elemMatch": …}, …]}`), the element conditions left loose. */
const ALL_OF_ELEM_MATCH = (setSize: number): JsonSchema => ({
  type: "array",
  minItems: 1,
  maxItems: setSize,
  items: {
    type: "object",
    required: ["$elemMatch"],
    additionalProperties: false,
    properties: { $elemMatch: { type: "object" } },
  },
});

/** The field-level rows of the operator table allowed at `place`, in table order. */
function fieldRowsAt(place: "field" | "not"): FieldOperatorSpec[] {
  const rows: FieldOperatorSpec[] = [];
  for (const spec of Object.values(OPERATORS) as OperatorSpec[]) {
    if (spec.operand !== "conditions" && operatorAllowedAt(spec, place)) rows.push(spec);
  }
  return rows;
}

/** The logical rows (`$and`, `$or`, `$nor`), in table order. */
function logicalRows(): string[] {
  return (Object.values(OPERATORS) as OperatorSpec[])
    .filter((spec) => spec.operand === "conditions" && operatorAllowedAt(spec, "condition" as OperatorPlace))
    .map((spec) => spec.name);
}

class Builder {
  readonly defs: Record<string, JsonSchema> = {};

  constructor(
    private readonly catalog: FieldCatalog,
    private readonly limits: ConditionLimits,
  ) {
    this.defs.date = {
      description:
        'A date: {"$date": "yyyy-MM-ddTHH:mm:ssZ"} (optionally with .SSS milliseconds), or {"$date": {"$numberLong": "<epoch ms>"}}.',
      type: "object",
      required: ["$date"],
      additionalProperties: false,
      properties: {
        $date: {
          anyOf: [
            { type: "string", pattern: ISO_UTC_PATTERN },
            {
              type: "object",
              required: ["$numberLong"],
              additionalProperties: false,
              properties: { $numberLong: { type: "string", pattern: "^-?[0-9]{1,16}$" } },
            },
          ],
        },
      },
    };
  }

  /** The definition of a condition object: catalogue fields, logical operators, open (or no other) fields. */
  conditionObject(): JsonSchema {
    const { catalog, limits } = this;
    const logical = logicalRows();
    const properties: Record<string, JsonSchema> = {};
    for (const name of logical) {
      properties[name] = {
        description: LOGICAL_DESCRIPTION[name],
        type: "array",
        minItems: 1,
        items: { $ref: "#/$defs/condition" },
      };
    }
    const declared = Object.keys(catalog.fields);
    // A catalogue key that the parser would refuse as a field path is left out (it can never be written).
    const named = [...new Set([...declared, ...catalog.alternativeFields])].filter((name) =>
      FIELD_PATH.test(name),
    );
    for (const name of named) properties[name] = { $ref: this.field(name) };
    const strict = catalog.strictFields === true;
    const folded = [...new Set(declared.map(foldFieldName))].filter((fold) => fold !== "");
    const openKey: JsonSchema = {
      type: "string",
      maxLength: limits.stringLength,
      // Dot-separated segments, none empty, none starting with `$` (1.1).
      pattern: FIELD_PATH.source,
      not: {
        anyOf: [
          // The segments refused everywhere (1.1).
          { pattern: "(^|\\.)(__proto__|prototype|constructor)(\\.|$)" },
          // Near misses of a catalogue field: `severity`, `Created_UTC_Time` (1.1).
          ...folded.map((fold) => ({ pattern: foldedNamePattern(fold) })),
        ],
      },
    };
    return {
      description: "A condition object: the AND of its entries (field paths and $and, $or, $nor).",
      type: "object",
      properties,
      propertyNames: strict
        ? { enum: [...logical, ...named] }
        : { anyOf: [{ enum: [...logical, ...named] }, openKey] },
      additionalProperties: strict ? false : { $ref: this.field(undefined) },
    };
  }

  /** The `$ref` of a field's value definition (`undefined`: an open field outside the catalogue). */
  private field(name: string | undefined): string {
    const { catalog, limits } = this;
    const spec =
      name === undefined || !Object.hasOwn(catalog.fields, name) ? undefined : catalog.fields[name];
    const kind: FieldKind = spec?.kind ?? "open";
    const labels = spec?.kind === "enum" ? spec.labels : undefined;
    const alternative = name !== undefined && catalog.alternativeFields.includes(name);
    const key = name === undefined ? "openField" : `field:${name}`;
    const ref = defRef(key);
    if (Object.hasOwn(this.defs, key)) return ref;
    const notKey = `${key}:not`;
    const notRef = defRef(notKey);
    const context: OperandSchemaContext = { kind, labels, limits, notRef };
    const operatorObject = (place: "field" | "not"): JsonSchema => {
      const properties: Record<string, JsonSchema> = {};
      for (const row of fieldRowsAt(place)) properties[row.name] = operandSchema(row, context);
      // `$all` also takes `$elemMatch` objects, all of them such (docs/semantics.md 1.3).
      if (properties.$all !== undefined) {
        properties.$all = { anyOf: [properties.$all, ALL_OF_ELEM_MATCH(limits.setSize)] };
      }
      return {
        type: "object",
        minProperties: 1,
        additionalProperties: false,
        properties,
        ...("$options" in properties && "$regex" in properties
          ? { dependentRequired: { $options: ["$regex"] } }
          : {}),
      };
    };
    this.defs[notKey] = {
      description: "An operator object for $not: matches where the operators inside do not all match.",
      ...(operatorObject("not") as object),
    };
    // Pipe alternatives (1.2): on an alternative field a string holding `|` is "any of" its parts, each
    // trimmed and none empty (on an enumerated field, each a label).
    const string: JsonSchema = alternative
      ? { type: "string", maxLength: limits.stringLength, not: { pattern: EMPTY_ALTERNATIVE } }
      : { type: "string", maxLength: limits.stringLength };
    const direct: JsonSchema[] = [];
    switch (kind) {
      case "date":
        direct.push({ type: "null" }, DATE_REF);
        break;
      case "text":
        direct.push({ type: "null" }, string);
        break;
      case "enum": {
        direct.push({ type: "null" }, { enum: [...(labels ?? [])] });
        if (alternative) {
          const label = `\\s*(${(labels ?? []).map(escapeRegex).join("|")})\\s*`;
          direct.push({
            type: "string",
            maxLength: limits.stringLength,
            pattern: `^${label}(\\|${label})+$`,
          });
        }
        break;
      }
      case "open":
        direct.push({ type: ["null", "boolean", "number"] }, string, DATE_REF);
        break;
    }
    const kindText =
      kind === "enum"
        ? `an enumerated field (${(labels ?? []).join(", ")})${alternative ? "; alternatives separated by |" : ""}`
        : kind === "date"
          ? 'a date field: compare with {"$date": …} operands'
          : kind === "text"
            ? `a text field: string operands${alternative ? "; alternatives separated by |" : ""}`
            : "an open field: any scalar or $date operand";
    this.defs[key] = {
      description: `${name ?? "A field outside the catalogue"}: ${kindText}.`,
      anyOf: [...direct, operatorObject("field")],
    };
    return ref;
  }
}
