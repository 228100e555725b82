/**
 * What `timeline` runs (registered in timeline.ts, loaded when the command runs): the entries read,
 * validated, filtered, sorted and printed.
 */
import { formatDatasetIssues, validateDataset } from "../commands/memory/dataset.js";
import { looksLikeDataset } from "../commands/memory/dataset-keys.js";
import { toTimelineEntryData } from "../commands/memory/dataset-records.js";
import { type TimelineEntry, type TimelineEntryProblem, validateTimelineEntryAt } from "../timeline/entry.js";
import { createTimelineFilter } from "../timeline/filter.js";
import { parseSortOrder, type SortOrder, sortedTimelineOrder } from "../timeline/sort.js";
import type { CliContext } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { describeShape, forEachRecord, readDocument } from "./input.js";
import type { RecordCliOptions } from "./record-options.js";

/** The options of `timeline`, as commander gives them. */
export interface TimelineOptions extends RecordCliOptions {
  readonly entries?: string;
  readonly data?: string;
  readonly incident?: string;
  readonly site?: string;
  readonly filter?: string;
  readonly sortOrder?: string;
  readonly ndjson?: boolean;
}

/**
 * Runs `timeline` (see `registerTimelineCommand`).
 * @throws {CliError} as the readers do, and for `--data` without `--incident`, with its exit code
 */
export async function runTimeline(options: TimelineOptions, context: CliContext): Promise<void> {
  let sortOrder: SortOrder;
  try {
    sortOrder = parseSortOrder(options.sortOrder ?? "");
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.invalid);
  }
  const filter = createTimelineFilter(options.filter ?? "");
  let kept: KeptEntries;
  if (options.data !== undefined) {
    if (options.incident === undefined) {
      throw new CliError(
        "--data needs --incident <number>: the incident whose entries to print.",
        EXIT.usage,
      );
    }
    const entries = await entriesFromDataset(options.data, options.incident, options.site, context, options);
    if (entries === undefined) return;
    kept = new KeptEntries();
    for (const entry of entries) if (filter.matches(entry)) kept.add(entry);
  } else if (options.entries !== undefined) {
    if (options.incident !== undefined || options.site !== undefined) {
      throw new CliError("--incident and --site go with --data, not --entries.", EXIT.usage);
    }
    kept = await entriesFromFile(options.entries, context, options, (entry) => filter.matches(entry));
  } else {
    throw new CliError(
      "timeline needs --entries <file> (timeline entries) or --data <dataset> --incident <number>.",
      EXIT.usage,
    );
  }
  await printEntries(kept, sortedTimelineOrder(kept.keys, sortOrder), context, options.ndjson === true);
}

/**
 * The entries kept for printing: each as its JSON text (one string: the garbage collector never walks it,
 * which matters with a million entries) with its sort keys (`Time`, `TimelineID`) beside it, for
 * `sortedTimelineOrder` (the engine's order, docs/semantics.md 2).
 */
class KeptEntries {
  readonly texts: string[] = [];
  readonly keys: { readonly Time: string; readonly TimelineID: number }[] = [];

  add(entry: TimelineEntry): void {
    // A validated entry is a new object of the ten fields of specification 2.2 (strings, a number, arrays
    // of strings): never nested, so JSON.stringify cannot overflow the stack as on a record (`formatJson`).
    this.texts.push(JSON.stringify(entry));
    this.keys.push({ Time: entry.Time, TimelineID: entry.TimelineID });
  }
}

/** Reads, validates and filters the entries of a JSON array or NDJSON input. */
async function entriesFromFile(
  name: string,
  context: CliContext,
  options: TimelineOptions,
  keep: (entry: TimelineEntry) => boolean,
): Promise<KeptEntries> {
  const kept = new KeptEntries();
  const problems: TimelineEntryProblem[] = [];
  const { log } = await forEachRecord(
    name,
    context,
    options,
    {
      expected: "timeline entries",
      hint: (value) =>
        looksLikeDataset(value)
          ? " It looks like a dataset of the in-memory backend: read an incident's entries with --data FILE --incident NUMBER."
          : "",
    },
    (value, line, record, log) => {
      const entry = validateTimelineEntryAt(value, record - 1, problems);
      if (entry !== undefined) {
        if (keep(entry)) kept.add(entry);
        return undefined;
      }
      if (record === 1 && looksLikeDataset(value)) {
        throw new CliError(
          `The first record of ${name === "-" ? "standard input" : `'${name}'`} is ${describeShape(value)}: a dataset of the in-memory backend, not a timeline entry; read an incident's entries with --data FILE --incident NUMBER.`,
          EXIT.dataError,
        );
      }
      log.add(
        line,
        record,
        problems.map((p) => (p.field === "" ? p.message : `${p.field}: ${p.message}`)),
      );
      problems.length = 0;
      return undefined;
    },
  );
  log.finish(context);
  return kept;
}

/**
 * The entries of one incident of a dataset (README "The dataset of the in-memory backend"), in the shape
 * of specification 2.2; `undefined` (exit code 1 set) when the dataset has no such incident.
 */
async function entriesFromDataset(
  name: string,
  incident: string,
  site: string | undefined,
  context: CliContext,
  options: TimelineOptions,
): Promise<TimelineEntry[] | undefined> {
  const { value, label } = await readDocument(name, context);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CliError(
      `${label} holds ${describeShape(value)}; expected a dataset: a JSON object with the keys sites, users, incidents, timelineEntries, playbooks, artifactTypes, artifacts (each optional).${Array.isArray(value) ? " Timeline entries? Read them with --entries." : ""}`,
      EXIT.dataError,
    );
  }
  const validation = validateDataset(value);
  if (!validation.ok) {
    const lines = formatDatasetIssues(validation.issues).split("\n");
    for (const line of lines.slice(0, options.maxErrors))
      context.stderr.write(`incident-query: ${label} ${line}\n`);
    if (lines.length > options.maxErrors) {
      context.stderr.write(
        `incident-query: … and ${lines.length - options.maxErrors} more (--max-errors ${options.maxErrors})\n`,
      );
    }
    throw new CliError(
      `${label} is not a valid dataset (${validation.issues.length} problems).`,
      EXIT.dataError,
    );
  }
  const dataset = validation.dataset;
  const sites = [
    ...new Set(
      (dataset.incidents ?? [])
        .filter((i) => i.Number === incident && (site === undefined || i.Site === site))
        .map((i) => i.Site),
    ),
  ];
  if (sites.length === 0) {
    context.stderr.write(
      `incident-query: No incident '${incident}'${site === undefined ? "" : ` in site '${site}'`} in ${label}.\n`,
    );
    context.exitCode = EXIT.noMatch;
    return undefined;
  }
  if (sites.length > 1) {
    throw new CliError(
      `Incident '${incident}' exists in several sites (${sites.join(", ")}): choose one with --site.`,
      EXIT.usage,
    );
  }
  const [only] = sites;
  return (dataset.timelineEntries ?? [])
    .filter((e) => e.IncidentNumber === incident && e.Site === only)
    .map(toTimelineEntryData);
}

/** Writes the entries in `order`, in batches, respecting back-pressure: a JSON array (one entry a line) or NDJSON. */
async function printEntries(
  kept: KeptEntries,
  order: readonly number[],
  context: CliContext,
  ndjson: boolean,
): Promise<void> {
  const output = context.output;
  const texts = kept.texts;
  if (!ndjson) await output.write(order.length === 0 ? "[]\n" : "[\n");
  const BATCH = 1000;
  for (let start = 0; start < order.length; start += BATCH) {
    const end = Math.min(order.length, start + BATCH);
    let text = "";
    for (let i = start; i < end; i++) {
      text += texts[order[i]!];
      text += ndjson ? "\n" : i === order.length - 1 ? "\n]\n" : ",\n";
    }
    await output.write(text);
  }
}
