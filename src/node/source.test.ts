import { describe, expect, it } from "vitest";
import { untilAborted } from "../incidents/ndjson.js";

/** Collects the unhandled rejections of the process while `run` and a few turns after it run. */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onUnhandled = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    await run();
    // Unhandled rejections are reported after the microtask queue drains: give it a few macrotask turns.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  return seen;
}

describe("untilAborted", () => {
  it("rejects with the signal's reason, at once when already aborted, and leaves no unhandled rejection behind", async () => {
    const reason = new Error("aborted here");
    const cases: [string, (signal: AbortSignal, abort: () => void) => Promise<unknown>][] = [
      [
        "already aborted (a stream's next read given up: it ends later with Premature close)",
        (signal, abort) => {
          abort();
          const pending = new Promise((_, reject) =>
            setImmediate(() => reject(new Error("Premature close"))),
          );
          return untilAborted(pending, signal);
        },
      ],
      [
        "aborted while waiting",
        (signal, abort) => {
          const pending = new Promise((_, reject) =>
            setImmediate(() => reject(new Error("Premature close"))),
          );
          const waiting = untilAborted(pending, signal);
          abort();
          return waiting;
        },
      ],
    ];
    for (const [name, run] of cases) {
      const controller = new AbortController();
      let outcome: unknown;
      const unhandled = await unhandledDuring(async () => {
        outcome = await (async () => run(controller.signal, () => controller.abort(reason)))().catch(
          (error: unknown) => error,
        );
      });
      expect(outcome, name).toBe(reason);
      expect(unhandled, name).toEqual([]);
    }
  });

  it("answers the promise when no signal is given or none fires", async () => {
    await expect(untilAborted(Promise.resolve(7), undefined)).resolves.toBe(7);
    await expect(untilAborted(Promise.resolve(8), new AbortController().signal)).resolves.toBe(8);
  });
});
