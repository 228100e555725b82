/** The defaults of the server's limits (docs/semantics.md 3.1), public as `incident-query/server`'s names. */

/** Default rate limit: requests per minute per credential (docs/semantics.md 3.1). */
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
