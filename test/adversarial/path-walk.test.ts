/**
 * A record that nests `[{"0": …}]` under a condition `{"a.0.0.0…": 2}` (docs/semantics.md 1.7, "The walk
 * of a dotted path"): a numeric segment both takes element 0 of an array and reads the field "0" of each
 * element, so the routes of the walk doubled every level or two. At 24 levels (199 bytes) `evaluate` took
 * 45 s and `compile` 14.7 s; the CLI's `match` took 33.6 s and 898 MB on a 250-byte NDJSON line.
 *
 * Every bound is a ratio to the plain record of the same size and depth (`[{"b": …}]` under `a.b.b…`, as
 * many segments, which reach the number and then nothing), whose walk examines each value about once: the hostile record may cost at most the plain one times the length of
 * the path (the rule's size × length). Costs are counts: the values `evaluate`'s walk examines, the reads of
 * the record by `compile` and `IncidentSet` (counting Proxies). The walk keeps one entry per value it
 * examines, so the same counts bound its memory. The built CLI is bounded by its peak memory and its processor
 * time (not wall time, which a busy machine stretches), as generous ratios to the same CLI on the plain line.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Condition } from "../../src/conditions/ast.js";
import { compile } from "../../src/conditions/compile.js";
import { evaluate, walkSteps } from "../../src/conditions/evaluate.js";
import { parseSearchConditions } from "../../src/conditions/parse.js";
import { IncidentSet } from "../../src/incidents/incident-set.js";
import {
  countingRecord,
  nestedPlainText,
  nestedZerosText,
  type ReadCounter,
  repeatedPath,
} from "../support/counting-proxy.js";
import { switched } from "../support/tiers.js";

const DEPTHS = [16, 20, 24] as const;

/** The hostile record and condition of `depth` levels, and the plain ones of the same size. */
function pair(depth: number) {
  const zeros = repeatedPath(2 * depth, "0");
  const plain = repeatedPath(2 * depth, "b");
  return {
    hostile: { text: nestedZerosText(depth), path: zeros, condition: parseSearchConditions({ [zeros]: 2 }) },
    plain: { text: nestedPlainText(depth), path: plain, condition: parseSearchConditions({ [plain]: 2 }) },
    pathLength: 2 * depth + 1,
  };
}

/** Reads of the record by one call of `run` on it (through counting Proxies). */
function readsOf(text: string, run: (record: object) => unknown): { reads: number; result: unknown } {
  const counter: ReadCounter = { reads: 0 };
  const result = run(countingRecord(JSON.parse(text) as object, counter));
  return { reads: counter.reads, result };
}

/** Reads of a record by `findAll` and `count` of an incident set holding it (reads while adding excluded). */
function setReadsOf(text: string, condition: Condition): { reads: number; result: unknown } {
  const counter: ReadCounter = { reads: 0 };
  const record = countingRecord(JSON.parse(text) as object, counter);
  const set = new IncidentSet<object>([{ a: 1 }, record]);
  counter.reads = 0;
  const found = set.findAll(condition).includes(record);
  expect(set.count(condition)).toBe(found ? 1 : 0);
  return { reads: counter.reads, result: found };
}

describe("the walk of a dotted path on [{0: …}] records (docs/semantics.md 1.7)", () => {
  it.each(DEPTHS)(
    "evaluate at depth %i: the values examined at most the plain record's × the path's length",
    (depth) => {
      const { hostile, plain, pathLength } = pair(depth);
      expect(evaluate(hostile.condition, JSON.parse(hostile.text))).toBe(true);
      expect(hostile.text.length).toBe(plain.text.length);
      const steps = walkSteps(JSON.parse(hostile.text), hostile.path.split("."));
      const plainSteps = walkSteps(JSON.parse(plain.text), plain.path.split("."));
      console.info(`evaluate, depth ${depth}: ${steps} values examined, plain ${plainSteps}`);
      expect(steps).toBeLessThanOrEqual(plainSteps * pathLength);
    },
  );

  it.each(DEPTHS)(
    "compile at depth %i, closures and generated code: reads at most the plain record's × the path's length",
    (depth) => {
      const { hostile, plain, pathLength } = pair(depth);
      for (const build of [
        (condition: Condition) => compile(condition, { codegen: false, cache: false }),
        (condition: Condition) => switched(compile(condition, { cache: false })),
      ]) {
        const hostileRun = readsOf(hostile.text, build(hostile.condition));
        const plainRun = readsOf(plain.text, build(plain.condition));
        expect(hostileRun.result).toBe(true);
        console.info(`compile, depth ${depth}: ${hostileRun.reads} reads, plain ${plainRun.reads}`);
        expect(hostileRun.reads).toBeLessThanOrEqual(plainRun.reads * pathLength);
      }
    },
  );

  it.each(DEPTHS)(
    "IncidentSet at depth %i: findAll and count read at most the plain record's × the path's length",
    (depth) => {
      const { hostile, plain, pathLength } = pair(depth);
      const hostileRun = setReadsOf(hostile.text, hostile.condition);
      const plainRun = setReadsOf(plain.text, plain.condition);
      expect(hostileRun.result).toBe(true);
      console.info(`IncidentSet, depth ${depth}: ${hostileRun.reads} reads, plain ${plainRun.reads}`);
      expect(hostileRun.reads).toBeLessThanOrEqual(plainRun.reads * pathLength);
    },
  );

  it("IncidentSet.fromNdjson (records parsed from their bytes) answers the 24 levels as evaluate does", async () => {
    const { hostile, plain } = pair(24);
    const set = await IncidentSet.fromNdjson([`${hostile.text}\n${plain.text}\n`]);
    expect(set.count(hostile.condition)).toBe(1);
    // The plain path goes on past the number (2 × 24 segments): nothing there.
    expect(set.count(plain.condition)).toBe(0);
  });
});

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

describe.skipIf(!existsSync(MAIN))("the CLI's match on the 24 levels (the built executable)", () => {
  const dir = mkdtempSync(join(tmpdir(), "iq-path-walk-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Prints the process's peak resident memory (KiB) and the processor time it used (user and system,
  // µs) on standard error as it exits. Processor time, not wall time: what the process itself computed,
  // which other processes on a busy machine do not lengthen (they delay it; they do not add to it).
  const report = join(dir, "report-usage.cjs");
  writeFileSync(
    report,
    'process.on("exit", () => { const u = process.resourceUsage(); process.stderr.write("\\nmaxRSS=" + u.maxRSS + " cpu=" + (u.userCPUTime + u.systemCPUTime) + "\\n"); });\n',
  );

  /** Peak memory (KiB) and the least processor time (µs) of three runs of `match --count`, and its output. */
  function run(file: string, conditions: string): { rss: number; cpu: number; out: string } {
    let rss = 0;
    let cpu = Number.POSITIVE_INFINITY;
    let out = "";
    for (let i = 0; i < 3; i++) {
      // The timeout is a hang guard (the exponential walk took 33.6 s here), never the verdict.
      const result = spawnSync(
        process.execPath,
        ["-r", report, MAIN, "match", "--incidents", file, "--count", "--threads", "1", conditions],
        { encoding: "utf8", timeout: 240_000 },
      );
      const usage = /maxRSS=(\d+) cpu=(\d+)/.exec(result.stderr);
      expect(usage, result.stderr).not.toBeNull();
      rss = Math.max(rss, Number(usage![1]));
      cpu = Math.min(cpu, Number(usage![2]));
      out = result.stdout;
    }
    return { rss, cpu, out };
  }

  it("takes at most 1.5 times the memory and 5 times the processor time of the plain line of the same size", () => {
    const { hostile, plain } = pair(24);
    const hostileFile = join(dir, "hostile.ndjson");
    const plainFile = join(dir, "plain.ndjson");
    // The 250-byte line: the record and an incident number.
    writeFileSync(
      hostileFile,
      `{"IncidentId":1,"Number":"20240301-1","Status":"Open",${hostile.text.slice(1)}\n`,
    );
    writeFileSync(
      plainFile,
      `{"IncidentId":1,"Number":"20240301-1","Status":"Open",${plain.text.slice(1)}\n`,
    );
    const plainRun = run(plainFile, JSON.stringify({ [plain.path]: 2 }));
    const hostileRun = run(hostileFile, JSON.stringify({ [hostile.path]: 2 }));
    console.info(
      `match: hostile ${hostileRun.rss} KiB, ${hostileRun.cpu} µs of processor; plain ${plainRun.rss} KiB, ${plainRun.cpu} µs`,
    );
    expect(hostileRun.out.trim()).toBe("1");
    expect(plainRun.out.trim()).toBe("0");
    expect(hostileRun.rss).toBeLessThanOrEqual(1.5 * plainRun.rss);
    expect(hostileRun.cpu).toBeLessThanOrEqual(5 * plainRun.cpu);
  });
});
