/**
 * The server's read-only GET routes for people and tools (docs/server.md, "The playground" and
 * "OpenAPI and JSON Schema"): `/openapi.json`, `/schema/search-conditions.json`, and the playground's static
 * files under `/playground` (the page, its script and style, the server's catalogue as `catalog.json`, and
 * the browser build of the engine as `engine.js`). None
 * needs a credential: they hold no data; the playground calls the commands with the credential its user
 * types in. Registered by `createServer`; kept apart from the command routes.
 */
import { readFile } from "node:fs/promises";
import type { FastifyInstance, FastifyReply } from "fastify";
import { DEFAULT_CATALOG, type FieldCatalog } from "../conditions/catalog.js";
import { searchConditionsJsonSchema } from "../conditions/json-schema.js";
import { OPENAPI_PATH, openApiDocument, SEARCH_CONDITIONS_SCHEMA_PATH } from "./openapi.js";

/** Options of `registerWebRoutes`. */
export interface WebRoutesOptions {
  /** The normalized base path of the command routes. */
  readonly basePath: string;
  /** The catalogue of the server's Search Conditions parser, when not the default. */
  readonly catalog: FieldCatalog | undefined;
}

/** The playground's files: URL path under `/playground/` → file in the package's `playground/` folder. */
const PLAYGROUND_FILES: Readonly<Record<string, { file: string; type: string }>> = {
  "": { file: "index.html", type: "text/html; charset=utf-8" },
  "app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

/** The browser build of the engine, relative to the package root (tsup.config.ts). */
const ENGINE_BUNDLE = "dist/browser/incident-query.js";

/** How many directories above this module's are searched for the package's files (src/server, dist/…). */
const MAX_LEVELS_UP = 4;

/** The page's policy: its own scripts, styles and requests only (the engine runs in the page). */
const PLAYGROUND_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Registers the GET routes. The documents are built once, when the routes are registered; the playground's
 * files are read on each request (they are small), the engine bundle once.
 * @param app - the server (before it listens)
 * @param options - the base path and catalogue the documents describe
 */
export function registerWebRoutes(app: FastifyInstance, options: WebRoutesOptions): void {
  const catalog = options.catalog === undefined ? {} : { catalog: options.catalog };
  const openapi = JSON.stringify(openApiDocument({ basePath: options.basePath, ...catalog }));
  // No `$id`: the file is saved and mapped by editors under names of their own (README).
  const schema = JSON.stringify(searchConditionsJsonSchema(catalog));
  // The page parses with the server's catalogue, so its issues are the ones the command would answer.
  const catalogJson = JSON.stringify(options.catalog ?? DEFAULT_CATALOG);
  const sendJson = (reply: FastifyReply, text: string) =>
    reply.type("application/json; charset=utf-8").send(text);
  app.get(OPENAPI_PATH, async (_request, reply) => sendJson(reply, openapi));
  app.get(SEARCH_CONDITIONS_SCHEMA_PATH, async (_request, reply) => sendJson(reply, schema));

  let engine: Promise<string> | undefined;
  const servePlayground = async (name: string, reply: FastifyReply) => {
    reply.header("content-security-policy", PLAYGROUND_CSP);
    reply.header("x-content-type-options", "nosniff");
    if (name === "catalog.json") return sendJson(reply, catalogJson);
    if (name === "engine.js") {
      engine ??= engineBundle();
      const text = await engine.catch((error: unknown) => {
        engine = undefined;
        throw error;
      });
      return reply.type("text/javascript; charset=utf-8").send(text);
    }
    const entry = Object.hasOwn(PLAYGROUND_FILES, name) ? PLAYGROUND_FILES[name] : undefined;
    if (entry === undefined) {
      return reply
        .code(404)
        .type("application/json; charset=utf-8")
        .send(JSON.stringify({ Error: "Not found." }));
    }
    return reply.type(entry.type).send(await readPackageFile(`playground/${entry.file}`));
  };
  app.get("/playground", async (_request, reply) => servePlayground("", reply));
  app.get<{ Params: { "*": string } }>("/playground/*", async (request, reply) =>
    servePlayground(request.params["*"], reply),
  );
}

/** Reads a file of the package, found by walking up from this module's directory. */
async function readPackageFile(relative: string): Promise<string> {
  let directory = new URL(".", import.meta.url);
  for (let level = 0; level <= MAX_LEVELS_UP; level++) {
    try {
      return await readFile(new URL(relative, directory), "utf8");
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
    }
    directory = new URL("..", directory);
  }
  throw new Error(`The file ${relative} of incident-query was not found: build the package (npm run build).`);
}

/**
 * The engine for the page. Built (`dist/browser/incident-query.js`), it is that file; from the sources
 * (`npm start` runs the server through tsx, never touching dist/), it is bundled in memory from
 * `src/index.ts` with esbuild (a dev dependency, there in a clone) exactly as tsup builds the file.
 */
async function engineBundle(): Promise<string> {
  if (!import.meta.url.endsWith(".ts")) return readPackageFile(ENGINE_BUNDLE);
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [new URL("../index.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
