/**
 * The layers of the source tree, as docs/architecture.md ("Layers") states them: each folder of `src/`
 * imports only the folders its arrow points at. The arrows are read from that page (one statement of
 * them). And no module imports itself through others (no import cycles, type-only and dynamic imports
 * included).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");
const ARCHITECTURE = resolve(import.meta.dirname, "../docs/architecture.md");

/**
 * What each top-level folder (or root file) may import, besides itself: the lines `from ──► to, to` of the
 * first `text` block under "## Layers" in docs/architecture.md.
 */
function readLayers(page: string): Record<string, readonly string[]> {
  const section = page.split(/^## /m).find((part) => part.startsWith("Layers"));
  const block = section?.match(/```text\n([\s\S]*?)```/)?.[1];
  if (block === undefined) throw new Error("docs/architecture.md has no ```text block under ## Layers");
  const layers: Record<string, readonly string[]> = {};
  for (const line of block.split("\n").filter((each) => each.trim() !== "")) {
    const [from, to] = line.split("──►").map((part) => part.trim());
    if (from === undefined || to === undefined) throw new Error(`not an arrow: ${line}`);
    layers[from] = to === "" ? [] : to.split(",").map((name) => name.trim());
  }
  return layers;
}

const ALLOWED = readLayers(readFileSync(ARCHITECTURE, "utf8"));

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

  it("reads every layer's arrows from docs/architecture.md, each pointing at a layer", () => {
    expect(Object.keys(ALLOWED).sort()).toEqual([...new Set(files.map(layerOf))].sort());
    for (const targets of Object.values(ALLOWED)) {
      for (const target of targets) expect(Object.keys(ALLOWED)).toContain(target);
    }
    expect(() => readLayers("# A page\n\n## Layers\n\nno block")).toThrow(/no ```text block/);
  });

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

/**
 * The reference interpreter shares nothing with the fast paths it is the yardstick of (docs/semantics.md
 * 1.5): `evaluate.ts` reaches none of their modules through its imports. It takes the parser's brand check
 * from `parse.ts`, which is not followed (the parser measures patterns with the matcher's module, and
 * never matches with it).
 */
describe("evaluate's independence from the fast paths", () => {
  const CONDITIONS = join(SRC, "conditions");
  const files = sourceFiles(SRC);
  /** The fast paths: compile and its code generator, the leaf table, the project's matcher, the set. */
  const isFastPath = (file: string): boolean => {
    const path = relative(SRC, file);
    if (path.startsWith("incidents/")) return true;
    if (path.startsWith("conditions/regex/")) return path !== "conditions/regex/syntax-error.ts";
    return [
      "conditions/compile.ts",
      "conditions/codegen.ts",
      "conditions/leaf.ts",
      "conditions/lru.ts",
    ].includes(path);
  };
  const importsOf = (file: string): string[] =>
    [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)]
      .map((match) => resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts")))
      .filter((target) => files.includes(target));
  /** The modules `file` reaches, `stop` excluded (and not followed). */
  const reach = (file: string, stop: readonly string[]): Set<string> => {
    const seen = new Set<string>();
    const visit = (at: string) => {
      for (const next of importsOf(at)) {
        if (seen.has(next) || stop.includes(next)) continue;
        seen.add(next);
        visit(next);
      }
    };
    visit(file);
    return seen;
  };
  const PARSE = join(CONDITIONS, "parse.ts");

  it("reaches no fast-path module", () => {
    const reached = [...reach(join(CONDITIONS, "evaluate.ts"), [PARSE])];
    expect(reached.length).toBeGreaterThan(0);
    expect(reached.filter(isFastPath).map((file) => relative(SRC, file))).toEqual([]);
  });

  it("would see one (the rule is not vacuous): compile's imports reach the matcher and the leaf table", () => {
    const reached = [...reach(join(CONDITIONS, "compile.ts"), [PARSE])].map((file) => relative(SRC, file));
    expect(reached).toEqual(expect.arrayContaining(["conditions/leaf.ts", "conditions/regex/matcher.ts"]));
  });
});
