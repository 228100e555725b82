import type { Command } from "commander";
import type { CliContext } from "./context.js";

/**
 * `check <conditions>`: parses Search Conditions (inline JSON or `@file`); prints `explain()` and exits 0,
 * or prints every issue as `path: message` on stderr and exits 2 (docs/cli.md). A possible misspelling of a
 * field name (docs/semantics.md 1.1) is printed on stderr as `warning: path: message` (exit 0); `--strict`
 * makes it an issue (exit 2).
 */
export function registerCheckCommand(program: Command, context: CliContext): void {
  program
    .command("check")
    .description("Check Search Conditions and explain what they match.")
    .argument("<conditions>", "Search Conditions as JSON, or @file")
    .option("--strict", "treat a possible misspelling of a field name (a warning) as an issue: exit 2")
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query check '{"Severity": {"$in": ["High", "Critical"]}, "Title": {"$regex": "^Phish"}}'
  $ incident-query check @conditions.json

A key within a few edits of a catalogue field ("Sevrity") is an open field, matched as written: check
prints "warning: path: message" on stderr with the field it may mean, and exits 0 (2 with --strict).

Exit codes: 0 valid, 2 invalid (each issue printed as "path: message"), 64 usage, 66 unreadable file.`,
    )
    .action(async (conditionsArgument: string, options: { strict?: boolean }) => {
      // The engine loads only when the command runs (docs/cli.md, Start-up).
      const [{ explain }, { readSearchConditionsArgument }] = await Promise.all([
        import("../conditions/print.js"),
        import("./input.js"),
      ]);
      const condition = await readSearchConditionsArgument(conditionsArgument, context, {
        strict: options.strict === true,
      });
      if (condition === undefined) return;
      context.stdout.write(`${explain(condition)}\n`);
    });
}
