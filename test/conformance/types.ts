/**
 * The conformance case format: one table shared by every implementation of the Search Conditions
 * semantics (`evaluate`, `compile` with and without code generation, `IncidentSet`, and MongoDB semantics
 * through `toMongoFilter`). `harness.ts` runs every case of `match-cases.ts` and `jstests-cases.ts` against
 * each implementation (one short `*.test.ts` per implementation in this folder); every known difference
 * is an entry of `skips.ts`.
 */
import type { FieldCatalog } from "../../src/conditions/catalog.js";
import type { IssueCode, PathSegment } from "../../src/conditions/issues.js";
import type { ParseOptions } from "../../src/conditions/options.js";

/** A case that parses and is checked against one or more incidents. */
export interface MatchCase {
  /** Unique, readable: "eq: string equality is case-sensitive". */
  readonly name: string;
  /** The rule it checks: "docs/semantics.md 1.5", "spec 2.3". */
  readonly rule: string;
  /** Raw Search Conditions JSON, exactly as a caller would send it. */
  readonly conditions: unknown;
  /** Incident records with the expected answer for each. */
  readonly incidents: readonly { readonly incident: Record<string, unknown>; readonly matches: boolean }[];
  /** Optional catalogue (defaults to DEFAULT_CATALOG). */
  readonly catalog?: FieldCatalog;
  /**
   * Where the facts come from when they are transcribed from MongoDB's own test suite: the jstests file of
   * the mongodb/mongo repository, e.g. `jstests/core/query/ne/ne_null.js`.
   */
  readonly source?: string;
}

/** A case that must fail to parse with exactly these issues (codes and paths, in any order). */
export interface IssueCase {
  readonly name: string;
  readonly rule: string;
  readonly conditions: unknown;
  readonly issues: readonly { readonly code: IssueCode; readonly path: readonly PathSegment[] }[];
  readonly catalog?: FieldCatalog;
  /** Optional parse options (limits) for limit cases. */
  readonly options?: ParseOptions;
  /** Optional substring the first issue's message must contain (e.g. "did you mean 'Webhook'?"). */
  readonly messageIncludes?: string;
}
