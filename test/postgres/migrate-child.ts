/**
 * A child process that migrates a database and stops part-way, for the SIGKILL case of
 * `schema-migrations.test.ts`: `node --import tsx migrate-child.ts <connection string> <version|columns>`.
 * It migrates with the `Owner` column map, prints each step as a JSON line, and on the first step of the
 * given kind (inside that step's transaction, before its commit) prints `HOLDING` and waits to be killed.
 */
import { createPostgresBackend } from "../../src/postgres/backend.js";
import { DEFAULT_COLUMNS } from "../../src/postgres/schema.js";

const [connectionString, holdAt] = process.argv.slice(2);
if (connectionString === undefined || (holdAt !== "version" && holdAt !== "columns")) {
  process.stderr.write("usage: migrate-child.ts <connection string> <version|columns>\n");
  process.exit(64);
}
const backend = await createPostgresBackend({
  connectionString,
  columns: { ...DEFAULT_COLUMNS, Owner: "f_owner" },
});
await backend.migrate({
  onStep: async (step) => {
    process.stdout.write(`${JSON.stringify(step)}\n`);
    // The version step of version 1 is a no-op on a database of the previous release: hold at version 2.
    if (step.kind === holdAt && (step.kind !== "version" || step.version === 2)) {
      process.stdout.write("HOLDING\n");
      await new Promise(() => {});
    }
  },
});
process.stdout.write("DONE\n");
await backend.close();
