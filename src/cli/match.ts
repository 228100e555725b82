import { constants } from "node:buffer";
import { type Command, Option } from "commander";
import { DATASET_KEYS } from "../commands/memory/dataset.js";
import { compile } from "../conditions/compile.js";
import { isBefore, orderKeyOf } from "../incidents/order.js";
import { CliError, EXIT } from "./exit-codes.js";
import {
  addRecordOptions,
  describeShape,
  forEachRecord,
  parsePositiveCount,
  type RecordCliOptions,
  readSearchConditionsArgument,
} from "./input.js";
import { formatJson } from "./output.js";
import type { CliContext } from "./program.js";
import { formatPosition } from "./records.js";

interface MatchOptions extends RecordCliOptions {
  readonly incidents: string;
  readonly all?: boolean;
  readonly count?: boolean;
  readonly limit?: number;
}

/**
 * Why a matching incident is not printed: its JSON text would be longer than a string can be (an incident
 * of numbers such as `1e20`, which print as 21 digits, under a `--max-line-length` near that length). The
 * incident is then an invalid record (65, with its line), never an unexpected error (70).
 */
const TOO_LONG_TO_PRINT = `A matching incident cannot be printed: its JSON text is longer than the longest string JavaScript holds (${constants.MAX_STRING_LENGTH} characters).`;

/** Whether a value looks like a dataset rather than a record: an object whose keys are all dataset keys. */
export function looksLikeDataset(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => (DATASET_KEYS as readonly string[]).includes(key));
}

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
    );
  addRecordOptions(command)
    .addHelpText(
      "after",
      `
Examples:
  $ incident-query match --incidents examples/incidents.json '{"IngestionType": "Webhook|File", "Severity": "High"}'
  $ incident-query match --incidents incidents.ndjson.gz --all '{"Severity": "High"}' | head -3
  $ zcat export.ndjson.gz | incident-query match --incidents - --count @conditions.json

Exit codes: 0 found (printed), 1 no incident matches, 2 invalid Search Conditions, 64 usage,
65 invalid input (each problem with its line; --skip-invalid skips them), 66 unreadable input, 74 I/O error.`,
    )
    .action(async (conditionsArgument: string, options: MatchOptions) => {
      const condition = await readSearchConditionsArgument(conditionsArgument, context);
      if (condition === undefined) return;
      const matches = compile(condition);
      const all = options.all === true || options.limit !== undefined;
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      let found = 0;
      let best:
        | { incident: object; key: ReturnType<typeof orderKeyOf>; line: number; record: number }
        | undefined;
      const { log, source } = await forEachRecord(
        options.incidents,
        context,
        options,
        {
          expected: "incidents",
          hint: (value) =>
            looksLikeDataset(value) ? " It looks like a dataset of the in-memory backend." : "",
        },
        (record, line, number, problems) => {
          if (record === null || typeof record !== "object" || Array.isArray(record)) {
            problems.add(line, number, [
              `Expected an incident (a JSON object), found ${describeShape(record)}.`,
            ]);
            return undefined;
          }
          if (number === 1 && looksLikeDataset(record)) {
            throw new CliError(
              `${line === 1 ? "The first record" : "A record"} of '${options.incidents}' is ${describeShape(record)}: a dataset of the in-memory backend, not an incident.`,
              EXIT.dataError,
            );
          }
          if (!matches(record)) return undefined;
          // --count conflicts with --all and --limit.
          const text = all ? formatJson(record) : "";
          if (text === undefined) {
            problems.add(line, number, [TOO_LONG_TO_PRINT]);
            return undefined;
          }
          found++;
          if (options.count === true) return undefined;
          if (all) {
            const written = context.output.write(`${text}\n`);
            if (found >= limit) return written === undefined ? false : written.then(() => false);
            return written;
          }
          const key = orderKeyOf(record);
          if (best === undefined || isBefore(key, best.key))
            best = { incident: record, key, line, record: number };
          return undefined;
        },
      );
      log.finish(context);
      if (options.count === true) {
        await context.output.write(`${found}\n`);
        if (found === 0) context.exitCode = EXIT.noMatch;
        return;
      }
      if (found === 0) {
        context.stderr.write("incident-query: No incident matches the Search Conditions.\n");
        context.exitCode = EXIT.noMatch;
        return;
      }
      if (best !== undefined) {
        const text = formatJson(best.incident, 2);
        if (text === undefined) {
          throw new CliError(
            `${formatPosition(source.label, best.line, best.record)}: ${TOO_LONG_TO_PRINT}`,
            EXIT.dataError,
          );
        }
        await context.output.write(`${text}\n`);
      }
    });
}
