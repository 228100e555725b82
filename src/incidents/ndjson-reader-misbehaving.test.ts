/**
 * Attacks on `IncidentSet.fromNdjson` from a byte reader (`readNdjsonInPlace`), readers that misbehave
 * within their contract: reads of 0 bytes, odd result objects (getters, Proxies, thenables, values that
 * are no count), failures (rejections, throws, a read still under way when a line fails), what counts as a
 * reader, a real `FileHandle` closed mid-build, and results described without running the reader's code
 * again. The reads and the lines themselves are attacked in ndjson-reader-attack.test.ts.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cyclic, encode, KIB, line, records } from "../../test/support/ndjson-readers.js";
import { expectSameSets, outcome } from "../../test/support/same-sets.js";
import { IncidentSet } from "./incident-set.js";
import type { NdjsonByteReader } from "./ndjson.js";

/** A reader answering `answers[k]` to read `k` (after writing `fill` into the room, if given). */
function answering(answers: readonly (() => unknown)[], fill?: Uint8Array): NdjsonByteReader {
  let k = 0;
  return {
    read(buffer, offset) {
      if (fill !== undefined && k === 0) buffer.set(fill, offset);
      return answers[Math.min(k++, answers.length - 1)]!() as Promise<{ bytesRead: number }>;
    },
  };
}

/** Runs `body`, failing on any unhandled rejection it leaves (checked a few timer turns later). */
async function noUnhandled(body: () => Promise<void>): Promise<void> {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", listener);
  try {
    await body();
    for (let k = 0; k < 3; k++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", listener);
  }
}

const TWO = encode('{"IncidentId":1}\n{"IncidentId":2}\n{"Incid');

describe("readers that answer oddly", () => {
  it("takes a read of 0 bytes for the end of the input, whatever the reader would say next", async () => {
    const bytes = encode('{"IncidentId":1}\n{"IncidentId":2}\n{"IncidentId":3}');
    // 0 first: an empty set, and no other read asked.
    let reads = 0;
    const empty: NdjsonByteReader = {
      async read(buffer, offset) {
        if (reads++ === 0) return { bytesRead: 0 };
        buffer.set(bytes, offset);
        return { bytesRead: bytes.length };
      },
    };
    expect((await IncidentSet.fromNdjson(empty)).size).toBe(0);
    expect(reads).toBe(1);
    // 0 after part of a line: that part is the last line (without a line break), as the chunks' path reads it.
    for (const cut of [5, 17, 18, 20, 34, 35, bytes.length]) {
      let k = 0;
      const reader: NdjsonByteReader = {
        async read(buffer, offset) {
          if (k++ > 0) return { bytesRead: 0 };
          buffer.set(bytes.subarray(0, cut), offset);
          return { bytesRead: cut };
        },
      };
      expect(await records(IncidentSet.fromNdjson(reader))).toEqual(
        await records(IncidentSet.fromNdjson([bytes.subarray(0, cut)])),
      );
    }
    // -0 is 0.
    const minusZero = answering([async () => ({ bytesRead: -0 })]);
    expect((await IncidentSet.fromNdjson(minusZero)).size).toBe(0);
  });

  it.each<[string, () => unknown]>([
    ["a BigInt", () => ({ bytesRead: 3n })],
    ["NaN", () => ({ bytesRead: Number.NaN })],
    ["Infinity", () => ({ bytesRead: Number.POSITIVE_INFINITY })],
    ["-Infinity", () => ({ bytesRead: Number.NEGATIVE_INFINITY })],
    ["a Number object", () => ({ bytesRead: new Number(3) })],
    ["a symbol", () => Symbol("x")],
    ["a number", () => 3],
    ["a function", () => () => 3],
    ["an array", () => [3]],
    ["-1e-300", () => ({ bytesRead: -1e-300 })],
    ["length + 1", () => ({ bytesRead: 64 * KIB + 1 })],
    ["2^53", () => ({ bytesRead: 2 ** 53 })],
    ["an object whose bytesRead is inherited", () => Object.create({ bytesRead: "x" })],
  ])("rejects a read that resolves with %s with the reader's TypeError", async (_name, answer) => {
    await noUnhandled(async () => {
      for (const first of [true, false]) {
        const answers = first
          ? [async () => answer()]
          : [async () => ({ bytesRead: TWO.length }), async () => answer()];
        const error = await IncidentSet.fromNdjson(answering(answers, TWO)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(/^NDJSON reader: a read of up to \d+ bytes resolved with /);
      }
    });
  });

  it("takes a result whose bytesRead is inherited, a getter or read through a Proxy, when it is a count", async () => {
    const bytes = TWO;
    const results: ((n: number) => unknown)[] = [
      (n) => Object.create({ bytesRead: n }),
      (n) => ({
        get bytesRead() {
          return n;
        },
      }),
      (n) => new Proxy({}, { get: (_t, key) => (key === "bytesRead" ? n : undefined) }),
      (n) => Object.assign(Object.create(null), { bytesRead: n }),
    ];
    for (const result of results) {
      let at = 0;
      const reader: NdjsonByteReader = {
        async read(buffer, offset, length) {
          const n = Math.min(length, 7, bytes.length - at);
          buffer.set(bytes.subarray(at, at + n), offset);
          at += n;
          return result(n) as { bytesRead: number };
        },
      };
      expect(await records(IncidentSet.fromNdjson(reader))).toEqual(
        await records(IncidentSet.fromNdjson([bytes])),
      );
    }
  });

  it("rejects with the error of a result's getter or Proxy trap, or of a revoked Proxy, on any read", async () => {
    const failure = new Error("getter says no");
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const bad: (() => unknown)[] = [
      () => ({
        get bytesRead() {
          throw failure;
        },
      }),
      () =>
        new Proxy(
          {},
          {
            get() {
              throw failure;
            },
          },
        ),
      () => proxy,
    ];
    await noUnhandled(async () => {
      for (const answer of bad) {
        for (const first of [true, false]) {
          const answers = first
            ? [async () => answer()]
            : [async () => ({ bytesRead: TWO.length }), async () => answer()];
          const error = await IncidentSet.fromNdjson(answering(answers, TWO)).catch((e: unknown) => e);
          if (answer === bad[2]) expect(error).toBeInstanceOf(TypeError);
          else expect(error).toBe(failure);
        }
      }
    });
  });

  it("rejects with the reader's own failure: a rejection or a synchronous throw, on the first read or a later one", async () => {
    const failure = new Error("EIO: i/o error, read");
    const ways: (() => unknown)[] = [
      () => Promise.reject(failure),
      () => {
        throw failure;
      },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        throw failure;
      },
      // A thenable that rejects.
      () => ({
        // biome-ignore lint/suspicious/noThenProperty: a thenable is what a reader may answer
        then: (_ok: unknown, fail: (e: unknown) => void) => fail(failure),
      }),
    ];
    await noUnhandled(async () => {
      for (const way of ways) {
        for (const at of [0, 1, 2]) {
          // Reads before the failing one answer 10 bytes each.
          let done = 0;
          let k = 0;
          const reader: NdjsonByteReader = {
            read(buffer, offset) {
              if (k++ === at) return way() as Promise<{ bytesRead: number }>;
              const n = Math.min(10, TWO.length - done);
              buffer.set(TWO.subarray(done, done + n), offset);
              done += n;
              return Promise.resolve({ bytesRead: n });
            },
          };
          await expect(IncidentSet.fromNdjson(reader)).rejects.toBe(failure);
        }
      }
    });
  });

  it("takes a read that answers synchronously, through a thenable, or many timer turns later", async () => {
    const bytes = encode(`${line(1)}\n${line(2)}\r\n${line(3)}`);
    const expected = await records(IncidentSet.fromNdjson([bytes]));
    const make = (wrap: (result: { bytesRead: number }) => unknown): NdjsonByteReader => {
      let at = 0;
      return {
        read(buffer, offset, length) {
          const n = Math.min(length, 33, bytes.length - at);
          buffer.set(bytes.subarray(at, at + n), offset);
          at += n;
          return wrap({ bytesRead: n }) as Promise<{ bytesRead: number }>;
        },
      };
    };
    expect(await records(IncidentSet.fromNdjson(make((r) => r)))).toEqual(expected);
    expect(
      await records(
        IncidentSet.fromNdjson(
          make((r) => ({
            // biome-ignore lint/suspicious/noThenProperty: a thenable is what a reader may answer
            then: (ok: (v: unknown) => void) => ok(r),
          })),
        ),
      ),
    ).toEqual(expected);
    expect(
      await records(
        IncidentSet.fromNdjson(make((r) => new Promise((resolve) => setTimeout(() => resolve(r), 3)))),
      ),
    ).toEqual(expected);
  });
});

describe("what is a reader", () => {
  it("takes an object with read that is also iterable (own or inherited) for chunks", async () => {
    const chunks = [encode('{"IncidentId":1}\n'), '{"IncidentId":2}\n'];
    const read = () => {
      throw new Error("read must not be called");
    };
    const sync = { read, [Symbol.iterator]: () => chunks[Symbol.iterator]() };
    const asyncOne = {
      read,
      async *[Symbol.asyncIterator]() {
        yield* chunks;
      },
    };
    const inherited = Object.create(sync) as object;
    for (const source of [sync, asyncOne, inherited]) {
      expect((await IncidentSet.fromNdjson(source as never)).findAll({})).toEqual([
        { IncidentId: 1 },
        { IncidentId: 2 },
      ]);
    }
  });

  it("refuses a plain object, and one whose read is not a function, as before (TypeError, no read)", async () => {
    for (const source of [{}, { read: "x" }, { read: { bytesRead: 1 } }, Object.create(null)]) {
      await expect(IncidentSet.fromNdjson(source as never)).rejects.toBeInstanceOf(TypeError);
    }
  });

  it("is not fooled by a read, a bytesRead or an iterator on Object.prototype (restored after)", async () => {
    const proto = Object.prototype as Record<string, unknown>;
    try {
      // Pollution as JSON can write it (no functions): a plain object is still no reader.
      proto.read = { bytesRead: 1 };
      await expect(IncidentSet.fromNdjson({} as never)).rejects.toBeInstanceOf(TypeError);
      delete proto.read;
      // A result without its own bytesRead does not take an inherited one from Object.prototype? It does (a
      // property read), but it must still be a count within the read's length.
      proto.bytesRead = 1e9;
      const error = await IncidentSet.fromNdjson(answering([async () => ({})])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
    } finally {
      delete proto.read;
      delete proto.bytesRead;
    }
    expect("read" in {}).toBe(false);
    expect("bytesRead" in {}).toBe(false);
  });

  it("leaves Object.prototype alone when lines carry __proto__, constructor and prototype keys", async () => {
    const text = [
      '{"__proto__":{"read":1,"polluted":true},"IncidentId":1}',
      '{"constructor":{"prototype":{"polluted":true}},"IncidentId":2}',
      '{"IncidentId":3,"Severity":"High","__proto__":{"Severity":"Low"}}',
    ].join("\n");
    const bytes = encode(text);
    const set = await IncidentSet.fromNdjson(cyclic(bytes, [3, 11]));
    expect("polluted" in {}).toBe(false);
    expect("read" in {}).toBe(false);
    const objects = new IncidentSet(text.split("\n").map((l) => JSON.parse(l) as Record<string, unknown>));
    expectSameSets(set, objects);
    expect(set.count({ Severity: "High" })).toBe(1);
  });
});

describe("errors while a read is under way", () => {
  it("a bad line, the read under way then answering late (written into the chunk): rejects once, nothing left behind", async () => {
    await noUnhandled(async () => {
      for (const late of ["resolve", "reject", "never"] as const) {
        let reads = 0;
        const reader: NdjsonByteReader = {
          read(buffer, offset, length) {
            if (reads++ === 0) {
              const bytes = encode('{"IncidentId":1}\n[1]\n');
              buffer.set(bytes, offset);
              return Promise.resolve({ bytesRead: bytes.length });
            }
            return new Promise((resolve, reject) => {
              if (late === "never") return;
              setTimeout(() => {
                buffer.fill(0x7b, offset, offset + length);
                if (late === "resolve") resolve({ bytesRead: length });
                else reject(new Error("late"));
              }, 5);
            });
          },
        };
        await expect(IncidentSet.fromNdjson(reader)).rejects.toThrow(
          "NDJSON line 2: expected an incident object, found",
        );
        expect(reads).toBe(2);
      }
    });
  });
});

describe("a real FileHandle", () => {
  const dir = mkdtempSync(join(tmpdir(), "incident-query-reader-attack-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  for (let n = 0; n < 20_000; n++) lines.push(line(n));
  const path = join(dir, "incidents.ndjson");
  writeFileSync(path, `\ufeff${lines.join("\r\n")}`);

  it("rejects (no crash, no unhandled rejection) when the caller closes the handle mid-build", async () => {
    await noUnhandled(async () => {
      for (const after of [0, 1, 3]) {
        const handle = await open(path);
        let reads = 0;
        // The handle itself, closed from another task once `after` reads were asked.
        const reader: NdjsonByteReader = {
          read(buffer, offset, length, position) {
            if (reads++ === after) setImmediate(() => void handle.close());
            return handle.read(buffer, offset, length, position);
          },
        };
        const result = await outcome(IncidentSet.fromNdjson(reader));
        expect(typeof result).toBe("string");
        expect(result).toMatch(/^Error: .*(closed|EBADF)/);
        await handle.close();
      }
      // Closed before the build: rejects at once.
      const handle = await open(path);
      await handle.close();
      expect(await outcome(IncidentSet.fromNdjson(handle))).toMatch(/^Error: .*(closed|EBADF)/);
    });
  });

  it("reads on from where the handle stands, and rejects on a handle opened for writing only", async () => {
    const handle = await open(path);
    try {
      // The caller has read the first line already.
      const first = encode(`\ufeff${lines[0]}\r\n`);
      await handle.read(new Uint8Array(first.length), 0, first.length, null);
      const set = await IncidentSet.fromNdjson(handle);
      expectSameSets(set, await IncidentSet.fromNdjson([lines.slice(1).join("\n")]));
    } finally {
      await handle.close();
    }
    const written = join(dir, "write-only.ndjson");
    writeFileSync(written, "{}\n");
    const writeOnly = await open(written, "a");
    try {
      expect(await outcome(IncidentSet.fromNdjson(writeOnly))).toMatch(/^Error: .*EBADF/);
    } finally {
      await writeOnly.close();
    }
  });
});

describe("a read's result is described without running the reader's code again", () => {
  // Found by this attack: a result that failed the check was described by reading `bytesRead` again (a
  // getter ran twice) and by `String` of a function result (its `toString`): the build then rejected with
  // whatever that code threw, not the TypeError, or with a message as long as the string it returned.
  const failure = new Error("the reader's code ran again");
  it.each<[string, () => unknown]>([
    [
      "a getter that answers a string, then throws",
      () => {
        let reads = 0;
        return {
          get bytesRead() {
            if (reads++ === 0) return "3";
            throw failure;
          },
        };
      },
    ],
    [
      "a function whose toString throws",
      () =>
        Object.assign(() => 0, {
          toString() {
            throw failure;
          },
        }),
    ],
    [
      "a function whose toString is a megabyte",
      () =>
        Object.assign(() => 0, {
          toString() {
            return "y".repeat(1 << 20);
          },
        }),
    ],
  ])("rejects a read resolving with %s with a short TypeError", async (_name, answer) => {
    const error = await IncidentSet.fromNdjson(answering([async () => answer()])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message.length).toBeLessThan(300);
  });

  it("describes a result whose getter answers differently on a second look by what it answered first", async () => {
    // -1 first, then 5: `bytesRead` is read once, and the message names -1.
    let reads = 0;
    const result = {
      get bytesRead() {
        return reads++ === 0 ? -1 : 5;
      },
    };
    const error = await IncidentSet.fromNdjson(answering([async () => result])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/resolved with \{ bytesRead: -1 \}/);
    expect(reads).toBe(1);
  });
});

describe("options", () => {
  it("rejects bad options before any read", async () => {
    let reads = 0;
    const reader: NdjsonByteReader = {
      async read() {
        reads++;
        return { bytesRead: 0 };
      },
    };
    await expect(IncidentSet.fromNdjson(reader, { maxDictionary: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(IncidentSet.fromNdjson(reader, { nope: 1 } as never)).rejects.toBeInstanceOf(TypeError);
    expect(reads).toBe(0);
  });
});
