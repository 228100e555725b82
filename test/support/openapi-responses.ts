/**
 * Every response of the server test suites, held to the OpenAPI document: `checkResponse` finds
 * the operation of a request in `openApiDocument` (paths match case-insensitively, as the server routes them;
 * any path under `{base}/Command/` that names no command is the templated `{command}` path) and validates the
 * status and the JSON body with ajv. A request the document has no operation for (405 on a command path,
 * 404 on an unknown path) must still be an error status with the `Error` body the document promises for
 * every other answer.
 *
 * `test/support/openapi-responses.setup.ts` installs it on every server `createServer` makes in a test file,
 * through an `onSend` hook; the violations fail that file.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { FieldCatalog } from "../../src/conditions/catalog.js";
import { openApiDocument } from "../../src/server/openapi.js";

/** A response as the server sent it. */
export interface SentResponse {
  readonly method: string;
  /** The request URL (path and query). */
  readonly url: string;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The body as sent. */
  readonly body: string;
}

type Json = Record<string, unknown>;

const pointer = (...segments: string[]) =>
  `#/${segments.map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** The checker of one document: `(response) => problem or undefined`. */
export type ResponseChecker = (response: SentResponse) => string | undefined;

const checkers = new Map<string, ResponseChecker>();

/**
 * The checker of the document for a base path and catalogue (compiled once per pair).
 * @param basePath - the server's normalized base path
 * @param catalog - the server's catalogue, when not the default
 */
export function responseChecker(basePath = "", catalog?: FieldCatalog): ResponseChecker {
  const key = JSON.stringify([basePath, catalog ?? null]);
  const known = checkers.get(key);
  if (known !== undefined) return known;
  const document = openApiDocument({ basePath, ...(catalog === undefined ? {} : { catalog }) });
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
  ajv.addSchema(document, "openapi");
  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string): ValidateFunction => {
    let validate = compiled.get(ref);
    if (validate === undefined) {
      validate = ajv.getSchema(`openapi${ref}`);
      if (validate === undefined) throw new Error(`no schema at ${ref}`);
      compiled.set(ref, validate);
    }
    return validate;
  };
  const paths = document.paths as Record<string, Record<string, Json>>;
  const concrete = new Map(
    Object.keys(paths)
      .filter((path) => !path.includes("{"))
      .map((path) => [path.toLowerCase(), path]),
  );
  const commandPrefix = `${basePath}/command/`.toLowerCase();
  const templated = `${basePath}/Command/{command}`;
  /** `/playground/{file}` for any file of the playground. */
  const templatedPath = (path: string): string | undefined =>
    path.startsWith(commandPrefix)
      ? templated
      : path.startsWith("/playground/") && path.length > "/playground/".length
        ? "/playground/{file}"
        : undefined;

  const check: ResponseChecker = (response) => {
    const q = response.url.indexOf("?");
    const path = (q < 0 ? response.url : response.url.slice(0, q)).toLowerCase();
    const documented = concrete.get(path) ?? templatedPath(path);
    const method = response.method.toLowerCase();
    const operation = documented === undefined ? undefined : paths[documented]?.[method];
    const where = `${response.method} ${response.url.slice(0, 120)} → ${response.status}`;
    let body: unknown;
    const isJson = response.contentType?.startsWith("application/json") === true;
    if (isJson) {
      try {
        body = JSON.parse(response.body);
      } catch {
        return `${where}: the body is not JSON: ${response.body.slice(0, 200)}`;
      }
    }
    if (operation === undefined || documented === undefined) {
      if (response.status < 400) return `${where}: no operation of the document answers it`;
      if (!isJson) return `${where}: an error answer that is not JSON`;
      const validate = validator(pointer("components", "schemas", "Error"));
      return validate(body) ? undefined : `${where}: ${ajv.errorsText(validate.errors)}`;
    }
    const responses = operation.responses as Record<string, Json>;
    if (!Object.hasOwn(responses, String(response.status))) return `${where}: status not in the document`;
    const content = responses[String(response.status)]!.content as Record<string, unknown> | undefined;
    if (content === undefined) return undefined;
    const mediaType = (response.contentType ?? "").split(";")[0]!.trim();
    if (!Object.hasOwn(content, mediaType)) {
      return `${where}: the document names ${Object.keys(content).join(", ")}, the server sent ${mediaType}`;
    }
    if (!isJson) return undefined;
    const validate = validator(
      pointer(
        "paths",
        documented,
        method,
        "responses",
        String(response.status),
        "content",
        "application/json",
        "schema",
      ),
    );
    return validate(body)
      ? undefined
      : `${where}: ${ajv.errorsText(validate.errors)}; body ${response.body.slice(0, 300)}`;
  };
  checkers.set(key, check);
  return check;
}
