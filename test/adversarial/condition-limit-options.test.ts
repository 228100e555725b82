/**
 * checkConditionLimits (MAX_CONDITION_DEPTH 256) against options that are not plain data, and the command
 * handler's parseOptions, which docs/semantics.md 1.7 "Raising a limit" says are checked like the others.
 */
import { describe, expect, it } from "vitest";
import { createCommandHandler } from "../../src/commands/handler.js";
import { createMemoryBackend } from "../../src/commands/memory/memory-backend.js";
import { compile } from "../../src/conditions/compile.js";
import { safeParseSearchConditions } from "../../src/conditions/parse.js";
import { TEST_DATASET } from "../server/fixtures.js";

const nor = (n: number) => {
  let c: unknown = { Severity: "High" };
  for (let i = 0; i < n; i++) c = { $nor: [c] };
  return c;
};

describe("limits read once", () => {
  it("a depth getter that passes the check and then answers more cannot admit a condition compile cannot walk", () => {
    let reads = 0;
    const limits = {
      nodes: 1_000_000,
      get depth() {
        reads++;
        return reads === 1 ? 256 : 100_000;
      },
    };
    let result: ReturnType<typeof safeParseSearchConditions> | undefined;
    try {
      result = safeParseSearchConditions(nor(1_500), { limits });
    } catch (error) {
      expect(error).toBeInstanceOf(Error); // refusing the option is fine too
      return;
    }
    if (result.success) {
      const condition = result.condition;
      expect(() => compile(condition)).not.toThrow();
    } else {
      expect(result.issues[0]!.code).toBe("limit_exceeded");
    }
  });
});

describe("the command handler's parseOptions are checked when the handler is made", () => {
  it.each([
    ["depth 1,000,000", { depth: 1_000_000 }, RangeError],
    ["depth 0", { depth: 0 }, RangeError],
    ["an unknown limit", { deep: 3 }, TypeError],
    ["a negative limit", { nodes: -1 }, RangeError],
  ])("%s throws at createCommandHandler, not 500 on every request", (_name, limits, type) => {
    const backend = createMemoryBackend(TEST_DATASET);
    expect(() =>
      createCommandHandler(backend, { parseOptions: { limits: limits as never }, onError: () => {} }),
    ).toThrow(type);
  });
});
