/**
 * Attacks on the exit codes of docs/cli.md ("Output and exit codes") through the BUILT executable
 * (`dist/cli/main.js`; built when missing), where the process's own streams matter.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "incident-query-attack-process-"));

beforeAll(() => {
  if (!existsSync(MAIN)) execFileSync("npx", ["tsup", "--silent"], { cwd: ROOT, stdio: "ignore" });
}, 300_000);

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** 50,000 invalid records: enough error lines on stderr to outlast a pipe's buffer. */
const invalid = file("invalid.ndjson", "x\n".repeat(50_000));

describe("a reader that goes away early ends the command quietly; 70 only for a bug (docs/cli.md)", () => {
  it("`… 2>&1 | head -1`: the reader of stderr (and stdout) goes away; the exit code is not 70", () => {
    const result = spawnSync(
      "bash",
      [
        "-c",
        `node ${MAIN} match --incidents ${invalid} --max-errors 100000 '{}' 2>&1 | head -1; echo "status=\${PIPESTATUS[0]}"`,
      ],
      { encoding: "utf8" },
    );
    // Today: status=70, "unexpected error … (a bug)" (an EPIPE on stderr goes to the uncaught-error handler).
    expect(result.stdout).toMatch(/status=(0|65)\n/);
  });

  it("a failing stderr (a full disk) is not reported as a bug (70)", () => {
    const result = spawnSync(
      "bash",
      ["-c", `node ${MAIN} match --incidents ${invalid} '{}' 2>/dev/full; echo "status=$?"`],
      {
        encoding: "utf8",
      },
    );
    expect(result.stdout).not.toContain("status=70");
  });
});

describe("attacked claims", () => {
  it("stdout on a full disk is 74 with one line", () => {
    const incidents = file("some.ndjson", '{"IncidentId":1}\n'.repeat(100_000));
    for (const args of [["--all"], [], ["--count"]]) {
      const result = spawnSync(
        "bash",
        ["-c", `node ${MAIN} match --incidents ${incidents} ${args.join(" ")} '{}' >/dev/full`],
        {
          encoding: "utf8",
        },
      );
      expect(result.status).toBe(EXIT.ioError);
      expect(result.stderr).toBe(
        "incident-query: Cannot write the output: ENOSPC: no space left on device, write\n",
      );
    }
  });

  it("`match --all … | head -1` on an endless pipe ends with 0", async () => {
    const child = spawn("bash", [
      "-c",
      `yes '{"IncidentId":1}' | node ${MAIN} match --incidents - --all '{}' | head -1; echo "status=\${PIPESTATUS[1]}"`,
    ]);
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code).toBe(0);
    expect(out).toBe('{"IncidentId":1}\nstatus=0\n');
  }, 300_000);
});
