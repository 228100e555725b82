// incident-query/server: the reference command server (Fastify 5) over the command handler.

export type { DuplicateKey } from "../conditions/json-duplicate-keys.js";
export type { ApiKey, Authenticator, AuthFailure, AuthOptions, AuthResult, JwtOptions } from "./auth.js";
export { API_KEY_HEADER, createAuthenticator, JWT_HEADER } from "./auth.js";
export type { ServerLoggerOptions, ServerOptions } from "./create-server.js";
export {
  BodyDuplicateKeyError,
  BodyTooDeepError,
  createServer,
  DEFAULT_BODY_LIMIT,
  DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  DEFAULT_MAX_BODY_DEPTH,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  normalizeBasePath,
  readJsonBody,
} from "./create-server.js";
export type { OpenApiOptions } from "./openapi.js";
export { OPENAPI_PATH, openApiDocument, SEARCH_CONDITIONS_SCHEMA_PATH } from "./openapi.js";
