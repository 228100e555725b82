/**
 * `incident-query/node` from a program (docs/node.md): `matchNdjson` in every mode over files, streams cut
 * anywhere and gzip, held to `JSON.parse` + `evaluate` line by line (the first match by docs/semantics.md
 * 1.9); `skipInvalid`, `maxErrors`, `limit`, `onMatch`'s back-pressure, an aborted read and a stream that
 * fails; threads 1 and 2 through the built entry (workers run from dist/ only); `fromNdjson` on the same
 * inputs.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { isBefore, orderKeyOf } from "../../src/incidents/order.js";
import type * as source from "../../src/node/index.js";
import { fromNdjson, matchNdjson, NdjsonInputError } from "../../src/node/index.js";
import { searchConditionsArb } from "../arbitraries/conditions.js";
import { incidentArb } from "../arbitraries/incidents.js";
import { chunked } from "../support/chunked-stream.js";
import { untyped } from "../support/conditions-input.js";
import { fcOptions } from "../support/fc.js";

const dir = mkdtempSync(join(tmpdir(), "iq-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function write(bytes: Buffer | string): string {
  const path = join(dir, `in-${++files}.ndjson`);
  writeFileSync(path, bytes);
  return path;
}

const STATUSES = ["Open", "Closed", "In Progress"];
/** Incidents over two years, some on equal times (the first match's ties), with odd lines between. */
function exportLines(count: number, pad = 0): string[] {
  const lines: string[] = [];
  for (let k = 0; k < count; k++) {
    lines.push(
      JSON.stringify({
        IncidentId: (k * 7919) % 100_003,
        Status: STATUSES[k % 3],
        Severity: k % 5 === 0 ? "High" : "Low",
        Title: `Sign-in ${k} from host-${k % 97}${"x".repeat(pad)}`,
        CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + ((k * 104_729) % 500) * 86_400_000).toISOString(),
      }),
    );
    if (k % 50 === 7) lines.push("");
  }
  return lines;
}

const CONDITIONS: unknown[] = [
  { Status: "Open" },
  { Status: "Open|Closed", Severity: "High" },
  { CreatedUtcTime: { $in: [{ $date: "2024-01-01T00:00:00Z" }, { $date: "2024-03-01T00:00:00Z" }] } },
  { CreatedUtcTime: { $gte: { $date: "2024-06-01T00:00:00Z" }, $lt: { $date: "2024-07-01T00:00:00Z" } } },
  { Title: { $regex: "host-4[0-9]$" } },
  { $or: [{ Severity: "High" }, { IncidentId: { $mod: [7, 3] } }] },
];

/** What `matchNdjson` must answer, from `JSON.parse` and `evaluate` on each line. */
function expected(lines: readonly string[], conditions: unknown) {
  const condition = parseSearchConditions(conditions);
  const matches: { record: Record<string, unknown>; line: number; index: number }[] = [];
  let index = 0;
  lines.forEach((text, i) => {
    if (text.trim() === "") return;
    index++;
    const record = JSON.parse(text) as Record<string, unknown>;
    if (evaluate(condition, record)) matches.push({ record, line: i + 1, index });
  });
  let first: (typeof matches)[number] | undefined;
  for (const match of matches)
    if (first === undefined || isBefore(orderKeyOf(match.record), orderKeyOf(first.record))) first = match;
  return { found: matches.length, first, matches };
}

describe("matchNdjson over a file, streams and gzip: count, first, all", () => {
  const lines = exportLines(3000);
  const text = `${lines.join("\n")}\n`;
  const bytes = Buffer.from(text);
  const path = write(bytes);
  const gz = write(gzipSync(bytes));
  it.each(CONDITIONS.map((c) => [JSON.stringify(c), c]))("%s", async (_name, conditions) => {
    const want = expected(lines, conditions);
    const inputs = () => [path, gz, chunked(bytes, 4093), chunked(gzipSync(bytes), 777)];
    for (const input of inputs()) {
      const count = await matchNdjson(input, conditions, { mode: "count" });
      expect({ found: count.found, problems: count.problems, records: count.records }).toEqual({
        found: want.found,
        problems: [],
        records: lines.filter((l) => l.trim() !== "").length,
      });
    }
    for (const input of inputs()) {
      const first = await matchNdjson(input, conditions);
      expect(first.first).toEqual(want.first);
      expect(first.found).toBe(want.found);
    }
    // Without the count of every match: the same first match, `found` 1 or 0, the same lines and records.
    for (const input of inputs()) {
      const first = await matchNdjson(input, conditions, { countMatches: false });
      expect({ first: first.first, found: first.found, records: first.records }).toEqual({
        first: want.first,
        found: Math.min(1, want.found),
        records: lines.filter((l) => l.trim() !== "").length,
      });
    }
    for (const input of inputs()) {
      const all = await matchNdjson(input, conditions, { mode: "all" });
      expect(all.matches).toEqual(want.matches);
    }
    const limited = await matchNdjson(path, conditions, { mode: "all", limit: 3 });
    expect(limited.matches).toEqual(want.matches.slice(0, 3));
  });

  it("awaits onMatch (back-pressure) and gives the matches in input order", async () => {
    const want = expected(lines, CONDITIONS[0]);
    const seen: number[] = [];
    let pending = 0;
    const result = await matchNdjson(chunked(bytes, 1000), CONDITIONS[0], {
      mode: "all",
      onMatch: async (match) => {
        expect(pending).toBe(0);
        pending++;
        await new Promise<void>((resolve) => setImmediate(resolve));
        pending--;
        seen.push(match.line);
      },
    });
    expect(result.matches).toEqual([]);
    expect(result.found).toBe(want.found);
    expect(seen).toEqual(want.matches.map((m) => m.line));
  });

  it("takes a parsed condition and raw JSON alike; refuses malformed options", async () => {
    const parsed = parseSearchConditions(CONDITIONS[1]);
    expect((await matchNdjson(path, parsed, { mode: "count" })).found).toBe(
      expected(lines, CONDITIONS[1]).found,
    );
    for (const options of [
      { threads: 0 },
      { limit: 1.5 },
      { maxErrors: -1 },
      { mode: "some" },
      { mode: "count", countMatches: false },
      { mode: "all", countMatches: false },
    ]) {
      await expect(matchNdjson(path, {}, options as never)).rejects.toBeInstanceOf(RangeError);
    }
    await expect(matchNdjson(path, {}, { countMatches: "no" } as never)).rejects.toThrow(
      /^matchNdjson: countMatches must be a boolean, not the string "no"\.$/,
    );
    // `countMatches: true` is the default in every mode.
    expect((await matchNdjson(path, {}, { mode: "count", countMatches: true })).found).toBe(
      lines.filter((l) => l.trim() !== "").length,
    );
  });
});

describe("matchNdjson: invalid lines, skipInvalid, maxErrors, failures", () => {
  const good = (id: number) => `{"IncidentId":${id},"Status":"Open"}`;
  const input = Buffer.concat([
    Buffer.from(`${good(1)}\n{oops\n${good(3)}\n`),
    Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]),
    Buffer.from(`[1]\n${good(6)}\n{"IncidentId":7,"a":1,"a":2}\n${good(8)}`),
  ]);
  it("lists invalid records as problems with their line and reads on; invalid UTF-8 with skipInvalid only", async () => {
    for (const from of [() => write(input), () => chunked(input, 5), () => write(gzipSync(input))]) {
      const skipped = await matchNdjson(from(), { Status: "Open" }, { mode: "count", skipInvalid: true });
      expect(skipped.found).toBe(4);
      expect(skipped.problems.map((p) => [p.line, p.record])).toEqual([
        [2, 2],
        [4, 4],
        [5, 5],
        [7, 7],
      ]);
      expect(skipped.problems[1]!.message).toMatch(/^not valid UTF-8 \(byte 75 of the input\)$/);
      expect(skipped.problems[2]!.message).toMatch(/^Expected an incident \(a JSON object\)/);
      const capped = await matchNdjson(
        from(),
        { Status: "Open" },
        { mode: "count", skipInvalid: true, maxErrors: 1 },
      );
      expect([capped.problems.length, capped.unlisted]).toEqual([1, 3]);
      const error = await matchNdjson(from(), { Status: "Open" }, { mode: "count" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NdjsonInputError);
      expect(error).toMatchObject({ kind: "dataError" });
      expect((error as Error).message).toMatch(/line 4 is not valid UTF-8 \(byte 75 of the input\)\.$/);
    }
  });

  it("rejects with noInput for a missing file, ioError for a stream that fails, dataError for bad gzip", async () => {
    await expect(matchNdjson(join(dir, "none.ndjson"), {})).rejects.toMatchObject({ kind: "noInput" });
    await expect(matchNdjson(dir, {})).rejects.toMatchObject({ kind: "noInput" });
    const failing = new Readable({
      read() {
        this.push(Buffer.from(`${good(1)}\n${good(2)}\n`));
        this.destroy(new Error("connection reset"));
      },
    });
    const failed = await matchNdjson(failing, {}, { mode: "count" }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ kind: "ioError", name: "NdjsonInputError" });
    expect((failed as Error).message).toMatch(/connection reset/);
    const gz = gzipSync(Buffer.from(`${good(1)}\n`));
    const corrupt = write(Buffer.concat([gz.subarray(0, 12), Buffer.alloc(20, 0x55)]));
    await expect(matchNdjson(corrupt, {})).rejects.toMatchObject({ kind: "dataError" });
  });

  it("an aborted read rejects with the signal's reason and leaves the stream to the caller", async () => {
    const lines = exportLines(2000);
    const stream = chunked(Buffer.from(`${lines.join("\n")}\n`), 512);
    const controller = new AbortController();
    let taken = 0;
    const result = matchNdjson(
      stream,
      {},
      {
        mode: "all",
        signal: controller.signal,
        onMatch: () => {
          if (++taken === 10) controller.abort(new Error("client went away"));
        },
      },
    );
    await expect(result).rejects.toThrow("client went away");
    expect(taken).toBeLessThan(lines.length);
    // A stream passed in stays the caller's: paused, not destroyed (docs/node.md, "Whose stream").
    expect([stream.destroyed, stream.isPaused(), stream.listenerCount("data")]).toEqual([false, true, 0]);
    const aborted = new AbortController();
    aborted.abort();
    await expect(matchNdjson(write("{}\n"), {}, { signal: aborted.signal })).rejects.toThrow();
  });
});

describe("property: matchNdjson over hostile lines cut anywhere answers as JSON.parse + evaluate", () => {
  /** Lines the reader must judge exactly as the text does: spellings, escapes, CRLF, blanks, broken lines. */
  const lineArb = fc.oneof(
    { arbitrary: incidentArb().map((incident) => JSON.stringify(incident)), weight: 6 },
    {
      arbitrary: incidentArb().map((incident) => JSON.stringify(incident, null, 1).replaceAll("\n", " ")),
      weight: 1,
    },
    {
      // Keys and values written with escapes, which the byte reader leaves to JSON.parse.
      arbitrary: incidentArb().map((incident) =>
        JSON.stringify(incident).replace(
          /"([A-Z])/g,
          (_m, c: string) => `"\\u00${c.charCodeAt(0).toString(16)}`,
        ),
      ),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom(
        "",
        "   ",
        "{oops",
        "[1,2]",
        "null",
        '{"IncidentId":1,"Status":"Open","Status":"Closed"}',
        '{"IncidentId":2,"Title":"\\ud800","Status":"Open\\u0000"}',
        "\ufeff{}",
      ),
      weight: 1,
    },
  );
  it("in every mode, for every chunking (fixed seed, printed on failure)", async () => {
    await fc.assert(
      fc.asyncProperty(
        searchConditionsArb({ arrayOperators: true }),
        fc.array(lineArb, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        async (conditions, lines, cut, crlf) => {
          const text = lines.join(crlf ? "\r\n" : "\n");
          const bytes = Buffer.from(text);
          const condition = parseSearchConditions(conditions);
          // The reference: each non-blank line parsed; an object is judged by evaluate, else a problem.
          const problems: number[] = [];
          const matched: number[] = [];
          let first: { record: Record<string, unknown>; line: number } | undefined;
          lines.forEach((raw, i) => {
            const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
            if (line.trim() === "") return;
            let value: unknown;
            try {
              value = JSON.parse(i === 0 && line.startsWith("\ufeff") ? line.slice(1) : line);
            } catch {
              problems.push(i + 1);
              return;
            }
            if (
              value === null ||
              typeof value !== "object" ||
              Array.isArray(value) ||
              /"Status":"Open","Status"/.test(line)
            ) {
              problems.push(i + 1);
              return;
            }
            const record = value as Record<string, unknown>;
            if (!evaluate(condition, record)) return;
            matched.push(i + 1);
            if (first === undefined || isBefore(orderKeyOf(record), orderKeyOf(first.record)))
              first = { record, line: i + 1 };
          });
          const all = await matchNdjson(chunked(bytes, cut), condition, { mode: "all", maxErrors: 1000 });
          expect(all.matches.map((m) => m.line)).toEqual(matched);
          expect(all.problems.map((p) => p.line)).toEqual(problems);
          const one = await matchNdjson(chunked(bytes, cut), condition);
          expect(one.first?.line).toBe(first?.line);
          const counted = await matchNdjson(chunked(bytes, cut), condition, { mode: "count" });
          expect(counted.found).toBe(matched.length);
        },
      ),
      fcOptions(150),
    );
  });
});

describe("fromNdjson reads files, gzip and streams through the same source", () => {
  it("builds the set matchNdjson counts on", async () => {
    const lines = exportLines(500);
    const bytes = Buffer.from(`${lines.join("\n")}\n`);
    for (const input of [
      write(bytes),
      write(gzipSync(bytes)),
      chunked(bytes, 999),
      chunked(gzipSync(bytes), 99),
    ]) {
      const set = await fromNdjson(input);
      for (const conditions of CONDITIONS)
        expect(set.count(untyped(conditions))).toBe(expected(lines, conditions).found);
    }
    await expect(fromNdjson(join(dir, "none"))).rejects.toMatchObject({ kind: "noInput" });
  });
});

const BUILT = fileURLToPath(new URL("../../dist/node/index.js", import.meta.url));
describe.skipIf(!existsSync(BUILT))("the built entry with worker threads (threads 1 and 2)", () => {
  it("answers the same with 1 and 2 threads over a file of several blocks", async () => {
    const built = (await import(BUILT)) as typeof source;
    // About 10 MB: more than two blocks of 4 MiB, so a second thread reads blocks.
    const lines = exportLines(34_000, 200);
    const path = write(`${lines.join("\n")}\n`);
    let started = 0;
    const count = () => started++;
    process.on("worker", count);
    const startedWith: Record<number, number> = { 1: 0, 2: 0 };
    try {
      for (const conditions of CONDITIONS.slice(0, 4)) {
        const want = expected(lines, conditions);
        for (const threads of [1, 2]) {
          const before = started;
          const counted = await built.matchNdjson(path, conditions, { mode: "count", threads });
          startedWith[threads] = startedWith[threads]! + started - before;
          expect(counted.found).toBe(want.found);
          expect((await built.matchNdjson(path, conditions, { threads })).first).toEqual(want.first);
          const quick = await built.matchNdjson(path, conditions, { threads, countMatches: false });
          expect([quick.first, quick.found]).toEqual([want.first, Math.min(1, want.found)]);
          const all = await built.matchNdjson(path, conditions, { mode: "all", threads, limit: 50 });
          expect(all.matches).toEqual(want.matches.slice(0, 50));
        }
      }
    } finally {
      process.off("worker", count);
    }
    // One worker beside this thread for each count with 2 threads (at most the cores read); none with 1.
    expect(startedWith).toEqual({ 1: 0, 2: 4 * (Math.min(2, availableParallelism()) - 1) });
  }, 300_000);

  it("shares one budget of worker threads between concurrent reads, given back however a read ends", async () => {
    const built = (await import(BUILT)) as typeof source;
    const lines = exportLines(34_000, 200);
    const path = write(`${lines.join("\n")}\n`);
    const budget = availableParallelism() - 1;
    let live = 0;
    let most = 0;
    let started = 0;
    const onWorker = (worker: { once(event: "exit", listener: () => void): unknown }) => {
      started++;
      most = Math.max(most, ++live);
      worker.once("exit", () => live--);
    };
    process.on("worker", onWorker);
    try {
      const conditions = CONDITIONS[1];
      const want = expected(lines, conditions);
      // Six reads at once, each asking for 8 threads: never more workers than the cores minus one in all.
      const counts = await Promise.all(
        Array.from({ length: 6 }, () => built.matchNdjson(path, conditions, { mode: "count", threads: 8 })),
      );
      for (const counted of counts) expect(counted.found).toBe(want.found);
      expect(most).toBeLessThanOrEqual(budget);
      expect(started).toBeGreaterThanOrEqual(Math.min(1, budget));
      // An aborted read and a failing onMatch give their workers back: the next read still gets its worker.
      const controller = new AbortController();
      await expect(
        built.matchNdjson(path, conditions, {
          mode: "all",
          threads: 2,
          signal: controller.signal,
          onMatch: () => controller.abort(new Error("enough")),
        }),
      ).rejects.toThrow("enough");
      await expect(
        built.matchNdjson(path, conditions, {
          mode: "all",
          threads: 2,
          onMatch: () => {
            throw new Error("no more");
          },
        }),
      ).rejects.toThrow("no more");
      const before = started;
      expect((await built.matchNdjson(path, conditions, { mode: "count", threads: 2 })).found).toBe(
        want.found,
      );
      expect(started - before).toBe(Math.min(1, budget));
    } finally {
      process.off("worker", onWorker);
    }
  }, 300_000);
});
