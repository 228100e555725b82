/**
 * A PostgreSQL server of one test file's own (Debian's binaries; `scripts/with-postgres.sh` exports their
 * folder as `PG_BIN`), on 127.0.0.1 and a free port, in a temporary folder: for tests that stop, start or
 * load the server, which must not disturb the server the other files share. Run as root, the server runs
 * as the `postgres` user, as in the script.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folder of PostgreSQL's server binaries, or undefined when they are not installed. */
export function postgresBin(): string | undefined {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv !== undefined && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(a) - Number(b));
  const last = versions.at(-1);
  return last === undefined ? undefined : join(root, last, "bin");
}

/** A private server: its URL, and stop / start / destroy. */
export interface PrivateServer {
  readonly url: string;
  /** Stops the server (`pg_ctl stop -m fast`: sessions are ended, in-flight statements fail). */
  stop(): void;
  /** Starts it again on the same port and folder. */
  start(): void;
  /** Stops it at once and removes its folder (idempotent). */
  destroy(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a private server. @throws when the binaries are missing or the server does not start */
export async function startPrivateServer(bin: string): Promise<PrivateServer> {
  const folder = mkdtempSync(join(tmpdir(), "iq-private-pg-"));
  const root = process.getuid?.() === 0;
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(folder, uid, gid);
  }
  const run = (command: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, command), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, command), args, { stdio: "pipe" });
  const port = await freePort();
  const data = join(folder, "db");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres"]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${folder} -c max_connections=40 -c fsync=off`;
  const start = () =>
    run("pg_ctl", ["-D", data, "-l", join(folder, "server.log"), "-w", "-o", options, "start"]);
  start();
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    start,
    destroy: () => {
      if (destroyed) return;
      destroyed = true;
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
