/**
 * The error of the Node entry's readers (`matchNdjson`, `fromNdjson`): an input that cannot be opened or
 * read, or whose bytes are no NDJSON the reader can go on with (bad gzip; invalid UTF-8 without
 * `skipInvalid`). An invalid record is never thrown: it is a problem of the result (docs/cli.md, Encoding).
 */

/**
 * What went wrong: `noInput` the input cannot be opened (missing, unreadable, a directory); `ioError`
 * reading an opened input failed; `dataError` its bytes are not valid gzip or not valid UTF-8.
 */
export type NdjsonInputErrorKind = "noInput" | "ioError" | "dataError";

/**
 * An input that cannot be read to its end (see the module comment). The message is one sentence that
 * names the input (`'x.ndjson' line 4 is not valid UTF-8 (byte 1187 of the input).`).
 */
export class NdjsonInputError extends Error {
  override readonly name: string = "NdjsonInputError";
  /**
   * @param message - one sentence naming the input
   * @param kind - what went wrong (see `NdjsonInputErrorKind`)
   */
  constructor(
    message: string,
    readonly kind: NdjsonInputErrorKind,
  ) {
    super(message);
  }
}
