/**
 * The regex engine's work as counts, which a busy machine cannot change: instructions added to programs
 * (building one), and parses (calls of `RE2JS.compile`, through which the measuring parses).
 */
import { RE2JS } from "re2js";

/** The engine's program prototype (re2js builds a `Prog` by `addInst`), found on a probe. */
const progPrototype = Object.getPrototypeOf(
  (RE2JS.compile("a") as unknown as { re2Input: { prog: object } }).re2Input.prog,
) as { addInst: (...args: unknown[]) => unknown };

/** Instructions added to any engine program while `run` runs: the work of building one, as a count. */
export function countingInstructions<T>(run: () => T): { result: T; added: number } {
  const original = progPrototype.addInst;
  let added = 0;
  progPrototype.addInst = function (this: unknown, ...args: unknown[]) {
    added++;
    return original.apply(this, args);
  };
  try {
    return { result: run(), added };
  } finally {
    progPrototype.addInst = original;
  }
}

/** Calls of the engine's `RE2JS.compile` (through which `measureRegex` parses) while `run` runs. */
export function countingParses<T>(run: () => T): { result: T; parses: number } {
  const original = RE2JS.compile;
  let parses = 0;
  RE2JS.compile = ((...args: Parameters<typeof RE2JS.compile>) => {
    parses++;
    return original.apply(RE2JS, args);
  }) as typeof RE2JS.compile;
  try {
    return { result: run(), parses };
  } finally {
    RE2JS.compile = original;
  }
}
