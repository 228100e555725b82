/**
 * Search Conditions JSON → AST (docs/semantics.md 1.1–1.8). The input is untrusted: it is read through own data
 * properties only (no getter is ever invoked, nothing inherited is seen), every limit of 1.7 is checked
 * before descending, and every problem is collected as an issue. The only exception that leaves this module
 * is `SearchConditionsError` (from `parseSearchConditions`).
 *
 * This module is the entry, the brand of parsed conditions and the reading of condition objects and field
 * values; the parser's other layers are beside it: parse-context.ts (its state, limits and operands),
 * parse-operators.ts (operator objects, dispatched through the operator table of operators.ts),
 * parse-regex.ts (`$regex` and `$options`: regular expressions are only parsed and measured, never compiled
 * here; regex/matcher.ts, regex/program.ts: the program budget of 1.7), untrusted.ts (reading untrusted
 * values) and suggest-label.ts (the suggestions of issues).
 */
import { assertNever, type Condition, type Operand } from "./ast.js";
import { fieldKindOf, isAlternativeField, isForbiddenSegment, labelsOf, nearMissField } from "./catalog.js";
import { describeValue, type Issue, makeIssue, type PathSegment, SearchConditionsError } from "./issues.js";
import { type LogicalOperatorSpec, logicalOperator } from "./operators.js";
import type { ParseOptions } from "./options.js";
import { resolveParseOptions } from "./options.js";
import { ABORT, eqNode, type Field, OPERAND_EXPECTED, OperandSet } from "./parse-context.js";
import { OperatorParser } from "./parse-operators.js";
import { suggestField, suggestLabel } from "./suggest-label.js";
import { foundOf, type Read, readProperty, readValue, scalarOperand } from "./untrusted.js";

export { suggestLabel } from "./suggest-label.js";

/**
 * The result of `safeParseSearchConditions`: the condition and its warnings (possible misspellings of
 * field names, docs/semantics.md 1.1; usually none), or every issue found (never an empty list).
 */
export type SafeParseResult =
  | { readonly success: true; readonly condition: Condition; readonly warnings: readonly Issue[] }
  | { readonly success: false; readonly issues: [Issue, ...Issue[]] };

/**
 * Parses untrusted Search Conditions JSON into a condition (docs/semantics.md 1.1–1.8).
 *
 * - An object is the AND of its entries (`{}` is `{ kind: "and", children: [] }`, every incident); an
 *   object with one entry is that entry's node itself.
 * - A non-empty array of objects is the OR of them (`{ kind: "or" }`, even with one element).
 * - Keys are field paths or `$and`/`$or`/`$nor`; values are the forms of 1.2 and operator objects of 1.3.
 *
 * Warnings (a key that is a possible misspelling of a catalogue field, docs/semantics.md 1.1) are not
 * errors and are not attached to the condition (it stays plain data): `safeParseSearchConditions` returns
 * them beside it. Use it where a person reads the result (an editor, a CLI, a command's answer).
 *
 * @param input - raw JSON (any value: never crashes, never invokes a getter, never pollutes a prototype)
 * @param options - the field catalogue (default `DEFAULT_CATALOG`) and limits to override (1.7)
 * @returns the condition: plain data (two parses of the same input are deeply equal), frozen, and known to
 *   `isParsedCondition`: the only kind of condition that `compile`, `evaluate`, `toMongoFilter` and the
 *   other functions taking a `Condition` accept (docs/semantics.md 1.1)
 * @throws {SearchConditionsError} when the input is invalid; `.issues` lists every problem found, each with
 *   its path from the root (`["CreatedUtcTime", "$gt", "$date"]`)
 * @throws {TypeError | RangeError} when `options.limits` is not a valid set of limits (a safe integer ≥ 0
 *   each, `depth` from 1 to 256: docs/semantics.md 1.7, "Raising a limit"), before the input is read
 * @example parseSearchConditions({ Severity: { $in: ["High"] } })
 * //=> { kind: "in", path: ["Severity"], fieldKind: "enum", operands: [{ type: "string", value: "High" }], fromPipe: false }
 */
export function parseSearchConditions(input: unknown, options?: ParseOptions): Condition {
  const result = safeParseSearchConditions(input, options);
  if (!result.success) throw new SearchConditionsError(result.issues);
  return result.condition;
}

/**
 * Like `parseSearchConditions`, but returns the issues instead of throwing (docs/semantics.md 1.8).
 * @param input - raw JSON (any value)
 * @param options - catalogue and limits
 * @returns `{ success: true, condition, warnings }` (`warnings`: `possible_misspelling` issues, each with its
 *   path and `suggestion`; docs/semantics.md 1.1; usually empty) or `{ success: false, issues }` with at
 *   least one issue (an input with errors reports no warnings)
 * @throws {TypeError | RangeError} only for invalid `options.limits` (docs/semantics.md 1.7, "Raising a
 *   limit"); never for any input
 */
export function safeParseSearchConditions(input: unknown, options?: ParseOptions): SafeParseResult {
  const parser = new Parser(resolveParseOptions(options));
  let condition: Condition | undefined;
  try {
    condition = parser.parseRoot(input);
  } catch (error) {
    if (error !== ABORT) parser.unexpected(error);
  }
  const [first, ...rest] = parser.issues;
  if (first !== undefined) return { success: false, issues: [first, ...rest] };
  if (condition === undefined) {
    // Unreachable by construction (every refusal records an issue); kept so that no input can succeed
    // without a condition.
    return {
      success: false,
      issues: [makeIssue({ code: "invalid_type", expected: "Search Conditions", found: undefined }, [])],
    };
  }
  return { success: true, condition: brand(condition), warnings: parser.warnings };
}

// ---------------------------------------------------------------------------------------------------
// Parsed conditions (docs/semantics.md 1.1)

/** A base class whose constructor returns its argument, so that a subclass stamps its fields on it. */
class Stamp {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the return override is how a private brand is stamped on an existing object
    return target;
  }
}

/**
 * Every condition node this module produced carries this class's private field, and only those: nothing
 * outside this module can add or forge it, so no JSON, hand-built object or copy can pass for a parsed
 * condition. (A private field rather than a `WeakSet`: stamping and checking it are property operations the
 * engine caches, with no hash table for the garbage collector to trace.)
 */
class Parsed extends Stamp {
  #parsed = true;
  /** True when `value` carries the brand. */
  static has(value: object): boolean {
    return #parsed in value;
  }
  /** Stamps the brand on a node (before it is frozen). */
  static add(node: object): void {
    new Parsed(node);
  }
}

/**
 * Brands every node of a freshly parsed condition and freezes it with its paths, operands and bounds, so
 * that a branded node is exactly what the parser checked (it stays plain data: two parses are deeply equal).
 * Sub-nodes are branded too: each is a well-formed condition of its own, which the incident set's planner
 * and `compile` receive separately.
 */
function brand(condition: Condition): Condition {
  // Kind-agnostic: every object of the tree is frozen, and every object with a `kind` (a node) is branded,
  // so a new node kind needs nothing here.
  const seen = new Set<object>();
  const stack: object[] = [condition];
  while (stack.length > 0) {
    const value = stack.pop()!;
    if (seen.has(value) || Parsed.has(value)) continue;
    seen.add(value);
    if (!Array.isArray(value) && Object.hasOwn(value, "kind")) Parsed.add(value);
    for (const child of Object.values(value)) {
      if (typeof child === "object" && child !== null) stack.push(child);
    }
    Object.freeze(value);
  }
  return condition;
}

/**
 * The AND of parsed conditions, itself a parsed condition (for the engine's own compositions, such as an
 * incident set's search within a site: not part of the package's API). An AND child is spliced in, so that
 * the planner sees every conjunct at the top.
 * @param conditions - parsed conditions (at least one)
 * @throws {TypeError} when one is not a parsed condition
 */
export function conjunctionOf(conditions: readonly Condition[]): Condition {
  const children: Condition[] = [];
  for (const condition of conditions) {
    requireParsedCondition(condition, "conjunctionOf");
    if (condition.kind === "and") children.push(...condition.children);
    else children.push(condition);
  }
  return brand({ kind: "and", children });
}

/**
 * True when `value` is a condition produced by `parseSearchConditions` or `safeParseSearchConditions` (the
 * root or any node inside it). Only such conditions are accepted by `compile`, `evaluate`,
 * `toMongoFilter`, `toMongoFind`, `toSearchConditions`, `explain` and `matchesEverythingByShape`, and used
 * as they are by `IncidentSet`; a hand-built, copied (`structuredClone`, spread) or JSON round-tripped
 * condition is not one, however it is shaped (docs/semantics.md 1.1). Parsed conditions are frozen.
 * @param value - anything
 * @returns true for a parsed condition; never throws
 * @example isParsedCondition(parseSearchConditions({ Title: "x" })) //=> true
 * @example isParsedCondition({ kind: "exists", path: ["Title"], fieldKind: "text", exists: true }) //=> false
 */
export function isParsedCondition(value: unknown): value is Condition {
  return typeof value === "object" && value !== null && Parsed.has(value);
}

/**
 * Throws unless `value` is a parsed condition (the check of every public function that takes a Condition).
 * @param value - what the caller was given
 * @param caller - the public function's name, for the message
 * @throws {TypeError} `compile expects a condition from parseSearchConditions, found an object the parser
 *   did not produce: call parseSearchConditions(searchConditions) and pass its result.` (the found part
 *   describes the value; raw Search Conditions JSON, hand-built nodes and copies all land here)
 */
export function requireParsedCondition(value: unknown, caller: string): asserts value is Condition {
  if (isParsedCondition(value)) return;
  const found =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? "an object the parser did not produce"
      : describeValue(value);
  throw new TypeError(
    `${caller} expects a condition from parseSearchConditions, found ${found}: call parseSearchConditions(searchConditions) and pass its result (raw JSON, hand-built, copied or deserialised conditions are not accepted).`,
  );
}

// ---------------------------------------------------------------------------------------------------
// The parser: condition objects and field values (its operator objects: parse-operators.ts; its state and
// operands: parse-context.ts; reading untrusted values: untrusted.ts)

/** The parser of one input: the condition objects and field values of 1.1–1.2. */
class Parser extends OperatorParser {
  parseRoot(input: unknown): Condition | undefined {
    this.count([]);
    const read = readValue(input);
    if (read.kind === "object") return this.parseConditionObject(read, [], 1);
    if (read.kind === "array") {
      if (!this.enter(1, [])) return undefined;
      if (read.length === 0) {
        this.issue({ code: "empty_array", what: "Search Conditions (an array of condition objects)" }, []);
        return undefined;
      }
      const children = this.parseConditionArray(read, [], 1, "");
      return children && { kind: "or", children };
    }
    this.issue(
      {
        code: "invalid_type",
        expected: "a JSON object or an array of condition objects",
        found: foundOf(read),
      },
      [],
    );
    return undefined;
  }

  /** The elements of `$and`/`$or`/`$nor` or of a top-level array: condition objects. */
  protected parseConditionArray(
    read: Extract<Read, { kind: "array" }>,
    path: readonly PathSegment[],
    depth: number,
    prefix: string,
  ): Condition[] | undefined {
    const children: Condition[] = [];
    let failed = false;
    for (let index = 0; index < read.length; index++) {
      const elementPath = [...path, index];
      this.count(elementPath);
      const element = readValue(readProperty(read.array, index));
      if (element.kind !== "object") {
        this.issue(
          { code: "invalid_type", expected: "a condition object", found: foundOf(element) },
          elementPath,
        );
        failed = true;
        continue;
      }
      const child = this.parseConditionObject(element, elementPath, depth + 1, prefix);
      if (child === undefined) failed = true;
      else children.push(child);
    }
    return failed ? undefined : children;
  }

  /**
   * A condition object: the AND of its entries (field paths and logical operators). `prefix` is the dotted
   * path of the `$elemMatch` whose elements the object is about (`""` at the root): its field paths are
   * relative to the element, their kinds those of the catalogue's fields at `prefix.path` (1.3).
   */
  parseConditionObject(
    read: Extract<Read, { kind: "object" }>,
    path: readonly PathSegment[],
    depth: number,
    prefix = "",
  ): Condition | undefined {
    if (!this.enter(depth, path)) return undefined;
    const children: Condition[] = [];
    for (const key of read.keys) {
      const keyPath = [...path, key];
      if (this.keyTooLong(key, keyPath)) continue;
      this.count(keyPath);
      const value = readProperty(read.object, key);
      let child: Condition | undefined;
      if (key.startsWith("$")) {
        const operator = logicalOperator(key);
        if (operator.ok) child = this.parseLogical(operator.spec, value, keyPath, depth + 1, prefix);
        else this.refuseOperator(key, "condition", operator.problem, keyPath);
      } else {
        child = this.parseFieldEntry(key, value, keyPath, depth + 1, prefix);
      }
      if (child !== undefined) children.push(child);
    }
    return children.length === 1 ? children[0] : { kind: "and", children };
  }

  /** `$and`, `$or`, `$nor`: a non-empty array of condition objects (1.1). */
  protected parseLogical(
    spec: LogicalOperatorSpec,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
    prefix: string,
  ): Condition | undefined {
    const read = readValue(value);
    if (read.kind !== "array") {
      this.issue(
        {
          code: "invalid_type",
          expected: `a non-empty array of condition objects for ${spec.name}`,
          found: foundOf(read),
        },
        path,
      );
      return undefined;
    }
    if (!this.enter(depth, path)) return undefined;
    if (read.length === 0) {
      this.issue({ code: "empty_array", what: spec.name }, path);
      return undefined;
    }
    const children = this.parseConditionArray(read, path, depth, prefix);
    if (children === undefined) return undefined;
    return { kind: spec.node, children };
  }

  /** A field path key (1.1) and its value. */
  protected parseFieldEntry(
    key: string,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
    prefix: string,
  ): Condition | undefined {
    const segments = key.split(".");
    let valid = true;
    if (segments.some((segment) => segment === "" || segment.startsWith("$"))) {
      this.issue({ code: "invalid_field_path", field: key }, path);
      valid = false;
    }
    for (const segment of new Set(segments)) {
      if (isForbiddenSegment(segment)) {
        this.issue({ code: "forbidden_key", key: segment }, path);
        valid = false;
      }
    }
    if (!valid) return undefined;
    const { catalog } = this.options;
    // Inside an `$elemMatch`, the catalogue field is the one at the whole path (1.3).
    const name = prefix === "" ? key : `${prefix}.${key}`;
    if (!Object.hasOwn(catalog.fields, name) && !this.knownField(name, path)) return undefined;
    const field: Field = {
      name,
      segments,
      kind: fieldKindOf(catalog, name),
      labels: labelsOf(catalog, name),
      alternative: isAlternativeField(catalog, name),
    };
    return this.parseFieldValue(field, value, path, depth);
  }

  /**
   * For a key outside the catalogue: false (with an `unknown_field` issue) when it is a near miss of a
   * catalogue field (same name once case, spaces, `_` and `-` are ignored), or when the catalogue is strict
   * (the nearest field suggested); true for an open field, with a `possible_misspelling` warning when it is
   * within a few edits of a catalogue field (docs/semantics.md 1.1).
   */
  protected knownField(key: string, path: readonly PathSegment[]): boolean {
    const { catalog } = this.options;
    const nearMiss = nearMissField(catalog, key);
    if (nearMiss !== undefined) {
      this.issue({ code: "unknown_field", field: key, reason: "near_miss", suggestion: nearMiss }, path);
      return false;
    }
    if (catalog.strictFields !== true) {
      const suggestion = suggestField(key, Object.keys(catalog.fields));
      if (suggestion !== undefined) this.warn({ code: "possible_misspelling", field: key, suggestion }, path);
      return true;
    }
    const suggestion = suggestLabel(key, Object.keys(catalog.fields));
    this.issue(
      suggestion === undefined
        ? { code: "unknown_field", field: key, reason: "strict" }
        : { code: "unknown_field", field: key, reason: "strict", suggestion },
      path,
    );
    return false;
  }

  /** A field's direct value: a value form of 1.2 or an operator object of 1.3. */
  protected parseFieldValue(
    field: Field,
    value: unknown,
    path: readonly PathSegment[],
    depth: number,
  ): Condition | undefined {
    const read = readValue(value);
    switch (read.kind) {
      case "string":
        return this.parseDirectString(field, read.value, path);
      case "number":
      case "boolean":
      case "null": {
        const operand = scalarOperand(read);
        return this.checkOperand(field, operand, value, "value", path) ? eqNode(field, operand) : undefined;
      }
      case "array":
        this.issue({ code: "array_value", field: field.name }, path);
        return undefined;
      case "invalid":
        this.issue(
          {
            code: "invalid_type",
            expected: `${OPERAND_EXPECTED.replace(" operand", "")} or an operator object`,
            found: read.found,
          },
          path,
        );
        return undefined;
      case "object": {
        if (!this.enter(depth, path)) return undefined;
        const operatorKeys = this.operatorKeysOf(read, path, { code: "object_value", field: field.name });
        if (operatorKeys === undefined) return undefined;
        if (operatorKeys.length === 1 && operatorKeys[0] === "$date") {
          const operand = this.parseDateObject(read.object, path, depth);
          if (operand === undefined) return undefined;
          return this.checkOperand(field, operand, read.object, "value", path)
            ? eqNode(field, operand)
            : undefined;
        }
        return this.parseOperatorObject(field, read.object, operatorKeys, path, depth, "field");
      }
      default:
        return assertNever(read);
    }
  }

  /** A plain string on a field: equality, or pipe alternatives on an alternative field (1.2). */
  protected parseDirectString(
    field: Field,
    text: string,
    path: readonly PathSegment[],
  ): Condition | undefined {
    if (text.length > this.options.limits.stringLength) {
      this.limit("stringLength", path, text.length);
      return undefined;
    }
    if (!(field.alternative && text.includes("|"))) {
      const operand: Operand = { type: "string", value: text };
      return this.checkOperand(field, operand, text, "value", path) ? eqNode(field, operand) : undefined;
    }
    const alternatives = text.split("|").map((alternative) => alternative.trim());
    if (alternatives.includes("")) {
      this.issue({ code: "empty_alternative", field: field.name, value: text }, path);
      return undefined;
    }
    const operands = new OperandSet();
    let valid = true;
    for (const alternative of alternatives) {
      const operand: Operand = { type: "string", value: alternative };
      if (this.checkOperand(field, operand, alternative, "value", path)) operands.add(operand);
      else valid = false;
    }
    return valid
      ? {
          kind: "in",
          path: [...field.segments],
          fieldKind: field.kind,
          operands: operands.list,
          fromPipe: true,
        }
      : undefined;
  }
}
