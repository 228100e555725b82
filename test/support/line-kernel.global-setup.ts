/**
 * Vitest global setup: compiles the WebAssembly line kernel (assembly/line-kernel.ts) into
 * dist/kernel/line-kernel.wasm when it is missing or older than its source, as `npm run build:kernel` does,
 * so that the tests of the kernel always run against the source in the tree. A failed compilation fails the
 * run (the tests that need the kernel never skip).
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

function modified(path: string): number {
  try {
    return statSync(root(path)).mtimeMs;
  } catch {
    return Number.NaN;
  }
}

export default function setup(): void {
  const built = modified("dist/kernel/line-kernel.wasm");
  const sources = ["assembly/line-kernel.ts", "assembly/asconfig.json"].map(modified);
  if (!Number.isNaN(built) && sources.every((time) => time <= built)) return;
  execFileSync(
    process.execPath,
    [
      root("node_modules/assemblyscript/bin/asc.js"),
      "assembly/line-kernel.ts",
      "--config",
      "assembly/asconfig.json",
    ],
    { cwd: root("."), stdio: "inherit" },
  );
}
