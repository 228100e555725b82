/**
 * The fast path of Search Conditions: a condition compiled once into a predicate that agrees with the
 * reference interpreter (`evaluate`, docs/semantics.md 1.5) on every input, and runs close to a hand-written
 * `incident.Status === "Open"`. This module is the entry and the cache; the semantics of each field node come
 * from leaf.ts, shared by both back ends and by the incident set's planner.
 *
 * Two back ends, one semantics:
 * - **code generation** (codegen.ts): specialised JavaScript built with `new Function`. Untrusted text is
 *   never code (operands are constants, field names `JSON.stringify`'d keys). Records are read
 *   optimistically and each value proved own right after its read (codegen.ts).
 * - **closure composition**: the leaves of leaf.ts composed as closures, each field read once per
 *   evaluation through `Object.hasOwn` and a guarded read (`readOwn`). It is also the exact fallback of
 *   generated code, built on the first record that needs it.
 *
 * Tiers (default): composing closures costs about 12 µs, generating code 50–350 µs (most of it V8
 * compiling a source it has not seen), and generated code runs several times faster. So `compile` returns
 * at once a predicate answering through closures, which after `CODEGEN_AFTER_CALLS` calls (counted per
 * canonical form) generates the code and answers through it; the function object stays the same (the
 * switch defines one property, which V8 folds to a constant where it inlines the predicate; where it does
 * not, the predicate's own code, compiled from one of `WRAPPER_SOURCES` sources, inlines the generated code:
 * docs/performance.md, "Tiers").
 * With `codegen: false`, or where the environment forbids code generation, closures only.
 *
 * Reading records (docs/semantics.md 1.1): a field is an own property, data or accessor, read at most once
 * per evaluation; inherited properties never count; a read that throws counts as missing. Outside this
 * guarantee: a Proxy whose traps throw or disagree with each other, and a record whose own accessors change
 * the record or its prototype chain while it is being evaluated.
 */

import { type Condition, type FieldNode, isFieldNode } from "./ast.js";
import { generate, HELPERS } from "./codegen.js";
import {
  emptyRecordResult,
  forEachField,
  hasOwn,
  leafOf,
  logicalTest,
  type Reach,
  readOwn,
  rethrowWalkStop,
  type Slots,
  slotsOf,
  THREW,
  UNREAD,
  walkRest,
} from "./leaf.js";
import { onClearCaches, sharedCache } from "./lru.js";
import { requireParsedCondition } from "./parse.js";
import { compileRegex } from "./regex/matcher.js";

/**
 * A compiled Search Conditions predicate: `predicate(incident)` is `evaluate(predicate.condition, incident)`
 * on every input, faster.
 */
export interface Predicate {
  /**
   * @param incident - any value; anything but a non-array object is read as an empty record
   * @returns true when the incident matches `condition`
   * @throws never: a throwing accessor is a missing field (docs/semantics.md 1.1), a forged `Date` is no date;
   *   a Proxy whose `get` trap throws reads as a missing field, as a throwing accessor does; one whose other
   *   traps throw is outside the guarantee (SECURITY.md): answered without throwing, but the two back ends
   *   may answer differently. Inside a search with a time budget (`underWalkBudget`, docs/semantics.md 1.7)
   *   the budget's `SearchTimeoutError` leaves the predicate when a dotted-path walk finds the deadline passed
   */
  (incident: unknown): boolean;
  /** The condition this predicate was compiled from (the one passed to `compile`). */
  readonly condition: Condition;
  /**
   * The back end answering now: `"closure"` (closure composition) or `"codegen"` (generated code). A
   * predicate compiled with code generation starts as `"closure"` and becomes `"codegen"` once, after
   * 2,048 calls (`CODEGEN_AFTER_CALLS`) over the predicates of its canonical form (a condition whose code
   * already exists compiles straight to `"codegen"`); with `codegen: false`, where `new Function` is
   * forbidden, or once frozen, it stays `"closure"`. Both answer alike on every input.
   */
  readonly mode: "codegen" | "closure";
}

/** Options of `compile`. */
export interface CompileOptions {
  /**
   * Generate specialised code with `new Function` (default true), once the predicate has answered 2,048
   * calls (`CODEGEN_AFTER_CALLS`) through composed closures. When false, or when the environment forbids
   * code generation (a Content-Security-Policy without `unsafe-eval`), closures only; both agree with
   * `evaluate`.
   */
  readonly codegen?: boolean;
  /** Reuse a cached predicate for a condition of the same canonical form (default true). */
  readonly cache?: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// Closure back end

/**
 * A test over a record and its field slots: `slots[i]` holds the value of the `i`-th first segment
 * (`slotsOf`) once read (`undefined` when missing), or `UNREAD`. Each field is read at most once per
 * evaluation, through `readOwn` (docs/semantics.md 1.1).
 */
type RecordTest = (record: object, slots: unknown[]) => boolean;

function slotReader(key: string, slot: number): (record: object, slots: unknown[]) => unknown {
  return (record, slots) => {
    let value = slots[slot];
    if (value === UNREAD) {
      value = readOwn(record, key);
      slots[slot] = value;
    }
    return value;
  };
}

function closureLeaf(node: FieldNode, slotsOf: Slots): RecordTest {
  const { missing, one, many } = leafOf(node);
  const key = node.path[0]!;
  const read = slotReader(key, slotsOf.fields.get(key)!);
  if (node.path.length === 1) {
    return (record, slots) => {
      const value = read(record, slots);
      return value === undefined ? missing : one(value);
    };
  }
  // A dotted path is walked once per evaluation (its nested values read once), whatever leaves use it.
  const rest = node.path.slice(1);
  const slot = slotsOf.fields.size + slotsOf.paths.get(node.path.join("\0"))!;
  return (record, slots) => {
    let reach = slots[slot] as Reach | typeof UNREAD;
    if (reach === UNREAD) {
      reach = walkRest(read(record, slots), rest);
      slots[slot] = reach;
    }
    return many(reach);
  };
}

function closureNode(node: Condition, fields: Slots): RecordTest {
  if (isFieldNode(node)) return closureLeaf(node, fields);
  return logicalTest(node, (child) => closureNode(child, fields));
}

/** The closure test of a whole condition and its slots (the closure back end's predicate body). */
function closureTest(condition: Condition): { test: RecordTest; slots: Slots; count: number } {
  const slots = slotsOf(condition);
  return { test: closureNode(condition, slots), slots, count: slots.fields.size + slots.paths.size };
}

function freshSlots(count: number): unknown[] {
  const slots = new Array<unknown>(count);
  for (let i = 0; i < count; i++) slots[i] = UNREAD;
  return slots;
}

// ---------------------------------------------------------------------------------------------------------
// Compile and cache

/**
 * Calls a predicate compiled with code generation answers through closures before its code is generated
 * (counted over every predicate of one canonical form while its cache entry lives; per predicate with
 * `cache: false`). Measured (docs/performance.md, "Tiers"): generating costs 50–350 µs and the generated
 * code needs thousands of calls of its own to be optimized, while a closure call costs 60–400 ns against
 * 15–25 ns for an optimized generated one. Over 1 to 100,000 calls of a new condition, 2048 had one of the
 * smallest worst cases of the thresholds tried (1.7–1.9× the best threshold's time for that number of
 * calls; 4096 and 8192 alike, 1024 up to 2.9×, generating at once 8–12×, never generating 3.6–4.2× at
 * 100,000 calls and growing), and the best of those at 30,000–100,000 calls.
 */
export const CODEGEN_AFTER_CALLS = 2048;

/** The generated code's factory (`new Function("K", "H", source)`), with its constants in place. */
type Factory = () => (incident: unknown) => boolean;

/**
 * What one canonical form keeps, shared by every predicate compiled from it (through the cache) or by the
 * one predicate compiled without the cache: the closure predicate, and the generated code once built.
 */
interface Tier {
  /** A condition of this canonical form (the one first compiled): what code is generated from. */
  readonly condition: Condition;
  /** The closure back end's predicates (one answers every call of a tiered predicate until it switches). */
  readonly closure: () => (incident: unknown) => boolean;
  /** False for `codegen: false`: closures only. */
  readonly wantCodegen: boolean;
  /** The generated code's factory once built; `null` when code cannot be generated here. */
  factory: Factory | null | undefined;
  /** Closure calls so far, towards `CODEGEN_AFTER_CALLS`. */
  calls: number;
  /** The predicate last returned for this form (a repeated compile of the same condition returns it). */
  last: Predicate | undefined;
  /** The cache key (`""` with `cache: false`). */
  readonly key: string;
  /** The wrapper of its tiered predicates, once built (`wrapOf`). */
  wrap: Wrap | undefined;
}

/** Capacity of the predicate cache in entries (least recently used dropped). */
export const COMPILE_CACHE_CAPACITY = 512;
/**
 * Capacity of the predicate cache in estimated bytes (least recently used dropped): 64 MiB. An entry weighs
 * its canonical key, the operands and generated code it keeps (estimated from the key's length) and the
 * regex matchers it holds (`RegexMatcher.bytes`, which counts the most each may cache while matching).
 */
export const COMPILE_CACHE_BYTES = 64 * 1024 * 1024;
/** Conditions whose canonical key is longer than this are compiled but not cached (bounded memory). */
const MAX_CACHED_KEY_LENGTH = 200_000;
/** Estimated bytes per character of canonical key: the key itself, operand sets, generated code. */
const BYTES_PER_KEY_CHARACTER = 8;
/** Estimated fixed bytes of one cache entry (closures, the predicate, map entry). */
const ENTRY_OVERHEAD_BYTES = 2048;

/** The compiled predicates by canonical form (`cacheStats().compiledPredicates`; `clearCaches()` empties it). */
const cache = sharedCache<Tier>("compiledPredicates", COMPILE_CACHE_CAPACITY, COMPILE_CACHE_BYTES);

/** The estimated bytes a cache entry for `condition` keeps alive (see `COMPILE_CACHE_BYTES`). */
function entryBytes(condition: Condition, key: string): number {
  let bytes = ENTRY_OVERHEAD_BYTES + BYTES_PER_KEY_CHARACTER * key.length;
  const visit = (node: FieldNode): void => {
    if (node.kind === "regex") bytes += compileRegex(node.source, node.flags).bytes;
    // The matchers of an `$elemMatch`'s own operators and sub-condition are kept too.
    else if (node.kind === "elemMatch") {
      const { match } = node;
      forEachField(match.form === "query" ? match.condition : match.operators, visit);
    }
  };
  forEachField(condition, visit);
  return bytes;
}

/** The number of cached predicates and their estimated bytes (for tests and diagnostics). */
export function compileCacheStats(): { readonly entries: number; readonly bytes: number } {
  return cache.stats();
}

let codegenAvailable: boolean | undefined;

/** True when `new Function` works here (false under a Content-Security-Policy without `unsafe-eval`). */
function canGenerateCode(): boolean {
  if (codegenAvailable === undefined) {
    try {
      codegenAvailable = new Function("return true")() === true;
    } catch {
      codegenAvailable = false;
    }
  }
  return codegenAvailable;
}

/**
 * The canonical cache key of a condition: its AST as JSON (the AST is plain data and carries each field's
 * kind, which the printed Search Conditions do not: the same JSON parsed with another catalogue can mean
 * something else). Non-finite numbers, which JSON would print as `null`, are spelled out.
 */
function canonicalKey(condition: Condition): string {
  const plain = JSON.stringify(condition);
  // A non-finite number prints as `null`, which a parsed condition never holds as a value.
  if (!plain.includes(":null")) return plain;
  return JSON.stringify(condition, (_key, value: unknown) =>
    typeof value === "number" && !Number.isFinite(value) ? `#${String(value)}` : value,
  );
}

/**
 * Predicates by condition object (identity), per back end: a repeated query skips the canonical key. Weak,
 * so it keeps nothing its condition does not outlive; `clearCaches()` replaces it (a WeakMap has no clear).
 */
let byCondition = new WeakMap<object, { codegen?: Predicate; closure?: Predicate }>();
onClearCaches(() => {
  byCondition = new WeakMap();
});

/**
 * The exact fallback of generated code: the closure test, over the slots the generated code already read
 * (a value read from an inherited property becomes missing; a read that threw is missing; an unread slot
 * is read by the closure test). Every field is thus read at most once per evaluation.
 */
function fallback(condition: Condition): (record: object, read: unknown[]) => boolean {
  const { test, slots: slotsOfCondition, count } = closureTest(condition);
  const keys = [...slotsOfCondition.fields.keys()];
  const emptyResult = emptyRecordResult(condition);
  return (record, read) => {
    // The generated code reads fields before it knows the input is a record: a non-record ends here when
    // a read threw (of `null`) or a value was not own (a primitive's wrapper).
    // Generated code lands here on any throw, a stop of the search's budget included: that one goes on.
    rethrowWalkStop();
    if (typeof record !== "object" || record === null || Array.isArray(record)) return emptyResult;
    try {
      const slots = freshSlots(count);
      read.forEach((value, i) => {
        if (value !== UNREAD) slots[i] = value === THREW || !hasOwn(record, keys[i]!) ? undefined : value;
      });
      return test(record, slots);
    } catch {
      rethrowWalkStop(); // the search's budget stopped a walk (docs/semantics.md 1.7)
      return false; // only a Proxy whose traps throw reaches here (outside the guarantee, see `compile`)
    }
  };
}

/**
 * The code generation back end: the generated factory, and the exact fallback built on the first record
 * that needs it (an inherited field or a throwing accessor), so that generating costs no closures.
 * `null` when the environment forbids `new Function` (then remembered: no later attempt).
 */
function makeFactory(condition: Condition): Factory | null {
  const { source, constants, slowIndex } = generate(condition);
  let factory: (k: unknown[], h: typeof HELPERS) => (incident: unknown) => boolean;
  try {
    factory = new Function("K", "H", source) as typeof factory;
  } catch (error) {
    if (error instanceof EvalError) {
      codegenAvailable = false;
      return null;
    }
    throw error;
  }
  let exact: ((record: object, read: unknown[]) => boolean) | undefined;
  const k = constants.slice();
  k[slowIndex] = (record: object, read: unknown[]) => {
    exact ??= fallback(condition);
    return exact(record, read);
  };
  return () => factory(k, HELPERS);
}

/** The closure back end of a condition: a factory of its predicates (each call a new function object). */
function closurePredicates(condition: Condition): () => (incident: unknown) => boolean {
  const { test, count } = closureTest(condition);
  const emptyResult = emptyRecordResult(condition);
  return () => (incident) => {
    if (typeof incident !== "object" || incident === null || Array.isArray(incident)) return emptyResult;
    try {
      return test(incident, freshSlots(count));
    } catch {
      rethrowWalkStop(); // the search's budget stopped a walk (docs/semantics.md 1.7)
      return false; // only a Proxy whose traps throw reaches here (outside the guarantee, see `compile`)
    }
  };
}

function attach(
  fn: (incident: unknown) => boolean,
  condition: Condition,
  mode: Predicate["mode"],
): Predicate {
  Object.defineProperty(fn, "condition", { value: condition, enumerable: true });
  Object.defineProperty(fn, "mode", { value: mode, enumerable: true });
  return fn as Predicate;
}

/**
 * The property of a tiered predicate holding its generated code, defined once when it switches (never
 * written again: V8 then treats it as a constant of a predicate it inlines, and inlines the code too).
 */
const GENERATED = "generated";

/** A tiered predicate: its own function object, with the generated code once it switched. */
interface TieredFunction {
  (incident: unknown): boolean;
  readonly [GENERATED]?: (incident: unknown) => boolean;
}

/**
 * The generated code of a tier, built on first need; undefined when it cannot be built (code generation
 * forbidden, or an error such as a stack overflow: then tried again after another `CODEGEN_AFTER_CALLS`).
 */
function generatedOf(tier: Tier): Factory | undefined {
  if (tier.factory === undefined) {
    try {
      tier.factory = makeFactory(tier.condition);
    } catch {
      tier.calls = 0;
      return undefined;
    }
  }
  return tier.factory ?? undefined;
}

/**
 * The `mode` of a tiered predicate (a getter shared by every tiered predicate: V8 keeps the function objects
 * on one hidden class only while their accessors are the same functions).
 */
function tieredMode(this: TieredFunction): Predicate["mode"] {
  return this[GENERATED] === undefined ? "closure" : "codegen";
}

/** Builds a tiered predicate's function object around its closure path. */
type Wrap = (cold: (incident: unknown) => boolean) => TieredFunction;

/** The wrapper where no source can be compiled for it (every tiered predicate then shares its feedback). */
const sharedWrap: Wrap = (cold) => {
  const predicate: TieredFunction = function tiered(incident: unknown): boolean {
    const generated = predicate[GENERATED];
    return generated !== undefined ? generated(incident) : cold(incident);
  };
  return predicate;
};

/** FNV-1a (32 bits) of a string. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** The number of distinct wrapper sources (`wrapOf`). */
const WRAPPER_SOURCES = 256;

/**
 * The wrapper of a tier's predicates: the lines of `sharedWrap`, compiled from one of `WRAPPER_SOURCES`
 * sources (the canonical form's hash, modulo, in a comment; no text of the condition), so that V8 keeps the
 * call feedback of different conditions apart. Where a caller calls many predicates from one call site (a
 * shared loop, `IncidentSet`'s row check), V8 inlines none of them; the wrapper's own optimized code then
 * inlines its generated predicate when the feedback of its source names at most 4 (V8 inlines up to 4
 * targets of a call). With one wrapper for all, every generated predicate was called through a generic
 * call: 1.4–1.7× the direct call at 10k. A source V8 has not compiled yet costs about 12 µs, once per
 * process (V8 caches the compiled source of an identical `new Function` call); about 1 µs after.
 * Pays (bench row "compile vs hand-written (every query, paired rounds)", `bench/compile-pairs.ts 10000
 * 61`, this code against `sharedWrap` for every tier, same session): compile ÷ hand-written on
 * `Status: Open` 1.58 against 5.28, the OR 1.43 against 4.28, `$in` 1.61 against 4.44; through one shared
 * loop for every query, 1.11 against 2.01 and 1.43 against 2.20 (docs/performance.md, "Tiers").
 */
function wrapOf(tier: Tier): Wrap {
  if (tier.wrap === undefined) {
    const bucket = hashOf(tier.key === "" ? canonicalKey(tier.condition) : tier.key) % WRAPPER_SOURCES;
    const source = [
      '"use strict";',
      `// tiered predicate ${bucket}`,
      "return function tiered(incident) {",
      `  const generated = tiered.${GENERATED};`,
      "  return generated !== undefined ? generated(incident) : cold(incident);",
      "};",
    ].join("\n");
    try {
      tier.wrap = new Function("cold", source) as Wrap;
    } catch {
      tier.wrap = sharedWrap;
    }
  }
  return tier.wrap;
}

/**
 * A predicate that answers through the closure back end until its tier has answered `CODEGEN_AFTER_CALLS`
 * calls, then generates the code (once per tier) and answers through it from then on. The function object
 * stays the same: the switch defines its `GENERATED` property once.
 */
function tieredPredicate(tier: Tier, condition: Condition): Predicate {
  const closure = tier.closure();
  const count = (incident: unknown): boolean => {
    if (++tier.calls >= CODEGEN_AFTER_CALLS || tier.factory !== undefined) {
      const factory = generatedOf(tier);
      // A frozen (non-extensible) predicate keeps answering through closures.
      if (factory !== undefined && Object.isExtensible(predicate))
        Object.defineProperty(predicate, GENERATED, { value: factory() });
    }
    return closure(incident);
  };
  // Called through a Proxy, which the optimizing compiler never inlines: otherwise, where the caller is
  // optimized right after the switch, the closure path (inlined first, while its calls were the more
  // frequent) can use up V8's budget of inlined bytecode, and the generated code is then called, not
  // inlined, for good (measured: 2.5× instead of 1.3× the hand-written predicate on the benchmark's OR).
  // Pays on the bench row "compile vs hand-written (every query, paired rounds)": the OR at 10k over five
  // runs each, 1.40–1.66 with the Proxy against 1.40–2.26 without (two runs of five at 1.99 and 2.26: the
  // outcome depends on when V8 optimizes the caller); the other queries alike within noise.
  const predicate = wrapOf(tier)(new Proxy(count, {}));
  Object.defineProperty(predicate, "condition", { value: condition, enumerable: true });
  Object.defineProperty(predicate, "mode", { get: tieredMode, enumerable: true });
  return predicate as Predicate;
}

/** A predicate of `tier` for `condition`: generated code when already built, else tiered or closures. */
function predicateOf(tier: Tier, condition: Condition): Predicate {
  if (!tier.wantCodegen || tier.factory === null) return attach(tier.closure(), condition, "closure");
  if (tier.factory !== undefined) return attach(tier.factory(), condition, "codegen");
  return tieredPredicate(tier, condition);
}

/**
 * Compiles a condition into a predicate that agrees with `evaluate` on every input (docs/semantics.md 1.5).
 * With code generation (the default, where `new Function` is allowed) the predicate is tiered: it answers
 * through composed closures at once, and after 2,048 calls (`CODEGEN_AFTER_CALLS`, counted over every
 * predicate of the same canonical form) generates specialised code and answers through it; a condition
 * whose code is already generated compiles straight to that code. `options.codegen: false` keeps closures
 * only.
 * Predicates are cached by the condition's canonical form (an LRU of at most `COMPILE_CACHE_CAPACITY`
 * entries and `COMPILE_CACHE_BYTES` estimated bytes):
 * compiling an equal condition again is a lookup; `.condition` is always the condition passed in.
 * @param condition - a Condition from `parseSearchConditions` (only parsed conditions are accepted:
 *   docs/semantics.md 1.1)
 * @param options - `codegen` (default true), `cache` (default true)
 * @returns the predicate, with `.condition` and `.mode` attached
 * @throws {TypeError} when `condition` is not a condition produced by `parseSearchConditions` (raw Search
 *   Conditions JSON, a hand-built or copied AST); the message says to call `parseSearchConditions`. Never
 *   throws for a parsed condition.
 * @example compile(parseSearchConditions({ Severity: { $in: ["High", "Critical"] } }))({ Severity: "High" }) //=> true
 */
export function compile(condition: Condition, options?: CompileOptions): Predicate {
  requireParsedCondition(condition, "compile");
  const wantCodegen = options?.codegen !== false && canGenerateCode();
  const useCache = options?.cache !== false;
  if (useCache) {
    const known = byCondition.get(condition);
    const hit = wantCodegen ? known?.codegen : known?.closure;
    if (hit !== undefined) return hit;
  }
  const predicate = compileUncached(condition, wantCodegen, useCache);
  if (useCache) {
    const known = byCondition.get(condition) ?? {};
    if (wantCodegen) known.codegen = predicate;
    else known.closure = predicate;
    byCondition.set(condition, known);
  }
  return predicate;
}

function compileUncached(condition: Condition, wantCodegen: boolean, useCache: boolean): Predicate {
  const key = useCache ? `${wantCodegen ? "g" : "c"}${canonicalKey(condition)}` : "";
  const cacheable = useCache && key.length <= MAX_CACHED_KEY_LENGTH;
  let tier = cacheable ? cache.get(key) : undefined;
  if (tier !== undefined && tier.last?.condition === condition) return tier.last;
  if (tier === undefined) {
    tier = {
      condition,
      closure: closurePredicates(condition),
      wantCodegen,
      factory: undefined,
      calls: 0,
      last: undefined,
      key,
      wrap: undefined,
    };
    if (cacheable) cache.set(key, tier, entryBytes(condition, key));
  }
  tier.last = predicateOf(tier, condition);
  return tier.last;
}

/**
 * The generated JavaScript source for a condition (for inspection and tests; `compile` uses the same).
 * Operands never appear in it: they are the constants `K0`, `K1`, …
 */
export function generatedSource(condition: Condition): string {
  return generate(condition).source;
}

/**
 * Empties the predicate cache (for tests and benchmarks that measure cold compilation); `clearCaches()`
 * empties it with every other cache.
 */
export function clearCompileCache(): void {
  cache.clear();
}
