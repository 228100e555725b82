/**
 * The reference server's default limits and its base-path rule: plain values with no dependencies, so that
 * the CLI can show them in `serve --help` without loading the server (Fastify, jose) until `serve` runs.
 * `createServer` applies them (docs/semantics.md 3.1).
 */

/** Default rate limit: requests per minute per credential (issue 6; docs/semantics.md 3.1). */
export const DEFAULT_RATE_LIMIT = 600;
/** Default body size limit in bytes: 1 MiB (docs/semantics.md 3.1). */
export const DEFAULT_BODY_LIMIT = 1_048_576;
/**
 * Default time, in milliseconds, for a request's headers and body to arrive, counted from its first byte
 * (docs/semantics.md 3.1: 30 s); a later request is answered 408 and its connection closed.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default time, in milliseconds, an idle keep-alive connection is kept open (docs/semantics.md 3.1: 5 s). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Default number of connections one client address may hold open at once (docs/semantics.md 3.1: 64). */
export const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64;
/** Default number of connections the server holds open at once, all addresses (docs/semantics.md 3.1: 1,000). */
export const DEFAULT_MAX_CONNECTIONS = 1_000;
/** Default time budget of a Search Conditions search, in milliseconds (docs/semantics.md 1.7: 2,000). */
export const DEFAULT_MAX_TIME_MS = 2_000;
/**
 * Default deepest nesting of a request body, in levels of JSON objects and arrays (the body's own object
 * is level 1). The server decides it (docs/semantics.md section 3): far above any valid command body,
 * far below what would exhaust the stack.
 */
export const DEFAULT_MAX_BODY_DEPTH = 256;

const BASE_PATH_RE = /^(?:\/[A-Za-z0-9._~!$&'()+,;=@%-]+)*$/;

/**
 * Checks and normalizes a base path: `""`, `"/"` → `""`; `"/VSOC/api/"` → `"/VSOC/api"`.
 * @throws {Error} when the path does not start with `/` or holds a character a route cannot hold
 */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.endsWith("/") ? basePath.slice(0, -1) : basePath;
  if (!BASE_PATH_RE.test(trimmed) || trimmed.includes("//")) {
    throw new Error(
      `The base path must be empty or start with '/' and hold only path characters (no ':', '*', '?' or '#'); found '${basePath}'.`,
    );
  }
  return trimmed;
}
