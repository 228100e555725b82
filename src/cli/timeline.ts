import type { Command } from "commander";
import { parseSortOrder, queryTimeline, validateTimelineEntries } from "../timeline/index.js";
import { CliError, EXIT } from "./exit-codes.js";
import { readRecords } from "./input.js";
import type { CliContext } from "./program.js";

/**
 * `timeline --entries <file> [--filter T] [--sort-order DESC]`: reads timeline entries (JSON array or
 * NDJSON, streamed), validates them (specification 2.2), filters and sorts them (DECISIONS.md 2) and prints
 * the result as a JSON array. Sorting needs every entry, so the entries are held in memory; the file is
 * still read incrementally rather than as one string.
 */
export function registerTimelineCommand(program: Command, context: CliContext): void {
  program
    .command("timeline")
    .description("Filter and sort timeline entries as GetIncidentTimelineEntries does.")
    .requiredOption("--entries <file>", "timeline entries: a JSON array or NDJSON (one entry per line)")
    .option("--filter <term>", "keep entries containing the term (case-insensitive, literal)")
    .option("--sort-order <token>", "ASC, ascending, DESC or descending (default ASC)")
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query timeline --entries entries.json --filter phish --sort-order DESC
  $ incident-query timeline --entries entries.ndjson

Exit codes: 0 printed the entries, 2 invalid sort order, 64 usage, 65 bad entries file, 66 unreadable file.`,
    )
    .action(async (options: { entries: string; filter?: string; sortOrder?: string }) => {
      let sortOrder: ReturnType<typeof parseSortOrder>;
      try {
        sortOrder = parseSortOrder(options.sortOrder ?? "");
      } catch (error) {
        throw new CliError((error as Error).message, EXIT.invalid);
      }
      const records: unknown[] = [];
      for await (const record of readRecords(options.entries, { progressStream: context.stderr })) {
        records.push(record);
      }
      const validated = validateTimelineEntries(records);
      if (!validated.ok) {
        const lines = validated.problems.map((p) => `entry ${p.index}, ${p.field}: ${p.message}`);
        throw new CliError(
          `'${options.entries}' has invalid timeline entries:\n${lines.join("\n")}`,
          EXIT.dataError,
        );
      }
      const result = queryTimeline(validated.entries, {
        ...(options.filter === undefined ? {} : { filter: options.filter }),
        sortOrder,
      });
      context.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    });
}
