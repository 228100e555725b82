/**
 * The CLI's exit codes (documented in the README's CLI section and docs/cli.md). The numbers above 2 follow
 * BSD sysexits.h so that scripts can tell a usage mistake from a missing file from bad data. 1 means only
 * "nothing found", never an error.
 */
export const EXIT = {
  /** The command did its work (also: standard output was closed by its reader, as `| head -1` does). */
  ok: 0,
  /** Nothing found: `match` found no matching incident; `timeline --data` found no such incident. */
  noMatch: 1,
  /** The Search Conditions (or another argument's content, such as a sort order) are invalid. */
  invalid: 2,
  /** A usage error: unknown option, missing or ill-formed argument (sysexits EX_USAGE). */
  usage: 64,
  /**
   * An input is not valid JSON / NDJSON / UTF-8 / gzip, is of the wrong shape, holds invalid records, or a
   * record is longer than `--max-line-length` (EX_DATAERR).
   */
  dataError: 65,
  /** An input cannot be opened: missing, unreadable, a directory (EX_NOINPUT). */
  noInput: 66,
  /** `serve`: the server cannot listen on the host and port (EX_UNAVAILABLE). */
  unavailable: 69,
  /** An unexpected internal error: a bug; `--debug` prints its stack (EX_SOFTWARE). */
  software: 70,
  /** Reading an opened input or writing the output failed (EIO, ENOSPC; EX_IOERR). */
  ioError: 74,
} as const;

/** An error that ends a CLI command with a message on stderr (one line) and the given exit code. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
