/**
 * The layers of the source tree (README, "Where things live"): each folder of `src/` imports only the
 * folders below it. The engine (`conditions`, `timeline`, `incidents`, `artifacts`) never imports an
 * adapter; `mongodb` and `postgres` translate conditions without the set; `client` shares only the wire
 * types of `commands`.
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
  cli: ["server", "commands", "postgres", "conditions", "timeline", "incidents", "artifacts"],
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
});
