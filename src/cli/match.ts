import { type Command, Option } from "commander";
import type { CliContext } from "./context.js";
import type { MatchOptions } from "./match-run.js";
import { addRecordOptions, parsePositiveCount } from "./record-options.js";

/**
 * `match --incidents <file|-> <conditions>`: streams the incidents of a JSON array or NDJSON input (a file,
 * `-` or a pipe; gzip or not) and prints the first matching incident (docs/semantics.md 1.9: earliest
 * CreatedUtcTime, then IncidentId) as indented JSON (compact when nested too deeply to indent, see
 * `formatJson`); `--all` streams every match as NDJSON in input order (`--limit N` stops after N),
 * `--count` prints the number of matches. Exit codes: 0 found, 1 none matches, 2 invalid Search
 * Conditions, 64/65/66/74 as the README's table says. Memory stays constant.
 */
export function registerMatchCommand(program: Command, context: CliContext): void {
  const command = program
    .command("match")
    .description("Print the first incident (earliest CreatedUtcTime) that matches Search Conditions.")
    .requiredOption(
      "--incidents <file>",
      "incidents: a JSON array or NDJSON (one incident per line), gzip or not; - for standard input",
    )
    .argument("<conditions>", "Search Conditions as JSON, or @file")
    .addOption(
      new Option("--all", "print every matching incident, one JSON object a line (NDJSON), in input order"),
    )
    .addOption(new Option("--count", "print the number of matching incidents").conflicts(["all", "limit"]))
    .addOption(
      new Option("--limit <n>", "with --all: stop after n matches, n ≥ 1 (implies --all)").argParser(
        parsePositiveCount,
      ),
    )
    .addOption(
      new Option(
        "--threads <n>",
        "threads that read a regular NDJSON file, this one included, n ≥ 1 (default: the cores available, at most 8)",
      ).argParser(parsePositiveCount),
    )
    .addOption(
      new Option(
        "--reader <reader>",
        "bytes (default) or text: every record through JSON.parse (docs/cli.md)",
      )
        .choices(["bytes", "text"])
        .hideHelp(),
    )
    .addOption(
      new Option("--block-bytes <n>", "bytes of one block of a file read by threads (tests)")
        .argParser(parsePositiveCount)
        .hideHelp(),
    );
  addRecordOptions(command)
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query match --incidents incidents.json '{"IngestionType": "Webhook|File", "Severity": "High"}'
  $ incident-query match --incidents incidents.ndjson.gz --all '{"Severity": "High"}' | head -3
  $ zcat export.ndjson.gz | incident-query match --incidents - --count @conditions.json

Exit codes: 0 found (printed), 1 no incident matches, 2 invalid Search Conditions, 64 usage,
65 invalid input (each problem with its line; --skip-invalid skips them), 66 unreadable input, 74 I/O error.`,
    )
    .action(async (conditionsArgument: string, options: MatchOptions) => {
      // What the action runs loads only when it runs (docs/cli.md, Start-up).
      const { runMatch } = await import("./match-run.js");
      await runMatch(conditionsArgument, options, context);
    });
}
