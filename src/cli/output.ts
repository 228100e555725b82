/**
 * Standard output with back-pressure and a reader that may go away. `| head -1` closes the pipe after one
 * line: the next write fails with EPIPE, which ends the command quietly with exit code 0 (the reader got
 * what it wanted), as `grep` and `cat` do. And the JSON text of the records printed there, whatever their
 * depth (`formatJson`).
 */

import { CliError, EXIT } from "./exit-codes.js";

/**
 * The JSON text of a value read by `JSON.parse` (a record): `JSON.stringify(value, null, indent)`. A value
 * nested too deeply for `JSON.stringify`'s recursion (some thousands of levels, which `JSON.parse` reads
 * without limit; docs/cli.md "Output and exit codes") is written without recursion and compact whatever
 * `indent` (indented, its text would grow with the square of its depth): the text `JSON.stringify(value)`
 * gives on a larger stack.
 * @param value - a value of JSON: `null`, a boolean, a finite number, a string, an array or a plain object
 *   of these, as `JSON.parse` returns (no `toJSON`, no `undefined`)
 * @param indent - spaces of indentation (`JSON.stringify`'s `space`); none gives one line
 * @returns the text, or `undefined` when it is longer than the longest string JavaScript holds
 */
export function formatJson(value: unknown, indent?: number): string | undefined {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    // "Maximum call stack size exceeded" or "Invalid string length".
    if (!(error instanceof RangeError)) throw error;
  }
  try {
    return stringifyWithoutRecursion(value);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** One open array or object of `stringifyWithoutRecursion`: its members (its keys for an object) and the next one. */
interface OpenContainer {
  readonly container: Record<string, unknown> | readonly unknown[];
  readonly keys: readonly string[] | undefined;
  next: number;
}

/** Compact JSON of a value of JSON, with an explicit stack instead of recursion. */
function stringifyWithoutRecursion(root: unknown): string {
  const parts: string[] = [];
  const open: OpenContainer[] = [];
  let value = root;
  for (;;) {
    if (Array.isArray(value)) {
      parts.push("[");
      open.push({ container: value, keys: undefined, next: 0 });
    } else if (typeof value === "object" && value !== null) {
      parts.push("{");
      open.push({ container: value as Record<string, unknown>, keys: Object.keys(value), next: 0 });
    } else {
      parts.push(JSON.stringify(value) ?? "null");
    }
    // The next member to write, closing the containers that are done.
    for (;;) {
      const top = open.at(-1);
      if (top === undefined) return parts.join("");
      const { container, keys } = top;
      if (top.next === (keys ?? (container as readonly unknown[])).length) {
        parts.push(keys === undefined ? "]" : "}");
        open.pop();
        continue;
      }
      if (top.next > 0) parts.push(",");
      if (keys === undefined) value = (container as readonly unknown[])[top.next];
      else {
        const key = keys[top.next]!;
        parts.push(JSON.stringify(key), ":");
        value = (container as Record<string, unknown>)[key];
      }
      top.next++;
      break;
    }
  }
}

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
