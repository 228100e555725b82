/**
 * Byte readers for the attacks on `IncidentSet.fromNdjson` (src/incidents/ndjson-reader-attack.test.ts and
 * ndjson-reader-misbehaving.test.ts): a scripted reader that checks its own contract (read sizes, junk in
 * the room, late answers), the lines they read, and the records of a build for comparing builds.
 */
import type { IncidentSet } from "../../src/incidents/incident-set.js";
import type { NdjsonByteReader } from "../../src/incidents/ndjson.js";

export const encode = (text: string) => new TextEncoder().encode(text);
export const KIB = 1024;

export type Delay = "sync" | "micro" | "immediate" | "timeout";

/** What one read does: how many bytes it returns, whether it scribbles first, when it answers. */
export interface ReadStep {
  readonly n: number;
  readonly junk?: boolean;
  readonly delay?: Delay;
}

const JUNK = encode('\n}\n{"Severity":"High","IncidentId":7}\r\n\ufeff"');

function later(delay: Delay | undefined): Promise<void> | undefined {
  if (delay === undefined || delay === "sync") return undefined;
  if (delay === "micro") return Promise.resolve();
  if (delay === "immediate") return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * A reader over `bytes`, read `k` answering as `plan(k, length, left)` says (`n` is clipped to `[1, length]`
 * and to what is left; 0 only at the end). Checks its own contract: every call is for `position` null and
 * within the buffer, and no read is asked while another is under way.
 */
export function scripted(
  bytes: Uint8Array,
  plan: (k: number, length: number, left: number) => ReadStep,
): NdjsonByteReader & { reads: number; lengths: number[] } {
  let at = 0;
  let busy = false;
  const reader = {
    reads: 0,
    lengths: [] as number[],
    read(buffer: Uint8Array, offset: number, length: number, position: null) {
      if (position !== null) throw new Error("position must be null");
      if (!(buffer instanceof Uint8Array)) throw new Error("buffer must be a Uint8Array");
      if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length <= 0)
        throw new Error(`bad read(${offset}, ${length})`);
      if (offset + length > buffer.length) throw new Error("read past the buffer");
      if (busy) throw new Error("a read while another is under way");
      busy = true;
      reader.lengths.push(length);
      const step = plan(reader.reads++, length, bytes.length - at);
      const n = Math.min(length, Math.max(1, step.n), bytes.length - at);
      // Junk over the bytes it returns and some way past them (all the room, when it is short).
      const room = Math.min(length, n + 8192);
      if (step.junk) for (let k = 0; k < room; k++) buffer[offset + k] = JUNK[k % JUNK.length]!;
      const finish = () => {
        if (step.junk) for (let k = 0; k < room; k++) buffer[offset + k] = JUNK[(k + 3) % JUNK.length]!;
        buffer.set(bytes.subarray(at, at + n), offset);
        at += n;
        busy = false;
        return { bytesRead: n };
      };
      const wait = later(step.delay);
      return wait === undefined ? Promise.resolve(finish()) : wait.then(finish);
    },
  };
  return reader;
}

/** A reader returning `list[k % list.length]` bytes on read `k`. */
export function cyclic(bytes: Uint8Array, list: readonly number[], extra: Omit<ReadStep, "n"> = {}) {
  return scripted(bytes, (k) => ({ n: list[k % list.length]!, ...extra }));
}

/** A JSON line of incident `n` (labels, a title, a date), with `extra` fields. */
export const line = (n: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    IncidentId: n,
    Number: `N-${n % 5}`,
    Severity: ["High", "Low", "Medium", "H\u00efgh"][n % 4],
    Title: n % 3 === 0 ? "phishing \u00e9t\u00e9" : `login ${n}`,
    CreatedUtcTime: new Date(Date.UTC(2023, 11, 30) + n * 3_600_000).toISOString(),
    ...extra,
  });

/** The records (or the error) of a build, for comparing builds quickly. */
export async function records(build: Promise<IncidentSet>): Promise<unknown> {
  try {
    const set = await build;
    return set.findAll({});
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}
