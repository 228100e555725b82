import type { Command } from "commander";
import { compile } from "../conditions/compile.js";
import { isBefore, orderKeyOf } from "../incidents/order.js";
import { CliError, EXIT } from "./exit-codes.js";
import { readRecords, readSearchConditionsArgument } from "./input.js";
import type { CliContext } from "./program.js";

/**
 * `match --incidents <file> <conditions>`: streams the incidents of a JSON array or NDJSON file and prints
 * the first matching incident (DECISIONS.md 1.9: earliest CreatedUtcTime, then IncidentId) as JSON; exits 0,
 * 1 when none matches, 2 on invalid Search Conditions. Memory stays constant: only the best match so far is
 * kept.
 */
export function registerMatchCommand(program: Command, context: CliContext): void {
  program
    .command("match")
    .description("Print the first incident (earliest CreatedUtcTime) that matches Search Conditions.")
    .requiredOption("--incidents <file>", "incidents: a JSON array or NDJSON (one incident per line)")
    .argument("<conditions>", "Search Conditions as JSON, or @file")
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query match --incidents examples/incidents.json '{"IngestionType": "Webhook|File", "Severity": "High"}'
  $ incident-query match --incidents incidents.ndjson @conditions.json

Exit codes: 0 printed a match, 1 no match, 2 invalid Search Conditions, 64 usage, 65 bad incidents file,
66 unreadable file.`,
    )
    .action(async (conditionsArgument: string, options: { incidents: string }) => {
      const condition = await readSearchConditionsArgument(conditionsArgument, context);
      if (condition === undefined) return;
      const matches = compile(condition);
      let best: { incident: object; key: ReturnType<typeof orderKeyOf> } | undefined;
      let index = 0;
      for await (const record of readRecords(options.incidents, { progressStream: context.stderr })) {
        if (record === null || typeof record !== "object" || Array.isArray(record)) {
          throw new CliError(
            `Incident #${index} in '${options.incidents}' is not a JSON object.`,
            EXIT.dataError,
          );
        }
        index++;
        if (!matches(record)) continue;
        const key = orderKeyOf(record);
        if (best === undefined || isBefore(key, best.key)) best = { incident: record, key };
      }
      if (best === undefined) {
        context.stderr.write("No incident matches the Search Conditions.\n");
        context.exitCode = EXIT.noMatch;
        return;
      }
      context.stdout.write(`${JSON.stringify(best.incident, null, 2)}\n`);
    });
}
