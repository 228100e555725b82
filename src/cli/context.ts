/**
 * What a CLI run and each subcommand module share: the streams, the exit code and standard output with
 * back-pressure. Its own module so that `program.ts` can import the subcommands without their importing it.
 */
import type { Output } from "./output.js";

/** Where a CLI run reads and writes. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream;
  /** What `-` reads; default `process.stdin`. */
  readonly stdin?: NodeJS.ReadableStream | undefined;
}

/** What each subcommand module receives: the streams, and a way to set the exit code. */
export interface CliContext extends CliIo {
  exitCode: number;
  /** Standard output with back-pressure; throws `OutputClosedError` once its reader has gone away. */
  readonly output: Output;
}
