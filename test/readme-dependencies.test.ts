/**
 * README "Runtime dependencies": every package the table names is a dependency of the package, and every
 * dependency is in the table (it once named `stream-json`, which is no dependency: the CLI reads arrays
 * with its own scanner, src/cli/records.ts).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
};

describe("README: Runtime dependencies", () => {
  it("names exactly the package's dependencies", () => {
    const section = readme.split("## Runtime dependencies")[1]!.split("\n## ")[0]!;
    const named = new Set<string>();
    for (const line of section.split("\n")) {
      const cell = /^\|\s*([^|]+?)\s*\|/.exec(line)?.[1];
      if (cell === undefined || cell === "package" || /^-+$/.test(cell)) continue;
      for (const name of cell.split(",")) named.add(name.replace(/\(.*\)/, "").trim());
    }
    expect([...named].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });
});
