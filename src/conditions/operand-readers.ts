/**
 * The readers of the operand rules (operand-rules.ts, `OPERAND_RULES[rule].parse`; docs/semantics.md 1.3,
 * 1.4): each reads the operand JSON of one operator into the operator object being parsed (its slot: a
 * node, a range bound) or records its issues on the parser and returns false.
 */
import type {
  Condition,
  ElemMatchNode,
  FieldAndNode,
  FieldKind,
  FieldOperatorNode,
  JsonType,
  NotNode,
  Operand,
} from "./ast.js";
import type { PathSegment } from "./issues.js";
import {
  type FieldOperandRule,
  type FieldOperatorSpec,
  logicalOperator,
  NON_JSON_TYPES,
  TYPE_CODES,
  TYPE_NAMES,
} from "./operators.js";
import {
  type Field,
  OPERAND_EXPECTED,
  OperandSet,
  type OperatorObject,
  type ParseContext,
} from "./parse-context.js";
import { foundOf, OBJECT_STAND_IN, type Read, readProperty, readValue, safeFound } from "./untrusted.js";

/** The value of one key of an operator object, being read: its path and the depth of the object. */
export interface OperatorEntry {
  readonly value: unknown;
  readonly path: readonly PathSegment[];
  readonly depth: number;
}

/**
 * The parser as the operand rules use it: the parse context (issues, limits, operands) and the two readers
 * of nested objects that `$not` and `$elemMatch` recurse into (implemented by `OperatorParser` and `Parser`).
 */
export interface OperandParser extends ParseContext {
  /** An operator object at `place` (parse-operators.ts). */
  parseOperatorObject(
    field: Field,
    object: object,
    keys: readonly string[],
    path: readonly PathSegment[],
    depth: number,
    place: "field" | "not",
  ): FieldOperatorNode | FieldAndNode | undefined;
  /** A condition object, its field paths relative to `prefix` when given (parse.ts). */
  parseConditionObject(
    read: Extract<Read, { kind: "object" }>,
    path: readonly PathSegment[],
    depth: number,
    prefix?: string,
  ): Condition | undefined;
}

/** The operator table's rows of an operand rule. */
export type SpecOf<R extends FieldOperandRule> = Extract<FieldOperatorSpec, { operand: R }>;

/** True when `value` is an array whose first element is an object of the one key `$elemMatch`. */
function firstIsElemMatch(value: unknown): boolean {
  const read = readValue(value);
  if (read.kind !== "array" || read.length === 0) return false;
  const first = readValue(readProperty(read.array, 0));
  return first.kind === "object" && first.keys.length === 1 && first.keys[0] === "$elemMatch";
}

/** 2^63: `$mod` operands must be integers of magnitude below it once truncated (MongoDB's 64-bit integers). */
const TWO_63 = 2 ** 63;

/**
 * The `$type`s a catalogue field of each kind can hold (1.3): text and enumerated fields hold strings (or
 * `null`, or arrays of them), date fields dates (JS `Date`s or ISO-8601 strings, 1.5); open fields any.
 */
const TYPES_OF_KIND: Readonly<Record<FieldKind, readonly JsonType[] | undefined>> = Object.freeze({
  text: ["string", "null", "array"],
  enum: ["string", "null", "array"],
  date: ["date", "null", "array"],
  open: undefined,
});

/** `$eq`, `$ne`: one operand, checked against the field's kind and labels (1.4). */
export function readComparison(
  ctx: OperandParser,
  state: OperatorObject,
  spec: SpecOf<"value">,
  entry: OperatorEntry,
): boolean {
  const { value, path, depth } = entry;
  const { field } = state;
  const read = ctx.requireOperand(value, path, depth + 1, `${OPERAND_EXPECTED} for ${spec.name}`);
  if (read === undefined || !ctx.checkOperand(field, read.operand, read.raw, "value", path)) return false;
  state.slots.push({
    kind: spec.node,
    path: [...field.segments],
    fieldKind: field.kind,
    operand: read.operand,
  });
  return true;
}

/** `$gt`, `$gte`, `$lt`, `$lte`: one bound of a range, grouped by `RangeGrouping` (1.3, 1.4). */
export function readBound(
  ctx: OperandParser,
  state: OperatorObject,
  spec: SpecOf<"ordered">,
  entry: OperatorEntry,
): boolean {
  const { value, path, depth } = entry;
  const read = ctx.requireOperand(value, path, depth + 1, `${OPERAND_EXPECTED} for ${spec.name}`);
  if (read === undefined || !ctx.checkOperand(state.field, read.operand, read.raw, "ordered", path)) {
    return false;
  }
  const { operand } = read;
  const started = state.ranges.add(spec.bound.side, { operand, inclusive: spec.bound.inclusive });
  if (started !== undefined) state.slots.push({ range: started });
  return true;
}

/** `$in`, `$nin`, `$all`: a set of operands (`parseValueSet`). */
export function readValueSet(
  ctx: OperandParser,
  state: OperatorObject,
  spec: SpecOf<"valueSet">,
  entry: OperatorEntry,
): boolean {
  const { value, path, depth } = entry;
  const { field } = state;
  if (spec.name === "$all" && firstIsElemMatch(value)) return readAllElemMatch(ctx, state, entry);
  const operands = parseValueSet(ctx, field, spec.name, value, path, depth + 1);
  if (operands === undefined) return false;
  const base = { path: [...field.segments], fieldKind: field.kind, operands };
  state.slots.push(
    spec.node === "in" ? { kind: spec.node, ...base, fromPipe: false } : { kind: spec.node, ...base },
  );
  return true;
}

/**
 * `$exists`: `true`/`false`, or MongoDB's habitual `1`/`0` (docs/semantics.md 1.3). MongoDB reads any other
 * number as its truth value; it is refused here, being more likely a mistake than a meaning.
 */
export function readExists(
  ctx: OperandParser,
  state: OperatorObject,
  spec: SpecOf<"boolean">,
  entry: OperatorEntry,
): boolean {
  const { value, path } = entry;
  if (typeof value !== "boolean" && value !== 1 && value !== 0) {
    ctx.issue(
      { code: "invalid_type", expected: `true, false, 1 or 0 for ${spec.name}`, found: safeFound(value) },
      path,
    );
    return false;
  }
  const { field } = state;
  const exists = value === true || value === 1;
  state.slots.push({ kind: spec.node, path: [...field.segments], fieldKind: field.kind, exists });
  return true;
}

/** `$size`: a non-negative integer (1.3). */
export function readSize(ctx: OperandParser, state: OperatorObject, entry: OperatorEntry): boolean {
  const { value, path } = entry;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    ctx.issue({ code: "invalid_size", found: safeFound(value) }, path);
    return false;
  }
  const { field } = state;
  state.slots.push({
    kind: "size",
    path: [...field.segments],
    fieldKind: field.kind,
    size: value === 0 ? 0 : value,
  });
  return true;
}

/**
 * `$type` (1.3): a type name or number of `TYPE_NAMES` / `TYPE_CODES`, or a non-empty array of them (at most
 * `setSize`), read as canonical types, de-duplicated in first-seen order. MongoDB's BSON types that no
 * JSON record holds, and unknown names, are `unknown_type` issues. On a text or enumerated field only
 * `string`, `null` and `array` can match; on a date field `date`, `null` and `array`; any other type there
 * is an `operand_type` issue, like an ill-typed operand (1.4).
 */
export function readType(ctx: OperandParser, state: OperatorObject, entry: OperatorEntry): boolean {
  const { value, path, depth } = entry;
  const read = readValue(value);
  const { field } = state;
  const entries: { raw: unknown; path: readonly PathSegment[] }[] = [];
  if (read.kind === "array") {
    if (!ctx.enter(depth + 1, path)) return false;
    if (read.length > ctx.options.limits.setSize) {
      ctx.limit("setSize", path, read.length);
      return false;
    }
    if (read.length === 0) {
      ctx.issue({ code: "empty_array", what: "$type (type names or numbers)" }, path);
      return false;
    }
    for (let index = 0; index < read.length; index++) {
      entries.push({ raw: readProperty(read.array, index), path: [...path, index] });
    }
  } else entries.push({ raw: value, path });
  const types: JsonType[] = [];
  let valid = true;
  for (const entry of entries) {
    const type = typeOperand(ctx, entry.raw, entry.path);
    if (type === undefined) {
      valid = false;
      continue;
    }
    const allowed = TYPES_OF_KIND[field.kind];
    if (allowed !== undefined && !allowed.includes(type)) {
      ctx.issue(
        {
          code: "operand_type",
          field: field.name,
          fieldKind: field.kind,
          expected: `a $type such a field can hold (${allowed.join(", ")})`,
          found: safeFound(entry.raw),
        },
        entry.path,
      );
      valid = false;
      continue;
    }
    if (!types.includes(type)) types.push(type);
  }
  if (!valid) return false;
  state.slots.push({ kind: "type", path: [...field.segments], fieldKind: field.kind, types });
  return true;
}

/** One `$type` name or number as its canonical type, or undefined (issue recorded). */
function typeOperand(ctx: OperandParser, raw: unknown, path: readonly PathSegment[]): JsonType | undefined {
  if (typeof raw === "string") {
    if (raw.length > ctx.options.limits.stringLength) {
      ctx.limit("stringLength", path, raw.length);
      return undefined;
    }
    const type = TYPE_NAMES[raw];
    if (type !== undefined) return type;
  } else if (typeof raw === "number") {
    const type = TYPE_CODES.get(raw);
    if (type !== undefined) return type;
  } else {
    ctx.issue(
      { code: "invalid_type", expected: "a type name or number for $type", found: safeFound(raw) },
      path,
    );
    return undefined;
  }
  const bson = NON_JSON_TYPES.get(raw);
  ctx.issue(
    bson === undefined
      ? { code: "unknown_type", found: raw, reason: "unknown" }
      : { code: "unknown_type", found: raw, reason: "not_json", bsonType: bson },
    path,
  );
  return undefined;
}

/**
 * `$mod` (1.3, MongoDB's rules): `[divisor, remainder]`, exactly two numbers, each finite and truncated
 * towards zero to an integer of magnitude below 2^63 (−2^63 included), the divisor not 0; an `invalid_mod`
 * issue otherwise. On a text, enumerated or date field (which hold no numbers) an `operand_type` issue.
 */
export function readMod(ctx: OperandParser, state: OperatorObject, entry: OperatorEntry): boolean {
  const { value, path } = entry;
  const { field } = state;
  if (field.kind !== "open") {
    ctx.issue(
      {
        code: "operand_type",
        field: field.name,
        fieldKind: field.kind,
        expected: "an operator for its values ($mod matches numbers only)",
        found: safeFound(value),
      },
      path,
    );
    return false;
  }
  const read = readValue(value);
  if (read.kind !== "array") {
    ctx.issue(
      { code: "invalid_mod", reason: "expected an array [divisor, remainder]", found: foundOf(read) },
      path,
    );
    return false;
  }
  if (read.length !== 2) {
    ctx.issue(
      {
        code: "invalid_mod",
        reason: read.length < 2 ? "not enough elements" : "too many elements",
        found: safeFound(value),
      },
      path,
    );
    return false;
  }
  const parts: number[] = [];
  for (const [index, role] of ["divisor", "remainder"].entries()) {
    const raw = readProperty(read.array, index);
    const elementPath = [...path, index];
    if (typeof raw !== "number") {
      ctx.issue(
        { code: "invalid_mod", reason: `the ${role} must be a number`, found: safeFound(raw) },
        elementPath,
      );
      return false;
    }
    const truncated = Math.trunc(raw);
    if (!Number.isFinite(raw) || truncated < -TWO_63 || truncated >= TWO_63) {
      ctx.issue(
        {
          code: "invalid_mod",
          reason: `the ${role} must be a finite number whose integer part fits in 64 bits`,
          found: safeFound(raw),
        },
        elementPath,
      );
      return false;
    }
    parts.push(truncated === 0 ? 0 : truncated);
  }
  const [divisor, remainder] = parts as [number, number];
  if (divisor === 0) {
    ctx.issue({ code: "invalid_mod", reason: "the divisor cannot be 0", found: safeFound(value) }, [
      ...path,
      0,
    ]);
    return false;
  }
  state.slots.push({ kind: "mod", path: [...field.segments], fieldKind: field.kind, divisor, remainder });
  return true;
}

/**
 * `$bitsAllSet`, `$bitsAnySet`, `$bitsAllClear`, `$bitsAnyClear` (1.3, MongoDB's rules): a non-negative
 * integer mask below 2^63, or an array of bit positions, each a non-negative integer (at most
 * `limits.setSize` of them); anything else is an `invalid_type` issue, as MongoDB refuses it. On a text,
 * enumerated or date field (which hold no numbers) an `operand_type` issue.
 */
export function readBits(
  ctx: OperandParser,
  state: OperatorObject,
  spec: SpecOf<"bitMask">,
  entry: OperatorEntry,
): boolean {
  const { value, path } = entry;
  const { field } = state;
  if (field.kind !== "open") {
    ctx.issue(
      {
        code: "operand_type",
        field: field.name,
        fieldKind: field.kind,
        expected: `an operator for its values (${spec.name} matches numbers only)`,
        found: safeFound(value),
      },
      path,
    );
    return false;
  }
  const expected = `a non-negative integer bit mask below 2^63 or an array of bit positions for ${spec.name}`;
  const positions = new Set<number>();
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value >= TWO_63) {
      ctx.issue({ code: "invalid_type", expected, found: value }, path);
      return false;
    }
    const binary = BigInt(value).toString(2);
    for (let bit = 0; bit < binary.length; bit++) {
      if (binary[binary.length - 1 - bit] === "1") positions.add(bit);
    }
  } else {
    const read = readValue(value);
    if (read.kind !== "array") {
      ctx.issue({ code: "invalid_type", expected, found: foundOf(read) }, path);
      return false;
    }
    if (read.length > ctx.options.limits.setSize) {
      ctx.limit("setSize", path, read.length);
      return false;
    }
    for (let index = 0; index < read.length; index++) {
      const raw = readProperty(read.array, index);
      if (typeof raw !== "number" || !Number.isSafeInteger(raw) || raw < 0) {
        ctx.issue(
          {
            code: "invalid_type",
            expected: `a bit position (a non-negative integer) for ${spec.name}`,
            found: safeFound(raw),
          },
          [...path, index],
        );
        return false;
      }
      positions.add(raw);
    }
  }
  state.slots.push({
    kind: "bits",
    path: [...field.segments],
    fieldKind: field.kind,
    test: spec.test,
    positions: [...positions].sort((a, b) => a - b),
  });
  return true;
}

/**
 * `$elemMatch` (1.3, MongoDB's two forms): an object whose keys are all field-level operators is the
 * operator form (read as the field's operator object, its operands checked against the field's kind);
 * any other object is the query form, a condition object about each element (field paths relative to it,
 * catalogued at the whole path; `{}` matches every element that is an object or an array). The query
 * form on a text, enumerated or date field (which holds no objects) is an `operand_type` issue. Nested
 * objects count towards the depth and node limits (1.7).
 */
export function readElemMatch(ctx: OperandParser, state: OperatorObject, entry: OperatorEntry): boolean {
  const { value, path, depth } = entry;
  const { field } = state;
  const read = readValue(value);
  if (read.kind !== "object") {
    ctx.issue(
      {
        code: "invalid_type",
        expected:
          'an object for $elemMatch: a condition on the elements such as {"b": 1}, or operators such as {"$gte": 5}',
        found: foundOf(read),
      },
      path,
    );
    return false;
  }
  const inner = depth + 1;
  if (!ctx.enter(inner, path)) return false;
  const before = ctx.issues.length;
  const operatorForm =
    read.keys.length > 0 && read.keys.every((key) => key.startsWith("$") && !logicalOperator(key).ok);
  let match: ElemMatchNode["match"];
  if (operatorForm) {
    const operators = ctx.parseOperatorObject(field, read.object, read.keys, path, inner, "field");
    if (operators === undefined) return false;
    match = { form: "operator", operators };
  } else {
    if (field.kind !== "open") {
      ctx.issue(
        {
          code: "operand_type",
          field: field.name,
          fieldKind: field.kind,
          expected:
            'the operator form of $elemMatch such as {"$elemMatch": {"$eq": …}} (its elements are no objects)',
          found: OBJECT_STAND_IN,
        },
        path,
      );
      return false;
    }
    const condition = ctx.parseConditionObject(read, path, inner, field.name);
    if (condition === undefined) return false;
    match = { form: "query", condition };
  }
  if (ctx.issues.length !== before) return false;
  state.slots.push({ kind: "elemMatch", path: [...field.segments], fieldKind: field.kind, match });
  return true;
}

/**
 * `$all` of `$elemMatch` objects (1.3 revised, MongoDB's `arrayfind2.js`): each `{"$elemMatch": …}` must be
 * matched by some element, so the operator is the AND of those `$elemMatch` nodes on the field (as
 * MongoDB rewrites it). Every element must then be such an object (MongoDB: "$all/$elemMatch has to be
 * consistent"); at most `limits.setSize` of them, each counting towards the depth and node limits.
 * @returns false when anything was refused (issues recorded)
 */
export function readAllElemMatch(ctx: OperandParser, state: OperatorObject, entry: OperatorEntry): boolean {
  const { value, path, depth } = entry;
  const read = readValue(value);
  if (read.kind !== "array") return false;
  if (read.length > ctx.options.limits.setSize) {
    ctx.limit("setSize", path, read.length);
    return false;
  }
  let valid = true;
  for (let index = 0; index < read.length; index++) {
    const element = readProperty(read.array, index);
    const elementPath = [...path, index];
    const object = readValue(element);
    if (object.kind !== "object" || object.keys.length !== 1 || object.keys[0] !== "$elemMatch") {
      ctx.issue(
        {
          code: "invalid_type",
          expected: 'an {"$elemMatch": …} object, as every element of an $all that holds one',
          found: safeFound(element),
        },
        elementPath,
      );
      valid = false;
      continue;
    }
    const inner = readProperty(object.object, "$elemMatch");
    if (
      !readElemMatch(ctx, state, { value: inner, path: [...elementPath, "$elemMatch"], depth: depth + 2 })
    ) {
      valid = false;
    }
  }
  return valid;
}

/** `$not`: an operator object of its own (`parseNot`). */
export function readNot(ctx: OperandParser, state: OperatorObject, entry: OperatorEntry): boolean {
  const { value, path, depth } = entry;
  const child = parseNot(ctx, state.field, value, path, depth + 1);
  if (child === undefined) return false;
  state.slots.push(child);
  return true;
}

/** `$in`, `$nin`, `$all`: an array of at most `setSize` operands, de-duplicated in first-seen order. */
function parseValueSet(
  ctx: OperandParser,
  field: Field,
  operator: string,
  value: unknown,
  path: readonly PathSegment[],
  depth: number,
): Operand[] | undefined {
  const read = readValue(value);
  if (read.kind !== "array") {
    ctx.issue(
      { code: "invalid_type", expected: `an array of values for ${operator}`, found: foundOf(read) },
      path,
    );
    return undefined;
  }
  if (!ctx.enter(depth, path)) return undefined;
  if (read.length > ctx.options.limits.setSize) {
    ctx.limit("setSize", path, read.length);
    return undefined;
  }
  const operands = new OperandSet();
  let valid = true;
  const { stringLength } = ctx.options.limits;
  for (let index = 0; index < read.length; index++) {
    const raw = readProperty(read.array, index);
    // Fast path for the common operands (no allocation of a path): strings within the limit on text and
    // open fields or known labels on enumerated fields, and scalars on open fields.
    if (typeof raw === "string" && raw.length <= stringLength) {
      if (field.kind === "open" || field.kind === "text" || field.labels?.includes(raw) === true) {
        operands.add({ type: "string", value: raw });
        continue;
      }
    } else if (field.kind === "open") {
      if (typeof raw === "number" && Number.isFinite(raw)) {
        operands.add({ type: "number", value: raw === 0 ? 0 : raw });
        continue;
      }
      if (typeof raw === "boolean") {
        operands.add({ type: "boolean", value: raw });
        continue;
      }
      if (raw === null) {
        operands.add({ type: "null" });
        continue;
      }
    }
    const elementPath = [...path, index];
    const element = ctx.requireOperand(raw, elementPath, depth + 1, OPERAND_EXPECTED);
    if (
      element !== undefined &&
      ctx.checkOperand(field, element.operand, element.raw, "value", elementPath)
    ) {
      operands.add(element.operand);
    } else valid = false;
  }
  return valid ? operands.list : undefined;
}

/** `$not`: a non-empty operator object of field operators (or a `$regex` object), never a logical one. */
function parseNot(
  ctx: OperandParser,
  field: Field,
  value: unknown,
  path: readonly PathSegment[],
  depth: number,
): NotNode | undefined {
  const read = readValue(value);
  const expected = 'an operator object for $not, such as {"$regex": "…"}';
  if (read.kind !== "object") {
    ctx.issue({ code: "invalid_type", expected, found: foundOf(read) }, path);
    return undefined;
  }
  if (!ctx.enter(depth, path)) return undefined;
  const operatorKeys = ctx.operatorKeysOf(read, path, {
    code: "invalid_type",
    expected,
    found: OBJECT_STAND_IN,
  });
  if (operatorKeys === undefined) return undefined;
  const child = ctx.parseOperatorObject(field, read.object, operatorKeys, path, depth, "not");
  return child && { kind: "not", child };
}
