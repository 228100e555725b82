/**
 * `incident-query/node` attacked as a hostile program or input would (docs/node.md, "Hostile calls and
 * inputs"): malformed calls, inputs that end, fail, shrink or never open, consumers that stall, throw or
 * reject, an abort at every stage. Every case must end in a typed error or an answer, never a crash, a hang
 * or a worker left running. Bounds are counts (bytes pulled, turns of the event loop, workers), never
 * seconds; the tests' timeouts are hang guards only.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { SearchConditionsError } from "../../src/conditions/issues.js";
import type * as source from "../../src/node/index.js";
import { fromNdjson, matchNdjson, NdjsonInputError } from "../../src/node/index.js";
import { chunked } from "../support/chunked-stream.js";
import { fcOptions } from "../support/fc.js";

const dir = mkdtempSync(join(tmpdir(), "iq-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function write(bytes: Buffer | string): string {
  const path = join(dir, `in-${++files}.ndjson`);
  writeFileSync(path, bytes);
  return path;
}

/** An incident line of about 250 bytes; every other one is `Status: Open`. */
const line = (k: number) =>
  JSON.stringify({
    IncidentId: k,
    Status: k % 2 === 1 ? "Open" : "Closed",
    Title: `${"t".repeat(180)} ${k}`,
    CreatedUtcTime: "2024-01-01T00:00:00Z",
  });
const lines = (from: number, count: number) =>
  Buffer.from(`${Array.from({ length: count }, (_, k) => line(from + k)).join("\n")}\n`);
/** About 9 MB: more than two blocks of 4 MiB. */
const BIG_LINES = 36_000;
const big = lines(0, BIG_LINES);

/** A stream of incident lines without end, 64 KiB a read, counting the bytes it gave. */
function endless(): Readable & { pulled: number } {
  let k = 0;
  const stream = new Readable({
    read() {
      const chunk = lines(k, 256);
      k += 256;
      stream.pulled += chunk.length;
      this.push(chunk);
    },
  }) as Readable & { pulled: number };
  stream.pulled = 0;
  return stream;
}

/** Resolves after `count` turns of the event loop. */
async function turns(count: number): Promise<void> {
  for (let k = 0; k < count; k++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A stream passed in, after a read that stopped before its end: left to the caller (docs/node.md, "Whose
 * stream"): not destroyed, paused, none of the library's listeners left, and nothing more pulled from it.
 */
async function expectLeftToCaller(stream: Readable & { pulled: number }): Promise<void> {
  expect(stream.destroyed).toBe(false);
  expect(stream.isPaused()).toBe(true);
  for (const event of ["data", "readable", "end", "error", "close"])
    expect(stream.listenerCount(event), event).toBe(0);
  const pulled = stream.pulled;
  await turns(20);
  expect(stream.pulled).toBe(pulled);
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("a malformed call is refused with a typed error, before anything is read", () => {
  const file = write("{}\n");
  const cases: [string, () => Promise<unknown>, new (...args: never[]) => Error, RegExp][] = [
    ["options null", () => matchNdjson(file, {}, null as never), TypeError, /options must be an object/],
    ["options a number", () => matchNdjson(file, {}, 5 as never), TypeError, /options must be an object/],
    [
      "a misspelled option",
      () => matchNdjson(file, {}, { lmit: 5 } as never),
      TypeError,
      /Unknown matchNdjson option 'lmit': expected one of catalog, countMatches, label, limit, limits, maxErrors, maxLineLength, mode, onMatch, signal, skipInvalid, threads\./,
    ],
    [
      "options with a __proto__ key (JSON.parse)",
      () => matchNdjson(file, {}, JSON.parse('{"__proto__": {"limit": 1}, "mode": "count"}')),
      TypeError,
      /Unknown matchNdjson option '__proto__'/,
    ],
    [
      "onMatch not a function",
      () => matchNdjson(file, {}, { mode: "all", onMatch: 5 as never }),
      TypeError,
      /onMatch must be a function, not the number 5/,
    ],
    [
      "signal not an AbortSignal",
      () => matchNdjson(file, {}, { signal: {} as never }),
      TypeError,
      /signal must be an AbortSignal/,
    ],
    [
      "skipInvalid not a boolean",
      () => matchNdjson(file, {}, { skipInvalid: "yes" as never }),
      TypeError,
      /skipInvalid must be a boolean, not the string "yes"/,
    ],
    [
      "countMatches not a boolean",
      () => matchNdjson(file, {}, { countMatches: 0 as never }),
      TypeError,
      /countMatches must be a boolean, not the number 0/,
    ],
    [
      "countMatches false with a count",
      () => matchNdjson(file, {}, { mode: "count", countMatches: false }),
      RangeError,
      /countMatches false is only for mode "first" .*, not the string "count"\./,
    ],
    [
      "label not a string",
      () => matchNdjson(file, {}, { label: 5 as never }),
      TypeError,
      /label must be a string/,
    ],
    [
      "input a number",
      () => matchNdjson(5 as never, {}),
      TypeError,
      /input must be a path or a readable stream, not the number 5/,
    ],
    [
      "input a web ReadableStream",
      () => matchNdjson(new ReadableStream() as never, {}),
      TypeError,
      /not a web ReadableStream \(pass Readable\.fromWeb\(stream\), from node:stream\)/,
    ],
    [
      "input a plain object",
      () => matchNdjson({} as never, {}),
      TypeError,
      /input must be a path or a readable stream, not an object/,
    ],
    [
      "limit 0",
      () => matchNdjson(file, {}, { mode: "all", limit: 0 }),
      RangeError,
      /limit must be a positive whole number, not the number 0\./,
    ],
    ["limit -1", () => matchNdjson(file, {}, { mode: "all", limit: -1 }), RangeError, /not the number -1\./],
    ["limit NaN", () => matchNdjson(file, {}, { mode: "all", limit: Number.NaN }), RangeError, /not NaN\./],
    [
      "limit 1e300",
      () => matchNdjson(file, {}, { mode: "all", limit: 1e300 }),
      RangeError,
      /not the number 1e\+300\./,
    ],
    [
      'limit "5" (a string)',
      () => matchNdjson(file, {}, { mode: "all", limit: "5" as never }),
      RangeError,
      /not the string "5"\./,
    ],
    [
      "threads 0",
      () => matchNdjson(file, {}, { threads: 0 }),
      RangeError,
      /threads must be a positive whole number, not the number 0\./,
    ],
    ["threads NaN", () => matchNdjson(file, {}, { threads: Number.NaN }), RangeError, /not NaN\./],
    ["threads 2.5", () => matchNdjson(file, {}, { threads: 2.5 }), RangeError, /not the number 2\.5\./],
    [
      "maxLineLength 0",
      () => matchNdjson(file, {}, { maxLineLength: 0 }),
      RangeError,
      /maxLineLength must be a positive whole number, not the number 0\./,
    ],
    [
      "maxLineLength Infinity",
      () => matchNdjson(file, {}, { maxLineLength: Number.POSITIVE_INFINITY }),
      RangeError,
      /not Infinity\./,
    ],
    ["maxErrors -1", () => matchNdjson(file, {}, { maxErrors: -1 }), RangeError, /not the number -1\./],
    [
      "mode __proto__",
      () => matchNdjson(file, {}, { mode: "__proto__" as never }),
      RangeError,
      /mode must be/,
    ],
    ["conditions null", () => matchNdjson(file, null), SearchConditionsError, /found null/],
    ["conditions a number", () => matchNdjson(file, 5), SearchConditionsError, /found the number 5/],
    ["conditions a string", () => matchNdjson(file, "x"), SearchConditionsError, /found the string "x"/],
    ["conditions an empty array", () => matchNdjson(file, []), SearchConditionsError, /non-empty array/],
    ["conditions a function", () => matchNdjson(file, () => 1), SearchConditionsError, /found a function/],
    [
      "conditions with a __proto__ key",
      () => matchNdjson(file, JSON.parse('{"__proto__": {"Status": "Open"}}')),
      SearchConditionsError,
      /'__proto__' is not allowed/,
    ],
  ];
  it.each(cases)("%s", async (_name, call, type, message) => {
    const error = await errorOf(call());
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
    expect(({} as Record<string, unknown>).limit).toBeUndefined();
  });

  it("a stream given with a malformed call is left as it was (nothing read)", async () => {
    const stream = chunked(big, 4096);
    await expect(matchNdjson(stream, {}, { threads: 0 })).rejects.toBeInstanceOf(RangeError);
    expect([stream.destroyed, stream.readableDidRead]).toEqual([false, false]);
  });
});

describe("inputs that are empty, fail, end early or change while read", () => {
  const gz = gzipSync(big);
  const failing = (bytes: Buffer, at: number) =>
    new Readable({
      read() {
        this.push(bytes.subarray(0, at));
        this.destroy(new Error("connection reset"));
      },
    });
  const destroyed = () => {
    const stream = chunked(big, 4096);
    stream.destroy();
    return stream;
  };
  type Want = { found: number; records: number; problems?: number } | { kind: string; message: RegExp };
  const cases: [string, () => source.NdjsonInput, Want][] = [
    ["an empty stream", () => Readable.from([]), { found: 0, records: 0 }],
    ["a 0-byte file", () => write(""), { found: 0, records: 0 }],
    ["blank lines only", () => write("\n \n\r\n"), { found: 0, records: 0 }],
    ["a byte order mark only", () => write("\ufeff"), { found: 0, records: 0 }],
    ["a byte order mark, then a blank line", () => write("\ufeff \r\n\n"), { found: 0, records: 0 }],
    ["one byte, no record", () => write("{"), { found: 0, records: 1, problems: 1 }],
    ["a destroyed stream", destroyed, { kind: "ioError", message: /Premature close/ }],
    [
      "a stream that errs mid-line",
      () => failing(big, 1000),
      { kind: "ioError", message: /connection reset/ },
    ],
    [
      "a gzip stream that errs mid-member",
      () => failing(gz, 5000),
      { kind: "ioError", message: /connection reset/ },
    ],
    [
      "truncated gzip",
      () => write(gz.subarray(0, gz.length - 100)),
      { kind: "dataError", message: /not a valid gzip stream: the compressed data ends too early/ },
    ],
    [
      "gzip followed by garbage",
      () => write(Buffer.concat([gzipSync("{}\n"), Buffer.from("garbage\n{}\n")])),
      { kind: "dataError", message: /not a valid gzip stream/ },
    ],
    [
      "two gzip members and a broken third",
      () => write(Buffer.concat([gzipSync("{}\n"), gzipSync("{}\n"), Buffer.from([0x1f, 0x8b, 1, 2, 3])])),
      { kind: "dataError", message: /not a valid gzip stream/ },
    ],
    ["a directory", () => dir, { kind: "noInput", message: /it is a directory, not a file/ }],
    [
      "an object-mode stream of values",
      () => Readable.from([{ IncidentId: 1 }]),
      {
        kind: "dataError",
        message: /^The input is not a stream of bytes or text: it gave a value of type object/,
      },
    ],
    [
      "an object-mode stream that gives undefined",
      () =>
        new Readable({
          objectMode: true,
          read() {
            this.push(undefined);
            this.push(null);
          },
        }),
      { kind: "dataError", message: /it gave undefined/ },
    ],
    [
      "a stream of text chunks (setEncoding)",
      () => Readable.from(['{"Status":', '"Open"}\n{}']),
      { found: 1, records: 2 },
    ],
    [
      "a stream of Uint8Arrays",
      () =>
        Readable.from([
          new Uint8Array(Buffer.from('{"Status":"Open"}\n')),
          new Uint8Array(Buffer.from("{}")),
        ]),
      { found: 1, records: 2 },
    ],
  ];
  it.each(cases)("matchNdjson: %s", async (_name, input, want) => {
    const outcome = await matchNdjson(input(), { Status: "Open" }, { mode: "count" }).then(
      (r) => ({
        found: r.found,
        records: r.records,
        ...("problems" in want ? { problems: r.problems.length } : {}),
      }),
      (error: unknown) => {
        expect(error).toBeInstanceOf(NdjsonInputError);
        return { kind: (error as NdjsonInputError).kind, message: (error as Error).message };
      },
    );
    if ("kind" in want)
      expect(outcome).toMatchObject({ kind: want.kind, message: expect.stringMatching(want.message) });
    else expect(outcome).toEqual(want);
  });

  it.each(cases)("fromNdjson: %s", async (_name, input, want) => {
    const outcome = await fromNdjson(input()).then(
      (set) => ({ size: set.size }),
      (error: unknown) => error,
    );
    if ("kind" in want) {
      expect(outcome).toBeInstanceOf(NdjsonInputError);
      expect(outcome).toMatchObject({ kind: want.kind, message: expect.stringMatching(want.message) });
    } else if (want.problems === undefined) expect(outcome).toEqual({ size: want.records });
    else expect(outcome).toBeInstanceOf(SyntaxError); // the set refuses an invalid line (IncidentSet.fromNdjson)
  });

  /** Changes the file at `path` when the first line is given to `onMatch` (before its blocks are read). */
  const changed = (change: (path: string) => void) => async () => {
    const path = write(big);
    return matchNdjson(
      path,
      {},
      {
        mode: "all",
        threads: 1,
        onMatch: ({ line }) => {
          if (line === 1) change(path);
        },
      },
    );
  };
  const changes: [string, () => Promise<source.MatchNdjsonResult>, Want][] = [
    [
      "a file that shrinks while read",
      changed((path) => truncateSync(path, 3_000_000)),
      { kind: "ioError", message: /shrank while it was read \(\d+ bytes when opened, \d+ now\)/ },
    ],
    [
      "a file emptied while read",
      changed((path) => truncateSync(path, 0)),
      { kind: "ioError", message: /shrank while it was read/ },
    ],
    // The size when the read starts is what is read: lines appended after are not.
    [
      "a file that grows while read",
      changed((path) => appendFileSync(path, big)),
      { found: BIG_LINES, records: BIG_LINES },
    ],
    // The file opened is the file read, whatever happens to its name meanwhile.
    [
      "a file removed while read",
      changed((path) => unlinkSync(path)),
      { found: BIG_LINES, records: BIG_LINES },
    ],
    [
      "a file replaced under its name while read (another file renamed over it)",
      changed((path) => {
        const other = write(lines(0, 10));
        renameSync(other, path);
      }),
      { found: BIG_LINES, records: BIG_LINES },
    ],
  ];
  it.each(changes)("%s", async (_name, run, want) => {
    const outcome = await run().then(
      (r) => ({ found: r.found, records: r.records }),
      (error: unknown) => {
        expect(error).toBeInstanceOf(NdjsonInputError);
        return { kind: (error as NdjsonInputError).kind, message: (error as Error).message };
      },
    );
    if ("kind" in want)
      expect(outcome).toMatchObject({ kind: want.kind, message: expect.stringMatching(want.message) });
    else expect(outcome).toEqual(want);
  });
});

describe("maxLineLength at its edges: the same problems on a file and a stream", () => {
  const text = `${line(1)}\n${line(2)}\n{}\n`;
  // line(2) is the longer: "Closed" against "Open".
  const longest = line(2).length;
  const cases: [string, number, { found: number; problems: number }][] = [
    ["1 character: only {} fits (as too long a line is a problem)", 1, { found: 0, problems: 3 }],
    ["2 characters: {} fits exactly", 2, { found: 1, problems: 2 }],
    ["one less than the longest line", longest - 1, { found: 2, problems: 1 }],
    ["the longest line exactly", longest, { found: 3, problems: 0 }],
    ["2^53 - 1 (no bound in practice)", Number.MAX_SAFE_INTEGER, { found: 3, problems: 0 }],
  ];
  it.each(cases)("%s", async (_name, maxLineLength, want) => {
    for (const input of [() => write(text), () => chunked(Buffer.from(text), 7)]) {
      const result = await matchNdjson(input(), {}, { mode: "count", maxLineLength, maxErrors: 10 });
      expect({ found: result.found, problems: result.problems.length }).toEqual(want);
      for (const problem of result.problems)
        expect(problem.message).toBe(`longer than ${maxLineLength} characters (--max-line-length)`);
    }
  });
});

describe("prototype keys in options, conditions and records pollute nothing", () => {
  it("fromNdjson refuses a __proto__ option and a non-stream input; a record's __proto__ key is a field", async () => {
    await expect(fromNdjson(write("{}\n"), JSON.parse('{"__proto__": {"polluted": 1}}'))).rejects.toThrow(
      /Unknown IncidentSet option '__proto__'/,
    );
    await expect(fromNdjson(5 as never)).rejects.toThrow(
      /fromNdjson: input must be a path or a readable stream, not the number 5/,
    );
    const record = '{"__proto__": {"Status": "Open", "polluted": 1}, "Status": "Closed"}';
    const found = await matchNdjson(write(`${record}\n`), { Status: "Open" }, { mode: "count" });
    expect([found.found, found.records, found.problems]).toEqual([0, 1, []]);
    const all = await matchNdjson(write(`${record}\n`), { Status: "Closed" }, { mode: "all" });
    expect(Object.getPrototypeOf(all.matches[0]!.record)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("property: a stream that fails at any byte, gzip cut at any byte (fixed seed, printed on failure)", () => {
  const bytes = lines(0, 400);
  const gz = gzipSync(bytes);
  it("a stream that errs after any number of bytes rejects with an ioError", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: bytes.length - 1 }),
        fc.integer({ min: 1, max: 5000 }),
        async (at, size) => {
          let given = 0;
          const stream = new Readable({
            read() {
              if (given >= at) {
                this.destroy(new Error("connection reset"));
                return;
              }
              const chunk = bytes.subarray(given, Math.min(at, given + size));
              given += chunk.length;
              this.push(chunk);
            },
          });
          await expect(matchNdjson(stream, {}, { mode: "count" })).rejects.toMatchObject({
            kind: "ioError",
            message: expect.stringMatching(/connection reset/),
          });
        },
      ),
      fcOptions(60),
    );
  }, 60_000);
  it("gzip cut after any byte past its magic is a dataError, from a file and a stream", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: gz.length - 1 }), async (at) => {
        const cut = gz.subarray(0, at);
        for (const input of [() => write(cut), () => chunked(cut, 1000)])
          await expect(matchNdjson(input(), {}, { mode: "count" })).rejects.toMatchObject({
            kind: "dataError",
          });
      }),
      fcOptions(60),
    );
  }, 60_000);
});

describe("a named pipe as the path", () => {
  /** A new named pipe (one per test: readers of one pipe share its writers), or undefined without mkfifo. */
  let pipes = 0;
  const pipe = (): string | undefined => {
    const path = join(dir, `fifo-${++pipes}`);
    try {
      execFileSync("mkfifo", [path]);
      return path;
    } catch {
      return undefined;
    }
  };
  const haveFifo = pipe() !== undefined;
  it.skipIf(!haveFifo)(
    "with no writer: an abort ends the wait for one (the open never hangs)",
    async () => {
      const fifo = pipe()!;
      const controller = new AbortController();
      const read = matchNdjson(fifo, {}, { signal: controller.signal });
      await turns(20);
      controller.abort(new Error("no writer came"));
      await expect(read).rejects.toThrow("no writer came");
    },
    20_000,
  );

  it.skipIf(!haveFifo)(
    "with a writer: every record, by matchNdjson and by fromNdjson (read once, as a stream)",
    async () => {
      const fifo = pipe()!;
      const text = lines(0, 3000).toString();
      const writer = () => {
        const child = spawn("sh", ["-c", 'cat > "$0"', fifo], { stdio: ["pipe", "ignore", "ignore"] });
        child.stdin.end(text);
        return new Promise((resolve) => child.on("close", resolve));
      };
      const [counted] = await Promise.all([matchNdjson(fifo, {}, { mode: "count" }), writer()]);
      expect([counted.found, counted.problems]).toEqual([3000, []]);
      const [set] = await Promise.all([fromNdjson(fifo), writer()]);
      expect(set.size).toBe(3000);
    },
    20_000,
  );
});

describe("an abort while standard input is idle", () => {
  /** A program that reads `-` (or `process.stdin` given as a stream) and aborts after 50 turns. */
  const program = (input: string) => `
    const { matchNdjson } = await import(${JSON.stringify(fileURLToPath(new URL("../../src/node/index.ts", import.meta.url)))});
    const controller = new AbortController();
    let turns = 0;
    const spin = () => (++turns === 50 ? controller.abort(new Error("stop")) : setImmediate(spin));
    setImmediate(spin);
    const outcome = await matchNdjson(${input}, {}, { signal: controller.signal }).then(
      () => "resolved",
      (error) => "rejected: " + error.message,
    );
    console.log(outcome);`;
  it.each([
    ["-", '"-"'],
    ["process.stdin as a stream", "process.stdin"],
  ])(
    "%s: the read rejects with the reason (it waited for input for ever)",
    async (_name, input) => {
      // Standard input is a pipe nobody writes to; the child is ended once it has answered.
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", program(input)],
        {
          stdio: ["pipe", "pipe", "inherit"],
        },
      );
      let out = "";
      const answer = await new Promise<string>((resolve) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out.trim());
        });
        child.on("close", () => resolve(out.trim()));
      });
      child.kill();
      expect(answer).toBe("rejected: stop");
    },
    30_000,
  );
});

describe("consumers that stall, throw or reject; an abort at every stage", () => {
  it("a stalled onMatch stops the reading: the bytes pulled from an endless stream stay bounded", async () => {
    const stream = endless();
    const controller = new AbortController();
    let calls = 0;
    const read = matchNdjson(
      stream,
      {},
      {
        mode: "all",
        signal: controller.signal,
        onMatch: () => {
          calls++;
          return new Promise(() => {}); // never settles
        },
      },
    );
    await turns(200);
    const pulled = stream.pulled;
    await turns(200);
    expect(stream.pulled).toBe(pulled);
    // At most the stream's buffer (16 KiB) and the chunks taken: a few reads of 64 KiB.
    expect(pulled).toBeLessThanOrEqual(4 * 65_536 + 16_384 * 4);
    expect(calls).toBe(1);
    controller.abort(new Error("client went away"));
    // The pending onMatch does not keep the read from ending.
    await expect(read).rejects.toThrow("client went away");
    await expectLeftToCaller(stream);
  }, 20_000);

  it("after an abort, onMatch is not called again (the rest of the block is dropped)", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const read = matchNdjson(
      write(big),
      {},
      {
        mode: "all",
        threads: 1,
        signal: controller.signal,
        onMatch: ({ line }) => {
          seen.push(line);
          // Aborted while this match is taken; the block holds thousands more.
          if (line === 100) controller.abort(new Error("stop"));
          return line === 100 ? Promise.resolve() : undefined;
        },
      },
    );
    await expect(read).rejects.toThrow("stop");
    expect(seen.at(-1)).toBe(100);
  }, 20_000);

  const consumers: [string, () => unknown][] = [
    [
      "throws",
      () => {
        throw new Error("consumer broke");
      },
    ],
    ["rejects", () => Promise.reject(new Error("consumer broke"))],
  ];
  it.each(consumers)(
    "an onMatch that %s: the read rejects with its error and leaves the stream to the caller",
    async (_n, fail) => {
      const stream = endless();
      let calls = 0;
      const read = matchNdjson(
        stream,
        {},
        {
          mode: "all",
          onMatch: () => (++calls === 500 ? fail() : undefined),
        },
      );
      await expect(read).rejects.toThrow("consumer broke");
      expect(calls).toBe(500);
      await expectLeftToCaller(stream);
    },
    20_000,
  );

  it("a long read lets the event loop turn (an abort from a timer or a request is heard)", async () => {
    // Eight blocks of a file by one thread, and the same bytes as a stream of 64 KiB chunks.
    const bytes = Buffer.concat([big, big, big, big]);
    const path = write(bytes);
    for (const input of [() => path, () => chunked(bytes, 65_536)]) {
      let turnsTaken = 0;
      let running = true;
      const spin = () => {
        if (!running) return;
        turnsTaken++;
        setImmediate(spin);
      };
      setImmediate(spin);
      const result = await matchNdjson(input(), {}, { mode: "count", threads: 1 });
      running = false;
      expect(result.found).toBe(4 * BIG_LINES);
      expect(turnsTaken).toBeGreaterThanOrEqual(4);
    }
  }, 60_000);

  const stages: [string, (signal: AbortSignal, abort: () => void) => Promise<unknown>][] = [
    [
      "before the call",
      (signal, abort) => {
        abort();
        return matchNdjson(write(big), {}, { signal });
      },
    ],
    [
      "before the first line is whole (a stream that stalls)",
      async (signal, abort) => {
        const stream = new Readable({ read() {} });
        stream.push('{"IncidentId": 1, "Title": "');
        const read = matchNdjson(stream, {}, { signal });
        await turns(20);
        abort();
        return read;
      },
    ],
    [
      "in the blocks of a file, counting (by a turn of the event loop)",
      async (signal, abort) => {
        const read = matchNdjson(
          write(Buffer.concat([big, big, big])),
          {},
          { mode: "count", threads: 1, signal },
        );
        await turns(2);
        abort();
        return read;
      },
    ],
    [
      "in a stream's lines, counting",
      async (signal, abort) => {
        const read = matchNdjson(
          chunked(Buffer.concat([big, big, big, big]), 65_536),
          {},
          { mode: "count", signal },
        );
        await turns(10);
        abort();
        return read;
      },
    ],
    [
      "in gzip",
      async (signal, abort) => {
        const read = matchNdjson(
          chunked(gzipSync(Buffer.concat([big, big])), 65_536),
          {},
          { mode: "count", signal },
        );
        await turns(10);
        abort();
        return read;
      },
    ],
  ];
  it.each(stages)(
    "an abort %s rejects with the signal's reason",
    async (_name, run) => {
      const controller = new AbortController();
      const reason = new Error("aborted here");
      await expect(run(controller.signal, () => controller.abort(reason))).rejects.toBe(reason);
    },
    20_000,
  );
});

const BUILT = fileURLToPath(new URL("../../dist/node/index.js", import.meta.url));
describe.skipIf(!existsSync(BUILT))(
  "worker threads (the built entry): none left running, none past the cores",
  () => {
    /** Runs `work` and returns its outcome with the workers started and still running after it. */
    async function workersOf(work: () => Promise<unknown>) {
      const running = new Set<Worker>();
      let started = 0;
      const onWorker = (worker: Worker) => {
        started++;
        running.add(worker);
        worker.once("exit", () => running.delete(worker));
      };
      process.on("worker", onWorker);
      try {
        const outcome = await work().then(
          (r) => r,
          (error: unknown) => error,
        );
        await turns(20);
        return { outcome, started, running: running.size };
      } finally {
        process.off("worker", onWorker);
      }
    }
    const file = () => write(Buffer.concat([big, big, big]));
    it.each([
      ["threads 100", { mode: "count" as const, threads: 100 }],
      [
        "an onMatch that throws",
        {
          mode: "all" as const,
          threads: 2,
          onMatch: ({ line }: { line: number }) => {
            if (line === 50_000) throw new Error("consumer broke");
          },
        },
      ],
    ])(
      "%s",
      async (_name, options) => {
        const built = (await import(BUILT)) as typeof source;
        const { outcome, started, running } = await workersOf(() => built.matchNdjson(file(), {}, options));
        expect(running).toBe(0);
        expect(started).toBeLessThanOrEqual(Math.max(0, availableParallelism() - 1));
        if (options.mode === "count") expect((outcome as source.MatchNdjsonResult).found).toBe(3 * BIG_LINES);
        else expect((outcome as Error).message).toBe("consumer broke");
      },
      120_000,
    );

    it("a stalled onMatch holds the workers back: at most the window of blocks is judged ahead", async () => {
      const built = (await import(BUILT)) as typeof source;
      // About 45 MB: eleven blocks.
      const path = write(Buffer.concat([big, big, big, big, big]));
      const controller = new AbortController();
      let posted = 0;
      const onWorker = (worker: Worker) => worker.on("message", () => posted++);
      process.on("worker", onWorker);
      try {
        let stalled = false;
        const read = built.matchNdjson(
          path,
          {},
          {
            mode: "all",
            threads: 2,
            signal: controller.signal,
            onMatch: ({ line }) => {
              if (line !== 100) return undefined;
              stalled = true;
              return new Promise(() => {});
            },
          },
        );
        for (let k = 0; k < 20_000 && !stalled; k++) await turns(1);
        await turns(500);
        const seen = posted;
        await turns(500);
        // Blocks judged while the consumer waits: at most the window (four) past the one being taken.
        expect([stalled, posted === seen, posted <= 5]).toEqual([true, true, true]);
        controller.abort(new Error("stop"));
        await expect(read).rejects.toThrow("stop");
      } finally {
        process.off("worker", onWorker);
      }
    }, 120_000);

    it("a file removed while read: the workers read the file opened, to its end", async () => {
      const built = (await import(BUILT)) as typeof source;
      const path = file();
      const removed = await workersOf(() =>
        built.matchNdjson(
          path,
          {},
          {
            mode: "all",
            threads: 2,
            onMatch: ({ line }) => {
              if (line === 1) unlinkSync(path);
            },
          },
        ),
      );
      expect(removed.running).toBe(0);
      expect((removed.outcome as source.MatchNdjsonResult).found).toBe(3 * BIG_LINES);
    }, 120_000);

    it("an abort while onMatch never settles, and a file that shrinks: typed, no worker left", async () => {
      const built = (await import(BUILT)) as typeof source;
      const controller = new AbortController();
      const aborted = await workersOf(async () => {
        const read = built.matchNdjson(
          file(),
          {},
          {
            mode: "all",
            threads: 2,
            signal: controller.signal,
            onMatch: ({ line }) => (line === 60_000 ? new Promise(() => {}) : undefined),
          },
        );
        // Abort once the read has stalled at the consumer (its turns go on).
        for (let k = 0; k < 10_000 && !controller.signal.aborted; k++) {
          await turns(1);
          if (k === 2_000) controller.abort(new Error("stop"));
        }
        return read;
      });
      expect(aborted).toMatchObject({ running: 0, outcome: { message: "stop" } });
      const path = file();
      const shrunk = await workersOf(() =>
        built.matchNdjson(
          path,
          {},
          {
            mode: "all",
            threads: 2,
            onMatch: ({ line }) => {
              if (line === 1) truncateSync(path, 5_000_000);
            },
          },
        ),
      );
      expect(shrunk.running).toBe(0);
      expect(shrunk.outcome).toMatchObject({ name: "NdjsonInputError", kind: "ioError" });
    }, 120_000);
  },
);
