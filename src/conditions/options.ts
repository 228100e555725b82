import { DEFAULT_CATALOG, type FieldCatalog } from "./catalog.js";

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

/** Fills in the defaults of `ParseOptions`. */
export function resolveParseOptions(options: ParseOptions | undefined): ResolvedParseOptions {
  return {
    catalog: options?.catalog ?? DEFAULT_CATALOG,
    limits: { ...DEFAULT_LIMITS, ...options?.limits },
  };
}
