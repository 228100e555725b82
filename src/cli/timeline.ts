import { type Command, Option } from "commander";
import type { CliContext } from "./context.js";
import { addRecordOptions } from "./record-options.js";
import type { TimelineOptions } from "./timeline-run.js";

/**
 * `timeline (--entries <file|-> | --data <dataset> --incident <number> [--site <name>]) [--filter T]
 * [--sort-order DESC] [--ndjson]`: reads timeline entries (a JSON array or NDJSON, streamed; or one
 * incident's entries from a dataset of the in-memory backend), validates them (specification 2.2), filters
 * and sorts them (docs/semantics.md 2) and prints them: a JSON array with one entry a line, or NDJSON. Sorting
 * needs every kept entry, so those are held in memory (entries the filter drops are not).
 */
export function registerTimelineCommand(program: Command, context: CliContext): void {
  const command = program
    .command("timeline")
    .description("Filter and sort timeline entries as GetIncidentTimelineEntries does.")
    .addOption(
      new Option(
        "--entries <file>",
        "timeline entries: a JSON array or NDJSON (one entry per line), gzip or not; - for standard input",
      ).conflicts("data"),
    )
    .addOption(
      new Option(
        "--data <file>",
        "a dataset of the in-memory backend (JSON, gzip or not; - for standard input)",
      ),
    )
    .option("--incident <number>", "with --data: the incident's Number")
    .option("--site <name>", "with --data: the incident's site (needed when several sites use the number)")
    .option("--filter <term>", "keep entries containing the term (case-insensitive, literal)")
    .option("--sort-order <token>", "ASC, ascending, DESC or descending (default ASC)")
    .option("--ndjson", "print one entry a line (NDJSON) instead of a JSON array");
  addRecordOptions(command)
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query timeline --entries entries.json --filter phish --sort-order DESC
  $ zcat entries.ndjson.gz | incident-query timeline --entries - --ndjson | head
  $ incident-query timeline --data dataset.json --incident 20240102-1

Exit codes: 0 printed the entries, 1 no such incident (--data), 2 invalid sort order, 64 usage,
65 invalid input (each problem with its line; --skip-invalid skips them), 66 unreadable input, 74 I/O error.`,
    )
    .action(async (options: TimelineOptions) => {
      // What the action runs loads only when it runs (docs/cli.md, Start-up).
      const { runTimeline } = await import("./timeline-run.js");
      await runTimeline(options, context);
    });
}
