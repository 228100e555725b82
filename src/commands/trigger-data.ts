/**
 * `Trigger Data` of TriggerIncidentExternalAction (specification 4.2, 6.1; docs/semantics.md 3.3): a JSON
 * object within size and depth limits, with no prototype-named keys, delivered to each triggered playbook
 * as its own deep copy.
 */

import { isForbiddenSegment } from "../conditions/catalog.js";
import { describeValue, formatPath, type PathSegment } from "../conditions/issues.js";
import { unstorableCharacter } from "./unstorable-text.js";

/** Limits on `Trigger Data`. */
export interface TriggerDataLimits {
  /** Nesting depth; the Trigger Data object itself is level 1 (default 32, as docs/semantics.md 1.7). */
  readonly maxDepth: number;
  /** Characters of its JSON text (default 65,536). */
  readonly maxLength: number;
}

/** The default limits of `Trigger Data`. */
export const DEFAULT_TRIGGER_DATA_LIMITS: TriggerDataLimits = Object.freeze({
  maxDepth: 32,
  maxLength: 65_536,
});

/** A checked Trigger Data object, or the message that refuses it. */
export type TriggerDataResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

const PARAM = "Trigger Data";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks an untrusted `Trigger Data` value and returns a deep copy made of plain JSON values only.
 * Iterative: no input can overflow the stack; the walk stops at the first problem. A key or string holding
 * U+0000 or an unpaired surrogate is refused (docs/semantics.md 3.3, "Text that no store keeps").
 * @param value - the parameter's value (already known to be present)
 * @param limits - depth and length limits
 * @returns the copy, or a message such as `Parameter 'Trigger Data' must not contain the key '__proto__' (at a.__proto__).`
 */
export function checkTriggerData(
  value: unknown,
  limits: TriggerDataLimits = DEFAULT_TRIGGER_DATA_LIMITS,
): TriggerDataResult {
  if (!isPlainObject(value)) {
    return {
      ok: false,
      message: `Parameter '${PARAM}' must be a JSON object, found ${describeValue(value)}.`,
    };
  }
  const root: Record<string, unknown> = {};
  // JSON text length: counted as we go so that a huge value is refused without serialising it whole.
  let length = 0;
  const stack: {
    source: unknown;
    target: Record<string, unknown> | unknown[];
    path: PathSegment[];
    depth: number;
  }[] = [{ source: value, target: root, path: [], depth: 1 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.depth > limits.maxDepth) {
      return {
        ok: false,
        message: `Parameter '${PARAM}' must be nested at most ${limits.maxDepth} levels deep (too deep at ${formatPath(frame.path)}).`,
      };
    }
    const isArray = Array.isArray(frame.source);
    const entries: [PathSegment, unknown][] = isArray
      ? (frame.source as unknown[]).map((v, i) => [i, v])
      : Object.entries(frame.source as Record<string, unknown>);
    length += 2 + Math.max(0, entries.length - 1);
    for (const [key, child] of entries) {
      const path = [...frame.path, key];
      if (typeof key === "string") {
        if (isForbiddenSegment(key)) {
          return {
            ok: false,
            message: `Parameter '${PARAM}' must not contain the key '${key}' (at ${formatPath(path)}).`,
          };
        }
        length += JSON.stringify(key).length + 1;
        const unstorable = unstorableCharacter(key);
        if (unstorable !== undefined) {
          return {
            ok: false,
            message: `Parameter '${PARAM}' must not hold ${unstorable} of a key (at ${formatPath(path)}): no store keeps it as sent.`,
          };
        }
      }
      let copy: unknown;
      if (typeof child === "string" && unstorableCharacter(child) !== undefined) {
        return {
          ok: false,
          message: `Parameter '${PARAM}' must not hold ${unstorableCharacter(child)} (at ${formatPath(path)}): no store keeps it as sent.`,
        };
      }
      if (child === null || typeof child === "boolean" || typeof child === "string") {
        copy = child;
        length += JSON.stringify(child).length;
      } else if (typeof child === "number" && Number.isFinite(child)) {
        copy = child;
        length += String(child).length;
      } else if (Array.isArray(child) || isPlainObject(child)) {
        copy = Array.isArray(child) ? [] : {};
        stack.push({
          source: child,
          target: copy as Record<string, unknown> | unknown[],
          path,
          depth: frame.depth + 1,
        });
      } else {
        return {
          ok: false,
          message: `Parameter '${PARAM}' must hold JSON values only, found ${describeValue(child)} at ${formatPath(path)}.`,
        };
      }
      if (length > limits.maxLength) {
        return {
          ok: false,
          message: `Parameter '${PARAM}' must be at most ${limits.maxLength} characters of JSON, found more.`,
        };
      }
      if (isArray) (frame.target as unknown[]).push(copy);
      else (frame.target as Record<string, unknown>)[key as string] = copy;
    }
  }
  return { ok: true, value: root };
}

/**
 * Deep-copies a checked Trigger Data object (plain JSON values only), so that each playbook run receives
 * data no other run, and not the caller, can change.
 */
export function copyTriggerData(value: Record<string, unknown>): Record<string, unknown> {
  return structuredClone(value);
}
