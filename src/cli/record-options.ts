/**
 * The options every command that reads records shares (`--max-line-length`, `--max-errors`,
 * `--skip-invalid`) and the parsers of numeric options: commander and nothing of the engine, so that a
 * command's options are declared without loading what its action runs (docs/cli.md, Start-up).
 */

import { constants } from "node:buffer";
import { type Command, InvalidArgumentError } from "commander";

/** The default of `--max-line-length`: 64 Mi characters. */
export const DEFAULT_MAX_LINE_LENGTH = 64 * 1024 * 1024;

/** The options shared by the commands that read records (`match`, `timeline`). */
export interface RecordCliOptions {
  /** `--max-line-length`: the longest NDJSON line or array element, in characters. */
  readonly maxLineLength: number;
  /** `--max-errors`: how many invalid records are listed (the rest are counted). */
  readonly maxErrors: number;
  /** `--skip-invalid`: skip invalid records (counted on stderr) instead of failing with exit code 65. */
  readonly skipInvalid?: boolean;
}

/** The default of `--max-errors`. */
export const DEFAULT_MAX_ERRORS = 20;

/** Adds `--max-line-length`, `--max-errors` and `--skip-invalid` to a command. */
export function addRecordOptions(command: Command): Command {
  return command
    .option(
      "--max-line-length <chars>",
      "the longest NDJSON line or JSON array element accepted, in characters (suffixes k, M)",
      parseSize,
      DEFAULT_MAX_LINE_LENGTH,
    )
    .option(
      "--max-errors <n>",
      "list at most n invalid records, then count the rest",
      parseCount,
      DEFAULT_MAX_ERRORS,
    )
    .option("--skip-invalid", "skip invalid records (their number is printed on stderr) instead of failing");
}

/** Parses a non-negative integer option (`--max-errors`). */
export function parseCount(text: string): number {
  if (!/^\d{1,15}$/.test(text.trim())) throw new InvalidArgumentError("expected a whole number, e.g. 20.");
  return Number(text.trim());
}

/**
 * Parses a positive integer option (`--limit`): 0 is refused, since a limit of 0 would end the command
 * before its input is opened, and a missing or invalid input would then exit 0 (docs/cli.md).
 */
export function parsePositiveCount(text: string): number {
  if (!/^\d{1,15}$/.test(text.trim()) || Number(text.trim()) === 0) {
    throw new InvalidArgumentError("expected a positive whole number, e.g. 20.");
  }
  return Number(text.trim());
}

/** Parses a positive size with an optional binary suffix: `1000`, `64k`, `16M`. */
export function parseSize(text: string): number {
  const match = /^(\d{1,12})\s*([kKmMgG]?)$/.exec(text.trim());
  const scale = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match?.[2]?.toLowerCase() ?? ""] ?? 1;
  const value = match === null ? Number.NaN : Number(match[1]) * scale;
  if (!(value >= 1)) throw new InvalidArgumentError("expected a positive whole number, e.g. 1000 or 64M.");
  return Math.min(value, constants.MAX_STRING_LENGTH);
}
