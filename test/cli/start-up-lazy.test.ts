/**
 * The executable loads what a command uses and nothing else (docs/cli.md, Start-up): `--version` and
 * `--help` load commander alone, no part of the engine (the conditions' parser, re2js, date-fns,
 * @date-fns/tz, escape-html); `check` and `match` over NDJSON load the engine's conditions but not what
 * timelines and artifacts use (the timeline's modules, date-fns, @date-fns/tz, escape-html). Module hooks
 * refuse to resolve those packages, and to load a module whose text holds one of the refused sources (the
 * executable's chunks name each source they bundle in a `// src/…` or `// node_modules/…` line, or
 * `// ../x/node_modules/…` where node_modules is a link to another checkout's: re2js is
 * bundled), so a command that loads one fails. Runs the built executable.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const run = promisify(execFile);

/** An NDJSON export of 600 incidents (about 100 KB: two blocks of 64 KiB or more, so a worker thread reads). */
const NDJSON = join(mkdtempSync(join(tmpdir(), "iq-start-up-")), "incidents.ndjson");
writeFileSync(
  NDJSON,
  Array.from({ length: 600 }, (_, i) =>
    JSON.stringify({
      IncidentId: i + 1,
      Title: `Incident ${i + 1} ${"x".repeat(100)}`,
      Severity: i % 3 === 0 ? "High" : "Low",
      CreatedUtcTime: "2024-01-01T00:00:00Z",
    }),
  ).join("\n"),
);

/**
 * Runs the executable with the packages matching `refused.packages` refused, and the modules whose text
 * holds a line `// <source>` with a source matching `refused.sources`.
 */
async function runRefusing(refused: Refused, args: readonly string[]) {
  const hook = `
export async function resolve(specifier, context, next) {
  if (new RegExp(${JSON.stringify(refused.packages)}).test(specifier)) throw new Error("refused to load " + specifier);
  return next(specifier, context);
}
export async function load(url, context, next) {
  const loaded = await next(url, context);
  const text = loaded.source == null ? "" : String(loaded.source);
  const bundled = text.match(new RegExp(${JSON.stringify(refused.sources)}, "m"));
  if (bundled !== null) throw new Error("refused to load " + url + ": it bundles " + bundled[0]);
  return loaded;
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

interface Refused {
  /** A regular expression of package specifiers. */
  readonly packages: string;
  /** A regular expression (multiline) of a bundled source's line. */
  readonly sources: string;
}

const ENGINE: Refused = {
  packages: "^(re2js|date-fns(/.*)?|@date-fns/tz|escape-html)$",
  sources: "^// (src/conditions/parse\\.ts|(?:\\.\\./[^/\\n]+/)*node_modules/re2js/|src/timeline/)",
};
const TIMELINES: Refused = {
  packages: "^(date-fns(/.*)?|@date-fns/tz|escape-html)$",
  sources: "^// (src/timeline/|src/commands/memory/dataset\\.ts|(?:\\.\\./[^/\\n]+/)*node_modules/date-fns)",
};

describe.skipIf(!existsSync(MAIN))("start-up: nothing loaded that the command does not use", () => {
  it.each([
    ["--version", ENGINE, ["--version"]],
    ["--help", ENGINE, ["--help"]],
    ["match --help", ENGINE, ["match", "--help"]],
    ["check", TIMELINES, ["check", '{"Severity": "High"}']],
    ["match over NDJSON", TIMELINES, ["match", "--incidents", NDJSON, "--count", '{"Severity": "High"}']],
    [
      "match over NDJSON, 2 threads",
      TIMELINES,
      [
        "match",
        "--incidents",
        NDJSON,
        "--threads",
        "2",
        "--block-bytes",
        "65536",
        "--count",
        '{"Severity": "High"}',
      ],
    ],
  ] as const)("%s", async (_name, refused, args) => {
    const result = await runRefusing(refused, args);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(0);
  });

  it("the hook does refuse: --version fails when commander's bundled source is refused", async () => {
    const result = await runRefusing(
      { packages: "^$", sources: "^// (?:\\.\\./[^/\\n]+/)*node_modules/commander/" },
      ["--version"],
    );
    expect(result.stderr).toMatch(/it bundles \/\/ (?:\.\.\/[^/\n]+\/)*node_modules\/commander\//);
  });

  it("the hook does refuse: match loads the parser and re2js", async () => {
    const result = await runRefusing(ENGINE, [
      "match",
      "--incidents",
      NDJSON,
      "--count",
      '{"Severity": "High"}',
    ]);
    expect(result.stderr).toContain("refused to load");
  });

  it("the hook does refuse: timeline, which formats dates, fails without date-fns", async () => {
    const result = await runRefusing(TIMELINES, ["timeline", "--data", "-", "--incident", "1"]);
    expect(result.stderr).toContain("refused to load");
  });
});
