/**
 * The request envelope (specification 2.1, docs/semantics.md 3.1) and the reading of command parameters from
 * `CommandParams` by their exact names (docs/semantics.md 3.2 messages). Only own properties are read.
 *
 * Problems are data, as for Search Conditions (docs/semantics.md 1.8): each has a code, and every message is
 * produced by `envelopeIssueMessage`, in one `switch`, as one sentence naming what was expected and what
 * was found.
 */

import { assertNever } from "../conditions/ast.js";
import { describeValue } from "../conditions/issues.js";
import { INVALID_JSON } from "./handler-types.js";
import { MESSAGES } from "./wire.js";

/** A valid envelope. */
export interface Envelope {
  readonly username: string;
  readonly site: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The envelope fields of docs/semantics.md 3.1. */
export type EnvelopeField = "Username" | "Site" | "CommandParams";

/** The details of an envelope or parameter problem, by code; `envelopeIssueMessage` words them. */
export type EnvelopeIssueDetail =
  /** The body is not a JSON object (`found` is `INVALID_JSON` for text that is not JSON). */
  | { readonly code: "invalid_body"; readonly found: unknown }
  /** An envelope field is absent. */
  | { readonly code: "missing_field"; readonly field: EnvelopeField; readonly expected: string }
  /** An envelope field of the wrong type, or a blank `Username` or `Site`. */
  | {
      readonly code: "invalid_field";
      readonly field: EnvelopeField;
      readonly expected: string;
      readonly found: unknown;
    }
  /** A required command parameter is absent or `null`. */
  | { readonly code: "missing_parameter"; readonly name: string }
  /**
   * A `CommandParams` key that is not a parameter of the command but equals `name` once case, spaces, `_`
   * and `-` are ignored (docs/semantics.md 3.2, "Parameter names").
   */
  | { readonly code: "near_miss_parameter"; readonly key: string; readonly name: string }
  /** A command parameter of the wrong type. */
  | {
      readonly code: "invalid_parameter";
      readonly name: string;
      readonly expected: string;
      readonly found: unknown;
    }
  /** A required string parameter that is empty or blank (the message is pinned by docs/semantics.md 3.2 tests). */
  | { readonly code: "empty_parameter"; readonly name: string };

/** Every envelope issue code. */
export type EnvelopeIssueCode = EnvelopeIssueDetail["code"];

/** One problem of a request envelope: its code and one sentence. */
export interface EnvelopeIssue {
  readonly code: EnvelopeIssueCode;
  readonly message: string;
}

/**
 * The one place where envelope and parameter messages are written: one sentence naming what was expected
 * and what was found, or, for a parameter, the wording of docs/semantics.md 3.2 (`Missing required parameter
 * 'X'.`, `Parameter 'X' must not be empty.`), where the name says what is wrong.
 */
export function envelopeIssueMessage(detail: EnvelopeIssueDetail): string {
  switch (detail.code) {
    case "invalid_body":
      return `Expected the body of the request to be a JSON object, found ${detail.found === INVALID_JSON ? "text that is not JSON" : describeValue(detail.found)}.`;
    case "missing_field":
      return `'${detail.field}' is missing: expected ${detail.expected}, found nothing.`;
    case "invalid_field":
      return `'${detail.field}' must be ${detail.expected}, found ${describeValue(detail.found)}.`;
    case "missing_parameter":
      return `Missing required parameter '${detail.name}'.`;
    case "near_miss_parameter":
      return `Unknown parameter '${shownKey(detail.key)}': did you mean '${detail.name}'?`;
    case "invalid_parameter":
      return `Parameter '${detail.name}' must be ${detail.expected}, found ${describeValue(detail.found)}.`;
    case "empty_parameter":
      return `Parameter '${detail.name}' must not be empty.`;
    default:
      return assertNever(detail);
  }
}

function envelopeIssue(detail: EnvelopeIssueDetail): EnvelopeIssue {
  return { code: detail.code, message: envelopeIssueMessage(detail) };
}

/**
 * The envelope, or the 400 message that refuses it with the issues behind it (never empty): the message is
 * the fixed `MESSAGES.badBody` for a body that is not a JSON object, otherwise `Invalid request body: `
 * followed by the issues' sentences joined by `; `.
 */
export type EnvelopeResult =
  | { ok: true; envelope: Envelope }
  | { ok: false; message: string; issues: readonly [EnvelopeIssue, ...EnvelopeIssue[]] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const NON_EMPTY_STRING = "a non-empty string";
const JSON_OBJECT = "a JSON object";

/**
 * Reads the envelope of a request body (docs/semantics.md 3.1).
 * @param body - parsed JSON or `INVALID_JSON`
 * @returns the envelope, or the 400 message and its issues: `The body of the request must be a valid JSON
 *   object` (issue `invalid_body`) for a body that is not a JSON object, otherwise a message naming every
 *   missing (`missing_field`) or ill-typed (`invalid_field`) field (`Username`, `Site`: non-empty strings;
 *   `CommandParams`: an object)
 */
export function readEnvelope(body: unknown): EnvelopeResult {
  if (body === INVALID_JSON || !isObject(body)) {
    return {
      ok: false,
      message: MESSAGES.badBody,
      issues: [envelopeIssue({ code: "invalid_body", found: body })],
    };
  }
  const issues: EnvelopeIssue[] = [];
  const field = (name: EnvelopeField): unknown => (Object.hasOwn(body, name) ? body[name] : undefined);
  const username = field("Username");
  const site = field("Site");
  const params = field("CommandParams");
  for (const [name, value] of [
    ["Username", username],
    ["Site", site],
  ] as const) {
    if (value === undefined)
      issues.push(envelopeIssue({ code: "missing_field", field: name, expected: NON_EMPTY_STRING }));
    else if (typeof value !== "string" || value.trim() === "") {
      issues.push(
        envelopeIssue({ code: "invalid_field", field: name, expected: NON_EMPTY_STRING, found: value }),
      );
    }
  }
  if (params === undefined) {
    issues.push(envelopeIssue({ code: "missing_field", field: "CommandParams", expected: JSON_OBJECT }));
  } else if (!isObject(params)) {
    issues.push(
      envelopeIssue({ code: "invalid_field", field: "CommandParams", expected: JSON_OBJECT, found: params }),
    );
  }
  const [first, ...rest] = issues;
  if (first !== undefined) {
    const clauses = issues.map((issue) => issue.message.slice(0, -1)).join("; ");
    return { ok: false, message: `Invalid request body: ${clauses}.`, issues: [first, ...rest] };
  }
  return {
    ok: true,
    envelope: {
      username: username as string,
      site: site as string,
      params: params as Record<string, unknown>,
    },
  };
}

/** The sentence that follows the near misses of a command's parameters (docs/semantics.md 3.2). */
export const NEAR_MISS_TRAILER =
  "Nothing was done: parameter names are exact (case, spaces, '_' and '-' count).";

/**
 * The keys of `CommandParams` that are near misses of the command's parameters (docs/semantics.md 3.2,
 * "Parameter names"): a key that is not one of `parameters` but equals one once case, white space, `_` and
 * `-` are ignored (`DryRun`, `dry run`, `artifact_name`). Own enumerable keys, in their order; linear in the
 * keys' total length.
 * @param params - `CommandParams`
 * @param parameters - the command's parameter names (`CommandDefinition.parameters`)
 * @returns each near miss with the parameter it resembles; empty when there is none
 */
export function nearMissParameters(
  params: Readonly<Record<string, unknown>>,
  parameters: readonly string[],
): { readonly key: string; readonly name: string }[] {
  const byFolded = new Map(parameters.map((name) => [foldParameterName(name), name]));
  const found: { key: string; name: string }[] = [];
  for (const key of Object.keys(params)) {
    if (parameters.includes(key)) continue;
    const name = byFolded.get(foldParameterName(key));
    if (name !== undefined) found.push({ key, name });
  }
  return found;
}

/**
 * The failure message for near misses (never empty): one `Unknown parameter 'K': did you mean 'P'?` per
 * key, then `NEAR_MISS_TRAILER`.
 */
export function nearMissMessage(
  nearMisses: readonly { readonly key: string; readonly name: string }[],
): string {
  const sentences = nearMisses.map(({ key, name }) =>
    envelopeIssueMessage({ code: "near_miss_parameter", key, name }),
  );
  return [...sentences, NEAR_MISS_TRAILER].join(" ");
}

/**
 * A parameter name with case, white space, `_` and `-` removed: the form in which a key and a parameter
 * are a near miss (docs/semantics.md 3.2).
 */
export function foldParameterName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, "");
}

/** A key as a message shows it: at most 60 characters, then `…`. */
function shownKey(key: string): string {
  return key.length > 60 ? `${key.slice(0, 60)}…` : key;
}

/**
 * Reads command parameters by their exact names and collects every problem as a sentence.
 * A parameter that is absent or `null` is missing. Near misses of the names (`incident number`) never reach
 * a reader: the handler refuses them first, for every parameter (`nearMissParameters`). The reader's own
 * problems are worded by `envelopeIssueMessage`; a command adds its own sentences to `problems` directly.
 */
export class ParamReader {
  readonly problems: string[] = [];

  /**
   * @param params - `CommandParams`
   * @param parameters - the command's parameter names (`CommandDefinition.parameters`): the only names
   *   the reader reads, so that the near-miss check of the handler covers every parameter a command reads
   */
  constructor(
    private readonly params: Readonly<Record<string, unknown>>,
    private readonly parameters: readonly string[],
  ) {}

  /**
   * The raw value of a parameter, `undefined` when absent or `null`.
   * @throws {Error} when `name` is not one of the command's declared parameters (a defect of the command)
   */
  raw(name: string): unknown {
    if (!this.parameters.includes(name)) {
      throw new Error(`'${name}' is read but not declared among the command's parameters.`);
    }
    const value = Object.hasOwn(this.params, name) ? this.params[name] : undefined;
    return value === null ? undefined : value;
  }

  /** Records `Missing required parameter 'X'.` */
  missing(name: string): void {
    this.problems.push(envelopeIssueMessage({ code: "missing_parameter", name }));
  }

  /** Records `Parameter 'X' must be …, found …`. */
  invalid(name: string, expected: string, found: unknown): void {
    this.problems.push(envelopeIssueMessage({ code: "invalid_parameter", name, expected, found }));
  }

  /**
   * A required string, kept exactly as sent: not blank, or (with `allowBlank`) not empty, so that white
   * space alone is a value.
   */
  requiredString(name: string, options: { readonly allowBlank?: boolean } = {}): string | undefined {
    const value = this.raw(name);
    if (value === undefined) {
      this.missing(name);
      return undefined;
    }
    return this.checkString(name, value, options.allowBlank === true);
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

  private checkString(name: string, value: unknown, allowBlank: boolean): string | undefined {
    if (typeof value !== "string") {
      this.invalid(name, "a string", value);
      return undefined;
    }
    if ((allowBlank ? value : value.trim()) === "") {
      this.problems.push(envelopeIssueMessage({ code: "empty_parameter", name }));
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
