import type { Command } from "commander";
import { explain } from "../conditions/print.js";
import type { CliContext } from "./context.js";
import { readSearchConditionsArgument } from "./input.js";

/**
 * `check <conditions>`: parses Search Conditions (inline JSON or `@file`); prints `explain()` and exits 0,
 * or prints every issue as `path: message` on stderr and exits 2.
 */
export function registerCheckCommand(program: Command, context: CliContext): void {
  program
    .command("check")
    .description("Check Search Conditions and explain what they match.")
    .argument("<conditions>", "Search Conditions as JSON, or @file")
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query check '{"Severity": {"$in": ["High", "Critical"]}, "Title": {"$regex": "^Phish"}}'
  $ incident-query check @examples/search-conditions.json

Exit codes: 0 valid, 2 invalid (each issue printed as "path: message"), 64 usage, 66 unreadable file.`,
    )
    .action(async (conditionsArgument: string) => {
      const condition = await readSearchConditionsArgument(conditionsArgument, context);
      if (condition === undefined) return;
      context.stdout.write(`${explain(condition)}\n`);
    });
}
