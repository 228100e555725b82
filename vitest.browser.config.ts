import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

/**
 * The browser suite (`npm run test:browser`, issue 29): the engine's browser build and the playground in
 * headless Chromium (Debian's `chromium`, driven by playwright-core; `CHROMIUM` names another binary).
 * Not part of `npm test`, which needs no browser. One file at a time: each starts its own browser.
 */
export default defineConfig({
  resolve: base.resolve ?? {},
  test: {
    include: ["test/browser/**/*.test.ts"],
    setupFiles: base.test?.setupFiles ?? [],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
