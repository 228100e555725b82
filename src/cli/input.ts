/**
 * Reading the CLI's inputs: a JSON argument given inline or as `@file`, and streams of records from a file
 * holding a JSON array or NDJSON (one JSON value per line), read incrementally so that large files are not
 * loaded whole, with a progress bar on stderr when stderr is a terminal.
 */
import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import cliProgress from "cli-progress";
import streamArray from "stream-json/streamers/stream-array.js";
import type { Condition } from "../conditions/ast.js";
import { formatIssues } from "../conditions/issues.js";
import { safeParseSearchConditions } from "../conditions/parse.js";
import { CliError, EXIT } from "./exit-codes.js";
import type { CliContext } from "./program.js";

/**
 * Reads a JSON argument: the text itself, or `@path` for a file's contents.
 * @throws {CliError} `noInput` when the file cannot be read; `invalid` when the text is not JSON
 */
export async function readJsonArgument(argument: string, what: string): Promise<unknown> {
  let text = argument;
  if (argument.startsWith("@")) {
    const path = argument.slice(1);
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      throw new CliError(`Cannot read ${what} from '${path}': ${(error as Error).message}`, EXIT.noInput);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`The ${what} are not valid JSON: ${(error as Error).message}`, EXIT.invalid);
  }
}

/**
 * Reads and parses a Search Conditions argument (inline JSON or `@file`). When the conditions are invalid,
 * prints every issue as `path: message` on stderr, sets the exit code to `EXIT.invalid` (2) and returns
 * `undefined`.
 * @throws {CliError} as `readJsonArgument` does
 */
export async function readSearchConditionsArgument(
  argument: string,
  context: CliContext,
): Promise<Condition | undefined> {
  const parsed = safeParseSearchConditions(await readJsonArgument(argument, "Search Conditions"));
  if (parsed.success) return parsed.condition;
  context.stderr.write(`${formatIssues(parsed.issues)}\n`);
  context.exitCode = EXIT.invalid;
  return undefined;
}

/** Options of `readRecords`. */
export interface ReadRecordsOptions {
  /** Where a progress bar may be drawn; it is drawn only when this stream is a terminal. */
  readonly progressStream?: NodeJS.WriteStream;
}

/**
 * Streams the records of a file holding either a JSON array (first non-blank character `[`) or NDJSON
 * (one JSON value per line; blank lines are skipped), in file order, without loading the file whole.
 * @param path - the file
 * @returns the records as parsed JSON values (their shape is the caller's to check)
 * @throws {CliError} `noInput` when the file cannot be read; `dataError` when it is not valid JSON / NDJSON
 *   (with the line number for NDJSON)
 */
export async function* readRecords(path: string, options: ReadRecordsOptions = {}): AsyncGenerator<unknown> {
  const format = await detectFormat(path);
  const size = (await stat(path)).size;
  const source = createReadStream(path);
  const progress = startProgress(source, size, options.progressStream);
  try {
    if (format === "array") {
      const stream = source.pipe(streamArray.withParserAsStream());
      source.on("error", (error) => stream.destroy(error));
      try {
        for await (const item of stream as AsyncIterable<{ value: unknown }>) yield item.value;
      } catch (error) {
        throw new CliError(
          `'${path}' is not a valid JSON array: ${(error as Error).message}`,
          EXIT.dataError,
        );
      }
    } else {
      let line = 0;
      for await (const text of createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY })) {
        line++;
        if (text.trim() === "") continue;
        try {
          yield JSON.parse(text);
        } catch (error) {
          throw new CliError(
            `'${path}' line ${line} is not valid JSON: ${(error as Error).message}`,
            EXIT.dataError,
          );
        }
      }
    }
  } finally {
    progress?.stop();
    source.destroy();
  }
}

async function detectFormat(path: string): Promise<"array" | "ndjson"> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new CliError(`Cannot read '${path}': ${(error as Error).message}`, EXIT.noInput);
  }
  try {
    const buffer = Buffer.alloc(4096);
    for (let position = 0; ; ) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) return "ndjson";
      const text = buffer.toString("utf8", 0, bytesRead).replace(/^\uFEFF/, "");
      const first = text.trimStart()[0];
      if (first !== undefined) return first === "[" ? "array" : "ndjson";
      position += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

function startProgress(source: Readable, size: number, stream: NodeJS.WriteStream | undefined) {
  if (stream === undefined || !stream.isTTY || size === 0) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: "reading [{bar}] {percentage}% | {value}/{total} bytes",
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(size, 0);
  let read = 0;
  source.on("data", (chunk: Buffer | string) => {
    read += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    bar.update(read);
  });
  return bar;
}
