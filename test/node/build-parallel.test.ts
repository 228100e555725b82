/**
 * The parallel `fromNdjson` of the Node entry (src/node/build.ts): a set built in ranges (threads 2 and 4,
 * tiny blocks, so that lines are cut at block boundaries and ranges hold one line, many, or none) equals the
 * one-thread set in every answer: size, every record in order (key order and bytes), counts, first matches,
 * lists and plans of many conditions, and the first error (the earliest bad line's, numbered in the whole
 * file). From the sources every range is built in this thread and appended as a worker's part would be
 * (the export and append of ndjson-parts.ts); the built entry runs worker threads (at the end). Every build
 * reads its lines with the line kernel (the Node entry's default), and equals the one-thread build of the
 * JavaScript scanner alone too, errors and their line numbers included (records compared byte for byte:
 * src/node/kernel.test.ts).
 */

import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type IncidentSet,
  IncidentSet as IncidentSetClass,
  type IncidentSetOptions,
} from "../../src/incidents/incident-set.js";
import { buildThreads, expectedLines, PARALLEL_BUILD_MIN_BLOCKS } from "../../src/node/build.js";
import { FileBlocks } from "../../src/node/file-blocks.js";
import { buildNdjson, fromNdjson } from "../../src/node/match.js";
import { fieldConditionArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";

let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "iq-pbuild-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function fileOf(bytes: Uint8Array | string): Promise<string> {
  const path = join(dir, `f${files++}.ndjson`);
  await writeFile(path, bytes);
  return path;
}

/** Fields the sets index, and the conditions asked of every set (fixed seed). */
const FIELDS = [
  "Severity",
  "Status",
  "Title",
  "Number",
  "ExternalKey",
  "IncidentId",
  "CreatedUtcTime",
  "Site",
  "Type",
];
const CONDITIONS: unknown[] = [
  {},
  { Severity: "High" },
  { Title: { $regex: "phish", $options: "i" } },
  { Title: { $regex: "^M" } },
  { Site: "s1" },
  { CreatedUtcTime: { $gte: { $date: "2024-01-01T00:00:00Z" } } },
  ...fc.sample(
    fc
      .constantFrom(...FIELDS)
      .chain((field) => fieldConditionArb(field).map((value) => ({ [field]: value }))),
    { seed: 37, numRuns: 40 },
  ),
];

type Outcome = { set: string } | { error: string };

/** Everything a caller can see of a set, as one string; or the error. */
function observe(set: IncidentSet): string {
  const seen: unknown[] = [set.size, set.findAll({}).map((record) => JSON.stringify(record))];
  for (const condition of CONDITIONS) {
    try {
      seen.push(
        set.count(condition as never),
        JSON.stringify(set.findFirst(condition as never) ?? null),
        set.findAll(condition as never).map((record) => JSON.stringify(record)),
        set.explain(condition as never),
      );
    } catch (error) {
      seen.push(String(error));
    }
  }
  for (const site of ["s1", "s2"]) seen.push(set.count({ Severity: "High" }, { site }));
  seen.push(set.footprint().hashEntries);
  return JSON.stringify(seen);
}

async function outcome(
  path: string,
  threads: number,
  blockBytes: number,
  options: IncidentSetOptions,
  kernel?: null,
): Promise<Outcome> {
  try {
    return { set: observe(await buildNdjson(path, { ...options, threads }, blockBytes, {}, kernel)) };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

/** Threads 2 and 4 against threads 1, at one block size; and one thread without the line kernel. */
async function expectSameBuilds(path: string, blockBytes: number, options: IncidentSetOptions = {}) {
  const one = await outcome(path, 1, blockBytes, options);
  expect(await outcome(path, 1, blockBytes, options, null)).toEqual(one);
  for (const threads of [2, 4]) expect(await outcome(path, threads, blockBytes, options)).toEqual(one);
  return one;
}

const encoder = new TextEncoder();

/** A line of the generated exports: an incident (some with distinct titles), or a blank or odd line. */
const lineArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(incidentArb({ columnOddities: true }), fc.nat(50), fc.constantFrom("s1", "s2", "s3"))
      .map(([incident, n, site]) =>
        encoder.encode(JSON.stringify({ ...incident, Site: site, ...(n > 25 ? { Title: `T${n}` } : {}) })),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        "",
        "   ",
        "\r",
        "\ufeff",
        '\ufeff{"Severity":"High","IncidentId":3}',
        '{"Severity":"Low","IncidentId":1}\r',
        '  {"Title":"padded"}  ',
        '{"Title":"\\u0041\\n","Severity":"High"}',
        '{"Title":"été","Status":"Open"}',
        "{}",
        '{"Severity":["High","Low"],"Site":{"a":1}}',
      )
      .map((line) => encoder.encode(line)),
  },
);

/** A line that fails the build. */
const badLineArb: fc.Arbitrary<Uint8Array> = fc
  .constantFrom<string | Uint8Array>(
    "not json",
    "[1,2]",
    "42",
    '{"Severity":"High","Severity":"Low"}',
    '{"Title":"unterminated',
    new Uint8Array([0x7b, 0x22, 0x54, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
  )
  .map((line) => (typeof line === "string" ? encoder.encode(line) : line));

/** Lines, and a third of the time one to three bad lines among them. */
const exportArb: fc.Arbitrary<Uint8Array[]> = fc
  .tuple(
    fc.array(lineArb, { maxLength: 40 }),
    fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(fc.tuple(badLineArb, fc.nat()), { minLength: 1, maxLength: 3 }) },
    ),
  )
  .map(([lines, bad]) => {
    const out = [...lines];
    for (const [line, at] of bad) out.splice(at % (out.length + 1), 0, line);
    return out;
  });

function joinLines(lines: readonly Uint8Array[], crlf: boolean, lastBreak: boolean): Uint8Array {
  const parts: Uint8Array[] = [];
  lines.forEach((line, i) => {
    parts.push(line);
    if (i < lines.length - 1 || lastBreak) parts.push(encoder.encode(crlf ? "\r\n" : "\n"));
  });
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("fromNdjson with threads: the one-thread set", () => {
  it("on generated exports with hostile lines cut at block boundaries (property, fixed seed)", async () => {
    const seed = 20261207;
    try {
      await fc.assert(
        fc.asyncProperty(
          exportArb,
          fc.boolean(),
          fc.boolean(),
          fc.constantFrom(1, 7, 64, 300, 4096),
          fc.constantFrom<IncidentSetOptions>(
            {},
            { maxDictionary: 2 },
            { maxDictionary: 4, textIndex: false },
            { maxDictionary: 0 },
          ),
          async (lines, crlf, lastBreak, blockBytes, options) => {
            const path = await fileOf(joinLines(lines, crlf, lastBreak));
            await expectSameBuilds(path, blockBytes, options);
          },
        ),
        { seed, numRuns: 100 },
      );
    } catch (error) {
      throw new Error(`fast-check seed ${seed}: ${(error as Error).message}`);
    }
  });

  const incident = (i: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      IncidentId: 1000 - i,
      Severity: ["High", "Low", "Medium"][i % 3],
      Title: `Title ${i}`,
      Site: `s${i % 2}`,
      CreatedUtcTime: `2024-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
      Number: `N-${i}`,
      ...extra,
    });
  const rows = (n: number, extra?: (i: number) => Record<string, unknown>) =>
    Array.from({ length: n }, (_, i) => incident(i, extra?.(i)));

  const cases: [string, string | Uint8Array, number, IncidentSetOptions?][] = [
    ["an empty file", "", 4],
    ["a one-line file", incident(1), 4],
    ["a one-line file ending with \\n", `${incident(1)}\n`, 4],
    ["blank lines only", "\n\n \r\n\n", 1],
    ["blocks holding no line start (a line longer than a block)", rows(6).join("\n"), 16],
    [
      "a line longer than many blocks",
      `${incident(1, { Extra: "x".repeat(5000) })}\n${rows(5).join("\n")}`,
      64,
    ],
    ["CRLF lines", rows(20).join("\r\n"), 50],
    ["a byte order mark at the start of the file and of lines", `\ufeff${rows(8).join("\n\ufeff")}`, 40],
    [
      "a label that outgrows maxDictionary in one range only",
      [...rows(10, () => ({ Type: "A" })), ...rows(10, (i) => ({ Type: `T${i}` }))].join("\n"),
      300,
      { maxDictionary: 5 },
    ],
    [
      "a label that outgrows maxDictionary only in all (each range has few values)",
      rows(40, (i) => ({ Type: `T${i % 12}` })).join("\n"),
      200,
      { maxDictionary: 8 },
    ],
    [
      "dictionaries dropped without a text index",
      rows(40, (i) => ({ Type: `T${i % 12}` })).join("\n"),
      200,
      { maxDictionary: 8, textIndex: false },
    ],
    [
      "a small text index budget",
      rows(60).join("\n"),
      300,
      { maxDictionary: 4, textIndex: { maxBytes: 64 } },
    ],
    [
      "arrays and objects in indexed fields",
      rows(30, (i) => (i % 4 === 0 ? { Number: [i], Severity: { x: i } } : {})).join("\n"),
      128,
    ],
  ];
  it.each(cases)("%s", async (_name, text, blockBytes, options) => {
    const path = await fileOf(text);
    const one = await expectSameBuilds(path, blockBytes, options ?? {});
    expect("set" in one).toBe(true);
  });

  const bad: [string, string | Uint8Array, string][] = [
    [
      "the earliest bad line, though a later range fails too",
      [...rows(10), "not json", ...rows(10), "[1]", ...rows(10)].join("\n"),
      "SyntaxError: NDJSON line 11:",
    ],
    ["a bad line in the last range only", [...rows(30), "[1]"].join("\n"), "TypeError: NDJSON line 31:"],
    [
      "a repeated key after blank lines",
      [...rows(5), "", "", ...rows(20), '{"Severity":"High","Severity":"Low"}'].join("\n"),
      "SyntaxError: NDJSON line 28:",
    ],
    [
      "invalid UTF-8",
      joinLines([...rows(20).map((r) => encoder.encode(r)), new Uint8Array([0x7b, 0xff, 0x7d])], false, true),
      "SyntaxError: NDJSON line 21:",
    ],
  ];
  it.each(bad)("%s", async (_name, text, start) => {
    const path = await fileOf(text);
    for (const blockBytes of [1, 90, 500]) {
      const one = await expectSameBuilds(path, blockBytes);
      expect("error" in one && one.error.startsWith(start)).toBe(true);
    }
  });

  it("answers as the one-thread set after records are added to it", async () => {
    const path = await fileOf(rows(60, (i) => ({ Type: `T${i % 9}` })).join("\n"));
    const added = [
      { IncidentId: 1, Title: "added", Type: "T-new", Severity: "High", Site: "s1" },
      { IncidentId: 2, Title: ["x"], Type: "T1", CreatedUtcTime: "2023-01-01T00:00:00Z" },
    ];
    const seen: string[] = [];
    for (const threads of [1, 2, 4]) {
      const set = await buildNdjson(path, { maxDictionary: 6, threads }, 200);
      for (const record of added) set.add(record);
      seen.push(observe(set));
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
  });

  it("refuses threads that are not a positive whole number", async () => {
    const path = await fileOf(incident(1));
    for (const threads of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(fromNdjson(path, { threads })).rejects.toThrow(
        /^fromNdjson: threads must be a positive whole number/,
      );
    }
    await expect(fromNdjson(path, { threads: "2" as unknown as number })).rejects.toThrow(RangeError);
    expect((await fromNdjson(path, { threads: 3 })).size).toBe(1);
  });

  it("equality indexes built by their first lookup: the same answers, rows added before it included", async () => {
    const path = await fileOf(rows(300, (i) => ({ ExternalKey: `E-${i % 7}` })).join("\n"));
    for (const threads of [1, 2]) {
      const set = await buildNdjson(path, { threads }, 512);
      const index = (set as unknown as { hashes: Map<string, { built: number; rows: number }> }).hashes.get(
        "Number",
      )!;
      // Nothing bucketed by the build: the hashes are kept, the buckets wait for a lookup.
      expect(index.rows).toBe(300);
      expect(index.built).toBe(0);
      set.add({ IncidentId: 5000, Number: "N-12", ExternalKey: "E-3", Title: "added" });
      expect(set.count({ Number: "N-12" })).toBe(2);
      expect(index.built).toBe(301);
      expect(set.findAll({ ExternalKey: { $in: ["E-3", "E-5"] } }).length).toBe(
        rows(300).filter((_, i) => i % 7 === 3 || i % 7 === 5).length + 1,
      );
      expect((set.findFirst({ IncidentId: 1000 - 299 }) as { Number: string }).Number).toBe("N-299");
      expect(set.findFirst({ IncidentId: 1000 - 300 })).toBeUndefined();
    }
  });

  it("sizes the build for the lines the first range predicts, at most 2 × parts times its lines", async () => {
    const table: [lines: number, bytes: number, size: number, parts: number, expected: number][] = [
      [0, 0, 100, 2, 0],
      [10, 0, 100, 2, 0],
      [500, 1000, 2000, 2, 1000],
      [500, 1000, 2001, 2, 1001],
      // A first range of short lines cannot size the build past 2 × parts times its lines.
      [1000, 1000, 1e9, 2, 4000],
      [1000, 1000, 1e9, 4, 8000],
      // A range read past the file's end (its last line) counts the file's bytes.
      [10, 5000, 4000, 2, 10],
    ];
    for (const [lines, bytes, size, parts, expected] of table)
      expect(expectedLines(lines, bytes, size, parts)).toBe(expected);
    // Whatever the estimate, the set is the one-thread set: too low (parts grow it), too high (unused room).
    const path = await fileOf([...rows(40), ...rows(40, (i) => ({ Extra: "x".repeat(i * 30) }))].join("\n"));
    const one = observe(await buildNdjson(path, { threads: 1 }, 300));
    for (const blockBytes of [64, 300, 2000]) {
      expect(observe(await buildNdjson(path, { threads: 2 }, blockBytes))).toEqual(one);
    }
    const build = IncidentSetClass.ndjsonBuild({});
    const lines = new TextEncoder().encode(`${rows(30).join("\n")}\n`);
    build.lines(lines, 0, lines.length, true);
    build.settle(1e6);
    const reserved = build.finish();
    const plain = IncidentSetClass.ndjsonBuild({});
    plain.lines(lines, 0, lines.length, true);
    plain.settle();
    expect(observe(reserved)).toEqual(observe(plain.finish()));
    expect(reserved.footprint().typedArrayBytes).toBeGreaterThan(1e6 * 8);
  });

  it("by default builds a file of 16 blocks or more with the cores, a smaller one with one thread", async () => {
    const cores = Math.min(8, availableParallelism());
    // The rule: `threads` when given; else the cores (at most 8) from 16 blocks on.
    const table: [number | undefined, number, number][] = [
      [undefined, 0, 1],
      [undefined, 15 * 100 + 99, 1],
      [undefined, 16 * 100, cores],
      [undefined, 1e12, cores],
      [1, 1e12, 1],
      [3, 0, 3],
    ];
    for (const [asked, size, threads] of table) expect(buildThreads(asked, size, 100)).toBe(threads);
    expect(PARALLEL_BUILD_MIN_BLOCKS).toBe(16);
    // And the build follows it: from the sources every range is built here, one `ndjsonBuild` per range
    // (none for a one-thread build, which is `IncidentSet.fromNdjson`'s).
    const blockBytes = 200;
    const small = await fileOf(
      rows(15)
        .join("\n")
        .slice(0, 15 * blockBytes - 1),
    );
    const large = await fileOf(rows(60).join("\n"));
    const spy = vi.spyOn(IncidentSetClass, "ndjsonBuild");
    try {
      const one = await buildNdjson(large, { threads: 1 }, blockBytes);
      expect(spy).toHaveBeenCalledTimes(0);
      const byDefault = await buildNdjson(large, {}, blockBytes);
      expect(spy).toHaveBeenCalledTimes(cores === 1 ? 0 : cores);
      expect(observe(byDefault)).toEqual(observe(one));
      spy.mockClear();
      await buildNdjson(small, {}, blockBytes);
      await buildNdjson(small, { threads: undefined as unknown as number }, blockBytes);
      expect(spy).toHaveBeenCalledTimes(0);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("fromNdjson with threads: an abort", () => {
  it("rejects with the signal's reason before the call, between two blocks of a range and between ranges", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ IncidentId: i, Title: `T ${i}` }));
    const path = await fileOf(lines.join("\n"));
    const reason = new Error("stop");
    await expect(buildNdjson(path, { threads: 2 }, 512, { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    // From the sources every range is built by this thread, block after block (about 24 blocks here): an
    // abort while the first, the second or the tenth block is read ends the build at the next block.
    const read = FileBlocks.prototype.lines;
    for (const turns of [1, 2, 10]) {
      const controller = new AbortController();
      let blocks = 0;
      const spy = vi.spyOn(FileBlocks.prototype, "lines").mockImplementation(function (this: FileBlocks, i) {
        if (++blocks === turns) controller.abort(reason);
        return read.call(this, i);
      });
      try {
        await expect(buildNdjson(path, { threads: 2 }, 512, { signal: controller.signal })).rejects.toBe(
          reason,
        );
      } finally {
        spy.mockRestore();
      }
      expect(blocks).toBe(turns);
    }
    // Not aborted: the same set as one thread builds.
    const signal = new AbortController().signal;
    const whole = await buildNdjson(path, { threads: 2 }, 512, { signal });
    expect(whole.size).toBe(400);
    await expect(buildNdjson(path, { threads: 2 }, 512, { signal: "no" as never })).rejects.toThrow(
      /signal must be an AbortSignal/,
    );
  });
});

const BUILT = fileURLToPath(new URL("../../dist/node/index.js", import.meta.url));
describe.skipIf(!existsSync(BUILT))("the built entry with worker threads", () => {
  it("builds the one-thread set with workers, and no worker outlives the call", async () => {
    const built = (await import(BUILT)) as { fromNdjson: typeof fromNdjson };
    let live = 0;
    let started = 0;
    const onWorker = (worker: { once(event: "exit", listener: () => void): unknown }) => {
      started++;
      live++;
      worker.once("exit", () => live--);
    };
    process.on("worker", onWorker);
    try {
      // Over two blocks of 4 MiB: two ranges.
      const lines = Array.from({ length: 100_000 }, (_, i) =>
        JSON.stringify({
          IncidentId: i,
          Severity: ["High", "Low"][i % 2],
          Title: `T ${i}`,
          Site: `s${i % 3}`,
        }),
      );
      const good = await fileOf(lines.join("\n"));
      const glance = (set: IncidentSet) =>
        JSON.stringify([
          set.size,
          set.findAll({}).map((record) => JSON.stringify(record)),
          set.count({ Severity: "High" }),
          set.count({ Title: { $regex: "9$" } }),
          set.findFirst({ Number: "x" }) ?? null,
          set.count({ Severity: "Low" }, { site: "s1" }),
        ]);
      const one = glance(await built.fromNdjson(good, { threads: 1 }));
      expect(glance(await built.fromNdjson(good, { threads: 2 }))).toEqual(one);
      expect(live).toBe(0);
      // A bad line in the first range: the call rejects at once, and the worker is ended.
      const badFirst = await fileOf(["[1]", ...lines].join("\n"));
      await expect(built.fromNdjson(badFirst, { threads: 2 })).rejects.toThrow(/^NDJSON line 1: /);
      expect(live).toBe(0);
      // A bad line in the worker's range: its error, numbered in the file.
      const badLast = await fileOf([...lines, "[1]"].join("\n"));
      await expect(built.fromNdjson(badLast, { threads: 2 })).rejects.toThrow(/^NDJSON line 100001: /);
      expect(live).toBe(0);
      // Builds at once share matchNdjson's budget (the cores minus one in all), and answer the same.
      let most = 0;
      const watch = () => {
        most = Math.max(most, live);
      };
      process.on("worker", watch);
      try {
        const sets = await Promise.all([1, 2, 3].map(() => built.fromNdjson(good, { threads: 8 })));
        for (const set of sets) expect(glance(set)).toEqual(one);
      } finally {
        process.off("worker", watch);
      }
      expect(most).toBeLessThanOrEqual(Math.max(0, availableParallelism() - 1));
      expect(live).toBe(0);
      // An abort while the workers build their ranges: the signal's reason, and every worker ended.
      const controller = new AbortController();
      const reason = new Error("stop the build");
      const aborted = built.fromNdjson(good, { threads: 2 }, { signal: controller.signal });
      setImmediate(() => controller.abort(reason));
      await expect(aborted).rejects.toBe(reason);
      expect(live).toBe(0);
    } finally {
      process.off("worker", onWorker);
    }
    // On one core there is no worker to take; on more, one per two-thread build (and some for the three
    // builds at once).
    expect(started === 0 || started >= 3).toBe(true);
  });
});
