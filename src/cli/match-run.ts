/**
 * What `match` runs (registered in match.ts, loaded when the command runs): the Node entry's reader
 * (src/node/reader.ts) over the input, the text reader for the inputs it hands over, the count or first
 * match printed and the exit code set.
 */
import { looksLikeDataset } from "../commands/memory/dataset-keys.js";
import type { Condition } from "../conditions/ast.js";
import { compile } from "../conditions/compile.js";
import { orderKeyOf } from "../incidents/order.js";
import type { MatchMode } from "../node/block-scanner.js";
import { isNewFirst } from "../node/first-match.js";
import { readNdjson } from "../node/reader.js";
import { MATCH_RULES, notAnIncident, TOO_LONG_TO_PRINT } from "../node/record-rules.js";
import type { InputSource } from "../node/source.js";
import type { CliContext } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { describeShape, forEachRecord, ProblemLog, readSearchConditionsArgument } from "./input.js";
import { BLOCK_BYTES, defaultThreads } from "./match-prestart.js";
import { formatJson } from "./output.js";
import { startProgress } from "./progress.js";
import type { RecordCliOptions } from "./record-options.js";
import { formatPosition } from "./records.js";

/** The options of `match`, as commander gives them. */
export interface MatchOptions extends RecordCliOptions {
  readonly incidents: string;
  readonly all?: boolean;
  readonly count?: boolean;
  readonly limit?: number;
  readonly threads?: number;
  readonly reader?: "bytes" | "text";
  readonly blockBytes?: number;
}

/**
 * Runs `match` (see `registerMatchCommand`).
 * @throws {CliError} as the readers do (unreadable input, invalid data), with its exit code
 */
export async function runMatch(
  conditionsArgument: string,
  options: MatchOptions,
  context: CliContext,
): Promise<void> {
  const condition = await readSearchConditionsArgument(conditionsArgument, context);
  if (condition === undefined) return;
  const all = options.all === true || options.limit !== undefined;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const mode: MatchMode = options.count === true ? "count" : all ? "all" : "first";
  let outcome: MatchOutcome | undefined;
  if (options.reader === "text") {
    outcome = await matchText(options.incidents, condition, mode, limit, options, context);
    await finishMatch(outcome, mode, context);
    return;
  }
  // The Node entry's reader (src/node/reader.ts); inputs whose first record is no plain incident line
  // are handed to the text reader.
  const answer = await readNdjson(
    options.incidents,
    { stdin: context.stdin },
    {
      condition,
      mode,
      limit,
      threads: options.threads ?? defaultThreads(),
      blockBytes: options.blockBytes ?? BLOCK_BYTES,
      maxLineLength: options.maxLineLength,
      maxErrors: options.maxErrors,
      skipInvalid: options.skipInvalid === true,
      // The first match is printed, never how many matched: lines that cannot come first go unjudged.
      countMatches: mode !== "first",
      rules: MATCH_RULES,
      onMatch: (text) => context.output.write(`${text}\n`),
      progress: (source) => startProgress(source, context.stderr),
    },
    {
      isDataset: looksLikeDataset,
      read: async (source) => {
        outcome = await matchText(source, condition, mode, limit, options, context);
      },
    },
  );
  if (answer !== undefined) {
    const log = new ProblemLog(answer.source.label, options);
    for (const problem of answer.problems) log.add(problem.line, problem.record, [problem.message]);
    for (let i = 0; i < answer.unlisted; i++) log.addUnlisted();
    const best = answer.best;
    outcome = {
      log,
      found: answer.found,
      best:
        best === undefined
          ? undefined
          : { incident: JSON.parse(best.text) as object, line: best.line, record: best.record },
      source: answer.source,
    };
  }
  if (outcome !== undefined) await finishMatch(outcome, mode, context);
}

/** What a run of `match` found, before it is printed. */
interface MatchOutcome {
  readonly log: ProblemLog;
  readonly found: number;
  readonly best: { readonly incident: object; readonly line: number; readonly record: number } | undefined;
  readonly source: InputSource;
}

/**
 * `match` by the text reader (records.ts): every record parsed with `JSON.parse`, for the inputs the byte
 * reader hands over (a JSON array, a document, an unusual first record; src/node/reader.ts).
 */
async function matchText(
  input: string | InputSource,
  condition: Condition,
  mode: MatchMode,
  limit: number,
  options: MatchOptions,
  context: CliContext,
): Promise<MatchOutcome> {
  const matches = compile(condition);
  const all = mode === "all";
  let found = 0;
  let best:
    | { incident: object; key: ReturnType<typeof orderKeyOf>; line: number; record: number }
    | undefined;
  const { log, source } = await forEachRecord(
    input,
    context,
    options,
    {
      expected: "incidents",
      hint: (value) => (looksLikeDataset(value) ? " It looks like a dataset of the in-memory backend." : ""),
    },
    (record, line, number, problems) => {
      if (record === null || typeof record !== "object" || Array.isArray(record)) {
        problems.add(line, number, [notAnIncident(record)]);
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
      if (mode === "count") return undefined;
      if (all) {
        const written = context.output.write(`${text}\n`);
        if (found >= limit) return written === undefined ? false : written.then(() => false);
        return written;
      }
      const key = orderKeyOf(record);
      if (isNewFirst(best?.key, key)) best = { incident: record, key, line, record: number };
      return undefined;
    },
  );
  return { log, found, best, source };
}

/** Prints what `match` found (the count, or the first match) and sets the exit code. */
async function finishMatch(outcome: MatchOutcome, mode: MatchMode, context: CliContext): Promise<void> {
  const { best, found, log, source } = outcome;
  log.finish(context);
  if (mode === "count") {
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
}
