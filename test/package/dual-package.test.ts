/**
 * The dual-package hazard: the package ships an ES module build and a CommonJS build, and a
 * process may load both (an ES module app whose dependency `require`s the package). Parsed conditions are
 * branded by a module-private class field, and errors are classes, so two copies of the engine in one
 * process would refuse each other's conditions and fail each other's `instanceof`. The CommonJS entries
 * therefore hand out the ES module build itself (require(esm)), and these tests load the BUILT package
 * (`dist/`, built here when missing) both ways in one child process, through its export map.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "incident-query-dual-"));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string | { import: { default: string }; require: { default: string } }>;
};

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist/index.cjs")) || !existsSync(join(ROOT, "dist/index.js")))
    execFileSync("npx", ["tsup", "--silent"], { cwd: ROOT, stdio: "ignore" });
}, 300_000);

/** Runs an ES module script in a child Node process (so that nothing is cached from this one). */
function runModule(source: string): { code: number; out: string; err: string } {
  const script = join(dir, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(script, source);
  const result = spawnSync(process.execPath, [script], { cwd: dir, encoding: "utf8", timeout: 300_000 });
  return { code: result.status ?? -1, out: result.stdout, err: result.stderr };
}

const entries = Object.entries(pkg.exports).filter(
  (e): e is [string, { import: { default: string }; require: { default: string } }] =>
    typeof e[1] !== "string",
);

/** The ES module file of each entry of the export map (`.` → `dist/index.js`). */
const esmFiles = Object.fromEntries(
  entries.map(([subpath, target]) => [subpath, join(ROOT, target.import.default)]),
);

/**
 * A script's prelude: `both(subpath)` loads one entry of the export map through `require` (by the
 * package's name, so the map's `require` condition is used) and through `import` (its `import` file).
 */
const prelude = `
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
const require = createRequire(${JSON.stringify(join(ROOT, "package.json"))});
const esmFiles = ${JSON.stringify(esmFiles)};
const both = async (subpath) => {
  const name = subpath === "." ? "incident-query" : "incident-query/" + subpath.slice(2);
  return { cjs: require(name), esm: await import(pathToFileURL(esmFiles[subpath]).href) };
};
`;

describe("one copy of the library per process, however it is loaded", () => {
  it("a condition parsed through either build is accepted by every function of the other", () => {
    const result = runModule(`${prelude}
const { cjs, esm } = await both(".");
const { cjs: mcjs, esm: mesm } = await both("./mongodb");
const incident = { Title: "Phishing email", Severity: "High" };
const out = [];
for (const [from, to, mongo] of [[esm, cjs, mcjs], [cjs, esm, mesm]]) {
  const condition = from.parseSearchConditions({ Title: { $regex: "^Phish" }, Severity: { $in: ["High"] } });
  out.push(to.isParsedCondition(condition));
  out.push(to.compile(condition)(incident));
  out.push(to.evaluate(condition, incident));
  out.push(JSON.stringify(to.toSearchConditions(condition)));
  out.push(typeof to.explain(condition));
  out.push(JSON.stringify(to.toMongoFilter(condition)) === JSON.stringify(mongo.toMongoFilter(condition)));
  out.push(new to.IncidentSet([incident]).findFirst(condition) === incident);
}
console.log(JSON.stringify(out));
`);
    expect(result.err).toBe("");
    const sample = '{"Title":{"$regex":"^Phish"},"Severity":{"$in":["High"]}}';
    const each = [true, true, true, sample, "string", true, true];
    expect(JSON.parse(result.out)).toEqual([...each, ...each]);
    expect(result.code).toBe(0);
  });

  it("an error thrown through one build is an instance of the other's class", () => {
    const result = runModule(`${prelude}
const { cjs, esm } = await both(".");
const out = [];
for (const [from, to] of [[esm, cjs], [cjs, esm]]) {
  try { from.parseSearchConditions({ Severity: "Hihg" }); } catch (e) { out.push(e instanceof to.SearchConditionsError); }
  try { from.parseSortOrder("sideways"); } catch (e) { out.push(e instanceof to.InvalidSortOrderError); }
}
console.log(JSON.stringify(out));
`);
    expect(result.err).toBe("");
    expect(JSON.parse(result.out)).toEqual([true, true, true, true]);
  });

  it.each(entries.map(([subpath]) => subpath))(
    "%s: require and import hand out the same functions and classes",
    (subpath) => {
      const result = runModule(`${prelude}
const { cjs, esm } = await both(${JSON.stringify(subpath)});
const names = Object.keys(esm).filter((k) => typeof esm[k] === "function" || typeof esm[k] === "object");
console.log(JSON.stringify({ count: names.length, different: names.filter((k) => cjs[k] !== esm[k]) }));
`);
      expect(result.err).toBe("");
      const { count, different } = JSON.parse(result.out) as { count: number; different: string[] };
      expect(count).toBeGreaterThan(0);
      expect(different).toEqual([]);
    },
  );

  it("where an ES module cannot be required, require still loads a working CommonJS build", () => {
    // Node's switch for runtimes without require(esm) (Node 22.0–22.11; Jest's registry fails alike).
    const result = spawnSync(
      process.execPath,
      [
        "--no-experimental-require-module",
        "-e",
        `const m = require(${JSON.stringify(join(ROOT, "dist/index.cjs"))});
         const c = m.parseSearchConditions({ Title: "x" });
         console.log(JSON.stringify([m.compile(c)({ Title: "x" }), m.isParsedCondition(c)]));`,
      ],
      { cwd: dir, encoding: "utf8", timeout: 300_000 },
    );
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual([true, true]);
  });
});
