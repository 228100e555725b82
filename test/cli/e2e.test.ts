/**
 * End-to-end tests of the BUILT executable (`dist/cli/main.js`, made by `npm run build`; built here when
 * missing), run as an operator would: through a shell, with pipes, gzip, `-` and `/dev/stdin`, a reader
 * that closes the pipe early, a directory, a very long line, and every exit code of the README's table.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { CLI_INCIDENTS } from "../support/cli-incidents.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "incident-query-e2e-"));

beforeAll(() => {
  if (!existsSync(MAIN)) execFileSync("npx", ["tsup", "--silent"], { cwd: ROOT, stdio: "ignore" });
}, 300_000);

/** Runs a shell command line in which `$IQ` is the executable; returns its status and output. */
function sh(script: string): { code: number; out: string; err: string } {
  const result = spawnSync("bash", ["-c", `set -o pipefail; ${script}`], {
    cwd: dir,
    env: { ...process.env, IQ: `node ${MAIN}` },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status ?? -1, out: result.stdout, err: result.stderr };
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const incidents = CLI_INCIDENTS;
const ndjson = `${incidents.map((i) => JSON.stringify(i)).join("\n")}\n`;
const entry = (id: number) => ({
  TimelineID: id,
  Time: `2024-01-${String((id % 28) + 1).padStart(2, "0")} 10:00:00`,
  Summary: `Entry ${id}`,
  Note: "",
  EventType: "Alert",
  Tactic: [],
  Technique: [],
  RiskLevel: "High",
  Description: "x".repeat(200),
  Author: "analyst",
});

/** An error is one line (and a line per invalid record), without a stack trace. */
function oneLine(err: string, lines = 1): void {
  expect(err.trim().split("\n")).toHaveLength(lines);
  expect(err).not.toMatch(/^\s+at /m);
}

describe("the built incident-query executable", () => {
  beforeAll(() => {
    file("incidents.ndjson", ndjson);
    file("incidents.json", JSON.stringify(incidents, null, 2));
    file("incidents.ndjson.gz", gzipSync(ndjson));
    file("incidents.json.gz", gzipSync(JSON.stringify(incidents)));
    mkdirSync(join(dir, "a-directory"));
    file(
      "entries.ndjson",
      `${Array.from({ length: 20_000 }, (_, i) => JSON.stringify(entry(i + 1))).join("\n")}\n`,
    );
  });

  it.each([
    ["a file", '$IQ match --incidents incidents.ndjson \'{"Severity": "High"}\''],
    ["- reading a pipe", 'cat incidents.ndjson | $IQ match --incidents - \'{"Severity": "High"}\''],
    [
      "/dev/stdin as a pipe",
      'cat incidents.json | $IQ match --incidents /dev/stdin \'{"Severity": "High"}\'',
    ],
    ["gzip (by its magic bytes)", '$IQ match --incidents incidents.ndjson.gz \'{"Severity": "High"}\''],
    ["gzip from a pipe", 'cat incidents.json.gz | $IQ match --incidents - \'{"Severity": "High"}\''],
  ])("reads %s", (_name, script) => {
    const { code, out, err } = sh(script);
    expect(err).toBe("");
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(out).IncidentId).toBe(1);
  });

  it("streams every match as NDJSON with --all, stops after --limit, and counts with --count", () => {
    const all = sh('$IQ match --incidents incidents.ndjson --all \'{"Severity": "High"}\'');
    expect(all.code).toBe(EXIT.ok);
    expect(
      all.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).IncidentId),
    ).toEqual([3, 1]);
    const limited = sh("cat incidents.ndjson | $IQ match --incidents - --limit 1 '{}'");
    expect(
      limited.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).IncidentId),
    ).toEqual([3]);
    const count = sh('$IQ match --incidents incidents.json.gz --count \'{"Severity": "High"}\'');
    expect([count.code, count.out]).toEqual([EXIT.ok, "2\n"]);
  });

  it("ends quietly with 0 when the reader closes standard output (| head -1)", () => {
    const timeline = sh("$IQ timeline --entries entries.ndjson | head -1");
    expect(timeline).toEqual({ code: EXIT.ok, out: "[\n", err: "" });
    const match = sh("$IQ match --incidents entries.ndjson --all '{}' | head -1");
    expect(match.code).toBe(EXIT.ok);
    expect(match.err).toBe("");
    expect(JSON.parse(match.out).TimelineID).toBe(1);
  });

  it("ends quietly when the reader of standard error goes away; 74 when standard error cannot be written", () => {
    // 50,000 problems: more lines on stderr than a pipe holds.
    file("invalid-many.ndjson", "x\n".repeat(50_000));
    const closed = sh("$IQ match --incidents invalid-many.ndjson --max-errors 100000 '{}' 2>&1 | head -1");
    // 65 when the command had already ended with its data error, else 0; never 70 (a bug).
    expect([EXIT.ok, EXIT.dataError]).toContain(closed.code);
    expect(closed.out).toMatch(/^incident-query: 'invalid-many.ndjson' line 1: /);
    expect(closed.out.split("\n")).toHaveLength(2);
    expect(sh("$IQ match --incidents invalid-many.ndjson '{}' 2>/dev/full").code).toBe(EXIT.ioError);
    expect(sh("$IQ check '{}' >/dev/null 2>/dev/full").code).toBe(EXIT.ok);
  });

  it("exits 66 for a directory and a missing file, in one line", () => {
    for (const target of ["a-directory", "missing.ndjson"]) {
      const { code, err } = sh(`$IQ match --incidents ${target} '{}'`);
      expect(code).toBe(EXIT.noInput);
      oneLine(err);
      expect(err).toContain(target);
    }
  });

  it("refuses a line longer than --max-line-length with 65, or skips it with --skip-invalid", () => {
    file(
      "long.ndjson",
      `${JSON.stringify(incidents[0])}\n{"Title": "${"x".repeat(5000)}"}\n${JSON.stringify(incidents[1])}\n`,
    );
    const refused = sh("$IQ match --incidents long.ndjson --max-line-length 1k '{}'");
    expect(refused.code).toBe(EXIT.dataError);
    expect(refused.err).toContain("'long.ndjson' line 2: longer than 1024 characters (--max-line-length)");
    const skipped = sh(
      "$IQ match --incidents long.ndjson --max-line-length 1000 --skip-invalid --count '{}'",
    );
    expect(skipped.code).toBe(EXIT.ok);
    expect(skipped.out).toBe("2\n");
    expect(skipped.err).toContain("skipped 1 invalid record");
  });

  it("locates invalid UTF-8 and corrupt gzip (65)", () => {
    file(
      "latin1.ndjson",
      Buffer.concat([Buffer.from(`${ndjson}{"Title": "caf`), Buffer.from([0xe9]), Buffer.from('"}\n')]),
    );
    const utf8 = sh("$IQ match --incidents latin1.ndjson '{}'");
    expect(utf8.code).toBe(EXIT.dataError);
    oneLine(utf8.err);
    expect(utf8.err).toContain("line 4 is not valid UTF-8");
    const gz = gzipSync(ndjson);
    file("corrupt.gz", Buffer.concat([gz.subarray(0, 12), Buffer.alloc(20, 0x55)]));
    const corrupt = sh("$IQ match --incidents corrupt.gz '{}'");
    expect(corrupt.code).toBe(EXIT.dataError);
    oneLine(corrupt.err);
    expect(corrupt.err).toContain("not a valid gzip stream");
  });

  it("says what shape was expected and found for a dataset given as entries", () => {
    const { code, err } = sh(`$IQ timeline --entries ${join(ROOT, "examples/sample-dataset.json")}`);
    expect(code).toBe(EXIT.dataError);
    oneLine(err);
    expect(err).toContain("holds one JSON document, a JSON object with the keys sites, users, incidents");
    expect(err).toContain("expected timeline entries: a JSON array or NDJSON");
    expect(err).toContain("--data");
  });

  it("reads one incident's entries from a dataset, gzip or not", () => {
    const dataset = join(ROOT, "examples/sample-dataset.json");
    const { code, out } = sh(
      `gzip -c ${dataset} | $IQ timeline --data - --incident 20240102-1 --sort-order DESC`,
    );
    expect(code).toBe(EXIT.ok);
    const entries = JSON.parse(out) as { Time: string }[];
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.map((e) => e.Time)).toEqual(
      entries
        .map((e) => e.Time)
        .sort()
        .reverse(),
    );
    expect(sh(`$IQ timeline --data ${dataset} --incident NOPE`).code).toBe(EXIT.noMatch);
  });

  it.each([
    ["no match", '$IQ match --incidents incidents.ndjson \'{"Severity": "Critical"}\'', EXIT.noMatch],
    ["invalid conditions", '$IQ match --incidents incidents.ndjson \'{"$where": "1"}\'', EXIT.invalid],
    ["an invalid sort order", "$IQ timeline --entries entries.ndjson --sort-order sideways", EXIT.invalid],
    ["an unknown option", "$IQ match --incidents incidents.ndjson --frobnicate '{}'", EXIT.usage],
    ["a bad --limit", "$IQ match --incidents incidents.ndjson --limit many '{}'", EXIT.usage],
    ["timeline without input", "$IQ timeline", EXIT.usage],
    [
      "a broken NDJSON line",
      "printf '{\"a\": 1}\\n{\"a\": \\n' | $IQ match --incidents - '{}'",
      EXIT.dataError,
    ],
    ["a broken array", "printf '[{\"a\": 1} {\"a\": 2}]' | $IQ match --incidents - '{}'", EXIT.dataError],
    ["a full disk", "$IQ match --incidents incidents.ndjson --all '{}' > /dev/full", EXIT.ioError],
  ])("exits with the table's code for %s", (name, script, expected) => {
    const { code, err } = sh(script);
    expect(code).toBe(expected);
    // A broken NDJSON line is an invalid record: its line, then the summary.
    if (expected !== EXIT.noMatch && expected !== EXIT.usage) oneLine(err, name.includes("NDJSON") ? 2 : 1);
    expect(err).not.toMatch(/^\s+at /m);
  });

  it("lists at most --max-errors problems, then how many more", () => {
    file(
      "bad-entries.ndjson",
      `${Array.from({ length: 500 }, (_, i) => JSON.stringify({ ...entry(i + 1), Time: "bad" })).join("\n")}\n`,
    );
    const { code, err } = sh("$IQ timeline --entries bad-entries.ndjson --max-errors 3");
    expect(code).toBe(EXIT.dataError);
    const lines = err.trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain("'bad-entries.ndjson' line 1: Time: Expected");
    expect(lines[2]).toContain("line 3: Time");
    expect(lines[3]).toContain("and 497 more problems");
    expect(lines[4]).toContain("has 500 invalid records");
  });
});
