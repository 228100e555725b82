/**
 * Reading untrusted Search Conditions values for the parser (docs/semantics.md 1.1): own data properties
 * only, no getter ever invoked, nothing inherited seen, a Proxy's throwing trap caught; and the inert
 * stand-ins that issues describe in place of the objects found.
 */
import { assertNever, type Operand } from "./ast.js";

/** What a value is, read without invoking user code other than Proxy traps (which are caught). */
export type Read =
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "number"; readonly value: number }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "null" }
  | { readonly kind: "array"; readonly array: object; readonly length: number }
  | { readonly kind: "object"; readonly object: object; readonly keys: readonly string[] }
  /** Not JSON: undefined, a function, a symbol, a bigint, NaN/Infinity, a class instance, an unreadable proxy. */
  | { readonly kind: "invalid"; readonly found: unknown };

const UNREADABLE: unique symbol = Symbol("unreadable");
/** The stand-in of any object in an issue's `found` ("an object"). */
export const OBJECT_STAND_IN = Object.freeze({});
const DATE_STAND_IN = new Date(Number.NaN);
const FUNCTION_STAND_IN = (): void => {};

/**
 * A value that `describeValue` can describe without touching user code: primitives as they are, objects
 * replaced by inert stand-ins of the same description ("an object", "an array", "a Date", "a function").
 */
export function safeFound(value: unknown): unknown {
  if (value === UNREADABLE) return undefined;
  if (typeof value === "function") return FUNCTION_STAND_IN;
  if (typeof value !== "object" || value === null) return value;
  try {
    if (Array.isArray(value)) return value.length === 0 ? [] : [null];
    if (value instanceof Date) return dateStandIn(value);
  } catch {
    // an unreadable proxy: described as an object
  }
  return OBJECT_STAND_IN;
}

const getTime = Date.prototype.getTime;

/**
 * A fresh Date with the time of a genuine Date (read through the intrinsic `getTime`, never the object's
 * own methods), so that the issue can suggest the `$date` operand to write; an invalid Date for an object
 * that only claims to be a Date (`Object.create(Date.prototype)`, a proxy).
 */
function dateStandIn(value: Date): Date {
  try {
    return new Date(getTime.call(value));
  } catch {
    return DATE_STAND_IN;
  }
}

/** True for a plain object's prototype: `Object.prototype` of any realm, or none. */
function isPlainPrototype(proto: unknown): boolean {
  // Object.prototype of this realm or another one (whose own prototype is null), or no prototype at all.
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

/** What an untrusted value is (`Read`), without invoking a getter; a throwing Proxy trap reads as `invalid`. */
export function readValue(value: unknown): Read {
  switch (typeof value) {
    case "string":
      return { kind: "string", value };
    case "number":
      // -0 is read as 0: the two are equal for every operator, and JSON cannot print the difference.
      return Number.isFinite(value) ? { kind: "number", value: value === 0 ? 0 : value } : invalid(value);
    case "boolean":
      return { kind: "boolean", value };
    case "object": {
      if (value === null) return { kind: "null" };
      try {
        if (Array.isArray(value)) {
          const length: unknown = value.length;
          return typeof length === "number" ? { kind: "array", array: value, length } : invalid(value);
        }
        if (!isPlainPrototype(Object.getPrototypeOf(value))) return invalid(value);
        return { kind: "object", object: value, keys: Object.keys(value) };
      } catch {
        return invalid(value);
      }
    }
    default:
      return invalid(value);
  }
}

/** The `invalid` read of a value, described by its stand-in. */
function invalid(value: unknown): Read {
  return { kind: "invalid", found: safeFound(value) };
}

/** An own data property's value, or `UNREADABLE` (missing, an accessor, or a throwing proxy trap). */
export function readProperty(object: object, key: string | number): unknown {
  try {
    const descriptor = Object.getOwnPropertyDescriptor(object, key);
    return descriptor !== undefined && "value" in descriptor ? descriptor.value : UNREADABLE;
  } catch {
    return UNREADABLE;
  }
}

/** What an issue says was found for a read value: the value itself, or an inert stand-in (`safeFound`). */
export function foundOf(read: Read): unknown {
  switch (read.kind) {
    case "string":
    case "number":
    case "boolean":
      return read.value;
    case "null":
      return null;
    case "array":
      return read.length === 0 ? [] : [null];
    case "object":
      return OBJECT_STAND_IN;
    case "invalid":
      return read.found;
    default:
      return assertNever(read);
  }
}

/** The operand of a number, boolean or `null` read. */
export function scalarOperand(read: Extract<Read, { kind: "number" | "boolean" | "null" }>): Operand {
  return read.kind === "null"
    ? { type: "null" }
    : read.kind === "number"
      ? { type: "number", value: read.value }
      : { type: "boolean", value: read.value };
}
