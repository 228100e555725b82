/**
 * Standard output with back-pressure and a reader that may go away. `| head -1` closes the pipe after one
 * line: the next write fails with EPIPE, which ends the command quietly with exit code 0 (the reader got
 * what it wanted), as `grep` and `cat` do. And the JSON text of the records printed there, whatever their
 * depth (`formatJson`).
 */

import { formatJson } from "../node/format-json.js";
import { CliError, EXIT } from "./exit-codes.js";

export { formatJson };

/** Thrown by `Output.write` once the reader has closed standard output; `runCli` ends with exit code 0. */
export class OutputClosedError extends Error {
  override readonly name = "OutputClosedError";
}

/** A writable stream as the CLI uses it. */
export class Output {
  readonly #stream: NodeJS.WritableStream;
  #closed = false;
  #failure: Error | undefined;
  #waiters: (() => void)[] = [];

  constructor(stream: NodeJS.WritableStream) {
    this.#stream = stream;
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") this.#closed = true;
      else
        this.#failure = new CliError(
          `Cannot write the output: ${error.message.split("\n")[0]}`,
          EXIT.ioError,
        );
      this.#release();
    });
    stream.on("close", () => {
      this.#closed = true;
      this.#release();
    });
    stream.on("drain", () => this.#release());
  }

  /** Whether the reader has gone away (further writes throw `OutputClosedError`). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Writes text; when the stream's buffer is full, the returned promise resolves once it has drained.
   * @throws {OutputClosedError} when the reader has gone away
   * @throws {CliError} (`ioError`) when writing failed for another reason
   */
  write(text: string): Promise<void> | undefined {
    this.#check();
    if (this.#stream.write(text)) return undefined;
    return new Promise<void>((resolve) => {
      this.#waiters.push(resolve);
    }).then(() => this.#check());
  }

  /**
   * Waits until everything written so far has been handed to the system.
   * @throws {OutputClosedError} when the reader has gone away
   * @throws {CliError} (`ioError`) when writing failed for another reason
   */
  async flush(): Promise<void> {
    this.#check();
    await new Promise<void>((resolve) => {
      this.#stream.write("", () => resolve());
    });
    // An error event follows its failed write's callback: let it arrive.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#check();
  }

  #check(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new OutputClosedError("standard output was closed");
  }

  #release(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }
}
