/**
 * The tiers of `compile` for tests: a predicate compiled with code generation answers through closures
 * until it has been called `CODEGEN_AFTER_CALLS` times, then through generated code. Tests that mean the
 * generated code call `switched` first; the conformance harness also switches one predicate mid-stream.
 */
import { expect } from "vitest";
import type { Condition } from "../../src/conditions/ast.js";
import {
  CODEGEN_AFTER_CALLS,
  type CompileOptions,
  compile,
  type Predicate,
} from "../../src/conditions/compile.js";

/**
 * Calls `predicate` with `undefined` (a non-record: no field is read) until it answers through generated
 * code, and checks that it did within `CODEGEN_AFTER_CALLS` calls.
 * @returns `predicate` itself, now answering through generated code
 */
export function switched(predicate: Predicate): Predicate {
  for (let i = 0; i < CODEGEN_AFTER_CALLS && predicate.mode !== "codegen"; i++) predicate(undefined);
  expect(predicate.mode, "the predicate switched to generated code").toBe("codegen");
  return predicate;
}

/**
 * `compile`, with the predicate in the back end the options name: generated code (`codegen: true`,
 * switched with `switched`) or closures (`codegen: false`).
 */
export function compileIn(
  condition: Condition,
  options: CompileOptions & { readonly codegen: boolean },
): Predicate {
  const predicate = compile(condition, options);
  if (!options.codegen) {
    expect(predicate.mode).toBe("closure");
    return predicate;
  }
  return switched(predicate);
}
