/**
 * The `incident-query` executable: binds the CLI to the process. Whatever happens, the process ends with
 * an exit code of the README's table and one line on stderr: an unexpected error is 70 (its stack only with
 * `--debug`), and a reader that closes standard output or standard error early (`| head -1`,
 * `2>&1 | head -1`) ends the program quietly with 0; a failure to write either is 74 (docs/cli.md, "Output
 * and exit codes").
 */
import module from "node:module";
import { prestartMatchWorkers } from "./match-prestart.js";

// Node's on-disk cache of compiled code (Node 22.1+; absent from Node 20, where this does nothing): later
// runs skip compiling the modules they load (docs/cli.md, Start-up).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const argv = process.argv.slice(2);
const debug = argv.includes("--debug");
// `match` over a large file: its worker threads load the engine while this thread loads it below.
prestartMatchWorkers(argv);
const program = import("./program.js");

// Writes after the reader of stdout has gone away fail with EPIPE: nothing is left to do.
// Any other failure to write is an I/O error (74), reported in one line.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  process.stderr.write(`incident-query: Cannot write the output: ${error.message.split("\n")[0]}\n`);
  process.exit(74);
});

// Standard error likewise: its reader gone (EPIPE), the messages have nobody to read them; another failure
// (a full disk) is an I/O error (74), which cannot be reported on the stream that failed. Without this
// listener the error would reach `uncaughtException`, and be told as a bug (70) on that same stream.
process.stderr.on("error", (error: NodeJS.ErrnoException) => {
  process.exit(error.code === "EPIPE" ? (process.exitCode ?? 0) : 74);
});

const { describeUnexpected, runCli } = await program;

function fail(error: unknown): void {
  process.stderr.write(`incident-query: ${describeUnexpected(error, debug)}\n`);
  process.exit(70);
}
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);

runCli(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then((code) => {
  process.exitCode = code;
  // Standard input may still hold unread data (`--limit`, a closed stdout): do not wait for it.
  if (argv.includes("-")) process.stdin.destroy();
}, fail);
