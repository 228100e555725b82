/**
 * The request envelope (specification 2.1, DECISIONS.md 3.1) and the reading of command parameters from
 * `CommandParams` by their exact names (DECISIONS.md 3.2 messages). Only own properties are read.
 */

import { describeValue } from "../conditions/issues.js";
import { INVALID_JSON } from "./handler-types.js";
import { MESSAGES } from "./wire.js";

/** A valid envelope. */
export interface Envelope {
  readonly username: string;
  readonly site: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The envelope, or the 400 message that refuses it. */
export type EnvelopeResult = { ok: true; envelope: Envelope } | { ok: false; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads the envelope of a request body (DECISIONS.md 3.1).
 * @param body - parsed JSON or `INVALID_JSON`
 * @returns the envelope, or the 400 message: `The body of the request must be a valid JSON object` for a
 *   body that is not a JSON object, otherwise a message naming every missing or ill-typed field
 *   (`Username`, `Site`: non-empty strings; `CommandParams`: an object)
 */
export function readEnvelope(body: unknown): EnvelopeResult {
  if (body === INVALID_JSON || !isObject(body)) return { ok: false, message: MESSAGES.badBody };
  const problems: string[] = [];
  const field = (name: string): unknown => (Object.hasOwn(body, name) ? body[name] : undefined);
  const username = field("Username");
  const site = field("Site");
  const params = field("CommandParams");
  for (const [name, value] of [
    ["Username", username],
    ["Site", site],
  ] as const) {
    if (value === undefined) problems.push(`'${name}' is missing: expected a non-empty string`);
    else if (typeof value !== "string" || value.trim() === "") {
      problems.push(`'${name}' must be a non-empty string, found ${describeValue(value)}`);
    }
  }
  if (params === undefined) problems.push("'CommandParams' is missing: expected a JSON object");
  else if (!isObject(params))
    problems.push(`'CommandParams' must be a JSON object, found ${describeValue(params)}`);
  if (problems.length > 0) return { ok: false, message: `Invalid request body: ${problems.join("; ")}.` };
  return {
    ok: true,
    envelope: {
      username: username as string,
      site: site as string,
      params: params as Record<string, unknown>,
    },
  };
}

/**
 * Reads command parameters by their exact names and collects every problem as a sentence.
 * A parameter that is absent or `null` is missing; names are case-sensitive, and a near miss
 * (`incident number`) is named in the message.
 */
export class ParamReader {
  readonly problems: string[] = [];

  constructor(private readonly params: Readonly<Record<string, unknown>>) {}

  /** The raw value of a parameter, `undefined` when absent or `null`. */
  raw(name: string): unknown {
    const value = Object.hasOwn(this.params, name) ? this.params[name] : undefined;
    return value === null ? undefined : value;
  }

  /** Records `Missing required parameter 'X'.`, with a hint when another key differs only in case or spacing. */
  missing(name: string): void {
    const wanted = normalise(name);
    const nearMiss = Object.keys(this.params).find((k) => k !== name && normalise(k) === wanted);
    this.problems.push(
      nearMiss === undefined
        ? `Missing required parameter '${name}'.`
        : `Missing required parameter '${name}' (found '${nearMiss}': parameter names are case-sensitive).`,
    );
  }

  /** Records `Parameter 'X' must be …, found …`. */
  invalid(name: string, expected: string, found: unknown): void {
    this.problems.push(`Parameter '${name}' must be ${expected}, found ${describeValue(found)}.`);
  }

  /** A required string that is not blank (kept exactly as sent). */
  requiredString(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) {
      this.missing(name);
      return undefined;
    }
    return this.checkString(name, value);
  }

  /** An optional string (blank allowed: the command decides what blank means). */
  optionalString(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      this.invalid(name, "a string", value);
      return undefined;
    }
    return value;
  }

  private checkString(name: string, value: unknown): string | undefined {
    if (typeof value !== "string") {
      this.invalid(name, "a string", value);
      return undefined;
    }
    if (value.trim() === "") {
      this.problems.push(`Parameter '${name}' must not be empty.`);
      return undefined;
    }
    return value;
  }

  /**
   * The problems as one message: sentences joined by a space, or by a line break next to a multi-line
   * problem (the Search Conditions issues, one per line).
   */
  message(): string {
    let text = "";
    this.problems.forEach((problem, index) => {
      if (index > 0) text += problem.includes("\n") || this.problems[index - 1]!.includes("\n") ? "\n" : " ";
      text += problem;
    });
    return text;
  }
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, "");
}
