/**
 * Worker threads started with the process (src/cli/match-prestart.ts; docs/cli.md, "Fast path"): which
 * command lines start them, that a started worker takes its work as a message and answers as one given
 * `workerData`, and that the built executable answers the same with them, without them and when they go
 * unused (the process must not wait for an unused worker).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  BLOCK_BYTES,
  defaultThreads,
  PRESTART_MIN_BYTES,
  prestartCount,
  prestartMatchWorkers,
  takePrestartedWorker,
} from "../../src/cli/match-prestart.js";

const dir = mkdtempSync(join(tmpdir(), "iq-prestart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A sparse file of `size` bytes (only its size matters to `prestartCount`). */
function sized(name: string, size: number): string {
  const path = join(dir, name);
  writeFileSync(path, "");
  truncateSync(path, size);
  return path;
}

describe("prestartCount: which command lines start workers", () => {
  const big = sized("big.ndjson", PRESTART_MIN_BYTES);
  const small = sized("small.ndjson", PRESTART_MIN_BYTES - 1);
  const cases: [string, readonly string[], number][] = [
    [
      "--threads 3 on a file of 16 blocks",
      ["match", "--count", "--incidents", big, "--threads", "3", "{}"],
      2,
    ],
    ["--threads=2", ["match", `--incidents=${big}`, "--threads=2", "{}"], 1],
    ["the last --threads counts", ["match", "--incidents", big, "--threads", "4", "--threads", "2", "{}"], 1],
    ["at most 8 threads", ["match", "--incidents", big, "--threads", "64", "{}"], 7],
    ["the default threads", ["match", "--incidents", big, "{}"], defaultThreads() - 1],
    ["--threads 1", ["match", "--incidents", big, "--threads", "1", "{}"], 0],
    ["--threads that is not a number", ["match", "--incidents", big, "--threads", "two", "{}"], 0],
    ["--threads 2.5", ["match", "--incidents", big, "--threads", "2.5", "{}"], 0],
    ["a file one byte short of 16 blocks", ["match", "--incidents", small, "--threads", "2", "{}"], 0],
    ["standard input", ["match", "--incidents", "-", "--threads", "2", "{}"], 0],
    ["gzip", ["match", "--incidents", `${big}.gz`, "--threads", "2", "{}"], 0],
    ["a missing file", ["match", "--incidents", join(dir, "none"), "--threads", "2", "{}"], 0],
    ["a directory", ["match", "--incidents", dir, "--threads", "2", "{}"], 0],
    ["no --incidents", ["match", "--threads", "2", "{}"], 0],
    ["--reader text", ["match", "--incidents", big, "--threads", "2", "--reader", "text", "{}"], 0],
    ["--block-bytes", ["match", "--incidents", big, "--threads", "2", "--block-bytes", "64", "{}"], 0],
    ["--help", ["match", "--incidents", big, "--threads", "2", "--help"], 0],
    ["another subcommand", ["check", "--incidents", big, "--threads", "2", "{}"], 0],
    ["match not first", ["--debug", "match", "--incidents", big, "--threads", "2", "{}"], 0],
    ["an option after --", ["match", "--", "--incidents", big, "--threads", "2"], 0],
  ];
  it.each(cases)("%s", (_name, argv, expected) => {
    expect(prestartCount(argv)).toBe(Math.max(0, expected));
  });
  it("a smaller bound still needs two blocks", () => {
    const two = sized("two.ndjson", 2 * BLOCK_BYTES);
    const under = sized("under.ndjson", 2 * BLOCK_BYTES - 1);
    expect(prestartCount(["match", "--incidents", two, "--threads", "2", "{}"], 0)).toBe(1);
    expect(prestartCount(["match", "--incidents", under, "--threads", "2", "{}"], 0)).toBe(0);
    expect(prestartCount(["match", "--incidents", two, "--threads", "2", "{}"])).toBe(0);
  });
});

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const WORKER = fileURLToPath(new URL("../../dist/cli/match-worker.js", import.meta.url));

/** An NDJSON file of about `bytes` bytes: incidents of two statuses over a year, one invalid line at `bad`. */
function exportFile(name: string, bytes: number, bad?: number): { path: string; lines: number } {
  const lines: string[] = [];
  let size = 0;
  for (let k = 0; size < bytes; k++) {
    const line =
      bad === k
        ? '{"IncidentId": 1, "Status": "Open", oops}'
        : JSON.stringify({
            IncidentId: k + 1,
            Number: `N-${k}`,
            Status: k % 3 === 0 ? "Open" : "Closed",
            Severity: k % 7 === 0 ? "High" : "Low",
            Title: `Suspicious sign-in ${k} from host-${k % 97}`,
            CreatedUtcTime: new Date(Date.UTC(2024, 0, 1) + ((k * 7919) % 31_536_000) * 1000).toISOString(),
            Description: "x".repeat(150),
          });
    lines.push(line);
    size += line.length + 1;
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, lines: lines.length };
}

function runBuilt(args: readonly string[]): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8", timeout: 300_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe.skipIf(!existsSync(MAIN) || !existsSync(WORKER))("workers started with the process", () => {
  it("a started worker takes its work as a message and answers the blocks it takes", async () => {
    const file = exportFile("message.ndjson", 2 * BLOCK_BYTES + 4096);
    const argv = ["match", "--count", "--incidents", file.path, "--threads", "2", "{}"];
    expect(prestartMatchWorkers(argv, pathToFileURL(WORKER), 0)).toBe(1);
    const worker = takePrestartedWorker();
    expect(worker).toBeDefined();
    expect(takePrestartedWorker()).toBeUndefined();
    const control = new Int32Array(new SharedArrayBuffer(12));
    const blocks = 3;
    const answers: { block: number; results: { records: number; found: number }[] }[] = [];
    const done = new Promise<void>((resolve, reject) => {
      worker!.on("message", (message) => answers.push(message));
      worker!.on("error", reject);
      worker!.on("exit", () => resolve());
    });
    worker!.postMessage({
      path: file.path,
      from: 0,
      size: statSync(file.path).size,
      blockBytes: BLOCK_BYTES,
      blocks,
      control,
      condition: { Status: "Open" },
      mode: "count",
      maxLineLength: 1 << 20,
      maxErrors: 100,
    });
    // The worker runs at most WINDOW blocks ahead of the merge; mark them merged as they come.
    const merge = setInterval(() => {
      Atomics.store(control, 1, answers.length);
      Atomics.notify(control, 1);
    }, 5);
    await done;
    clearInterval(merge);
    expect(answers.map((a) => a.block)).toEqual([0, 1, 2]);
    const records = answers.flatMap((a) => a.results).reduce((n, r) => n + r.records, 0);
    const found = answers.flatMap((a) => a.results).reduce((n, r) => n + r.found, 0);
    expect(records).toBe(file.lines);
    expect(found).toBe(Math.ceil(file.lines / 3));
  });

  it("the executable answers the same with started workers, with workers it starts itself and in one thread", () => {
    // Past `PRESTART_MIN_BYTES`: the workers of a plain command line start with the process.
    const file = exportFile("same.ndjson", PRESTART_MIN_BYTES + 12_345);
    const conditions = [
      '{"Status": "Open", "Severity": "High"}',
      '{"CreatedUtcTime": {"$gte": {"$date": "2024-06-01T00:00:00Z"}, "$lt": {"$date": "2024-07-01T00:00:00Z"}}}',
      '{"Title": {"$regex": "host-4[0-9]$"}}',
    ];
    for (const condition of conditions) {
      for (const mode of [["--count"], [], ["--all", "--limit", "5"]]) {
        const args = ["match", ...mode, "--incidents", file.path, condition];
        const one = runBuilt([...args, "--threads", "1"]);
        expect(one.code).toBe(0);
        // Started with the process (a plain command line) and started by the command (`--block-bytes`).
        expect(runBuilt([...args, "--threads", "2"])).toEqual(one);
        expect(runBuilt([...args, "--threads", "3"])).toEqual(one);
        expect(runBuilt([...args, "--threads", "2", "--block-bytes", String(BLOCK_BYTES)])).toEqual(one);
      }
    }
  });

  it("an invalid line in a worker's block is reported as in one thread", () => {
    const file = exportFile("bad.ndjson", 3 * BLOCK_BYTES, 25_000);
    const args = ["match", "--count", "--incidents", file.path, '{"Status": "Open"}'];
    const one = runBuilt([...args, "--threads", "1"]);
    expect(one.code).toBe(65);
    expect(one.err).toContain("line 25001");
    expect(runBuilt([...args, "--threads", "2"])).toEqual(one);
    const skipped = runBuilt([...args, "--threads", "2", "--skip-invalid"]);
    expect(skipped).toEqual(runBuilt([...args, "--threads", "1", "--skip-invalid"]));
    expect(skipped.code).toBe(0);
  });

  it("unused started workers do not hold the process: invalid conditions, a JSON array, a usage error", () => {
    const file = exportFile("unused.ndjson", 2 * BLOCK_BYTES + 100);
    const invalid = runBuilt([
      "match",
      "--incidents",
      file.path,
      "--threads",
      "2",
      '{"Status": {"$bad": 1}}',
    ]);
    expect(invalid.code).toBe(2);
    const usage = runBuilt(["match", "--incidents", file.path, "--threads", "2", "--count", "--all", "{}"]);
    expect(usage.code).toBe(64);
    // The same size as a JSON array: read by the text reader, in this thread.
    const array = join(dir, "array.json");
    const records = Array.from({ length: 30_000 }, (_, k) => ({
      IncidentId: k + 1,
      Status: k % 2 === 0 ? "Open" : "Closed",
      Pad: "y".repeat(300),
    }));
    writeFileSync(array, JSON.stringify(records));
    const counted = runBuilt([
      "match",
      "--count",
      "--incidents",
      array,
      "--threads",
      "2",
      '{"Status": "Open"}',
    ]);
    expect(counted).toEqual({ code: 0, out: "15000\n", err: "" });
  });
});
