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
      // Separate so that the main entry's declarations never name the optional mongodb driver.
      "mongodb/index": "src/incidents/mongo.ts",
      // Separate so that only users of PostgreSQL load its code; the drivers are optional peers.
      "postgres/index": "src/postgres/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node20",
    splitting: true,
  },
  {
    // The executable.
    entry: { "cli/main": "src/cli/main.ts" },
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    define: { __PACKAGE_VERSION__: JSON.stringify(version) },
  },
]);
