/**
 * A command request's body (docs/semantics.md 3.1): its `Content-Type` and `Content-Encoding` judged, its
 * bytes read as strict UTF-8 JSON nested at most `maxBodyDepth` levels, with no key repeated in one object.
 */
import { INVALID_JSON } from "../commands/index.js";
import {
  type DuplicateKey,
  duplicateKeyMessage,
  findDuplicateKey,
} from "../conditions/json-duplicate-keys.js";
import { DEFAULT_MAX_BODY_DEPTH } from "./defaults.js";

/** Is the media type `application/json` with, at most, a UTF-8 charset? A missing header counts as JSON. */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return true;
  const [type = "", ...parameters] = header.split(";");
  if (type.trim().toLowerCase() !== "application/json") return false;
  for (const parameter of parameters) {
    const eq = parameter.indexOf("=");
    const name = parameter
      .slice(0, eq < 0 ? undefined : eq)
      .trim()
      .toLowerCase();
    if (name !== "charset") continue;
    const value = (eq < 0 ? "" : parameter.slice(eq + 1))
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (value !== "utf-8" && value !== "utf8") return false;
  }
  return true;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The error of a request body nested deeper than the server's limit (docs/semantics.md section 3); the
 * server answers it 400 with its message.
 */
export class BodyTooDeepError extends Error {
  override readonly name = "BodyTooDeepError";
  /** The limit that was exceeded, in levels of JSON objects and arrays. */
  readonly maxDepth: number;
  /** @param maxDepth - the limit that was exceeded, in levels */
  constructor(maxDepth: number) {
    super(`The body of the request is nested deeper than ${maxDepth} levels of objects and arrays.`);
    this.maxDepth = maxDepth;
  }
}

/**
 * The error of a request body in which one object holds the same key twice (docs/semantics.md 3.1,
 * "Duplicate keys"): `JSON.parse` would keep the last silently, so the handler would act on a value other
 * readers of the body may not see. The server answers it 400 with its message.
 */
export class BodyDuplicateKeyError extends Error {
  override readonly name = "BodyDuplicateKeyError";
  /** The repeated key, and the path of its second occurrence from the body's root. */
  readonly duplicate: DuplicateKey;
  /** @param duplicate - the repeated key and its path (from `findDuplicateKey`) */
  constructor(duplicate: DuplicateKey) {
    super(duplicateKeyMessage("The body of the request", duplicate));
    this.duplicate = duplicate;
  }
}

/**
 * Reads a request body as JSON: strict UTF-8, then `JSON.parse` (which never recurses into the stack, at
 * any depth), then one iterative walk: deeper than `maxDepth` levels of objects and arrays (the top-level
 * value is level 1) is an error; last, one linear scan of the text for a key repeated in one object, which
 * is an error too. A `__proto__` key is valid JSON: `JSON.parse` keeps it as an own data property (it never
 * sets a prototype), and the command layer judges it where it stands (an ignored envelope field, a Search
 * Conditions issue with its path, a refused `Trigger Data` key: docs/semantics.md 3.1, "Prototype keys").
 * @param raw - the body's bytes
 * @param maxDepth - deepest accepted nesting (default `DEFAULT_MAX_BODY_DEPTH`, 256)
 * @returns the parsed value, or `INVALID_JSON` (not UTF-8, or not JSON)
 * @throws {BodyTooDeepError} when valid JSON is nested deeper than `maxDepth` (docs/semantics.md
 *   section 3)
 * @throws {BodyDuplicateKeyError} when one object of valid JSON holds a key twice (docs/semantics.md 3.1)
 */
export function readJsonBody(raw: Uint8Array, maxDepth: number = DEFAULT_MAX_BODY_DEPTH): unknown {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return INVALID_JSON;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return INVALID_JSON;
  }
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop();
    const depth = depths.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth > maxDepth) throw new BodyTooDeepError(maxDepth);
    if (Array.isArray(node)) {
      for (const item of node) {
        stack.push(item);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const nested of Object.values(node)) {
      stack.push(nested);
      depths.push(depth + 1);
    }
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) throw new BodyDuplicateKeyError(duplicate);
  return value;
}

/**
 * Is the `Content-Encoding` header absent or `identity` (case-insensitive; a list of `identity` tokens
 * too)? Anything else is 415: the server never inflates a body (docs/semantics.md 3.1).
 */
export function isIdentityEncoding(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  const tokens = (Array.isArray(header) ? header.join(",") : header).split(",");
  return tokens.every((token) => token.trim().toLowerCase() === "identity");
}
