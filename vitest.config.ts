import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The package's own entry points, resolved to their sources (the examples import the package by name). */
const entry = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^incident-query$/, replacement: entry("./src/index.ts") },
      { find: /^incident-query\/commands$/, replacement: entry("./src/commands/index.ts") },
      { find: /^incident-query\/server$/, replacement: entry("./src/server/index.ts") },
      { find: /^incident-query\/client$/, replacement: entry("./src/client/index.ts") },
      { find: /^incident-query\/mongodb$/, replacement: entry("./src/mongodb/index.ts") },
      { find: /^incident-query\/node$/, replacement: entry("./src/node/index.ts") },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    // The browser suite needs Chromium: `npm run test:browser` (vitest.browser.config.ts).
    exclude: ["**/node_modules/**", "test/browser/**"],
    // Every response of a server made in a test is held to the OpenAPI document (issue 29).
    setupFiles: ["test/support/openapi-responses.setup.ts"],
    // The WebAssembly line kernel, compiled from assembly/ when dist/ lacks it or it is older than its source.
    globalSetup: ["test/support/line-kernel.global-setup.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts", "src/**/*.test-d.ts"] },
    // Hang guards, not verdicts: no test's outcome depends on them. A suite on a busy machine (a load
    // average of 9 on two cores: about 630 s for the whole run) must not be cut by them, so they are
    // generous; a test that needs longer sets its own.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Vitest's default leaves one core free, which on the two-core machines of this project is one worker:
    // two workers take the suite from about 280 s to about 205 s there (the suite's timing bounds hold).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
