/**
 * Attacks on what the docs say of `serve --data` (docs/server.md's option table: "every problem is listed
 * with its path"; docs/cli.md "Inputs": `--data` takes a path or `-`, gzip recognised by its magic bytes,
 * UTF-8 decoded strictly; SECURITY.md "The command line": never a silent U+FFFD). The built executable
 * is run (`dist/cli/main.js`; built when missing) on 127.0.0.1 with --port 0, and killed (by its own pid)
 * as soon as it says it has loaded the data.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "dist/cli/main.js");
const dir = mkdtempSync(join(tmpdir(), "incident-query-attack-serve-"));
const SAMPLE = readFileSync(join(ROOT, "examples/sample-dataset.json"));
const USER = (JSON.parse(SAMPLE.toString("utf8")) as { users: { username: string }[] }).users[0]!.username;

beforeAll(() => {
  if (!existsSync(MAIN)) execFileSync("npx", ["tsup", "--silent"], { cwd: ROOT, stdio: "ignore" });
}, 300_000);

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/**
 * Starts `serve --port 0 --api-key USER=k` with more arguments; resolves when it exits, or when it says
 * "Loaded" (then it is killed): `{ loaded, code, err }`.
 */
function serve(
  args: string[],
  stdin?: Buffer,
): Promise<{ loaded: boolean; code: number | null; err: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [MAIN, "serve", "--host", "127.0.0.1", "--port", "0", "--api-key", `${USER}=k`, ...args],
      {
        stdio: ["pipe", "ignore", "pipe"],
      },
    );
    let err = "";
    let loaded = false;
    // A hang guard, before the test's own: a busy machine may take long to load, never this long.
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.stderr.on("data", (chunk) => {
      err += chunk;
      if (!loaded && /^Loaded /m.test(err)) {
        loaded = true;
        child.kill("SIGTERM");
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ loaded, code, err });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

describe("serve --data lists every problem with its path (docs/server.md, options table)", () => {
  it("an invalid dataset names its problems", async () => {
    const path = file(
      "invalid-dataset.json",
      JSON.stringify({
        sites: [{ name: "S", timeZone: "Mars/Base" }],
        users: [{ username: USER, sites: ["S"] }],
      }),
    );
    const { loaded, code, err } = await serve(["--data", path]);
    expect(loaded).toBe(false);
    expect(code).toBe(EXIT.dataError);
    expect(err).toContain("sites[0].timeZone");
  }, 300_000);

  it("a dataset that is not JSON says why", async () => {
    const { code, err } = await serve(["--data", file("not-json.json", '{"sites": [}')]);
    expect(code).toBe(EXIT.dataError);
    expect(err.trim()).not.toMatch(/is not a valid dataset:$/);
  }, 300_000);
});

describe("serve --data decodes UTF-8 strictly (SECURITY.md, The command line)", () => {
  it("refuses a dataset holding the byte 0xff, as timeline --data does, instead of serving U+FFFD", async () => {
    const text = SAMPLE.toString("utf8");
    const title = (JSON.parse(text) as { incidents: { Title: string }[] }).incidents[0]!.Title;
    const at = SAMPLE.indexOf(Buffer.from(title));
    const bytes = Buffer.from(SAMPLE);
    bytes[at] = 0xff;
    const { loaded, code } = await serve(["--data", file("bad-utf8-dataset.json", bytes)]);
    // Today: "Loaded '…': 60 incidents …", the title served with U+FFFD.
    expect(loaded).toBe(false);
    expect(code).toBe(EXIT.dataError);
  }, 300_000);
});

describe("--data takes a path or '-', gzip or not (docs/cli.md, Inputs)", () => {
  it("serve --data reads a gzip dataset", async () => {
    const { loaded } = await serve(["--data", file("sample.json.gz", gzipSync(SAMPLE))]);
    expect(loaded).toBe(true);
  }, 300_000);

  it("serve --data - reads standard input", async () => {
    const { loaded } = await serve(["--data", "-"], SAMPLE);
    expect(loaded).toBe(true);
  }, 300_000);
});
