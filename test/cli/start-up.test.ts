/**
 * The executable's start-up: `check`, `match` and `timeline` never load the server's packages
 * (Fastify, jose, the PostgreSQL drivers) nor date-fns' whole index, nor cli-progress when standard error is
 * no terminal; `serve` loads them when it runs. A module
 * hook refuses to resolve those packages, so a subcommand that loads one fails. Runs the built executable
 * (`npm test` builds before it runs the tests).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));
const run = promisify(execFile);

/**
 * Packages a subcommand other than `serve` must not load (with standard error not a terminal):
 * `^date-fns$` is the whole index, 140 ms here.
 */
const SERVER_ONLY =
  "^(fastify|@fastify/.*|jose|pg|pg-.*|@electric-sql/pglite.*|light-my-request|date-fns|cli-progress)$";

const hook = `
export async function resolve(specifier, context, next) {
  if (new RegExp(${JSON.stringify(SERVER_ONLY)}).test(specifier)) throw new Error("refused to load " + specifier);
  return next(specifier, context);
}`;
const register = `import { register } from "node:module"; register(${JSON.stringify(
  `data:text/javascript,${encodeURIComponent(hook)}`,
)});`;

async function runGuarded(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [`--import=data:text/javascript,${encodeURIComponent(register)}`, MAIN, ...args],
      { encoding: "utf8", timeout: 300_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("start-up: the executable loads the server only for serve", () => {
  it("match, check, timeline and --help run without the server's packages", async () => {
    const match = await runGuarded([
      "match",
      "--count",
      "--incidents",
      `${EXAMPLES}incidents.json`,
      '{"Severity": "High"}',
    ]);
    expect(match.stderr).toBe("");
    expect(match).toMatchObject({ code: 0 });
    expect(Number(match.stdout.trim())).toBeGreaterThan(0);

    const check = await runGuarded(["check", '{"Severity": "High"}']);
    expect(check).toMatchObject({ code: 0, stderr: "" });

    const timeline = await runGuarded([
      "timeline",
      "--data",
      `${EXAMPLES}sample-dataset.json`,
      "--incident",
      "20240102-1",
    ]);
    expect(timeline).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(timeline.stdout)).toBeInstanceOf(Array);

    const help = await runGuarded(["serve", "--help"]);
    expect(help).toMatchObject({ code: 0 });
    expect(help.stdout).toContain("--rate-limit");
  }, 300_000);

  it("the guard works: serve, which needs Fastify, is refused it", async () => {
    const serve = await runGuarded(["serve", "--port", "0"]);
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toContain("refused to load");
  }, 300_000);
});
