/** The CLI run in process (`runCli`) with captured output, for the CLI's tests. */
import { PassThrough } from "node:stream";
import { runCli } from "../../src/cli/program.js";

/**
 * Runs the CLI in process and captures what it prints.
 * @param options - `stdin` (default none), `tty` (whether standard error is a terminal, default false)
 * @returns the exit code and everything written to standard output and standard error
 */
export async function runWith(
  { stdin, tty = false }: { stdin?: NodeJS.ReadableStream; tty?: boolean },
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), {
    isTTY: tty,
    columns: 120,
  }) as unknown as NodeJS.WriteStream;
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => {
    out += chunk;
  });
  (stderr as unknown as PassThrough).on("data", (chunk) => {
    err += chunk;
  });
  const code = await runCli(argv, { stdout, stderr, stdin });
  return { code, out, err };
}
