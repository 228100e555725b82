import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

/** The library's entries (one ES module and one CommonJS file each). */
const entries = {
  index: "src/index.ts",
  "commands/index": "src/commands/index.ts",
  "server/index": "src/server/index.ts",
  "client/index": "src/client/index.ts",
  "mongodb/index": "src/mongodb/index.ts",
  // Separate so that only users of PostgreSQL load its code; the drivers are optional peers.
  "postgres/index": "src/postgres/index.ts",
  // The Node entry (files, streams, worker threads), and its worker's script (found by
  // src/node/workers.ts, `matchWorkerScript`, beside the code that starts it or in dist/node/).
  "node/index": "src/node/index.ts",
  "node/match-worker": "src/node/match-worker.ts",
  // The worker of a parallel `fromNdjson` (found by `buildWorkerScript`, beside the library's Node entry).
  "node/build-worker": "src/node/build-worker.ts",
};

/**
 * One copy of the library per process (issue 30, the dual-package hazard; README, "Install"): parsed
 * conditions carry a module-private brand and errors are classes, so a CommonJS copy beside the ES module
 * copy would refuse the other's conditions and fail its `instanceof`. Each `dist/E.cjs` becomes a wrapper
 * that hands out the ES module build itself (require(esm): Node 20.19+, 22.12+); the CommonJS bundle stays,
 * renamed `E.fallback.cjs`, for runtimes that cannot require an ES module (Node 22.0–22.11, Jest's registry).
 * The `.d.cts` types are left as they are.
 */
function wrapCommonJsEntries(): void {
  for (const entry of Object.keys(entries).filter((name) => !name.endsWith("-worker"))) {
    const base = entry.split("/").pop()!;
    const bundle = `dist/${entry}.cjs`;
    const fallback = `dist/${entry}.fallback.cjs`;
    if (!existsSync(bundle)) throw new Error(`tsup: ${bundle} was not built`);
    const code = readFileSync(bundle, "utf8").replace(
      `//# sourceMappingURL=${base}.cjs.map`,
      `//# sourceMappingURL=${base}.fallback.cjs.map`,
    );
    writeFileSync(fallback, code);
    if (existsSync(`${bundle}.map`)) renameSync(`${bundle}.map`, `${fallback}.map`);
    writeFileSync(
      bundle,
      `"use strict";
// incident-query: one copy of the library per process. CommonJS callers get the ES module build itself
// (require(esm), Node 20.19+ and 22.12+), so that conditions parsed and errors thrown through either
// build are the other's too; where an ES module cannot be required, the CommonJS build.
let loaded;
try {
  loaded = require("./${base}.js");
} catch (error) {
  const code = error !== null && typeof error === "object" ? error.code : undefined;
  const name = error !== null && typeof error === "object" ? error.name : undefined;
  if (code !== "ERR_REQUIRE_ESM" && name !== "SyntaxError") throw error;
  loaded = require("./${base}.fallback.cjs");
}
module.exports = loaded;
`,
    );
  }
}

export default defineConfig([
  {
    // The library: engine, commands, server and client, as ESM and CJS with declarations.
    entry: entries,
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: false,
    target: "node20",
    splitting: true,
    // `import.meta.url` in the CommonJS build (loadSampleDataset finds examples/sample-dataset.json
    // relative to the module).
    shims: true,
    // The playground's engine from the sources (src/server/web-routes.ts): never loaded by the build.
    external: ["esbuild"],
    async onSuccess() {
      wrapCommonJsEntries();
    },
  },
  {
    // The engine for browsers (issue 29): the main entry with its dependencies, one ES module, built for the
    // browser platform, so a Node built-in anywhere in the engine fails the build. The playground page
    // loads it (docs/server.md, "The playground"); `npm run test:browser` runs it in Chromium.
    entry: { "browser/incident-query": "src/index.ts" },
    format: ["esm"],
    platform: "browser",
    target: "es2022",
    noExternal: [/.*/],
    sourcemap: false,
    minify: true,
  },
  {
    // The executable, and the worker threads of `match` (found beside it: dist/cli/match-worker.js). Split
    // into chunks in dist/cli, so that `serve`'s server (Fastify, jose, pg) loads only when `serve` runs
    // (src/cli/serve-run.ts) and the worker shares the engine's chunk with the executable.
    entry: { main: "src/cli/main.ts", "match-worker": "src/node/match-worker.ts" },
    outDir: "dist/cli",
    format: ["esm"],
    splitting: true,
    sourcemap: false,
    target: "node20",
    // commander and re2js bundled into the executable's chunks: loaded as CommonJS from an ES module they
    // cost Node's CommonJS loader and export scan on every start (docs/cli.md, Start-up). Bundled CommonJS
    // code requires Node's built-ins (commander: `events`, `child_process`): each chunk gets a `require`.
    banner: {
      js: '#!/usr/bin/env node\nimport { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
    },
    external: ["esbuild"],
    noExternal: ["commander", "re2js"],
    define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  },
]);
