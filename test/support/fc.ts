/**
 * fast-check parameters for every property test: a fixed seed (from FC_SEED, or 20261121) so CI runs are
 * reproducible, and the seed printed by fast-check's failure report so a failing run can be replayed with
 * `FC_SEED=<seed> npx vitest run <file>`.
 */
import type { Parameters } from "fast-check";

/** The seed used by every property test in this run. */
export const FC_SEED: number = process.env.FC_SEED === undefined ? 20261121 : Number(process.env.FC_SEED);

/**
 * Options for `fc.assert`: the run's seed, `numRuns` (scaled by FC_RUNS_SCALE when set) and a verbose
 * report of the counterexample. fast-check's error message includes `seed` and `path` on failure.
 */
export function fcOptions<T>(numRuns: number): Parameters<T> {
  const scale = process.env.FC_RUNS_SCALE === undefined ? 1 : Number(process.env.FC_RUNS_SCALE);
  return { seed: FC_SEED, numRuns: Math.max(1, Math.round(numRuns * scale)), verbose: 1 };
}
