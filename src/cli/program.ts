/**
 * The `incident-query` command line: `check`, `match`, `timeline` and `serve`. This module builds the
 * commander program and runs it against given streams, so tests run it in-process; `main.ts` binds it to
 * the process. The CLI only parses arguments, reads files, prints and sets the exit code (DESIGN.md).
 */
import { Command, CommanderError } from "commander";
import { registerCheckCommand } from "./check.js";
import { CliError, EXIT } from "./exit-codes.js";
import { registerMatchCommand } from "./match.js";
import { registerServeCommand } from "./serve.js";
import { registerTimelineCommand } from "./timeline.js";

/** Where a CLI run writes. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WriteStream;
}

/** What each subcommand module receives: the streams, and a way to set the exit code. */
export interface CliContext extends CliIo {
  exitCode: number;
}

/**
 * Runs the CLI.
 * @param argv - the arguments after the program name, e.g. `["check", "{\"Severity\": \"High\"}"]`
 * @param io - the output streams
 * @returns the exit code (see `EXIT`; documented in the README)
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const context: CliContext = { ...io, exitCode: EXIT.ok };
  const program = new Command("incident-query")
    .description("Search Conditions, incident sets and timelines of the incident command interface.")
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError("(add --help for usage and examples)");
  registerCheckCommand(program, context);
  registerMatchCommand(program, context);
  registerTimelineCommand(program, context);
  registerServeCommand(program);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`incident-query: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    throw error;
  }
}

/** The package version, set by the build (tsup `define`); `0.0.0-dev` when run from source. */
declare const __PACKAGE_VERSION__: string | undefined;
const VERSION = typeof __PACKAGE_VERSION__ === "string" ? __PACKAGE_VERSION__ : "0.0.0-dev";
