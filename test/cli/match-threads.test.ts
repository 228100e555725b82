/**
 * The built executable's `match` over a regular file read by several threads (docs/cli.md, "Fast path"):
 * it answers as one thread does, reports an invalid line of a worker's block as one thread does, and ends
 * when its input goes to the text reader or its command line is refused.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BLOCK_BYTES } from "../../src/node/workers.js";

const dir = mkdtempSync(join(tmpdir(), "iq-threads-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

describe.skipIf(!existsSync(MAIN) || !existsSync(WORKER))("match by several threads", () => {
  it("the executable answers the same with two and three threads as with one", () => {
    const file = exportFile("same.ndjson", 3 * BLOCK_BYTES + 12_345);
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

  it("ends when no worker runs: invalid conditions, a JSON array, a usage error", () => {
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
