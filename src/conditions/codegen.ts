/**
 * The code generator of the compiled predicate (`compile`'s default back end): specialised JavaScript, built
 * with `new Function` by compile.ts, that agrees with the reference interpreter on every input
 * (docs/semantics.md 1.5). Leaf semantics come from leaf.ts; this module decides only how to write them as
 * straight-line code.
 *
 * Untrusted text is never code: operands, sets and regex matchers are closure constants (`K0`, `K1`, …), field
 * names are `JSON.stringify`'d property keys (a string literal, never an identifier or an expression).
 *
 * What makes it fast: `$in` as an `===` chain (up to six values) or a `Set`; AND/OR children ordered cheapest
 * first, regular expressions last (`ordered`); literal regexes as `includes` / `startsWith` / `endsWith` /
 * `===`, and case-insensitive ASCII literals through a native regex built from escaped text; the scalar test
 * first, array traversal only when the value is an array; ISO-8601 dates read with a hand-written scanner
 * (`isoUtcMs`), once per record and date field, and date ranges on catalogue date fields first compared as
 * strings.
 *
 * Reading records (docs/semantics.md 1.1): a field is an own property, data or accessor, read at most once
 * per evaluation; inherited properties never count; a read that throws counts as missing. The generated code
 * reads `r["Field"]` optimistically into a per-field local (so a field used by several leaves is read once)
 * and proves at once, before any test uses it, that a value it read is own: a value read from a record whose
 * prototype is `null`, or whose prototype chain lacks the key (`key in Object.getPrototypeOf(r)`), is own;
 * otherwise `Object.hasOwn` decides. Placed right after the read, while the optimizing compiler still knows
 * the record's hidden classes, the prototype and the `in` test fold to constants for records of known shapes
 * under an unpolluted prototype, so the proof costs no call; a record whose chain has the key (a class with an
 * accessor, a polluted prototype) pays one `Object.hasOwn`. If a value is inherited, or a read throws, the
 * record is answered by the exact closure test over the values already read (a field that was read is not
 * read again; an inherited one becomes missing). Dotted paths below the first segment are read through
 * `Object.hasOwn` and a guarded read (`walkRest`). Outside this guarantee: a Proxy whose traps throw or
 * disagree with each other, and a record whose own accessors change the record or its prototype chain while
 * it is being evaluated.
 *
 * Kept small enough to be inlined into its caller (V8 inlines a function of at most 460 bytes of bytecode):
 * helpers are copied into locals once per call (each use of a factory constant costs a load and a hole
 * check), the non-record test (`typeof r`, `isArray(r)`) runs only where the answer differs from a
 * non-record's (a field of `null` throws into the fallback, which answers it; a primitive's or an array's
 * fields are read, then the answer is replaced), a string value skips the array test (`typeof v !==
 * "string"` first; an equality to one string is one `typeof v === "string"` branch), and
 * `$eq`/`$in`/`$ne`/`$nin` on scalars need no separate `undefined` test.
 */

import {
  assertNever,
  type Condition,
  equalityOperands,
  type FieldNode,
  isFieldNode,
  type Operand,
  type RangeBound,
} from "./ast.js";
import { dateFieldMs, formatIsoUtc, isoUtcMs, MAX_ISO_EPOCH_MS, MIN_ISO_EPOCH_MS } from "./dates.js";
import {
  emptyRecordResult,
  forEachField,
  hasOwn,
  isArray,
  type Leaf,
  leafOf,
  openFieldMs,
  ordered,
  slotsOf,
  THREW,
  UNREAD,
  walkRest,
} from "./leaf.js";
import { boundComparison } from "./operators.js";
import { compileRegex } from "./regex/matcher.js";

/** What `HELPERS.inherited` throws: never seen outside generated code. */
const INHERITED: unique symbol = Symbol("inherited");

/** Helpers handed to generated code as `H` (never built from input). */
export const HELPERS = Object.freeze({
  isArray,
  hasOwn,
  getPrototypeOf: Object.getPrototypeOf,
  /** Throws (to the generated code's catch, which answers the record exactly): a value read was inherited. */
  inherited: (): never => {
    throw INHERITED;
  },
  /** True when `key` is an own property of `record`; otherwise throws like `inherited`. */
  ownOrInherited: (record: object, key: string): true => {
    if (hasOwn(record, key)) return true;
    throw INHERITED;
  },
  dateFieldMs,
  openFieldMs,
  isoUtcMs,
  UNREAD,
  THREW,
});

/**
 * A native `RegExp` source (for the `i` flag, without `u`) that matches exactly what RE2 matches for an
 * ASCII literal under case folding. JavaScript's non-Unicode case-insensitive matching folds ASCII letters
 * among themselves and never maps a non-ASCII character to an ASCII one; RE2 also folds `k` with U+212A
 * (Kelvin sign) and `s` with U+017F (long s), the only two non-ASCII code points that fold to ASCII letters
 * (checked over every code point in compile.test.ts). So `k` and `s` become classes holding them; every
 * other non-alphanumeric character is written `\xHH`.
 * @param text - the literal's text, ASCII
 * @returns a `RegExp` source matching `text` under RE2's case folding
 */
export function foldingLiteralSource(text: string): string {
  let out = "";
  for (const ch of text) {
    if (ch === "k" || ch === "K") out += "[kK\\u212a]";
    else if (ch === "s" || ch === "S") out += "[sS\\u017f]";
    else out += /[0-9A-Za-z]/.test(ch) ? ch : `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * The generated code of a condition. `new Function("K", "H", source)(constants, HELPERS)` is the predicate,
 * once `constants[slowIndex]` holds the exact fallback (`(record, slots) => boolean`: the closure test over
 * the values the generated code already read, one per field slot of `slotsOf`, `UNREAD` or `THREW` where it
 * read nothing or the read threw).
 */
export interface Generated {
  readonly source: string;
  readonly constants: unknown[];
  readonly slowIndex: number;
}

/** The JavaScript comparison operator of a range bound (the operator table's). */
function comparison(bound: RangeBound, side: "lower" | "upper"): ">=" | ">" | "<=" | "<" {
  return boundComparison(side, bound.inclusive);
}

/** How the generator writes one field node kind inline (see `Generator.INLINE`). */
type Inline<K extends FieldNode["kind"]> = (
  gen: Generator,
  node: Extract<FieldNode, { kind: K }>,
  delegate: string,
) => string;

class Generator {
  readonly constants: unknown[] = [];
  /** Field slots (`slotsOf`): slot `i` is the local `f<i>`. */
  readonly fieldBits: ReadonlyMap<string, number>;
  /** Per field key: how many leaves read it (a read is cached in its slot when two or more). */
  private readonly fieldUses = new Map<string, number>();
  /** Dotted paths (joined by NUL): the local `p<j>` caches the path's `Reach` for one evaluation. */
  private readonly paths: ReadonlyMap<string, number>;
  /** Per field key: how many date leaves read it (a cache variable when two or more). */
  private readonly dateUses = new Map<string, number>();
  private readonly dateVars = new Map<string, string>();

  constructor(condition: Condition) {
    const { fields, paths } = slotsOf(condition);
    this.fieldBits = fields;
    this.paths = paths;
    forEachField(condition, (node) => {
      const key = node.path[0]!;
      this.fieldUses.set(key, (this.fieldUses.get(key) ?? 0) + 1);
      if (node.path.length === 1 && readsDates(node))
        this.dateUses.set(key, (this.dateUses.get(key) ?? 0) + 1);
    });
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `K${this.constants.length - 1}`;
  }

  /**
   * An expression that reads field `key` of `r` into `v` and returns it, at most once per evaluation: the
   * slot local `f<i>` keeps the value (or `THREW` while the read is under way, so that a throwing accessor is
   * known to the fallback). Read optimistically with `r[key]`, then proved own at once (see `own`).
   */
  private read(key: string): string {
    const f = `f${this.fieldBits.get(key)!}`;
    const k = JSON.stringify(key);
    const read = `(${f} = T, v = ${f} = r[${k}], ${this.own(k)}, v)`;
    if ((this.fieldUses.get(key) ?? 0) < 2) return read;
    return `(v = ${f} !== U ? ${f} : ${read})`;
  }

  /**
   * An expression that proves the value just read into `v` from `r[k]` own, or throws `INHERITED` (the
   * catch then answers the record with the exact fallback): `undefined` needs no proof; otherwise the value
   * is own when the record's prototype is `null` or lacks the key, or when `Object.hasOwn` says so. Placed
   * right after the read, where the optimizing compiler still knows the record's hidden classes (a test in
   * between merges control paths, and with them what the compiler knows): for a plain record it folds the
   * prototype to a constant and `key in prototype` to false, so the proof costs nothing.
   */
  private own(k: string): string {
    return `(v === undefined || (P = getProto(r)) === null || !(${k} in P) || ownOr(r, ${k}))`;
  }

  /** The declarations of the slot locals (before the `try`, so that the fallback sees them). */
  slotDeclarations(): string {
    const names = [...this.fieldBits.values()].map((i) => `f${i} = U`);
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  /** The declarations of the dotted-path locals. */
  pathDeclarations(): string {
    const names = [...this.paths.values()].map((j) => `p${j} = U`);
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  /** The slot locals as an array expression, for the fallback. */
  slotArray(): string {
    return `[${[...this.fieldBits.values()].map((i) => `f${i}`).join(", ")}]`;
  }

  dateDeclarations(): string {
    const names = [...this.dateVars.values()];
    return names.length === 0 ? "" : `let ${names.join(", ")};`;
  }

  /** An expression reading the date of the value in `v` (a single-segment field), cached when repeated. */
  private dateExpr(node: FieldNode): string {
    const reader = node.fieldKind === "date" ? "dateFieldMs" : "openFieldMs";
    const key = node.path[0]!;
    if ((this.dateUses.get(key) ?? 0) < 2) return `${reader}(v)`;
    let name = this.dateVars.get(key);
    if (name === undefined) {
      name = `d${this.dateVars.size}`;
      this.dateVars.set(key, name);
    }
    return `(${name} === undefined ? (${name} = ${reader}(v)) : ${name})`;
  }

  /**
   * An expression for `leaf.one(v)` of a single-segment field node, inline for the common forms; `v` is
   * the value read (never `undefined`).
   */
  private one(node: FieldNode, leaf: Leaf): string {
    const delegate = `${this.constant(leaf.one)}(v)`;
    return (Generator.INLINE[node.kind] as Inline<FieldNode["kind"]>)(this, node, delegate);
  }

  /**
   * The inline expression of each field node kind, once (a new kind is a compile error here): `delegate`
   * is `leaf.one(v)`, the leaf's own test, which every kind may fall back on.
   */
  private static readonly INLINE: { readonly [K in FieldNode["kind"]]: Inline<K> } = {
    eq: (gen, node, delegate) => gen.equality([node.operand], node, delegate),
    in: (gen, node, delegate) => gen.equality(node.operands, node, delegate),
    // The negative kinds: `leaf.one` is the negation of the positive test, so `!leaf.one(v)` is its array
    // traversal.
    ne: (gen, node, delegate) => `!${gen.equality([node.operand], node, `!${delegate}`)}`,
    nin: (gen, node, delegate) => `!${gen.equality(node.operands, node, `!${delegate}`)}`,
    range: (gen, node, delegate) => {
      const scalar = gen.rangeScalar(node);
      return scalar === undefined ? delegate : `(isArray(v) ? ${delegate} : ${scalar})`;
    },
    regex: (gen, node, delegate) => {
      const matcher = compileRegex(node.source, node.flags);
      const literal = matcher.literal;
      let test: string;
      if (literal === undefined) {
        test = `${gen.constant(matcher)}.test(v)`;
      } else if (!literal.ignoreCase) {
        const text = gen.constant(literal.text);
        test =
          literal.anchorStart && literal.anchorEnd
            ? `v === ${text}`
            : literal.anchorStart
              ? `v.startsWith(${text})`
              : literal.anchorEnd
                ? `v.endsWith(${text})`
                : `v.includes(${text})`;
      } else {
        // An ASCII literal under RE2 case folding: one native search (see `foldingLiteralSource`).
        const native = new RegExp(
          `${literal.anchorStart ? "^" : ""}${foldingLiteralSource(literal.text)}${literal.anchorEnd ? "$" : ""}`,
          "i",
        );
        test = `${gen.constant(native)}.test(v)`;
      }
      return `(typeof v === "string" ? ${test} : isArray(v) && ${delegate})`;
    },
    exists: (_gen, node) => String(node.exists),
    size: (gen, node) => `(isArray(v) && v.length === ${gen.constant(node.size)})`,
    // `$all`, `$type`, `$mod`, the bit tests and `$elemMatch` answer through their leaves (traversal and all).
    all: (_gen, _node, delegate) => delegate,
    type: (_gen, _node, delegate) => delegate,
    mod: (_gen, _node, delegate) => delegate,
    bits: (_gen, _node, delegate) => delegate,
    elemMatch: (_gen, _node, delegate) => delegate,
  };

  /** `v` equals one of the operands (scalar test inline, array traversal by `delegate`). */
  private equality(operands: readonly Operand[], node: FieldNode, delegate: string): string {
    const scalars: (string | number | boolean)[] = [];
    const dates: number[] = [];
    let hasNull = false;
    let hasNaN = false;
    for (const operand of operands) {
      if (operand.type === "null") hasNull = true;
      else if (operand.type === "date") {
        if (!Number.isNaN(operand.value)) dates.push(operand.value);
      } else {
        if (typeof operand.value === "number" && Number.isNaN(operand.value)) hasNaN = true;
        scalars.push(operand.value);
      }
    }
    const parts: string[] = [];
    if (scalars.length > 0 && scalars.length <= 6 && !hasNaN) {
      for (const s of scalars) parts.push(`v === ${this.constant(s)}`);
    } else if (scalars.length > 0) {
      parts.push(`${this.constant(new Set(scalars))}.has(v)`);
    }
    if (hasNull) parts.push("v === null");
    if (dates.length === 1) parts.push(`${this.dateExpr(node)} === ${this.constant(dates[0])}`);
    else if (dates.length > 1) parts.push(`${this.constant(new Set(dates))}.has(${this.dateExpr(node)})`);
    if (parts.length === 0) return "false";
    const arrayPart = delegate;
    // Scalar test first; array traversal only for arrays (an array itself never equals an operand).
    if (dates.length > 0) return `(isArray(v) ? ${arrayPart} : (${parts.join(" || ")}))`;
    // One string operand: a string value is answered by `v === K` alone, any other value by the array
    // traversal alone (no other value equals a string), so the test is one `typeof` branch, the form of the
    // inline `$regex`. Pays on the bench row "compile vs hand-written (every query, paired rounds)"
    // (docs/performance.md, "The string branch and the last test"): paired rounds of the generated code
    // against the hand-written predicate, this form against `v === K || (typeof v !== "string" && …)`, both
    // with the conditional last test, 1M: OR of two objects 1.05–1.09 against 1.09–1.11, 10k: 1.13–1.19
    // against 1.22–1.27, `Status: Open` 1.15–1.30 against 1.39–1.44. Not for several operands: on `$in` of
    // three labels the `===` chain inside the branch measured 1.37–1.43 against 1.24–1.26 (10k).
    if (parts.length === 1 && !hasNull && typeof scalars[0] === "string")
      return `(typeof v === "string" ? ${parts[0]} : isArray(v) && ${arrayPart})`;
    // A string is never an array: asking `typeof` first keeps the array test off the common path.
    return `(${parts.join(" || ")} || (typeof v !== "string" && isArray(v) && ${arrayPart}))`;
  }

  /** The scalar (non-array) test of a range, or undefined to delegate. */
  private rangeScalar(node: Extract<FieldNode, { kind: "range" }>): string | undefined {
    const bounds: [RangeBound, "lower" | "upper"][] = [];
    if (node.lower !== undefined) bounds.push([node.lower, "lower"]);
    if (node.upper !== undefined) bounds.push([node.upper, "upper"]);
    if (bounds.length === 0) return "true";
    const type = bounds[0]![0].operand.type;
    if (bounds.some(([b]) => b.operand.type !== type)) return undefined;
    // Booleans and null bounds (open fields) are rare: their exact test is the leaf's own.
    if (type !== "date" && type !== "number" && type !== "string") return undefined;
    let subject: string;
    let guard = "";
    if (type === "date") subject = `(d = ${this.dateExpr(node)})`;
    else if (type === "number") {
      subject = "v";
      guard = `typeof v === "number" && `;
    } else {
      subject = "v";
      guard = `typeof v === "string" && `;
    }
    const comparisons = bounds.map(([bound, side], i) => {
      const op = comparison(bound, side);
      const left = i === 0 ? subject : type === "date" ? "d" : "v";
      return `${left} ${op} ${this.constant(orderedValue(bound))}`;
    });
    const exact = `(${guard}${comparisons.join(" && ")})`;
    if (type !== "date" || node.fieldKind !== "date") return exact;
    // ISO strings of the whole-second form compare in time order as strings: a string outside the bounds'
    // whole-second strings is out of range (or not a date); only the others are read in full.
    const lexical = this.lexicalDateBounds(bounds);
    if (lexical === undefined) return exact;
    const read = bounds
      .map(([bound, side], i) => {
        const op = comparison(bound, side);
        return `${i === 0 ? "(d = isoUtcMs(v))" : "d"} ${op} ${this.constant(orderedValue(bound))}`;
      })
      .join(" && ");
    return `(typeof v === "string" && v.length === 20 ? (${lexical} && ${read}) : ${exact})`;
  }

  /**
   * String comparisons of a 20-character value `v` (`yyyy-MM-ddTHH:mm:ssZ`) with the bounds' whole-second
   * forms, true for every valid timestamp of that form within the bounds (and false only outside them);
   * undefined when a bound is not a finite instant.
   */
  private lexicalDateBounds(bounds: readonly [RangeBound, "lower" | "upper"][]): string | undefined {
    const parts: string[] = [];
    for (const [bound, side] of bounds) {
      const b = orderedValue(bound);
      if (typeof b !== "number" || !Number.isFinite(b)) return undefined;
      if (side === "lower") {
        // The smallest whole second that satisfies the bound.
        const second = bound.inclusive ? Math.ceil(b / 1000) * 1000 : Math.floor(b / 1000) * 1000 + 1000;
        if (second > MAX_ISO_EPOCH_MS) return "false";
        if (second > MIN_ISO_EPOCH_MS) parts.push(`v >= ${this.constant(formatIsoUtc(second))}`);
      } else {
        // The largest whole second that satisfies the bound.
        const second = bound.inclusive ? Math.floor(b / 1000) * 1000 : Math.ceil(b / 1000) * 1000 - 1000;
        if (second < MIN_ISO_EPOCH_MS) return "false";
        if (second < MAX_ISO_EPOCH_MS - 999) parts.push(`v <= ${this.constant(formatIsoUtc(second))}`);
      }
    }
    return parts.length === 0 ? "true" : parts.join(" && ");
  }

  /** An expression for `node` over the record `r`. */
  node(node: Condition): string {
    if (isFieldNode(node)) return this.field(node);
    switch (node.kind) {
      case "and": {
        if (node.children.length === 0) return "true";
        return `(${ordered(node.children)
          .map((c) => this.node(c))
          .join(" && ")})`;
      }
      case "or": {
        if (node.children.length === 0) return "false";
        return `(${ordered(node.children)
          .map((c) => this.node(c))
          .join(" || ")})`;
      }
      case "nor": {
        if (node.children.length === 0) return "true";
        return `!(${ordered(node.children)
          .map((c) => this.node(c))
          .join(" || ")})`;
      }
      case "not":
        return `!${this.node(node.child)}`;
      default:
        return assertNever(node);
    }
  }

  /** Each field node's `missing` result, as its leaf was built (for `emptyRecordResult`). */
  readonly missing = new Map<FieldNode, boolean>();

  private field(node: FieldNode): string {
    const leaf = leafOf(node);
    this.missing.set(node, leaf.missing);
    const key = node.path[0]!;
    let one: string;
    let missing: boolean;
    if (node.path.length === 1) {
      one = this.one(node, leaf);
      missing = leaf.missing;
    } else {
      // A dotted path: the first segment is read here, the rest walked exactly (`walkRest`).
      // Walked once per evaluation (the local `p<j>`), whatever leaves use the path.
      const rest = node.path.slice(1);
      const p = `p${this.paths.get(node.path.join("\0"))!}`;
      const walk = this.constant((first: unknown) => walkRest(first, rest));
      one = `${this.constant(leaf.many)}(${p} === U ? (${p} = ${walk}(v)) : ${p})`;
      missing = leaf.missing; // `many(NOTHING)` is `missing` for every leaf
    }
    const read = this.read(key);
    if (node.path.length === 1 && undefinedIsMissing(node)) return `(${read}, ${one})`;
    return missing ? `(${read} === undefined || ${one})` : `(${read} !== undefined && ${one})`;
  }
}

/**
 * True when the inline test of a single-segment node (`Generator.one`) already answers `missing` for the
 * value `undefined`, so that no separate `undefined` test is needed: `$eq`/`$in`/`$ne`/`$nin` on scalars
 * other than `null` and dates (whose `===` tests are false for `undefined`, and so is the array test).
 */
function undefinedIsMissing(node: FieldNode): boolean {
  return equalityOperands(node)?.every((o) => o.type !== "null" && o.type !== "date") === true;
}

/** The value of a bound whose operand is a string, number or date (`undefined` for a `null` bound). */
function orderedValue(bound: RangeBound): string | number | boolean | undefined {
  return bound.operand.type === "null" ? undefined : bound.operand.value;
}

/** True when a field node compares dates (so a repeated read is worth caching). */
function readsDates(node: FieldNode): boolean {
  if (node.kind === "range") return (node.lower ?? node.upper)?.operand.type === "date";
  // The others never read a date through `dateExpr` (`$all` delegates to its leaf).
  return equalityOperands(node)?.some((o) => o.type === "date") === true;
}

/** The helpers of generated code: the local name, and the `HELPERS` property it is taken from. */
const HELPER_NAMES: readonly (readonly [string, keyof typeof HELPERS])[] = [
  ["isArray", "isArray"],
  ["ownOr", "ownOrInherited"],
  ["getProto", "getPrototypeOf"],
  ["dateFieldMs", "dateFieldMs"],
  ["openFieldMs", "openFieldMs"],
  ["isoUtcMs", "isoUtcMs"],
  ["U", "UNREAD"],
  ["T", "THREW"],
];

/**
 * Generates the code of a condition (see `Generated`).
 * @param condition - a parsed condition
 * @returns the source, its constants, and the index of the fallback's constant (`null` until set)
 * @throws {RegexSyntaxError} for a hand-built `$regex` that RE2 refuses (never for a parsed condition)
 */
export function generate(condition: Condition): Generated {
  const g = new Generator(condition);
  const root = g.node(condition);
  // The exact closure test over the slots read so far, for the rare record with an inherited field or a
  // throwing accessor: set by the caller (compile.ts).
  const slow = g.constant(null);
  const constantNames = g.constants.map((_, i) => `K${i} = K[${i}]`);
  const slots = g.slotArray();
  const empty = emptyRecordResult(condition, (node) => g.missing.get(node)!);
  const body = [
    g.slotDeclarations(),
    "try {",
    "let v, d, P;",
    g.dateDeclarations(),
    g.pathDeclarations(),
    // The non-record test only where the answer differs from a non-record's (reading a field of a
    // primitive reads its wrapper's properties; of null, throws into the fallback, which answers it).
    // A conditional (`root ? test : false`, `root ? true : test`), not `root && test` / `root || test`: the
    // answer is then the literal where the root decides, not the root's own value. Pays on the bench row
    // "compile vs hand-written (every query, paired rounds)" (docs/performance.md, "The string branch and
    // the last test"): paired rounds of the generated code against the hand-written predicate, OR of two
    // objects, 1M: 1.10–1.12 against 1.14–1.17 with `&&`; 10k: 1.21–1.26 against 1.33–1.37.
    empty
      ? `return (${root}) ? true : typeof r !== "object" || r === null || isArray(r);`
      : `return (${root}) ? typeof r === "object" && r !== null && !isArray(r) : false;`,
    `} catch { return slow(r, ${slots}); }`,
  ].join("\n");
  // The helpers the body uses, copied once per call from the factory's constants into locals: each use of
  // a factory constant costs the predicate's bytecode a load and a hole check, and the optimizing compiler
  // inlines a predicate into its caller only while its bytecode stays small (460 bytes in V8).
  // (`U` and `T` mark the slots: used wherever a field is read. A name inside a field's string literal only
  // adds an unused local.)
  const reads = slots !== "[]";
  const used = HELPER_NAMES.filter(([name]) => (name.length === 1 ? reads : body.includes(name)));
  const source = [
    '"use strict";',
    `const ${HELPER_NAMES.map(([name, from]) => `$${name} = H.${from}`).join(", ")};`,
    constantNames.length === 0 ? "" : `const ${constantNames.join(", ")};`,
    `const slow = ${slow};`,
    "return function predicate(r) {",
    used.length === 0 ? "" : `const ${used.map(([name]) => `${name} = $${name}`).join(", ")};`,
    body,
    "};",
  ].join("\n");
  return { source, constants: g.constants, slowIndex: Number(slow.slice(1)) };
}
