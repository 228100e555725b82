/**
 * `serve --data … --database …` run twice (README, operators): the same line again starts on the data it
 * loaded the first time; other data beside a loaded database is refused with what to do. The built
 * executable is run on PGlite in a fresh folder, and killed (by its own pid) once it listens.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "incident-query-serve-database-"));
const SAMPLE_PATH = join(ROOT, "examples/sample-dataset.json");
const sample = JSON.parse(readFileSync(SAMPLE_PATH, "utf8")) as {
  incidents: { Number: string; IncidentId: number }[];
  users: { username: string }[];
};

beforeAll(() => {
  if (!existsSync(MAIN)) execFileSync("npx", ["tsup", "--silent"], { cwd: ROOT, stdio: "ignore" });
}, 300_000);

/** Runs `serve --port 0` with `args`; resolves when it exits, or once it listens (then it is stopped). */
function serve(args: string[]): Promise<{ listening: boolean; code: number | null; err: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MAIN, "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    let listening = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.stdout.on("data", (chunk: Buffer) => {
      if (!listening && chunk.toString().includes("Listening on ")) {
        listening = true;
        child.kill("SIGTERM");
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ listening, code, err });
    });
  });
}

describe("serve --data … --database … run twice", () => {
  const database = join(dir, "db");
  const other = join(dir, "other.json");
  // A valid dataset of as many incidents, one of them with another IncidentId.
  const incidents = sample.incidents.map((incident, k) =>
    k === 0 ? { ...incident, IncidentId: 900_001 } : incident,
  );
  writeFileSync(other, JSON.stringify({ ...sample, incidents }));

  it("starts the first time (loads), the second time with the same data (not loaded again), refuses other data", async () => {
    const first = await serve(["--data", SAMPLE_PATH, "--database", database]);
    expect(first.err).toContain("Loaded the dataset into the database");
    expect(first.listening).toBe(true);

    const again = await serve(["--data", SAMPLE_PATH, "--database", database]);
    expect(again.err).toContain(`already holds the incidents of '${SAMPLE_PATH}': not loaded again.`);
    expect(again.listening).toBe(true);

    const refused = await serve(["--data", other, "--database", database]);
    expect(refused.listening).toBe(false);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.err).toContain(`already holds other data than '${other}'`);
    expect(refused.err).toContain(
      `start without --data to use the database as it is, or give --database a new folder or an empty database to load '${other}'`,
    );

    const without = await serve(["--database", database]);
    expect(without.listening).toBe(true);
  }, 480_000);
});
