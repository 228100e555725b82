/**
 * Validation of `IncidentSet` options (docs/semantics.md "Searches over a collection"): every option is
 * checked when the set is built, with a `TypeError` or `RangeError` that names the option, says what was
 * expected and what was found. An option the set does not know is an error too (a misspelt
 * `maxDictionnary` would otherwise be ignored silently).
 */

import { isForbiddenSegment } from "../conditions/catalog.js";
import type { CompileOptions } from "../conditions/compile.js";
import { checkConditionLimits, type ParseOptions } from "../conditions/options.js";
import type { SearchBudget } from "./search-budget.js";

/** Options of `IncidentSet`. */
export interface IncidentSetOptions extends ParseOptions {
  /**
   * Fields stored as dictionary-encoded columns: single field names (no `.`), catalogue or open fields.
   * Default: every single-segment text and enumerated field of the catalogue that has no hash index. A
   * column whose field has more than `maxDictionary` distinct values becomes a text column (`textIndex`),
   * or, with the text index off, is dropped (its conditions go to the row predicate).
   */
  readonly dictionaryFields?: readonly string[];
  /** Fields with a hash index for equality: single field names (default `DEFAULT_HASH_FIELDS`). */
  readonly hashFields?: readonly string[];
  /**
   * Distinct values past which a dictionary column is dropped: an integer ≥ 0 (default 4096). Codes widen
   * from 8 to 16 to 32 bits as the dictionary grows, so any size is exact; a large dictionary costs one
   * leaf evaluation per distinct value per query.
   */
  readonly maxDictionary?: number;
  /**
   * Options for the compiled row predicates; `codegen: false` (for environments without `new Function`)
   * also keeps label expressions (`columns: label bitsets`, `fused code bitsets`) on their loops without
   * generated code (docs/performance.md, "Label expressions").
   */
  readonly compile?: CompileOptions;
  /**
   * The text index (docs/performance.md): a dictionary field that outgrows `maxDictionary` (titles,
   * host names) becomes a text column (a value id per row over all its distinct values) instead of being
   * dropped, and `$regex` conditions on it are answered through an index over the distinct values: a
   * trigram index gives the candidate values, a literal pattern (`^…`, `…$`, with or without `i`) is checked
   * on a corpus of the values (one string, and its lowercased copy) with native string search, any other
   * pattern is tested once per candidate value. A set built with at least 50,000 incidents builds the index
   * in its constructor; a smaller one, and a set read by `fromNdjson`, on the field's first pattern
   * (docs/semantics.md, "The text index"). The index is kept across `add`s.
   * `maxBytes` bounds the indexes of the set, all fields together (an integer ≥ 0, default 128 MiB): a field
   * whose index would not fit gets none, and its patterns run row by row on the column's value ids (each
   * distinct value tested once and remembered; last in a conjunction) (the lowercased copy is left out when
   * only it does not fit). `false` turns the text index off (such fields are dropped, as before). Default:
   * on. `footprint()` reports the bytes in use.
   */
  readonly textIndex?: boolean | { readonly maxBytes?: number };
  /**
   * The field that names an incident's site (default `DEFAULT_SITE_FIELD`, `Site`): a single field name, kept
   * in a dictionary column whatever `dictionaryFields` says, so that a search `{ site }` is one more label
   * (docs/semantics.md 1.9, "Within a site").
   */
  readonly siteField?: string;
}

/** The field that names an incident's site, by default (docs/semantics.md 1.9). */
export const DEFAULT_SITE_FIELD = "Site";

/**
 * Options of one search of an incident set (`findFirst`, `findAll`, `count`; `explain` reads `site` only):
 * its time budget (docs/semantics.md 1.7) and its site (docs/semantics.md 1.9, "Within a site").
 */
export interface SearchOptions extends SearchBudget {
  /**
   * Only incidents of this site: those whose site field (`siteField`, default `Site`) equals it, as the
   * condition `{"Site": {"$eq": site}}` reads it. The set answers through the site field's dictionary
   * column (one more label in the plan): rows of other sites are never given to the row predicate, as long
   * as the set holds at most `maxDictionary` distinct sites (default 4096; past it the column is dropped and
   * the site is checked row by row, with the same answers). Default: every site.
   */
  readonly site?: string | undefined;
}

const SEARCH_OPTIONS: Record<keyof SearchOptions, true> = { maxTimeMS: true, clock: true, site: true };

/**
 * Checks the options of one search (`findFirst`, `findAll`, `count`, `explain`).
 * @param options - the caller's options (`undefined`: no budget, every site)
 * @returns the site, or undefined for every site (the budget is checked by `startBudget`)
 * @throws {TypeError} when `options` is not an object, has a key other than `maxTimeMS`, `clock` and `site`
 *   (a misspelt `sites` would otherwise search every site), or `site` is not a string
 */
export function searchSite(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  if (!isPlainObject(options)) {
    throw new TypeError(
      `IncidentSet search options must be an object ({ site, maxTimeMS, clock }), found ${describe(options)}.`,
    );
  }
  unknownKeys(options, SEARCH_OPTIONS, "search option");
  const { site } = options;
  if (site !== undefined && typeof site !== "string") {
    throw new TypeError(`Search option 'site' must be a site name (a string), found ${describe(site)}.`);
  }
  return site;
}

/**
 * Every option of `IncidentSet`. Typed as a record over the interface's keys, so that an option added to
 * `IncidentSetOptions` (or to the parse options it extends) without being added here fails to compile.
 */
const SET_OPTIONS: Record<keyof IncidentSetOptions, true> = {
  catalog: true,
  limits: true,
  dictionaryFields: true,
  hashFields: true,
  maxDictionary: true,
  compile: true,
  textIndex: true,
  siteField: true,
};

/** Every option of the compiled predicates (same compile-time exhaustiveness as `SET_OPTIONS`). */
const COMPILE_OPTIONS: Record<keyof CompileOptions, true> = { codegen: true, cache: true };

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 60))}`;
  if (typeof value === "number" || typeof value === "boolean") return `the ${typeof value} ${String(value)}`;
  return `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownKeys(value: Record<string, unknown>, known: Record<string, true>, what: string): void {
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(known, key)) {
      throw new TypeError(
        `Unknown ${what} '${key}': expected one of ${Object.keys(known).sort().join(", ")}.`,
      );
    }
  }
}

/** A list of single field names: each a non-empty string without `.`, not a prototype name. */
function fieldList(value: unknown, option: string): void {
  if (!Array.isArray(value)) {
    throw new TypeError(
      `IncidentSet option '${option}' must be an array of field names, found ${describe(value)}.`,
    );
  }
  value.forEach((name: unknown, index) => {
    if (typeof name !== "string" || name === "") {
      throw new TypeError(
        `IncidentSet option '${option}'[${index}] must be a non-empty field name, found ${describe(name)}.`,
      );
    }
    if (name.includes(".")) {
      throw new TypeError(
        `IncidentSet option '${option}'[${index}] must be a single field name, found the dotted path '${name}' (conditions on dotted paths are answered row by row).`,
      );
    }
    if (isForbiddenSegment(name)) {
      throw new TypeError(
        `IncidentSet option '${option}'[${index}] names '${name}', which no Search Condition may use.`,
      );
    }
  });
}

/** `siteField`: one single field name (non-empty, no `.`, not a prototype name). */
function siteFieldOption(value: unknown): void {
  if (typeof value !== "string" || value === "" || value.includes(".") || isForbiddenSegment(value)) {
    throw new TypeError(
      `IncidentSet option 'siteField' must be a single field name (non-empty, no '.'), found ${describe(value)}.`,
    );
  }
}

/** `textIndex`: a boolean, or `{ maxBytes }` with an integer ≥ 0 of bytes. */
function textIndexOption(value: unknown): void {
  if (typeof value === "boolean") return;
  if (!isPlainObject(value)) {
    throw new TypeError(
      `IncidentSet option 'textIndex' must be a boolean or an object ({ maxBytes }), found ${describe(value)}.`,
    );
  }
  unknownKeys(value, { maxBytes: true }, "textIndex option");
  const { maxBytes } = value;
  if (maxBytes === undefined) return;
  if (typeof maxBytes !== "number") {
    throw new TypeError(
      `IncidentSet option 'textIndex.maxBytes' must be a number of bytes, found ${describe(maxBytes)}.`,
    );
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new RangeError(
      `IncidentSet option 'textIndex.maxBytes' must be an integer ≥ 0, found ${String(maxBytes)}.`,
    );
  }
}

/**
 * Checks the options of `new IncidentSet(incidents, options)`.
 * @param options - the caller's options (`undefined` means the defaults)
 * @throws {TypeError} when `options` is not an object, has a key the set does not know, or an option has the
 *   wrong type: `dictionaryFields`/`hashFields` not arrays of single field names (non-empty, no `.`, not
 *   `__proto__`/`prototype`/`constructor`); `maxDictionary` not an integer; `catalog` not a catalogue
 *   (`fields` object, `alternativeFields` array); `limits` not an object of the known limits; `compile` not
 *   an object of `codegen`/`cache` booleans; `textIndex` not a boolean or an object of `maxBytes`;
 *   `siteField` not a single field name
 * @throws {RangeError} when `maxDictionary` or `textIndex.maxBytes` is negative or not a safe integer, or a
 *   limit is not an integer ≥ 0
 */
export function validateIncidentSetOptions(
  options: unknown,
): asserts options is IncidentSetOptions | undefined {
  if (options === undefined) return;
  if (!isPlainObject(options)) {
    throw new TypeError(`IncidentSet options must be an object, found ${describe(options)}.`);
  }
  unknownKeys(options, SET_OPTIONS, "IncidentSet option");
  const { catalog, limits, dictionaryFields, hashFields, maxDictionary, compile, textIndex, siteField } =
    options;
  if (textIndex !== undefined) textIndexOption(textIndex);
  if (siteField !== undefined) siteFieldOption(siteField);
  if (dictionaryFields !== undefined) fieldList(dictionaryFields, "dictionaryFields");
  if (hashFields !== undefined) fieldList(hashFields, "hashFields");
  if (maxDictionary !== undefined) {
    if (typeof maxDictionary !== "number") {
      throw new TypeError(
        `IncidentSet option 'maxDictionary' must be a number of distinct values, found ${describe(maxDictionary)}.`,
      );
    }
    if (!Number.isSafeInteger(maxDictionary) || maxDictionary < 0) {
      throw new RangeError(
        `IncidentSet option 'maxDictionary' must be an integer ≥ 0, found ${String(maxDictionary)}.`,
      );
    }
  }
  if (catalog !== undefined) {
    if (
      !isPlainObject(catalog) ||
      !isPlainObject(catalog.fields) ||
      !Array.isArray(catalog.alternativeFields)
    ) {
      throw new TypeError(
        `IncidentSet option 'catalog' must be a field catalogue ({ fields, alternativeFields }; see extendCatalog), found ${describe(catalog)}.`,
      );
    }
  }
  if (limits !== undefined) checkConditionLimits(limits);
  if (compile !== undefined) {
    if (!isPlainObject(compile)) {
      throw new TypeError(`IncidentSet option 'compile' must be an object, found ${describe(compile)}.`);
    }
    unknownKeys(compile, COMPILE_OPTIONS, "compile option");
    for (const [key, value] of Object.entries(compile)) {
      if (value !== undefined && typeof value !== "boolean") {
        throw new TypeError(`Compile option '${key}' must be a boolean, found ${describe(value)}.`);
      }
    }
  }
}
