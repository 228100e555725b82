// incident-query/server: the reference command server (Fastify 5) over the command handler.
export type { ApiKey, Authenticator, AuthFailure, AuthOptions, AuthResult, JwtOptions } from "./auth.js";
export { API_KEY_HEADER, createAuthenticator, JWT_HEADER } from "./auth.js";
export type { ServerLoggerOptions, ServerOptions } from "./create-server.js";
export {
  createServer,
  DEFAULT_BODY_LIMIT,
  DEFAULT_RATE_LIMIT,
  normalizeBasePath,
  readJsonBody,
} from "./create-server.js";
