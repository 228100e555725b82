import type { FieldKind } from "./ast.js";

/**
 * The declaration of one catalogued field (docs/semantics.md 1.6).
 * - `text`: operands must be strings (or `null`).
 * - `enum`: operands must be one of `labels` (or `null`); an unknown label is an issue with a suggestion.
 * - `date`: equality and comparisons need `$date` operands; record values that are a JS `Date` or an
 *   ISO-8601 UTC string count as dates.
 */
export type FieldSpec =
  | { readonly kind: "text" }
  | { readonly kind: "date" }
  | { readonly kind: "enum"; readonly labels: readonly string[] };

/**
 * The field catalogue: the declared fields (by their full dotted path) and the alternative fields, on
 * which a plain string containing `|` means "any of these values" (docs/semantics.md 1.2).
 * Fields not in `fields` are open: any operand, under type bracketing. Whatever `strictFields` says, a key
 * that is not in `fields` but equals a declared field once case, spaces, `_` and `-` are ignored
 * (`severity`, `Created_UTC_Time`) is an `unknown_field` issue that names the declared field
 * (docs/semantics.md 1.1): field names are case-sensitive, so it could never match what was meant.
 */
export interface FieldCatalog {
  readonly fields: Readonly<Record<string, FieldSpec>>;
  readonly alternativeFields: readonly string[];
  /**
   * When true, every key outside `fields` is an `unknown_field` issue that suggests the nearest declared
   * field (docs/semantics.md 1.1): no open fields. Default false.
   */
  readonly strictFields?: boolean;
}

/** IngestionType labels: specification 2.3, docs/semantics.md 1.6. */
export const INGESTION_TYPE_LABELS = [
  "Unknown",
  "Schedule Job",
  "Webhook",
  "File",
  "Command",
  "Automation Rule",
  "Manual Creation",
  "Manual Escalation",
] as const;

/** Severity labels: docs/semantics.md 1.6. */
export const SEVERITY_LABELS = ["Critical", "High", "Medium", "Low", "Informational"] as const;

/** Status labels: docs/semantics.md 1.6. */
export const STATUS_LABELS = ["Open", "Closed", "In Progress", "On Hold"] as const;

/** The documented text fields of specification 2.3 (docs/semantics.md 1.6). */
export const TEXT_FIELDS = [
  "Number",
  "Type",
  "Stage",
  "DataSource",
  "IncidentSource",
  "Connection",
  "Category",
  "ExternalKey",
  "CustomField1",
  "CustomField2",
  "Title",
] as const;

const text = { kind: "text" } as const;

/**
 * The field whose value orders incidents (docs/semantics.md 1.9, "The order of incidents"): the first sort
 * key of "the first matching incident", in the set and in the MongoDB and SQL translations alike.
 */
export const ORDER_FIELD = "CreatedUtcTime";
/** The tie-break field of the order of incidents (docs/semantics.md 1.9): the second sort key. */
export const ID_FIELD = "IncidentId";

/**
 * The default catalogue: the 15 documented fields of specification 2.3 with the kinds and labels of
 * docs/semantics.md 1.6; `IngestionType` and `Status` are alternative fields.
 */
export const DEFAULT_CATALOG: FieldCatalog = Object.freeze({
  fields: Object.freeze({
    ...Object.fromEntries(TEXT_FIELDS.map((name) => [name, text])),
    IngestionType: { kind: "enum", labels: INGESTION_TYPE_LABELS },
    Severity: { kind: "enum", labels: SEVERITY_LABELS },
    Status: { kind: "enum", labels: STATUS_LABELS },
    CreatedUtcTime: { kind: "date" },
  } satisfies Record<string, FieldSpec>),
  alternativeFields: Object.freeze(["IngestionType", "Status"]),
});

/** What `extendCatalog` adds to a catalogue. */
export interface CatalogExtension {
  /** Fields to add or redeclare (a redeclared field replaces the base declaration). */
  readonly fields?: Readonly<Record<string, FieldSpec>>;
  /** Labels to add to existing enumerated fields, by field name. */
  readonly labels?: Readonly<Record<string, readonly string[]>>;
  /** More alternative fields. */
  readonly alternativeFields?: readonly string[];
  /** Makes the result strict (`true`) or open (`false`); default: as the base (see `FieldCatalog`). */
  readonly strictFields?: boolean;
}

/**
 * Returns a new catalogue: `base` with `extension` applied. The base is not modified.
 * @param base - the catalogue to extend, usually `DEFAULT_CATALOG`
 * @param extension - fields to add or replace, labels to add to enumerated fields, alternative fields,
 *   `strictFields`
 * @returns a frozen catalogue
 * @throws {TypeError} when `labels` names a field that is not an enumerated field of the result, a field
 *   name is empty or has an empty segment or a prototype-named segment (docs/semantics.md 1.1), or
 *   `strictFields` is not a boolean
 * @example extendCatalog(DEFAULT_CATALOG, { labels: { Severity: ["Unassigned"] } })
 * @example extendCatalog(DEFAULT_CATALOG, { fields: { Owner: { kind: "text" } }, strictFields: true })
 */
export function extendCatalog(base: FieldCatalog, extension: CatalogExtension): FieldCatalog {
  const fields: Record<string, FieldSpec> = Object.create(null);
  for (const [name, spec] of Object.entries(base.fields)) fields[name] = spec;
  for (const [name, spec] of Object.entries(extension.fields ?? {})) {
    assertFieldName(name);
    fields[name] = spec.kind === "enum" ? { kind: "enum", labels: [...spec.labels] } : spec;
  }
  for (const [name, labels] of Object.entries(extension.labels ?? {})) {
    const spec = fields[name];
    if (spec === undefined || spec.kind !== "enum") {
      throw new TypeError(`Cannot add labels to '${name}': it is not an enumerated field of the catalogue.`);
    }
    fields[name] = { kind: "enum", labels: [...new Set([...spec.labels, ...labels])] };
  }
  const alternativeFields = [...new Set([...base.alternativeFields, ...(extension.alternativeFields ?? [])])];
  alternativeFields.forEach(assertFieldName);
  const strictFields = extension.strictFields ?? base.strictFields ?? false;
  if (typeof strictFields !== "boolean") {
    throw new TypeError(`strictFields must be a boolean, found ${typeof strictFields}.`);
  }
  return Object.freeze({
    fields: Object.freeze({ ...fields }),
    alternativeFields: Object.freeze(alternativeFields),
    ...(strictFields ? { strictFields } : {}),
  });
}

const FORBIDDEN_SEGMENTS = new Set(["__proto__", "prototype", "constructor"]);

/**
 * True for the segments refused everywhere in Search Conditions: `__proto__`, `prototype`, `constructor`
 * (docs/semantics.md 1.1).
 */
export function isForbiddenSegment(segment: string): boolean {
  return FORBIDDEN_SEGMENTS.has(segment);
}

function assertFieldName(name: string): void {
  const segments = name.split(".");
  if (name === "" || segments.some((s) => s === "" || isForbiddenSegment(s))) {
    throw new TypeError(`'${name}' is not a valid field path for the catalogue.`);
  }
}

/**
 * The kind of a field path in a catalogue: its declared kind, or `open` when it is not declared.
 * @param catalog - the catalogue
 * @param field - the dotted field path, e.g. `"Severity"` or `"Custom.Owner"`
 */
export function fieldKindOf(catalog: FieldCatalog, field: string): FieldKind {
  return Object.hasOwn(catalog.fields, field) ? catalog.fields[field]!.kind : "open";
}

/** The labels of an enumerated field, or `undefined` when the field is not enumerated. */
export function labelsOf(catalog: FieldCatalog, field: string): readonly string[] | undefined {
  if (!Object.hasOwn(catalog.fields, field)) return undefined;
  const spec = catalog.fields[field]!;
  return spec.kind === "enum" ? spec.labels : undefined;
}

/** True when `field` is an alternative field of the catalogue (pipe-separated alternatives). */
export function isAlternativeField(catalog: FieldCatalog, field: string): boolean {
  return catalog.alternativeFields.includes(field);
}

/** A catalogue's folded field names, and the first character of each (a cheap first test). */
interface FoldedNames {
  readonly names: ReadonlyMap<string, string>;
  readonly initials: ReadonlySet<string>;
}

const FOLDED = new WeakMap<FieldCatalog, FoldedNames>();

/**
 * Folds a field name for near-miss detection (docs/semantics.md 1.1): lower case, without spaces, `_` and `-`.
 * @example foldFieldName("Created_UTC_Time") //=> "createdutctime"
 */
export function foldFieldName(name: string): string {
  const lower = name.toLowerCase();
  return SEPARATOR.test(lower) ? lower.replace(SEPARATORS, "") : lower;
}

const SEPARATOR = /[\s_-]/;
const SEPARATORS = /[\s_-]+/g;

function foldedNames(catalog: FieldCatalog): FoldedNames {
  const known = FOLDED.get(catalog);
  if (known !== undefined) return known;
  const names = new Map<string, string>();
  const initials = new Set<string>();
  for (const name of Object.keys(catalog.fields)) {
    const fold = foldFieldName(name);
    if (!names.has(fold)) names.set(fold, name);
    if (fold !== "") initials.add(fold[0]!);
  }
  const folded = { names, initials };
  // A frozen catalogue (every catalogue from extendCatalog) cannot change: its folded names are kept.
  if (Object.isFrozen(catalog) && Object.isFrozen(catalog.fields)) FOLDED.set(catalog, folded);
  return folded;
}

/**
 * The declared field that `key` equals once case, spaces, `_` and `-` are ignored, or undefined (also for a
 * declared key itself) (docs/semantics.md 1.1). Constant time for most keys (their first letter starts no
 * declared field), linear in the key's length otherwise.
 * @param catalog - the catalogue
 * @param key - a field path
 * @example nearMissField(DEFAULT_CATALOG, "severity") //=> "Severity"
 */
export function nearMissField(catalog: FieldCatalog, key: string): string | undefined {
  if (Object.hasOwn(catalog.fields, key)) return undefined;
  const { names, initials } = foldedNames(catalog);
  const first = /[^\s_-]/.exec(key.length > 64 ? key.slice(0, 64) : key)?.[0]?.toLowerCase()[0];
  if (first === undefined ? key.length <= 64 : !initials.has(first)) return undefined;
  return names.get(foldFieldName(key));
}
