/**
 * `IncidentSet.fromNdjson` with `reading.signal`: an abort before the call, while a chunk or a read is
 * awaited, between two chunks or reads, and after the set was built. Each source counts what it was asked
 * for, so the tests bound chunks and reads, never time: no clock is read.
 */

import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { IncidentSet } from "./incident-set.js";
import type { NdjsonByteReader } from "./ndjson.js";

const line = (i: number) =>
  `${JSON.stringify({ IncidentId: i, Severity: "High", CreatedUtcTime: "2024-01-01T00:00:00Z" })}\n`;
/** Chunk `k` of a source: ten lines. */
const chunk = (k: number) =>
  new TextEncoder().encode(Array.from({ length: 10 }, (_, i) => line(10 * k + i + 1)).join(""));

/** An endless async source that counts the chunks asked for, and runs `after(k)` once chunk `k` is taken. */
function chunks(after: (k: number) => void) {
  const state = { asked: 0, ended: false };
  const source = (async function* () {
    try {
      for (let k = 0; ; k++) {
        state.asked++;
        yield chunk(k);
        after(k + 1);
      }
    } finally {
      state.ended = true;
    }
  })();
  return { source, state };
}

/** An endless byte reader that counts its reads and runs `after(k)` once read `k` resolved. */
function reader(after: (k: number) => void) {
  const state = { reads: 0 };
  const source: NdjsonByteReader = {
    read(buffer, offset, length) {
      const k = ++state.reads;
      const bytes = chunk(k).subarray(0, length);
      buffer.set(bytes, offset);
      queueMicrotask(() => after(k));
      return Promise.resolve({ bytesRead: bytes.length });
    },
  };
  return { source, state };
}

/** `n` turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("IncidentSet.fromNdjson with an abort signal", () => {
  it("aborted before the call: rejects with the reason, nothing read", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped before");
    controller.abort(reason);
    const streamed = chunks(() => {});
    await expect(IncidentSet.fromNdjson(streamed.source, {}, { signal: controller.signal })).rejects.toBe(
      reason,
    );
    expect(streamed.state.asked).toBe(0);
    const read = reader(() => {});
    await expect(IncidentSet.fromNdjson(read.source, {}, { signal: controller.signal })).rejects.toBe(reason);
    expect(read.state.reads).toBe(0);
  });

  it("aborted by a source after its 3rd chunk: rejects, the source is ended, no chunk taken after", async () => {
    const controller = new AbortController();
    const { source, state } = chunks((k) => {
      if (k === 3) controller.abort(new Error("stopped during"));
    });
    await expect(IncidentSet.fromNdjson(source, {}, { signal: controller.signal })).rejects.toThrow(
      "stopped during",
    );
    // The 4th ask is the one that aborted (the source runs on to its next `yield`); its chunk is not read.
    expect(state.asked).toBe(4);
    await turns(5);
    expect(state.ended).toBe(true);
  });

  it("aborted by a byte reader after its 3rd read: rejects, at most one read more was asked", async () => {
    const controller = new AbortController();
    const { source, state } = reader((k) => {
      if (k === 3) controller.abort(new Error("stopped during"));
    });
    await expect(IncidentSet.fromNdjson(source, {}, { signal: controller.signal })).rejects.toThrow(
      "stopped during",
    );
    // The next read is asked for before the lines of the last one are read: one may be under way.
    expect(state.reads).toBeLessThanOrEqual(4);
  });

  it("aborted while a chunk never comes (an idle stream): rejects at once; the stream's iterator is ended", async () => {
    const controller = new AbortController();
    const stream = new Readable({ read() {} });
    stream.push(chunk(0));
    const built = IncidentSet.fromNdjson(stream, {}, { signal: controller.signal });
    // Turns of the event loop, not time: the first chunk is read, then the stream is idle.
    await turns(20);
    controller.abort(new Error("stopped while idle"));
    await expect(built).rejects.toThrow("stopped while idle");
    // The iterator's `return` waits for the read under way (a Node stream's iterator then destroys it).
    stream.push(chunk(1));
    await turns(5);
    expect(stream.destroyed).toBe(true);
  });

  it("aborted after the set was built: the set stands", async () => {
    const controller = new AbortController();
    const set = await IncidentSet.fromNdjson([chunk(0), chunk(1)], {}, { signal: controller.signal });
    controller.abort();
    expect(set.size).toBe(20);
    expect(set.count({ Severity: "High" })).toBe(20);
  });

  it("refuses a signal that is no AbortSignal", async () => {
    await expect(
      IncidentSet.fromNdjson([chunk(0)], {}, { signal: { aborted: true } as unknown as AbortSignal }),
    ).rejects.toThrow(new TypeError("IncidentSet.fromNdjson: signal must be an AbortSignal, not a object."));
  });
});
