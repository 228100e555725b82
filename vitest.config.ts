import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts", "src/**/*.test-d.ts"] },
    testTimeout: 60_000,
  },
});
