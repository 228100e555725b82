/**
 * Authentication of the reference command server (docs/semantics.md 3.1): an API key in the header `d3key`
 * or a JSON web token in the header `d3jwt`. Keys are compared in constant time; tokens are verified with
 * jose against an algorithm allow-list (HS256 for a shared secret, RS256 or ES256 for a public key; never
 * `none`).
 */

import { createHash, createPublicKey, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import { errors as joseErrors, jwtVerify } from "jose";
import type { Caller } from "../commands/handler-types.js";

/** The header that carries an API key (the vendor's clients use this name). */
export const API_KEY_HEADER = "d3key";
/** The header that carries a JSON web token (the vendor's clients use this name). */
export const JWT_HEADER = "d3jwt";

/** One API key and the user it authenticates. A user may have several keys. */
export interface ApiKey {
  /** The user the key belongs to; the request body's `Username` must equal it. */
  readonly username: string;
  /** The key itself, as sent in the `d3key` header. Non-empty. */
  readonly key: string;
}

/**
 * How JSON web tokens in `d3jwt` are verified. The token's `sub` claim names the user; `exp` is required.
 * Give a secret, a public key, or both; the token's `alg` header picks the key, and only the algorithms
 * listed here are accepted.
 */
export interface JwtOptions {
  /** Shared secret for HS256 tokens (UTF-8 text or raw bytes). Non-empty. */
  readonly secret?: string | Uint8Array;
  /**
   * Public key for asymmetric tokens: a PEM text (SPKI `-----BEGIN PUBLIC KEY-----` or a certificate) or a
   * `KeyObject`. An RSA key accepts RS256 tokens only; an EC P-256 key accepts ES256 tokens only.
   */
  readonly publicKey?: string | KeyObject;
  /** Clock skew tolerated on `exp` and `nbf`, in seconds (default 0). */
  readonly clockToleranceSeconds?: number;
}

/** The credentials a server accepts. */
export interface AuthOptions {
  readonly apiKeys?: readonly ApiKey[];
  readonly jwt?: JwtOptions;
}

/** Why a request was not authenticated (for the server log only; the client always sees the same 401). */
export type AuthFailure =
  | "missing_credential"
  | "ambiguous_credential"
  | "unknown_key"
  | "invalid_token"
  | "expired_token"
  | "algorithm_not_allowed"
  | "jwt_not_configured"
  /** The credential is valid but the body's `Username` names another user (checked by the server). */
  | "username_mismatch";

/** The outcome of `Authenticator.authenticate`. */
export type AuthResult =
  | { readonly ok: true; readonly caller: Caller; readonly via: "api_key" | "jwt" }
  | { readonly ok: false; readonly reason: AuthFailure };

/** Checks the credential headers of one request. */
export interface Authenticator {
  /**
   * Authenticates a request from its headers (names in lower case, as Node gives them).
   * Exactly one of `d3key` and `d3jwt` must be present; a request carrying both is refused.
   * @returns the caller, or the reason for refusal. Never rejects.
   */
  authenticate(headers: Readonly<Record<string, string | string[] | undefined>>): Promise<AuthResult>;
  /** The JWT algorithms accepted, in order (empty when no JWT option is set). */
  readonly jwtAlgorithms: readonly string[];
}

interface StoredKey {
  readonly username: string;
  readonly digest: Buffer;
}

const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * Derives the JWT algorithm of a public key: RS256 for RSA, ES256 for EC P-256.
 * @throws {Error} for any other key type or curve
 */
function publicKeyAlgorithm(key: KeyObject): "RS256" | "ES256" {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1") return "ES256";
  throw new Error(
    `The JWT public key must be an RSA key (RS256) or an EC P-256 key (ES256); found a ${key.asymmetricKeyType ?? "unknown"} key.`,
  );
}

/**
 * Builds the authenticator of the reference server (docs/semantics.md 3.1).
 * @param options - API keys and/or JWT verification keys; at least one credential must be configured
 * @returns an `Authenticator`
 * @throws {Error} when no credential is configured, an API key or username is empty, one key is given to
 *   two users, the JWT secret is empty, or the public key is not an RSA or EC P-256 public key in PEM form
 */
export function createAuthenticator(options: AuthOptions): Authenticator {
  const keys: StoredKey[] = [];
  for (const { username, key } of options.apiKeys ?? []) {
    if (typeof username !== "string" || username === "")
      throw new Error("An API key needs a non-empty username.");
    if (typeof key !== "string" || key === "") throw new Error(`The API key of user '${username}' is empty.`);
    const digest = sha256(key);
    const other = keys.find((stored) => stored.username !== username && stored.digest.equals(digest));
    if (other !== undefined) {
      // Otherwise every request of one of the two users would be authenticated as the other.
      throw new Error(
        `The same API key is configured for users '${other.username}' and '${username}': give each user keys of their own.`,
      );
    }
    keys.push({ username, digest });
  }

  const jwt = options.jwt;
  let secret: KeyObject | undefined;
  let publicKey: KeyObject | undefined;
  const algorithms: string[] = [];
  if (jwt?.secret !== undefined) {
    const bytes = typeof jwt.secret === "string" ? Buffer.from(jwt.secret, "utf8") : Buffer.from(jwt.secret);
    if (bytes.length === 0) throw new Error("The JWT secret is empty.");
    secret = createSecretKey(bytes);
    algorithms.push("HS256");
  }
  if (jwt?.publicKey !== undefined) {
    publicKey = typeof jwt.publicKey === "string" ? createPublicKey(jwt.publicKey) : jwt.publicKey;
    if (publicKey.type !== "public")
      throw new Error("The JWT public key must be a public key, not a private one.");
    algorithms.push(publicKeyAlgorithm(publicKey));
  }
  if (keys.length === 0 && algorithms.length === 0) {
    throw new Error("No credential is configured: give at least one API key or a JWT secret or public key.");
  }
  const clockTolerance = jwt?.clockToleranceSeconds ?? 0;

  /** Constant-time lookup: every stored digest is compared, whatever matches first. */
  function findKeyOwner(presented: string): string | undefined {
    const digest = sha256(presented);
    let owner: string | undefined;
    for (const stored of keys) {
      if (timingSafeEqual(stored.digest, digest) && owner === undefined) owner = stored.username;
    }
    return owner;
  }

  async function verifyToken(token: string): Promise<AuthResult> {
    if (algorithms.length === 0) return { ok: false, reason: "jwt_not_configured" };
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => (header.alg === "HS256" ? secret : publicKey) as KeyObject,
        { algorithms, requiredClaims: ["exp", "sub"], clockTolerance },
      );
      const sub = payload.sub;
      if (typeof sub !== "string" || sub === "") return { ok: false, reason: "invalid_token" };
      return { ok: true, caller: { username: sub }, via: "jwt" };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, reason: "expired_token" };
      if (error instanceof joseErrors.JOSEAlgNotAllowed)
        return { ok: false, reason: "algorithm_not_allowed" };
      return { ok: false, reason: "invalid_token" };
    }
  }

  return {
    jwtAlgorithms: algorithms,
    async authenticate(headers) {
      const key = headers[API_KEY_HEADER];
      const token = headers[JWT_HEADER];
      if (key !== undefined && token !== undefined) return { ok: false, reason: "ambiguous_credential" };
      if (typeof key === "string" && key !== "") {
        const username = findKeyOwner(key);
        return username === undefined
          ? { ok: false, reason: "unknown_key" }
          : { ok: true, caller: { username }, via: "api_key" };
      }
      if (typeof token === "string" && token !== "") return verifyToken(token);
      return {
        ok: false,
        reason: key === undefined && token === undefined ? "missing_credential" : "unknown_key",
      };
    },
  };
}
