/**
 * The one list of known differences of the conformance harness (`harness.ts`). Each entry names the
 * engines it applies to, the reason, and the cases (by name, from `match-cases.ts` or `jstests-cases.ts`).
 * A skipped case still runs and must still differ (pinned by its example); when a fix makes it agree, the
 * run fails until the entry is removed. `run: false` entries are not run at all (they would hang).
 *
 * Who decides (DECISIONS.md 1.5): MongoDB's own test suite decides the semantics; mingo only executes the
 * MongoDB translation (`toMongoFilter`), and where mingo itself departs from MongoDB the entry says so
 * ("mingo deviates from MongoDB: …") and covers the `mongo` engines only.
 */

/** The engines of the harness: one adapter each (see the runners in this folder). */
export const ENGINES = [
  "evaluate",
  "compile:codegen",
  "compile:closure",
  "incident-set:default",
  "incident-set:no-columns",
  "incident-set:tiny-dictionaries",
  "incident-set:open-dictionaries",
  "incident-set:open-hashes",
  "mongo:date",
  "mongo:string",
] as const;

/** An engine's name: `family:variant`, or `evaluate`. */
export type EngineName = (typeof ENGINES)[number];

/** A family of engines: a skip that names it covers every variant. */
export type EngineFamily = "compile" | "incident-set" | "mongo";

/** One known difference. */
export interface Skip {
  /** The engines (names or families) it applies to, or `"all"`. */
  readonly engines: "all" | readonly (EngineName | EngineFamily)[];
  /** Why the engine answers differently from the table. */
  readonly reason: string;
  /** The case names. */
  readonly tests: readonly string[];
  /** `false`: never run these cases on these engines (they would not finish). */
  readonly run?: false;
}

/** True when `skip` covers `engine`. */
export function skipApplies(skip: Skip, engine: EngineName): boolean {
  if (skip.engines === "all") return true;
  const family = engine.split(":")[0];
  return skip.engines.some((name) => name === engine || name === family);
}

/** The engines that read every answer from the library's own matchers (all but MongoDB). */
const LIBRARY: readonly (EngineName | EngineFamily)[] = ["evaluate", "compile", "incident-set"];

/** The known differences. */
export const SKIPS: readonly Skip[] = [
  // ---- mingo, the executor of the MongoDB translation, departs from MongoDB ----
  {
    engines: ["mongo"],
    reason:
      "not run: mingo's backtracking RegExp would not finish (MongoDB's PCRE has a match limit and fails the query)",
    tests: ["$regex: a pattern that backtracks exponentially elsewhere runs in linear time"],
    run: false,
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its $regex also looks into nested arrays; MongoDB looks one level deep",
    tests: ["$regex: nested arrays are not traversed"],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it runs JavaScript's RegExp without the u flag, which does not fold k with U+212A; MongoDB's PCRE2 does",
    tests: ["$regex: i folds k with the Kelvin sign (RE2)"],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it applies $size to the list of reached values; MongoDB, like the library, to each reached array",
    tests: ["$size: through an array of objects, any reached array"],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it orders NaN below numbers in $lt; MongoDB's matcher, like the library, never matches NaN in a numeric range (jstests/core/query/type_bracket.js)",
    tests: ["numbers: NaN in a record lies in no range and equals no JSON number"],
  },
];

void LIBRARY;
