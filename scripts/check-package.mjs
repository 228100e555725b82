// The package as a consumer gets it (CI runs this after `npm test`, which builds dist/):
// 1. `npm pack` (from the built dist/): the tarball's size and files are printed; publint --strict and
//    arethetypeswrong (node16 and bundler resolution) find nothing;
// 2. the tarball installed into a new project, on this Node version: no engine warning; every entry loads
//    as ESM and as CommonJS; the sample dataset loads; the `incident-query` bin is linked and runs;
//    TypeScript (NodeNext, skipLibCheck: false, no `mongodb` installed) compiles imports of every entry
//    from an ES module and from a CommonJS module;
//    the README's operator commands run as written there (`checkReadmeOperators`);
// 3. the git repository installed into another new project (`npm install git+file://…`: npm clones the
//    committed HEAD, installs its devDependencies and runs `prepare`, which builds): the entries load and
//    the bin runs. Skipped with `--skip-git` (or when this is not a git work tree).
//
// Dependencies come from npm's cache when they are there (--prefer-offline). Usage:
//   node scripts/check-package.mjs [--skip-git] [--keep]
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const args = new Set(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), "incident-query-package-"));
const started = Date.now();
const failures = [];
const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=warn"];
const typesNodeVersion = JSON.parse(
  readFileSync(join(root, "node_modules/@types/node/package.json"), "utf8"),
).version;

function log(message) {
  console.log(`[check-package ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

/** Runs a command; resolves { code, stdout, stderr } (never rejects). */
function run(command, commandArgs, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", (error) => resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a command that must succeed; records a failure (with its output) otherwise. */
async function expectSuccess(label, command, commandArgs, cwd) {
  const result = await run(command, commandArgs, cwd);
  if (result.code !== 0) {
    failures.push(`${label}: exit code ${result.code}\n${result.stdout}${result.stderr}`);
  } else {
    log(`ok: ${label}`);
  }
  return result;
}

/** The import specifiers of the package's export map (`incident-query`, `incident-query/commands`, …). */
const specifiers = Object.keys(pkg.exports)
  .filter((subpath) => subpath !== "./package.json")
  .map((subpath) => (subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`));

/** A new project that depends on `spec`; checks the install printed no engine warning. */
async function installInto(label, directory, spec, extra = []) {
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    join(directory, "package.json"),
    `${JSON.stringify({ name: `consumer-${label}`, version: "1.0.0", private: true }, null, 2)}\n`,
  );
  const result = await expectSuccess(
    `${label}: npm install`,
    "npm",
    ["install", ...NPM_FLAGS, spec, ...extra],
    directory,
  );
  const output = `${result.stdout}${result.stderr}`;
  if (/EBADENGINE/.test(output)) {
    failures.push(`${label}: npm install printed an engine warning on Node ${process.version}:\n${output}`);
  }
  return result.code === 0;
}

/** The runtime checks of an installed package: ESM and CJS loads of every entry, the sample, the bin. */
async function checkRuntime(label, directory) {
  const esm = [
    `import assert from "node:assert/strict";`,
    ...specifiers.map((s, i) => `import * as entry${i} from ${JSON.stringify(s)};`),
    `const entries = [${specifiers.map((_, i) => `entry${i}`).join(", ")}];`,
    `for (const entry of entries) assert.ok(Object.keys(entry).length > 0);`,
    `const { parseSearchConditions, compile } = entry0;`,
    `assert.equal(compile(parseSearchConditions({ Severity: "High" }))({ Severity: "High" }), true);`,
    `const { loadSampleDataset, createMemoryBackend } = await import("${pkg.name}/commands");`,
    `assert.equal(loadSampleDataset().incidents.length, 60);`,
    `createMemoryBackend(loadSampleDataset());`,
    `const mongodb = await import("${pkg.name}/mongodb");`,
    `assert.equal(mongodb.toMongoFilter, entry0.toMongoFilter);`,
    `assert.equal(typeof mongodb.toMongoFilter(parseSearchConditions({ Severity: "High" })), "object");`,
    `console.log("esm ok");`,
  ].join("\n");
  const cjs = [
    `const assert = require("node:assert/strict");`,
    `const entries = ${JSON.stringify(specifiers)}.map((s) => require(s));`,
    `for (const entry of entries) assert.ok(Object.keys(entry).length > 1);`,
    `assert.equal(require("${pkg.name}/commands").loadSampleDataset().incidents.length, 60);`,
    `const main = require("${pkg.name}");`,
    `const mongodb = require("${pkg.name}/mongodb");`,
    `assert.equal(mongodb.toMongoFilter, main.toMongoFilter);`,
    `assert.equal(typeof mongodb.toMongoFilter(main.parseSearchConditions({ Severity: "High" })), "object");`,
    `console.log("cjs ok");`,
  ].join("\n");
  writeFileSync(join(directory, "esm.mjs"), esm);
  writeFileSync(join(directory, "cjs.cjs"), cjs);
  await expectSuccess(`${label}: every entry loads as ESM`, process.execPath, ["esm.mjs"], directory);
  await expectSuccess(`${label}: every entry loads as CommonJS`, process.execPath, ["cjs.cjs"], directory);
  const bin = join(directory, "node_modules", ".bin", "incident-query");
  if (!existsSync(bin)) {
    failures.push(`${label}: the bin node_modules/.bin/incident-query is not linked`);
    return;
  }
  const version = await expectSuccess(`${label}: the bin runs (--version)`, bin, ["--version"], directory);
  if (version.code === 0 && version.stdout.trim() !== pkg.version) {
    failures.push(
      `${label}: incident-query --version printed '${version.stdout.trim()}', not ${pkg.version}`,
    );
  }
  const incidents = join(directory, "node_modules", pkg.name, "examples", "incidents.json");
  const match = await run(bin, ["match", "--incidents", incidents, '{"Severity": "High"}'], directory);
  // `match` exits 0 when some incident matches and 1 when none does; anything else is a failure.
  if (match.code !== 0 && match.code !== 1) {
    failures.push(`${label}: incident-query match failed (${match.code}):\n${match.stdout}${match.stderr}`);
  } else {
    log(`ok: ${label}: the bin's match command reads the shipped examples`);
  }
}

/** Type-checks imports of every entry, as an ES module and as a CommonJS module (skipLibCheck: false). */
async function checkTypes(label, directory) {
  if (existsSync(join(directory, "node_modules", "mongodb"))) {
    failures.push(`${label}: mongodb is installed in the consumer; the types check needs it absent`);
  }
  const imports = specifiers.map((s, i) => `import * as entry${i} from ${JSON.stringify(s)};`).join("\n");
  const uses = [
    `export const entries = [${specifiers.map((_, i) => `entry${i}`).join(", ")}];`,
    `import { parseSearchConditions, type Condition } from "${pkg.name}";`,
    `import { toMongoFilter, toMongoFind, firstMatchingIncident, type MongoFilter } from "${pkg.name}/mongodb";`,
    `import { createMemoryBackend, createCommandHandler, loadSampleDataset } from "${pkg.name}/commands";`,
    `import { createCommandClient } from "${pkg.name}/client";`,
    `const condition: Condition = parseSearchConditions({ Severity: "High" });`,
    `export const filter: MongoFilter = toMongoFilter(condition);`,
    `export const find = toMongoFind(condition);`,
    `export const first: Promise<{ [key: string]: unknown } | null> = firstMatchingIncident(`,
    `  { findOne: async () => null }, condition);`,
    `export const handler = createCommandHandler(createMemoryBackend(loadSampleDataset()));`,
    `export const client = createCommandClient({ handler, username: "alice", site: "Security Operations" });`,
  ].join("\n");
  writeFileSync(join(directory, "esm.mts"), `${imports}\n${uses}\n`);
  writeFileSync(join(directory, "cjs.cts"), `${imports}\n${uses}\n`);
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
      types: ["node"],
    },
    files: ["esm.mts", "cjs.cts"],
  };
  writeFileSync(join(directory, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  await expectSuccess(
    `${label}: TypeScript compiles imports of every entry (NodeNext, skipLibCheck: false, no mongodb)`,
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", directory],
    directory,
  );
}

async function checkTarball() {
  const packed = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], root);
  if (packed.code !== 0) {
    failures.push(`npm pack failed:\n${packed.stdout}${packed.stderr}`);
    return;
  }
  const [info] = JSON.parse(packed.stdout);
  const tarball = join(work, info.filename);
  log(
    `npm pack: ${info.entryCount} files, ${(info.size / 1000).toFixed(1)} kB packed, ${(info.unpackedSize / 1000).toFixed(1)} kB unpacked`,
  );
  const files = info.files.map((f) => f.path);
  for (const required of ["LICENSE", "README.md", "package.json", "examples/sample-dataset.json"]) {
    if (!files.includes(required)) failures.push(`the tarball lacks ${required}`);
  }
  if (!files.some((f) => f.endsWith(".d.ts"))) failures.push("the tarball has no .d.ts files");
  // The sample dataset ships once: no bundle inlines it.
  const bundles = files.filter((f) => /\.(c?js)$/.test(f));
  const sampleMarker = readFileSync(join(root, "examples", "sample-dataset.json"), "utf8").slice(0, 200);
  const firstIncident = JSON.stringify(
    JSON.parse(readFileSync(join(root, "examples", "sample-dataset.json"), "utf8")).incidents[0].Title,
  );
  for (const bundle of bundles) {
    const text = readFileSync(join(root, bundle), "utf8");
    if (text.includes(firstIncident) || text.includes(sampleMarker))
      failures.push(`${bundle} inlines the sample dataset`);
    // Stack traces point at files the package ships: a source map a bundle names is shipped, and so is
    // every source that map names (the build makes no maps: tsup.config.ts).
    const mapName = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
    if (mapName !== undefined && !mapName.startsWith("data:")) {
      const mapPath = join(bundle, "..", mapName).replaceAll("\\", "/");
      if (!files.includes(mapPath))
        failures.push(`${bundle} names the source map ${mapName}, which is not shipped`);
    }
  }
  for (const map of files.filter((f) => f.endsWith(".map"))) {
    const { sources = [] } = JSON.parse(readFileSync(join(root, map), "utf8"));
    for (const source of sources) {
      const path = join(map, "..", source).replaceAll("\\", "/");
      if (!files.includes(path)) failures.push(`${map} names the source ${source}, which is not shipped`);
    }
  }
  await expectSuccess(
    "publint --strict",
    process.execPath,
    [join(root, "node_modules", "publint", "src", "cli.js"), "run", tarball, "--strict"],
    root,
  );
  await expectSuccess(
    "arethetypeswrong (node16 and bundler)",
    process.execPath,
    [
      join(root, "node_modules", "@arethetypeswrong", "cli", "dist", "index.js"),
      tarball,
      "--profile",
      "node16",
      "--format",
      "table-flipped",
    ],
    root,
  );
  const directory = join(work, "tarball-consumer");
  if (await installInto("tarball", directory, tarball, [`@types/node@${typesNodeVersion}`])) {
    await checkRuntime("tarball", directory);
    await checkTypes("tarball", directory);
    await checkReadmeOperators("tarball", directory);
  }
}

/**
 * The README's operator commands, as written, in the installed project: `X=…` sets the variable; `npx
 * incident-query …` runs the linked bin and must exit 0; `serve` must print `Listening on` (with `--port 0`
 * added when the line names no port, so that no fixed port is needed), then is stopped by its pid; `npm
 * install …` must succeed. The `serve --database` line runs twice (the README says the same line starts
 * again).
 */
async function checkReadmeOperators(label, directory) {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start: operators"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const lines = block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");
  const env = { ...process.env, npm_config_update_notifier: "false" };
  const bin = join(directory, "node_modules", ".bin", "incident-query");
  for (const line of lines) {
    const assignment = /^([A-Z]+)=(\S+)$/.exec(line);
    if (assignment !== undefined && assignment !== null) {
      env[assignment[1]] = assignment[2];
      continue;
    }
    if (line.startsWith("npm install ")) {
      const packages = line.slice("npm install ".length).split(/\s+/);
      await expectSuccess(
        `${label}: README: ${line}`,
        "npm",
        ["install", ...NPM_FLAGS, ...packages],
        directory,
      );
      continue;
    }
    if (!line.startsWith("npx incident-query ")) {
      failures.push(`${label}: README operators: a line the check does not know: ${line}`);
      continue;
    }
    const command = `exec ${JSON.stringify(bin)} ${line.slice("npx incident-query ".length)}`;
    if (!/\bserve\b/.test(line)) {
      const result = await new Promise((done) => {
        const child = spawn("bash", ["-c", command], { cwd: directory, env });
        let output = "";
        child.stdout.on("data", (chunk) => {
          output += chunk;
        });
        child.stderr.on("data", (chunk) => {
          output += chunk;
        });
        child.on("close", (code) => done({ code, output }));
      });
      if (result.code !== 0)
        failures.push(`${label}: README: ${line}: exit code ${result.code}\n${result.output}`);
      else log(`ok: ${label}: README: ${line}`);
      continue;
    }
    const times = line.includes("--database") ? 2 : 1;
    for (let k = 0; k < times; k++) {
      const served = await new Promise((done) => {
        const child = spawn("bash", ["-c", /--port\b/.test(line) ? command : `${command} --port 0`], {
          cwd: directory,
          env,
        });
        let output = "";
        let listening = false;
        const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
        const read = (chunk) => {
          output += chunk;
          if (!listening && output.includes("Listening on ")) {
            listening = true;
            child.kill("SIGTERM");
          }
        };
        child.stdout.on("data", read);
        child.stderr.on("data", read);
        child.on("close", () => {
          clearTimeout(timer);
          done({ listening, output });
        });
      });
      if (!served.listening)
        failures.push(`${label}: README: ${line} (run ${k + 1}) did not start\n${served.output}`);
      else log(`ok: ${label}: README: ${line} (run ${k + 1})`);
    }
  }
}

async function checkGitInstall() {
  if (args.has("--skip-git")) {
    log("skipped: the git install (--skip-git)");
    return;
  }
  const inside = await run("git", ["rev-parse", "--is-inside-work-tree"], root);
  if (inside.code !== 0) {
    log("skipped: the git install (not a git work tree)");
    return;
  }
  const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
    cwd: root,
    encoding: "utf8",
  });
  if (dirty.trim() !== "")
    log("note: the git install uses the last commit; uncommitted changes are not in it");
  const directory = join(work, "git-consumer");
  if (await installInto("git", directory, `git+${pathToFileURL(root).href}`))
    await checkRuntime("git", directory);
}

try {
  // The git install spends most of its time installing the clone's devDependencies and building: it runs
  // while the tarball is checked.
  await Promise.all([checkTarball(), checkGitInstall()]);
} finally {
  log(args.has("--keep") ? "done" : "done; removing the scratch projects");
  if (!args.has("--keep")) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
if (failures.length > 0) {
  console.error(`\ncheck-package: ${failures.length} failure(s):\n\n${failures.join("\n\n")}`);
  process.exit(1);
}
log("the package installs and works from its tarball and from git");
