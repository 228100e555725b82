/**
 * The CLI's exit codes (documented in the README). The numbers above 2 follow BSD sysexits.h so that
 * scripts can tell a usage mistake from a missing file from bad data.
 */
export const EXIT = {
  /** The command did its work: conditions valid, an incident or entries printed. */
  ok: 0,
  /** `match`: no incident matches the Search Conditions. */
  noMatch: 1,
  /** The Search Conditions (or another argument's content, such as a sort order) are invalid. */
  invalid: 2,
  /** A usage error: unknown option, missing argument (sysexits EX_USAGE). */
  usage: 64,
  /** An input file is not valid JSON / NDJSON, or its records are not of the expected shape (EX_DATAERR). */
  dataError: 65,
  /** An input file cannot be read (EX_NOINPUT). */
  noInput: 66,
  /** `serve`: the server cannot listen on the host and port (EX_UNAVAILABLE). */
  unavailable: 69,
} as const;

/** An error that ends a CLI command with a message on stderr and the given exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
