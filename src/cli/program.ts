/**
 * The `incident-query` command line: `check`, `match`, `timeline` and `serve`. This module builds the
 * commander program and runs it against given streams, so tests run it in-process; `main.ts` binds it to
 * the process. The CLI only parses arguments, reads files, prints and sets the exit code (docs/architecture.md).
 */
import { Command, CommanderError } from "commander";
import { NdjsonInputError } from "../node/errors.js";
import { registerCheckCommand } from "./check.js";
import type { CliContext, CliIo } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { registerMatchCommand } from "./match.js";
import { Output, OutputClosedError } from "./output.js";
import { registerServeCommand } from "./serve.js";
import { registerTimelineCommand } from "./timeline.js";

/**
 * Runs the CLI.
 * @param argv - the arguments after the program name, e.g. `["check", "{\"Severity\": \"High\"}"]`
 * @param io - the output streams
 * @returns the exit code (see `EXIT`; documented in the README)
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const output = new Output(io.stdout);
  const context: CliContext = { ...io, exitCode: EXIT.ok, output };
  const program = new Command("incident-query")
    .description("Search Conditions, incident sets and timelines of the incident command interface.")
    .version(VERSION)
    .option("--debug", "print the stack of an unexpected error")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // A usage error is one line, prefixed as every message is (docs/cli.md, "Output and exit codes"):
      // commander's `error: unknown command 'mach'\n(Did you mean match?)\n` becomes
      // `incident-query: unknown command 'mach' (Did you mean match?) (add --help for usage and examples)`.
      outputError: (text, write) => write(`incident-query: ${usageMessage(text)}\n`),
    });
  registerCheckCommand(program, context);
  registerMatchCommand(program, context);
  registerTimelineCommand(program, context);
  registerServeCommand(program, { stdin: io.stdin });
  try {
    await program.parseAsync([...argv], { from: "user" });
    await output.flush();
    return context.exitCode;
  } catch (error) {
    // The reader of standard output went away (`| head -1`): it has what it wanted.
    if (error instanceof OutputClosedError || output.closed) return EXIT.ok;
    const debug = program.opts<{ debug?: boolean }>().debug === true || argv.includes("--debug");
    if (error instanceof CliError || error instanceof NdjsonInputError) {
      io.stderr.write(`incident-query: ${oneLine(error.message)}\n`);
      if (debug && error.stack !== undefined) io.stderr.write(`${error.stack}\n`);
      return error instanceof CliError ? error.exitCode : EXIT[error.kind];
    }
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    io.stderr.write(`incident-query: ${describeUnexpected(error, debug)}\n`);
    return EXIT.software;
  }
}

/**
 * One line for an unexpected error (a bug): its message, and how to see more; with `debug`, its stack.
 */
export function describeUnexpected(error: unknown, debug: boolean): string {
  if (debug) return `unexpected error: ${error instanceof Error ? error.stack : String(error)}`;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `unexpected error: ${oneLine(message)} (a bug; --debug prints its stack)`;
}

/** A commander error message (`error: …`, maybe several lines) as one line, with the way to the help. */
function usageMessage(text: string): string {
  const message = text
    .replace(/^error: /, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
  return `${oneLine(message)} (add --help for usage and examples)`;
}

function oneLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 500 ? `${line.slice(0, 500)}…` : line;
}

/** The package version, set by the build (tsup `define`); `0.0.0-dev` when run from source. */
declare const __PACKAGE_VERSION__: string | undefined;
const VERSION = typeof __PACKAGE_VERSION__ === "string" ? __PACKAGE_VERSION__ : "0.0.0-dev";
