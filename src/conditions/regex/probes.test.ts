/**
 * re2js's internals are probed when a pattern first needs them, not when the engine loads (docs/cli.md,
 * "Start-up"): the probes compile patterns, re2js's first compilation costing milliseconds that a process
 * whose conditions hold no `$regex` should not pay. Counted, not timed: `RE2JS.compile` is wrapped before
 * the engine's modules are loaded afresh.
 */
import { RE2JS } from "re2js";
import { afterEach, describe, expect, it, vi } from "vitest";

const original = RE2JS.compile;
afterEach(() => {
  RE2JS.compile = original;
});

/** Counts `RE2JS.compile` calls from now on. */
function countCompiles(): { readonly calls: number } {
  const counter = { calls: 0 };
  RE2JS.compile = ((...args: Parameters<typeof RE2JS.compile>) => {
    counter.calls++;
    return original.apply(RE2JS, args);
  }) as typeof RE2JS.compile;
  return counter;
}

describe("re2js probed on first need", () => {
  it("loading the engine, parsing, compiling and matching conditions without $regex compiles no pattern", async () => {
    const counter = countCompiles();
    vi.resetModules();
    const engine = await import("../../index.js");
    const condition = engine.parseSearchConditions({
      Severity: { $in: ["High", "Critical"] },
      Title: "Phishing",
      CreatedUtcTime: { $gt: { $date: "2024-01-01T00:00:00Z" } },
    });
    const incident = { Severity: "High", Title: "Phishing", CreatedUtcTime: "2024-02-01T00:00:00Z" };
    expect(engine.compile(condition)(incident)).toBe(true);
    expect(engine.evaluate(condition, incident)).toBe(true);
    expect(new engine.IncidentSet([incident]).count(condition)).toBe(1);
    expect(counter.calls).toBe(0);
  });

  it("the first $regex probes them and matches as before", async () => {
    const counter = countCompiles();
    vi.resetModules();
    const engine = await import("../../index.js");
    // `(a|b)+c$`: not a literal, so the engine's program, its instruction kinds and its DFA bound are used.
    const condition = engine.parseSearchConditions({ Title: { $regex: "(ab|cd)+e$", $options: "i" } });
    expect(counter.calls).toBeGreaterThan(0);
    const match = engine.compile(condition);
    for (const [title, want] of [
      ["xxABcde", true],
      ["abe", true],
      ["ae", false],
      ["abcdE", true],
      ["abcd", false],
    ] as const) {
      expect(match({ Title: title })).toBe(want);
      expect(engine.evaluate(condition, { Title: title })).toBe(want);
    }
  });
});
