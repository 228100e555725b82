/**
 * A minimal executable around `registerServeCommand`, for the signal tests of serve-cli.test.ts (they
 * need a real process to send SIGINT and SIGTERM to). Exit code: 0 after a clean stop, the CliError's code
 * otherwise.
 */
import { Command } from "commander";
import { CliError } from "../../src/cli/exit-codes.js";
import { registerServeCommand } from "../../src/cli/serve.js";

const program = new Command("incident-query");
registerServeCommand(program);
program.parseAsync(process.argv).then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    process.stderr.write(`incident-query: ${(error as Error).message}\n`);
    process.exitCode = error instanceof CliError ? error.exitCode : 70;
  },
);
