/**
 * The one conformance harness (in the style of hono's `runTest({ skip: [{ reason, tests }] })`): every
 * implementation of the Search Conditions semantics is an *engine*, given to `runConformance` as an adapter
 * `(conditions, incidents, catalog) => answers`. The harness runs every case of `match-cases.ts` (the
 * project's own table) and of `jstests-cases.ts` (facts transcribed from MongoDB's own test suite) through
 * it and compares each answer with the table.
 *
 * Every known difference lives in ONE list, `skips.ts`: `{ engines, reason, tests }`. A skipped case still
 * runs, and must still differ (its answers disagree with the table somewhere, or the engine refuses the
 * condition): the skip is pinned by its example, so a fix that makes the case pass fails the run until the
 * entry is removed. Entries with `run: false` are not run at all (they would hang the engine).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CATALOG, type FieldCatalog } from "../../src/conditions/catalog.js";
import { SearchConditionsError } from "../../src/conditions/issues.js";
import { jstestsCases } from "./jstests-cases.js";
import { matchCases } from "./match-cases.js";
import { type EngineName, SKIPS, type Skip, skipApplies } from "./skips.js";
import type { MatchCase } from "./types.js";

/** An incident record of the table. */
export type Incident = Record<string, unknown>;

/**
 * One engine: takes the raw Search Conditions JSON of a case, its incidents and its catalogue (and the case
 * itself, for engines that check more on some cases), and answers
 * for each incident whether it matches, or `undefined` where the engine cannot take that incident as it is
 * (a MongoDB collection cannot hold an invalid `Date`, for instance). It may throw `SearchConditionsError`
 * (the engine refuses the condition); any other error, or a failed `expect` inside the adapter (an
 * engine's own consistency checks), fails the case even when it is skipped.
 */
export type EngineAdapter = (
  conditions: unknown,
  incidents: readonly Incident[],
  catalog: FieldCatalog,
  matchCase: MatchCase,
) => readonly (boolean | undefined)[];

/** Every case the harness runs: the project's table, then the transcribed jstests. */
export const allCases: readonly MatchCase[] = [...matchCases, ...jstestsCases];

/** A short, readable description of an incident for failure messages (handles Dates, NaN, undefined). */
export function describeIncident(incident: Incident): string {
  const text = JSON.stringify(incident, (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value)
      ? String(value)
      : value === undefined
        ? "(undefined)"
        : value,
  );
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** What an engine did with one case: refused it, or answered (with the incidents that disagree). */
type Outcome =
  | { readonly refused: SearchConditionsError }
  | { readonly refused?: undefined; readonly disagreements: readonly number[] };

function runCase(adapter: EngineAdapter, matchCase: MatchCase): Outcome {
  const incidents = matchCase.incidents.map((entry) => entry.incident);
  let answers: readonly (boolean | undefined)[];
  try {
    answers = adapter(matchCase.conditions, incidents, matchCase.catalog ?? DEFAULT_CATALOG, matchCase);
  } catch (error) {
    if (error instanceof SearchConditionsError) return { refused: error };
    throw error;
  }
  expect(answers.length, "the adapter answers once per incident").toBe(incidents.length);
  const disagreements: number[] = [];
  matchCase.incidents.forEach(({ matches }, index) => {
    const answer = answers[index];
    if (answer !== undefined && answer !== matches) disagreements.push(index);
  });
  return { disagreements };
}

/** Options of `runConformance`. */
export interface ConformanceRun {
  /** The engine's name, as the skip list names it. */
  readonly engine: EngineName;
  /** The engine's adapter. */
  readonly run: EngineAdapter;
  /** The skip list (default: `SKIPS` of `skips.ts`, the only list the project keeps). */
  readonly skip?: readonly Skip[];
  /** The cases (default: `allCases`). */
  readonly cases?: readonly MatchCase[];
}

/**
 * Registers one vitest test per case for one engine: an unskipped case must agree on every incident; a
 * skipped case must still differ (see the file comment).
 */
export function runConformance({ engine, run, skip = SKIPS, cases = allCases }: ConformanceRun): void {
  const skipOf = new Map<string, Skip>();
  const twice: string[] = [];
  for (const entry of skip) {
    if (!skipApplies(entry, engine)) continue;
    for (const name of entry.tests) {
      if (skipOf.has(name)) twice.push(name);
      skipOf.set(name, entry);
    }
  }

  describe(`conformance: ${engine}`, () => {
    it("skips only cases that exist, each at most once, each with a reason", () => {
      const names = new Set(cases.map((matchCase) => matchCase.name));
      expect([...skipOf.keys()].filter((name) => !names.has(name))).toEqual([]);
      expect(twice).toEqual([]);
      for (const entry of skip) expect(entry.reason.length, entry.tests[0]).toBeGreaterThan(20);
    });

    describe.each(cases.map((matchCase) => [matchCase.name, matchCase] as const))(
      "%s",
      (_name, matchCase) => {
        const skipped = skipOf.get(matchCase.name);
        const label = `(${matchCase.source ?? matchCase.rule})`;
        if (skipped === undefined) {
          it(label, () => {
            const outcome = runCase(run, matchCase);
            const where = `case "${matchCase.name}" (${matchCase.source ?? matchCase.rule}), ${engine}`;
            if (outcome.refused !== undefined) throw outcome.refused;
            const lines = outcome.disagreements.map((index) => {
              const entry = matchCase.incidents[index]!;
              return `incident #${index} ${describeIncident(entry.incident)}: expected ${entry.matches}`;
            });
            expect(lines, `${where}: incidents that disagree`).toEqual([]);
          });
        } else if (skipped.run === false) {
          it.skip(`${label} not run: ${skipped.reason}`, () => {});
        } else {
          it(`${label} known difference: ${skipped.reason}`, () => {
            const outcome = runCase(run, matchCase);
            const differs = outcome.refused !== undefined || outcome.disagreements.length > 0;
            expect(
              differs,
              `${engine} now agrees on "${matchCase.name}": remove it from the skip "${skipped.reason}"`,
            ).toBe(true);
          });
        }
      },
    );
  });
}
