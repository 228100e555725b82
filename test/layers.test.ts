/**
 * The layers of the source tree (docs/layout.md): each folder of `src/` imports only the
 * folders below it. The engine (`conditions`, `timeline`, `incidents`, `artifacts`) never imports an
 * adapter; `mongodb` and `postgres` translate conditions without the set; `client` shares only the wire
 * types of `commands`. And no module imports itself through others (issue 28: no import cycles, type-only
 * and dynamic imports included).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

/** What each top-level folder (or root file) may import, besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  conditions: [],
  artifacts: [],
  timeline: ["conditions"],
  incidents: ["conditions"],
  mongodb: ["conditions"],
  commands: ["conditions", "timeline", "incidents", "artifacts"],
  // A Backend over PostgreSQL: the commands' backend contract, the translation, the search budget.
  postgres: ["commands", "conditions", "incidents"],
  client: ["commands"],
  server: ["commands", "conditions", "timeline", "incidents", "artifacts"],
  // Files, streams, blocks and worker threads over the pure engine (docs/node.md).
  node: ["incidents", "conditions"],
  cli: ["server", "commands", "postgres", "node", "conditions", "timeline", "incidents", "artifacts"],
  "index.ts": ["conditions", "timeline", "incidents", "artifacts", "mongodb"],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The top-level folder (or root file) of a path under `src/`. */
const layerOf = (path: string) => relative(SRC, path).split("/")[0]!;

describe("the layers of src/", () => {
  const files = sourceFiles(SRC);

  it("finds the source files and their layers", () => {
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) expect(Object.keys(ALLOWED), file).toContain(layerOf(file));
  });

  it("has each layer import only the layers below it", () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const to = layerOf(resolve(dirname(file), match[1]!));
        if (to !== from && !ALLOWED[from]!.includes(to)) {
          violations.push(`${relative(SRC, file)} imports ${match[1]} (${from} → ${to})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("has no import cycle among its modules (static, type-only and dynamic imports alike)", () => {
    const edges = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const targets: string[] = [];
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const target = resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts"));
        if (files.includes(target)) targets.push(target);
      }
      edges.set(file, targets);
    }
    // Depth-first search; a module met again while it is on the path closes a cycle.
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (file: string): void => {
      state.set(file, "open");
      path.push(file);
      for (const next of edges.get(file) ?? []) {
        if (state.get(next) === "open") {
          cycles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(SRC, f)).join(" → "));
        } else if (state.get(next) === undefined) visit(next);
      }
      path.pop();
      state.set(file, "done");
    };
    for (const file of files) if (state.get(file) === undefined) visit(file);
    expect(cycles).toEqual([]);
  });
});
