import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

export default defineConfig([
  {
    // The library: engine, commands, server and client, as ESM and CJS with declarations.
    entry: {
      index: "src/index.ts",
      "commands/index": "src/commands/index.ts",
      "server/index": "src/server/index.ts",
      "client/index": "src/client/index.ts",
      "mongodb/index": "src/mongodb/index.ts",
      // Separate so that only users of PostgreSQL load its code; the drivers are optional peers.
      "postgres/index": "src/postgres/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    splitting: true,
    // `import.meta.url` in the CommonJS build (loadSampleDataset finds examples/sample-dataset.json
    // relative to the module).
    shims: true,
    // The playground's engine from the sources (src/server/web-routes.ts): never loaded by the build.
    external: ["esbuild"],
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
    sourcemap: true,
    minify: true,
  },
  {
    // The executable, and the worker threads of `match` (found beside it: dist/cli/match-worker.js).
    entry: { "cli/main": "src/cli/main.ts", "cli/match-worker": "src/cli/match-worker.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    external: ["esbuild"],
    define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  },
]);
