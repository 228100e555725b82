/**
 * The one rejection of a `Backend` that is not unexpected: "not now, and nothing was done"
 * (docs/semantics.md 3.1, "When the data cannot be reached"). The handler answers it 503 with `Retry-After`
 * instead of 500, so that a caller knows a retry cannot store a note twice.
 */

/** The message of a 503 answer: `The service is temporarily unavailable: retry after N seconds.` */
export function unavailableMessage(retryAfterSeconds: number): string {
  return `The service is temporarily unavailable: retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? "" : "s"}.`;
}

/**
 * Rejected by a backend method that did nothing because its data could not be reached in time: no
 * connection could be had, or a statement was cancelled by its timeout before it took effect. A backend
 * must not use it for a write whose outcome it does not know (a connection lost after the statement was
 * sent): that is an unexpected error (500), since a retry could store the note twice.
 * @example throw new BackendUnavailableError("no connection within 5000 ms", { retryAfterSeconds: 1 })
 */
export class BackendUnavailableError extends Error {
  /** Recognised by this code too, so that an error from another copy of the library counts. */
  readonly code = "backend_unavailable";
  /** Whole seconds after which a retry may succeed (the `Retry-After` header): an integer ≥ 1. */
  readonly retryAfterSeconds: number;

  /**
   * @param message - why (for the server's log; the caller gets only the 503 sentence)
   * @param options - `retryAfterSeconds` (default 1; rounded up, at least 1) and the `cause`
   */
  constructor(message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = "BackendUnavailableError";
    this.retryAfterSeconds = retrySeconds(options.retryAfterSeconds);
  }
}

/**
 * The `Retry-After` seconds of a rejection that means "unavailable, nothing done" (a
 * `BackendUnavailableError` of any copy of the library: `code` `backend_unavailable`), else `undefined`.
 */
export function unavailableRetryAfter(error: unknown): number | undefined {
  if (error instanceof BackendUnavailableError) return error.retryAfterSeconds;
  if (typeof error !== "object" || error === null) return undefined;
  let code: unknown;
  let seconds: unknown;
  try {
    code = (error as { code?: unknown }).code;
    seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  } catch {
    return undefined;
  }
  return code === "backend_unavailable" ? retrySeconds(seconds) : undefined;
}

function retrySeconds(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 1
    ? Math.min(Math.ceil(value), 86_400)
    : 1;
}
