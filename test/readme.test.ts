import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { validateDataset } from "../src/commands/index.js";

// The README and the docs are what users copy: their examples must stay true, and they must not send a
// reader to a file outside the repository.
const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");
const readme = read("README.md");

function section(text: string, heading: string): string {
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`no section '${heading}'`);
  const next = text.indexOf("\n## ", start + heading.length);
  return text.slice(start, next < 0 ? undefined : next);
}

function codeLines(block: string): string[] {
  return block
    .replace(/import[\s\S]*?from "[^"]+";/g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//") && !line.startsWith("…"));
}

describe("README", () => {
  it("names the two set-up commands that .ci/run and a fresh clone use", () => {
    const setUp = section(readme, "## Set-up: two commands");
    expect(setUp).toContain("npm ci && npm start");
    expect(setUp).toContain("npm ci && npm test");
    const ci = read(".ci/run");
    expect(ci).toMatch(/^npm ci$/m);
    expect(ci).toMatch(/^npm test$/m);
  });

  it.each([
    ["## Quick start: server implementers", "examples/server-implementer.test.ts"],
    ["## Quick start: playbook authors", "examples/playbook.test.ts"],
  ])("%s shows code that %s runs", (heading, file) => {
    const block = /```ts\n([\s\S]*?)```/.exec(section(readme, heading))?.[1];
    expect(block).toBeDefined();
    // Every statement the README shows stands in the example CI runs (the README may leave lines out).
    const example = read(file).replace(/\s+/g, " ");
    for (const line of codeLines(block!)) {
      if (line.startsWith("import ") || /^[\])},;]+$/.test(line)) continue;
      expect(example, `${file} lacks: ${line}`).toContain(line.replace(/\s+/g, " "));
    }
  });

  it("the Backend example searches within the caller's site (not the first match of all sites)", () => {
    const block = section(readme, "## Quick start: server implementers");
    expect(block).toContain("set.findFirst(condition, { ...budget, site })");
    expect(block).not.toMatch(/\?\.Site === site/);
    // The example CI runs holds two sites, and the first match of all sites is the other site's.
    const example = read("examples/server-implementer.test.ts");
    expect(example).toContain('expect(set.findFirst(conditions)?.Site).toBe("EMEA SOC")');
  });

  it("links only to files of the repository", () => {
    for (const file of ["README.md", "SECURITY.md", ...docs()]) {
      const text = read(file);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^https?:/.test(target!)) continue;
        const base = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
        expect(() => read(`${base}${target}`), `${file} links to ${target}`).not.toThrow();
      }
      expect(text, `${file} names a file outside the repository`).not.toMatch(
        /\.\.\/shared|spec\/DECISIONS|spec\/incident-command/,
      );
    }
  });
});

function docs(): string[] {
  return [
    "docs/semantics.md",
    "docs/server.md",
    "docs/cli.md",
    "docs/dataset.md",
    "docs/mongodb.md",
    "docs/postgresql.md",
    "docs/performance.md",
  ];
}

describe("docs/dataset.md", () => {
  it("the dataset example is a valid dataset", () => {
    const block = /```json\n([\s\S]*?)```/.exec(read("docs/dataset.md"))?.[1];
    expect(block).toBeDefined();
    const result = validateDataset(JSON.parse(block!));
    expect(result.ok ? [] : result.issues).toEqual([]);
  });
});
