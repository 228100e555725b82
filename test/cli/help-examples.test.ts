/**
 * Every `--help` example works where the executable is installed: none names a file of the repository
 * (`examples/…`), which an installed package holds under node_modules/incident-query, not where the
 * command runs.
 */
import { describe, expect, it } from "vitest";
import { runWith } from "../support/run-cli.js";

describe("--help examples name no file of the repository", () => {
  it.each([["check"], ["match"], ["timeline"], ["serve"]])("%s --help", async (command) => {
    const { code, out } = await runWith({}, command, "--help");
    expect(code).toBe(0);
    expect(out).toContain("Examples:");
    expect(out).not.toMatch(/examples\//);
  });
});
