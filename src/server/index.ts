// incident-query/server: the reference command server (Fastify 5) over the command handler.

export type { DuplicateKey } from "../conditions/json-duplicate-keys.js";
export type { ApiKey, Authenticator, AuthFailure, AuthOptions, AuthResult, JwtOptions } from "./auth.js";
export { API_KEY_HEADER, createAuthenticator, JWT_HEADER } from "./auth.js";
// createServer, the errors of a body, the defaults of the limits, normalizeBasePath.
export * from "./create-server.js";
export type { OpenApiOptions } from "./openapi.js";
export { OPENAPI_PATH, openApiDocument, SEARCH_CONDITIONS_SCHEMA_PATH } from "./openapi.js";
