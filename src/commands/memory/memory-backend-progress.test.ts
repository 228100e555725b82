import { describe, expect, it } from "vitest";
import { buildDataset } from "./fixtures.js";
import { createMemoryBackend } from "./memory-backend.js";

describe("createMemoryBackend: onLoadProgress", () => {
  it("reports the validation of the initial dataset, ending at (total, total)", () => {
    const incidents = Array.from({ length: 25_000 }, () => ({}));
    const calls: [number, number][] = [];
    const backend = createMemoryBackend(buildDataset({ incidents }), {
      onLoadProgress: (done, total) => calls.push([done, total]),
    });
    expect(calls.length).toBeGreaterThanOrEqual(3);
    const total = calls[0]![1];
    expect(total).toBeGreaterThanOrEqual(25_000);
    expect(calls.every(([, t]) => t === total)).toBe(true);
    expect(calls.map(([done]) => done)).toEqual([...calls.map(([done]) => done)].sort((a, b) => a - b));
    expect(calls.at(-1)).toEqual([total, total]);
    // Later changes are validated without a report.
    calls.length = 0;
    backend.reset();
    expect(calls).toEqual([]);
  });
});
