/**
 * The executable loads what a command uses and nothing else (docs/cli.md, Start-up): `--version` and
 * `--help` load commander alone, no part of the engine (re2js, date-fns, @date-fns/tz, escape-html); `check`
 * loads the engine's conditions but not what timelines and artifacts use (date-fns, @date-fns/tz,
 * escape-html). A module hook refuses to resolve those packages, so a command that loads one fails. Runs
 * the built executable.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const run = promisify(execFile);

/** Runs the executable with the packages matching `refused` refused. */
async function runRefusing(refused: string, args: readonly string[]) {
  const hook = `
export async function resolve(specifier, context, next) {
  if (new RegExp(${JSON.stringify(refused)}).test(specifier)) throw new Error("refused to load " + specifier);
  return next(specifier, context);
}`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(
    `data:text/javascript,${encodeURIComponent(hook)}`,
  )});`;
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

const ENGINE = "^(re2js|date-fns(/.*)?|@date-fns/tz|escape-html)$";
const TIMELINES = "^(date-fns(/.*)?|@date-fns/tz|escape-html)$";

describe.skipIf(!existsSync(MAIN))("start-up: nothing loaded that the command does not use", () => {
  it.each([
    ["--version", ENGINE, ["--version"]],
    ["--help", ENGINE, ["--help"]],
    ["match --help", ENGINE, ["match", "--help"]],
    ["check", TIMELINES, ["check", '{"Severity": "High"}']],
  ])("%s", async (_name, refused, args) => {
    const result = await runRefusing(refused, args);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(0);
  });

  it("the hook does refuse: timeline, which formats dates, fails without date-fns", async () => {
    const result = await runRefusing(TIMELINES, ["timeline", "--data", "-", "--incident", "1"]);
    expect(result.stderr).toContain("refused to load");
  });
});
