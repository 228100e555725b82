/**
 * Reading the CLI's inputs: a JSON argument given inline or as `@file`; the records of an input (file,
 * `-`, pipe; gzip or not; JSON array or NDJSON) with the options every reading command shares
 * (`--max-line-length`, `--max-errors`, `--skip-invalid`) and one way of reporting invalid records; and
 * one whole JSON document (a dataset).
 */

import { constants } from "node:buffer";
import { open } from "node:fs/promises";
import type { Condition } from "../conditions/ast.js";
import { formatIssues } from "../conditions/issues.js";
import { duplicateKeyMessage, findDuplicateKey } from "../conditions/json-duplicate-keys.js";
import { safeParseSearchConditions } from "../conditions/parse.js";
import { NdjsonInputError } from "../node/errors.js";
import {
  describeSystemError,
  firstInvalidUtf8,
  type InputSource,
  InvalidUtf8Error,
  openInput,
  type SourceOptions,
} from "../node/source.js";
import type { CliContext } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { startProgress } from "./progress.js";
import type { RecordCliOptions } from "./record-options.js";
import { describeShape, formatPosition, invalidUtf8At, readRecords } from "./records.js";

/**
 * The largest `@file` JSON argument read, in bytes (16 MiB): far above any Search Conditions within the
 * default limits of docs/semantics.md 1.7 (1,000 nodes), and small enough that `@/dev/zero` or a mistyped
 * path to a large export fails at once instead of filling the memory.
 */
export const MAX_JSON_ARGUMENT_BYTES = 16 * 2 ** 20;

/**
 * Reads a JSON argument: the text itself, or `@path` for a file's contents (at most
 * `MAX_JSON_ARGUMENT_BYTES`; a file, a pipe or a device alike).
 * @throws {CliError} `noInput` when the file cannot be read; `dataError` when the file is not valid UTF-8
 *   (docs/cli.md, Encoding); `invalid` when it is longer than `MAX_JSON_ARGUMENT_BYTES`, when the text is
 *   not JSON, or when one of its objects repeats a key (docs/semantics.md 3.1, "Duplicate keys")
 */
export async function readJsonArgument(argument: string, what: string): Promise<unknown> {
  let text = argument;
  if (argument.startsWith("@")) text = await readArgumentFile(argument.slice(1), what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `The ${what} are not valid JSON: ${String((error as Error).message).split("\n")[0]}`,
      EXIT.invalid,
    );
  }
  // docs/semantics.md 3.1, "Duplicate keys": JSON.parse would keep the last of two equal keys silently.
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined)
    throw new CliError(duplicateKeyMessage(`The ${what}`, duplicate, "repeat"), EXIT.invalid);
  return value;
}

/**
 * Reads an `@file` argument as strict UTF-8, stopping one byte past `MAX_JSON_ARGUMENT_BYTES`: an invalid
 * sequence is a data error naming its line and byte, never a U+FFFD that would change what the conditions
 * match (docs/cli.md, Encoding).
 */
async function readArgumentFile(path: string, what: string): Promise<string> {
  const cannot = (error: unknown) =>
    new CliError(`Cannot read ${what} from '${path}': ${describeSystemError(error)}`, EXIT.noInput);
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, "r");
  } catch (error) {
    throw cannot(error);
  }
  try {
    const buffer = Buffer.alloc(MAX_JSON_ARGUMENT_BYTES + 1);
    let length = 0;
    for (;;) {
      let read: number;
      try {
        ({ bytesRead: read } = await file.read(buffer, length, buffer.length - length, null));
      } catch (error) {
        throw cannot(error);
      }
      if (read === 0) break;
      length += read;
      if (length > MAX_JSON_ARGUMENT_BYTES) {
        throw new CliError(
          `The ${what} in '${path}' are longer than ${MAX_JSON_ARGUMENT_BYTES} bytes, the most this tool reads from a file argument.`,
          EXIT.invalid,
        );
      }
    }
    const bytes = buffer.subarray(0, length);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      const at = firstInvalidUtf8(bytes);
      let line = 1;
      for (let i = bytes.indexOf(10); i !== -1 && i < at; i = bytes.indexOf(10, i + 1)) line++;
      throw new CliError(
        `The ${what} in '${path}' are not valid UTF-8 (line ${line}, byte ${at + 1} of the file).`,
        EXIT.dataError,
      );
    }
  } finally {
    await file.close().catch(() => {});
  }
}

/**
 * Reads and parses a Search Conditions argument (inline JSON or `@file`). When the conditions are invalid,
 * prints every issue as `path: message` on stderr, sets the exit code to `EXIT.invalid` (2) and returns
 * `undefined`. Warnings (a possible misspelling of a field name, docs/semantics.md 1.1) are printed on stderr
 * as `warning: path: message` and the condition is returned; with `strict` they are issues instead.
 * @param options - `strict`: warnings refuse the conditions as issues do (`check --strict`)
 * @throws {CliError} as `readJsonArgument` does
 */
export async function readSearchConditionsArgument(
  argument: string,
  context: CliContext,
  options: { readonly strict?: boolean } = {},
): Promise<Condition | undefined> {
  const parsed = safeParseSearchConditions(await readJsonArgument(argument, "Search Conditions"));
  if (parsed.success && parsed.warnings.length === 0) return parsed.condition;
  if (parsed.success && options.strict !== true) {
    context.stderr.write(`${parsed.warnings.map((w) => `warning: ${formatIssues([w])}`).join("\n")}\n`);
    return parsed.condition;
  }
  context.stderr.write(`${formatIssues(parsed.success ? parsed.warnings : parsed.issues)}\n`);
  context.exitCode = EXIT.invalid;
  return undefined;
}

/**
 * Invalid records of one input: counts them, keeps the first `maxErrors` messages, and prints them at the
 * end (after the progress bar is gone), one line each, then "… and N more".
 */
export class ProblemLog {
  #records = 0;
  #lines: string[] = [];
  #more = 0;

  constructor(
    private readonly label: string,
    private readonly options: RecordCliOptions,
  ) {}

  /** The number of invalid records so far. */
  get count(): number {
    return this.#records;
  }

  /**
   * Records one invalid record with one problem, past the `maxErrors` listed ones (only counted; the caller
   * knows that `maxErrors` messages are listed already).
   */
  addUnlisted(): void {
    this.#records++;
    this.#more++;
  }

  /** Records one invalid record, with one message per problem (`field: message` or a sentence). */
  add(line: number, record: number, messages: readonly string[]): void {
    this.#records++;
    for (const message of messages) {
      if (this.#lines.length < this.options.maxErrors) {
        this.#lines.push(`${formatPosition(this.label, line, record)}: ${message}`);
      } else this.#more++;
    }
  }

  /**
   * Prints the kept messages and the count on stderr. Without `--skip-invalid`, any invalid record is a
   * data error.
   * @throws {CliError} `dataError` when there were invalid records and `--skip-invalid` was not given
   */
  finish(context: CliContext): void {
    if (this.#records === 0) return;
    const skip = this.options.skipInvalid === true;
    const prefix = skip ? "incident-query: warning: " : "incident-query: ";
    for (const line of this.#lines) context.stderr.write(`${prefix}${line}\n`);
    if (this.#more > 0) {
      context.stderr.write(
        `${prefix}… and ${this.#more} more problem${this.#more === 1 ? "" : "s"} (--max-errors ${this.options.maxErrors})\n`,
      );
    }
    const records = `${this.#records} invalid record${this.#records === 1 ? "" : "s"}`;
    if (skip) {
      context.stderr.write(`incident-query: skipped ${records} of ${this.label} (--skip-invalid)\n`);
      return;
    }
    throw new CliError(`${this.label} has ${records}; add --skip-invalid to skip them.`, EXIT.dataError);
  }
}

/**
 * The CLI's error for an error of the Node entry's source (`NdjsonInputError`: its message, and the exit
 * code of its kind); any other error as it is.
 */
export function asCliError(error: unknown): unknown {
  return error instanceof NdjsonInputError && !(error instanceof CliError)
    ? new CliError(error.message, EXIT[error.kind])
    : error;
}

/**
 * Opens an input as `openInput` does, with the CLI's errors.
 * @throws {CliError} `noInput` (66) when the path does not exist, cannot be read, or is a directory
 */
async function openCliInput(name: string, options: SourceOptions): Promise<InputSource> {
  try {
    return await openInput(name, options);
  } catch (error) {
    throw asCliError(error);
  }
}

/** What `forEachRecord` is told about the records it reads. */
export interface RecordSpec {
  /** What the records should be, for messages: `incidents`. */
  readonly expected: string;
  /** A hint for an input holding one JSON document of another shape. */
  readonly hint?: (value: unknown) => string;
}

/**
 * Reads the records of input `name` (a path or `-`), with a progress bar on a terminal, and calls `visit`
 * with each valid one; invalid ones go to the returned log. `visit` returns `false` to stop reading (e.g.
 * `--limit` reached), or a promise (back-pressure of the output), which is awaited.
 * @returns the log of invalid records (not yet finished) and the number of records read
 * @throws {CliError} as `openInput` and `readRecords` do
 */
export async function forEachRecord(
  name: string | InputSource,
  context: CliContext,
  options: RecordCliOptions,
  spec: RecordSpec,
  visit: (
    value: unknown,
    line: number,
    record: number,
    log: ProblemLog,
  ) => boolean | Promise<unknown> | undefined,
): Promise<{ log: ProblemLog; records: number; source: InputSource }> {
  const source =
    typeof name === "string"
      ? await openCliInput(name, { stdin: context.stdin, invalidUtf8Lines: options.skipInvalid === true })
      : name;
  const log = new ProblemLog(source.label, options);
  const progress = startProgress(source, context.stderr);
  let records = 0;
  try {
    reading: for await (const batch of readRecords(source, {
      maxLineLength: options.maxLineLength,
      expected: spec.expected,
      ...(spec.hint === undefined ? {} : { hint: spec.hint }),
    })) {
      for (const item of batch) {
        records = item.record;
        if (!item.ok) {
          log.add(item.line, item.record, [item.message]);
          continue;
        }
        const result = visit(item.value, item.line, item.record, log);
        if (result === false) break reading;
        if (result !== undefined && result !== true && (await result) === false) break reading;
      }
      progress?.update(records);
    }
  } catch (error) {
    throw asCliError(error);
  } finally {
    progress?.stop();
    source.close();
  }
  return { log, records, source };
}

/**
 * Reads one whole JSON document from input `name` (a path or `-`; gzip or not), e.g. a dataset.
 * @throws {CliError} `dataError` when it is not valid UTF-8 (naming the line and byte; docs/cli.md,
 *   Encoding), not valid JSON, one of its objects repeats a key (docs/semantics.md 3.1, "Duplicate keys"),
 *   or it is larger than the longest string JavaScript holds; as `openInput` does
 */
export async function readDocument(
  name: string,
  context: Pick<CliContext, "stdin">,
): Promise<{ value: unknown; label: string }> {
  const source = await openCliInput(name, { stdin: context.stdin });
  const parts: string[] = [];
  let length = 0;
  try {
    for await (const chunk of source.text) {
      length += chunk.length;
      if (length > constants.MAX_STRING_LENGTH) {
        throw new CliError(
          `${source.label} is larger than the largest JSON document this tool reads (${constants.MAX_STRING_LENGTH} characters).`,
          EXIT.dataError,
        );
      }
      parts.push(chunk);
    }
  } catch (error) {
    if (!(error instanceof InvalidUtf8Error)) throw asCliError(error);
    let line = 1 + error.breaksIntoChunk;
    for (const part of parts)
      for (let i = part.indexOf("\n"); i !== -1; i = part.indexOf("\n", i + 1)) line++;
    throw invalidUtf8At(error, line);
  } finally {
    source.close();
  }
  const text = parts.join("");
  try {
    const value: unknown = JSON.parse(text);
    const duplicate = findDuplicateKey(text);
    if (duplicate !== undefined)
      throw new CliError(duplicateKeyMessage(source.label, duplicate), EXIT.dataError);
    return { value, label: source.label };
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = String((error as Error).message).split("\n")[0] ?? "";
    const position = /at position (\d+)/.exec(message);
    const line = position === null ? "" : ` (line ${lineAt(text, Number(position[1]))})`;
    throw new CliError(
      `${source.label} is not valid JSON${line}: ${message.length > 160 ? `${message.slice(0, 160)}…` : message}`,
      EXIT.dataError,
    );
  }
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < position; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

export {
  addRecordOptions,
  DEFAULT_MAX_ERRORS,
  parseCount,
  parsePositiveCount,
  parseSize,
  type RecordCliOptions,
} from "./record-options.js";
export { describeShape };
