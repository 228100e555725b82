/**
 * Who releases what (docs/node.md, "Whose stream"), and the Node entry's `fromNdjson` with an abort signal:
 * a file the library opened is closed, a stream passed in and standard input are left to their owner
 * (paused, never destroyed, none of the library's listeners left), and an aborted build returns no set.
 * Aborts come from the sources themselves (after their 3rd read or chunk) or from turns of the event loop:
 * nothing here reads a clock.
 */

import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fromNdjson } from "../../src/node/index.js";

const line = (i: number) =>
  JSON.stringify({
    IncidentId: i,
    Title: `Incident ${i} ${"x".repeat(100)}`,
    Severity: i % 3 === 0 ? "High" : "Low",
    CreatedUtcTime: "2024-01-01T00:00:00Z",
  });
// About 4.5 MB: more than four reads of 1 MiB.
const TEXT = `${Array.from({ length: 30_000 }, (_, i) => line(i + 1)).join("\n")}\n`;
const PATH = join(mkdtempSync(join(tmpdir(), "iq-ownership-")), "incidents.ndjson");
writeFileSync(PATH, TEXT);

/** The `FileHandle` prototype, its reads counted and handles kept; `after(k)` runs once read `k` resolved. */
async function countedReads(after: (k: number) => void) {
  const probe = await open(PATH);
  const proto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
  await probe.close();
  const original = proto.read;
  const handles = new Set<{ fd: number }>();
  const state = { reads: 0, handles };
  vi.spyOn(proto, "read").mockImplementation(async function (this: { fd: number }, ...args: unknown[]) {
    handles.add(this);
    const result = await original.apply(this, args);
    after(++state.reads);
    return result;
  });
  return state;
}

/** A stream of `TEXT` in chunks of 64 KiB, counting the chunks pushed; `after(k)` runs once chunk `k` is pushed. */
function passedStream(after: (k: number) => void) {
  const bytes = Buffer.from(TEXT);
  let at = 0;
  const stream = new Readable({
    read() {
      if (at >= bytes.length) {
        this.push(null);
        return;
      }
      this.push(bytes.subarray(at, at + 65_536));
      at += 65_536;
      stream.pushed++;
      after(stream.pushed);
    },
  }) as Readable & { pushed: number };
  stream.pushed = 0;
  return stream;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("fromNdjson (Node entry) with an abort signal", () => {
  it("aborted before the call: rejects with the reason, the file not read", async () => {
    const state = await countedReads(() => {});
    const controller = new AbortController();
    const reason = new Error("stopped before");
    controller.abort(reason);
    await expect(fromNdjson(PATH, {}, { signal: controller.signal })).rejects.toBe(reason);
    expect(state.reads).toBe(0);
  });

  it("aborted after the file's 3rd read: rejects with the reason, no set, the handle closed", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped during");
    const state = await countedReads((k) => {
      if (k === 3) controller.abort(reason);
    });
    await expect(fromNdjson(PATH, {}, { signal: controller.signal })).rejects.toBe(reason);
    expect(state.reads).toBeLessThanOrEqual(4);
    // Every handle opened (the gzip check's, the set's) is closed.
    expect(state.handles.size).toBeGreaterThan(0);
    for (const handle of state.handles) expect(handle.fd).toBe(-1);
  });

  it("aborted after the set was built: the set stands", async () => {
    const controller = new AbortController();
    const set = await fromNdjson(PATH, {}, { signal: controller.signal });
    controller.abort();
    expect(set.size).toBe(30_000);
    expect(set.count({ Severity: "High" })).toBe(10_000);
  });

  it("a stream passed in, aborted after its 3rd chunk: rejects, and the stream is left to the caller", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped during");
    const stream = passedStream((k) => {
      if (k === 3) controller.abort(reason);
    });
    await expect(fromNdjson(stream, {}, { signal: controller.signal })).rejects.toBe(reason);
    const pushed = stream.pushed;
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect([stream.destroyed, stream.isPaused(), stream.pushed]).toEqual([false, true, pushed]);
    for (const event of ["data", "readable", "end", "error", "close"])
      expect(stream.listenerCount(event), event).toBe(0);
    // The caller may still read the rest (past the chunks the library took) or destroy it.
    let rest = 0;
    for await (const chunk of stream) rest += (chunk as Buffer).length;
    expect(rest).toBeGreaterThan(0);
    expect(rest).toBeLessThan(TEXT.length);
  });

  it("refuses a signal that is no AbortSignal, before reading", async () => {
    const state = await countedReads(() => {});
    const refused = fromNdjson(PATH, {}, { signal: "soon" as unknown as AbortSignal });
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toThrow(/^fromNdjson: signal must be an AbortSignal, not /);
    expect(state.reads).toBe(0);
  });
});

describe("standard input after an abort", () => {
  /** A program that reads `-` with `call` and aborts after 50 turns, then says what became of stdin. */
  const program = (call: string) => `
    const { matchNdjson, fromNdjson } = await import(${JSON.stringify(fileURLToPath(new URL("../../src/node/index.ts", import.meta.url)))});
    const controller = new AbortController();
    let turns = 0;
    const spin = () => (++turns === 50 ? controller.abort(new Error("stop")) : setImmediate(spin));
    setImmediate(spin);
    const signal = controller.signal;
    const outcome = await ${call}.then(() => "resolved", (error) => "rejected: " + error.message);
    console.log(JSON.stringify({ outcome, destroyed: process.stdin.destroyed, paused: process.stdin.isPaused() }));`;
  it.each([
    ["matchNdjson", 'matchNdjson("-", {}, { signal })'],
    ["fromNdjson", 'fromNdjson("-", {}, { signal })'],
  ])(
    "%s: rejects with the reason; stdin is paused, not destroyed, and no longer keeps the process alive",
    async (_name, call) => {
      // Standard input is a pipe nobody writes to, and that is never closed: the child must end by itself.
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program(call)], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(0);
      expect(JSON.parse(out)).toEqual({ outcome: "rejected: stop", destroyed: false, paused: true });
    },
    30_000,
  );
});
