import { DEFAULT_CATALOG, type FieldCatalog } from "./catalog.js";
import { describeValue } from "./issues.js";

/** The limits of docs/semantics.md 1.7. Exceeding one is a `limit_exceeded` issue, never a crash or a hang. */
export interface ConditionLimits {
  /** Nesting depth of objects and arrays in the Search Conditions JSON (default 32). */
  readonly depth: number;
  /** Nodes (objects, arrays and values) in one condition (default 1,000). */
  readonly nodes: number;
  /** Values in one `$in`, `$nin` or `$all` (default 10,000). */
  readonly setSize: number;
  /** Characters in one string operand (default 10,000). */
  readonly stringLength: number;
  /** Characters in one `$regex` pattern (default 1,000). */
  readonly patternLength: number;
  /**
   * Instructions in the program of one `$regex` pattern, counted before it is built (default 1,000):
   * counted repetition expanded (`a{1000}` is 1,000), a character class once per range of characters.
   */
  readonly regexProgramSize: number;
  /** Instructions in the programs of all `$regex` patterns of one condition together (default 4,000). */
  readonly regexProgramTotal: number;
}

/** The default limits of docs/semantics.md 1.7. */
export const DEFAULT_LIMITS: ConditionLimits = Object.freeze({
  depth: 32,
  nodes: 1_000,
  setSize: 10_000,
  stringLength: 10_000,
  patternLength: 1_000,
  regexProgramSize: 1_000,
  regexProgramTotal: 4_000,
});

/**
 * The largest nesting depth a caller may configure (docs/semantics.md 1.7, "Raising a limit"): every engine
 * that walks a parsed condition (`compile`, the planner of `IncidentSet`, `toMongoFilter`, `toSqlWhere`,
 * `explain`) recurses once per level, and 256 levels stay far inside the smallest stack they run on.
 */
export const MAX_CONDITION_DEPTH = 256;

/**
 * Checks limits given to override the defaults (docs/semantics.md 1.7): each one present is a safe integer,
 * at least 0 (at least 1 for `depth`), and `depth` is at most `MAX_CONDITION_DEPTH`; `undefined` keeps the
 * default. Options are the caller's code, not input: a wrong one throws.
 * @param limits - the `limits` option as given
 * @returns a plain copy of the limits given (each read once), the one to use
 * @throws {TypeError} when `limits` is not an object, names an unknown limit, or holds a value that is not a
 *   number
 * @throws {RangeError} when a limit is not a safe integer ≥ 0, `depth` is 0, or `depth` exceeds 256
 */
export function checkConditionLimits(limits: unknown): Partial<ConditionLimits> {
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw new TypeError(`Option 'limits' must be an object of limits, found ${describeValue(limits)}.`);
  }
  // Each limit is read once, into the copy that is checked and then used (a getter cannot answer twice).
  const copy: Record<string, number> = {};
  for (const [key, value] of Object.entries(limits)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, key)) {
      throw new TypeError(
        `Unknown limit '${key}': expected one of ${Object.keys(DEFAULT_LIMITS).sort().join(", ")}.`,
      );
    }
    if (value === undefined) continue;
    if (typeof value !== "number") {
      throw new TypeError(`Limit '${key}' must be a number, found ${describeValue(value)}.`);
    }
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`Limit '${key}' must be an integer ≥ 0, found ${String(value)}.`);
    }
    if (key === "depth" && (value < 1 || value > MAX_CONDITION_DEPTH)) {
      throw new RangeError(
        `Limit 'depth' must be from 1 to ${MAX_CONDITION_DEPTH} (deeper conditions would exhaust the stack of the engines that walk them), found ${value}.`,
      );
    }
    copy[key] = value;
  }
  return copy as Partial<ConditionLimits>;
}

/** Options of `parseSearchConditions` and of everything that accepts raw Search Conditions JSON. */
export interface ParseOptions {
  /** The field catalogue (docs/semantics.md 1.6); default `DEFAULT_CATALOG`. */
  readonly catalog?: FieldCatalog;
  /** Limits to override (docs/semantics.md 1.7); the others keep their defaults. */
  readonly limits?: Partial<ConditionLimits>;
}

/** Options with every default filled in. */
export interface ResolvedParseOptions {
  readonly catalog: FieldCatalog;
  readonly limits: ConditionLimits;
}

/**
 * Fills in the defaults of `ParseOptions`.
 * @throws {TypeError | RangeError} when `options.limits` is not a valid set of limits (`checkConditionLimits`)
 */
export function resolveParseOptions(options: ParseOptions | undefined): ResolvedParseOptions {
  const limits = options?.limits;
  return {
    catalog: options?.catalog ?? DEFAULT_CATALOG,
    limits: limits === undefined ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, ...checkConditionLimits(limits) },
  };
}
