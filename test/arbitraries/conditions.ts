/**
 * fast-check arbitraries of raw Search Conditions JSON (docs/semantics.md section 1), for property and
 * differential tests of every implementation of the semantics (`evaluate`, `compile`, `IncidentSet`,
 * `toMongoFilter`).
 *
 * - `searchConditionsArb()`: valid raw Search Conditions for the default catalogue: objects (AND of their
 *   entries), top-level arrays (OR), `$and`/`$or`/`$nor`, every operator of docs/semantics.md 1.3 with operands
 *   of the right kind per field (labels on enumerated fields, pipe strings on alternative fields, strings
 *   on text fields, `$date` operands on `CreatedUtcTime`, any scalar on open fields). Every value parses.
 * - `conditionObjectArb()`: the same, always a JSON object (never a top-level array).
 * - `fieldConditionArb(field)`: one field's value (direct value or operator object) for a given field.
 * - `hostileInputArb()`: anything at all, mostly invalid: arbitrary JSON and JS values, prototype-named
 *   keys, `$where`, bad dates, deep nesting, oversized operands, and valid conditions with one node
 *   replaced by something invalid.
 *
 * Values come from the small pools of `pools.ts`, shared with `incidents.ts`, so that conditions match
 * generated incidents part of the time (the match rate is asserted in test/properties/conditions.test.ts).
 */
import fc from "fast-check";
import {
  ALTERNATIVE_FIELDS,
  DATE_POOL,
  ENUM_FIELDS,
  type EnumField,
  FORBIDDEN_KEYS,
  INHERITED_NAMES,
  LABEL_POOLS,
  NUMBER_POOL,
  OPEN_STRING_POOL,
  REGEX_OPTIONS_POOL,
  REGEX_POOL,
  TAG_POOL,
  TEXT_FIELD_NAMES,
  TEXT_POOLS,
  type TextField,
} from "./pools.js";

/** How the arbitraries see a field of the default catalogue: its kind and, for enums and texts, its pool. */
export type FieldProfile =
  | { readonly kind: "enum"; readonly field: EnumField; readonly alternatives: boolean }
  | { readonly kind: "text"; readonly field: TextField }
  | { readonly kind: "date"; readonly field: "CreatedUtcTime" }
  | { readonly kind: "open"; readonly field: string };

/** Size bounds of the generated conditions. */
export interface ConditionArbOptions {
  /** Maximum nesting of `$and`/`$or`/`$nor` (default 3). */
  readonly maxDepth?: number;
  /** Maximum entries in one condition object (default 3). */
  readonly maxKeys?: number;
  /** Maximum children of one `$and`/`$or`/`$nor` or top-level array (default 3). */
  readonly maxChildren?: number;
  /**
   * Include conditions on names that exist on `Object.prototype` (`toString`, …), which must read own
   * properties only (default true).
   */
  readonly inheritedNames?: boolean;
  /**
   * Also generate `$type`, `$mod` and `$elemMatch` (both forms; docs/semantics.md 1.3, revised) in
   * operator objects (default false: the samples of the suites written before them stay as they were).
   */
  readonly arrayOperators?: boolean;
}

/** The `$type` operands a field of this kind takes (docs/semantics.md 1.3: catalogue fields take fewer). */
function typeOperandArb(profile: FieldProfile): fc.Arbitrary<unknown> {
  const names =
    profile.kind === "open"
      ? ["number", "string", "object", "array", "bool", "null", "date", "int", "double"]
      : profile.kind === "date"
        ? ["date", "null", "array"]
        : ["string", "null", "array"];
  const one = fc.oneof(fc.constantFrom(...names), fc.constantFrom(...names.map(codeOf)));
  return fc.oneof(one, fc.uniqueArray(one, { minLength: 1, maxLength: 3 }));
}

/** MongoDB's number of a `$type` name (docs/semantics.md 1.3). */
function codeOf(name: string): number {
  const codes: Record<string, number> = {
    number: 1,
    double: 1,
    int: 16,
    string: 2,
    object: 3,
    array: 4,
    bool: 8,
    date: 9,
    null: 10,
  };
  return codes[name]!;
}

/** The profile of a field path of the default catalogue. */
export function profileOf(field: string): FieldProfile {
  if ((ENUM_FIELDS as readonly string[]).includes(field)) {
    const f = field as EnumField;
    return { kind: "enum", field: f, alternatives: ALTERNATIVE_FIELDS.includes(f) };
  }
  if ((TEXT_FIELD_NAMES as readonly string[]).includes(field))
    return { kind: "text", field: field as TextField };
  if (field === "CreatedUtcTime") return { kind: "date", field };
  return { kind: "open", field };
}

/** Fields that the generated conditions name, with weights: catalogued fields and open fields. */
export function fieldNameArb(inheritedNames = true): fc.Arbitrary<string> {
  const choices: { arbitrary: fc.Arbitrary<string>; weight: number }[] = [
    { arbitrary: fc.constantFrom(...ENUM_FIELDS), weight: 6 },
    { arbitrary: fc.constantFrom(...TEXT_FIELD_NAMES), weight: 6 },
    { arbitrary: fc.constant("CreatedUtcTime"), weight: 4 },
    { arbitrary: fc.constantFrom("Score", "Tags", "Custom.Owner", "Custom.Priority"), weight: 5 },
    { arbitrary: fc.constantFrom("Flag", "SeenAt", "Extra", "Custom", "Tags.0"), weight: 2 },
  ];
  if (inheritedNames) choices.push({ arbitrary: fc.constantFrom(...INHERITED_NAMES), weight: 1 });
  return fc.oneof(...choices);
}

// ---------------------------------------------------------------------------------------------------------
// Operands

/** A `$date` operand of the pool, in the string form or the canonical `$numberLong` form (docs/semantics.md 1.4). */
export const dateOperandArb: fc.Arbitrary<{ $date: string | { $numberLong: string } }> = fc.oneof(
  { arbitrary: fc.constantFrom(...DATE_POOL).map((iso) => ({ $date: iso })), weight: 4 },
  {
    arbitrary: fc
      .constantFrom(...DATE_POOL)
      .map((iso) => ({ $date: { $numberLong: String(Date.parse(iso)) } })),
    weight: 1,
  },
);

/** A scalar of the shared pools for an open field, typical of that field most of the time. */
function openScalarArb(field: string): fc.Arbitrary<unknown> {
  const any: fc.Arbitrary<unknown> = fc.oneof(
    fc.constantFrom(...NUMBER_POOL),
    fc.constantFrom(...OPEN_STRING_POOL),
    fc.boolean(),
    dateOperandArb,
  );
  let typical: fc.Arbitrary<unknown>;
  switch (field) {
    case "Score":
    case "Custom.Priority":
      typical = fc.constantFrom(...NUMBER_POOL);
      break;
    case "Tags":
    case "Tags.0":
      typical = fc.constantFrom(...TAG_POOL);
      break;
    case "Custom.Owner":
      typical = fc.constantFrom(...OPEN_STRING_POOL);
      break;
    case "Flag":
      typical = fc.boolean();
      break;
    case "SeenAt":
      typical = dateOperandArb;
      break;
    default:
      typical = any;
  }
  return fc.oneof({ arbitrary: typical, weight: 3 }, { arbitrary: any, weight: 1 });
}

/** An ordered operand (`$gt`/`$gte`/`$lt`/`$lte`) of the right kind for the field (docs/semantics.md 1.4, 1.5). */
export function orderedOperandArb(profile: FieldProfile): fc.Arbitrary<unknown> {
  switch (profile.kind) {
    case "enum":
      return fc.constantFrom(...LABEL_POOLS[profile.field]);
    case "text":
      return fc.constantFrom(...TEXT_POOLS[profile.field]);
    case "date":
      return dateOperandArb;
    case "open":
      // Any scalar under type bracketing (docs/semantics.md 1.4): booleans and null too, now and then.
      return fc.oneof(
        { arbitrary: openScalarArb(profile.field).filter((v) => typeof v !== "boolean"), weight: 8 },
        { arbitrary: fc.boolean(), weight: 1 },
        { arbitrary: fc.constant(null), weight: 1 },
      );
  }
}

/** An equality operand (`$eq`, `$ne`, elements of `$in`/`$nin`/`$all`): an ordered operand or `null`. */
export function equalityOperandArb(profile: FieldProfile): fc.Arbitrary<unknown> {
  const typical = profile.kind === "open" ? openScalarArb(profile.field) : orderedOperandArb(profile);
  return fc.oneof({ arbitrary: typical, weight: 8 }, { arbitrary: fc.constant(null), weight: 1 });
}

/**
 * A pipe-alternatives string for an alternative field (docs/semantics.md 1.2): two or three labels joined by
 * `|`, with optional spaces around each alternative (which are trimmed).
 */
export function pipeStringArb(field: EnumField): fc.Arbitrary<string> {
  const part = fc
    .tuple(fc.constantFrom("", " ", "  "), fc.constantFrom(...LABEL_POOLS[field]), fc.constantFrom("", " "))
    .map(([a, label, b]) => `${a}${label}${b}`);
  return fc.array(part, { minLength: 2, maxLength: 3 }).map((parts) => parts.join("|"));
}

/** The direct value of a field: an equality operand, or a pipe string on an alternative field. */
export function directValueArb(profile: FieldProfile): fc.Arbitrary<unknown> {
  if (profile.kind === "enum" && profile.alternatives) {
    return fc.oneof(
      { arbitrary: equalityOperandArb(profile), weight: 3 },
      { arbitrary: pipeStringArb(profile.field), weight: 1 },
    );
  }
  return equalityOperandArb(profile);
}

const setArb = (profile: FieldProfile) => fc.array(equalityOperandArb(profile), { maxLength: 4 });

/** `$regex` with an optional `$options` (RE2 patterns with the same meaning in JavaScript). */
export const regexEntriesArb: fc.Arbitrary<[string, unknown][]> = fc
  .tuple(
    fc.constantFrom(...REGEX_POOL),
    fc.option(fc.constantFrom(...REGEX_OPTIONS_POOL), { nil: undefined }),
  )
  .map(([pattern, options]) =>
    options === undefined
      ? [["$regex", pattern]]
      : [
          ["$regex", pattern],
          ["$options", options],
        ],
  );

/**
 * An operator object for a field (docs/semantics.md 1.3): one to three distinct operators, each with an
 * operand of the right kind; `$options` only beside `$regex`; `$not` holds an operator object (itself
 * holding `$not` up to `notDepth` levels) or a `$regex`. `$regex` stands on every field but the date field,
 * where the parser refuses it.
 */
export function operatorObjectArb(
  profile: FieldProfile,
  notDepth = 2,
  arrayOperators = false,
): fc.Arbitrary<Record<string, unknown>> {
  const ordered = orderedOperandArb(profile);
  const op = (name: string, operand: fc.Arbitrary<unknown>) =>
    operand.map((v): [string, unknown][] => [[name, v]]);
  const entries: fc.Arbitrary<[string, unknown][]>[] = [
    op("$eq", equalityOperandArb(profile)),
    op("$ne", equalityOperandArb(profile)),
    op("$gt", ordered),
    op("$gte", ordered),
    op("$lt", ordered),
    op("$lte", ordered),
    op("$in", setArb(profile)),
    op("$nin", setArb(profile)),
    op("$all", setArb(profile)),
    op("$exists", fc.constantFrom(true, false, 1, 0)),
    op("$size", fc.integer({ min: 0, max: 3 })),
  ];
  if (profile.kind !== "date") entries.push(regexEntriesArb);
  if (arrayOperators) {
    entries.push(op("$type", typeOperandArb(profile)));
    if (profile.kind === "open") {
      entries.push(op("$mod", fc.tuple(fc.constantFrom(1, 2, 3, -4, 2.5), fc.constantFrom(0, 1, -1, 1.5))));
    }
    if (notDepth > 0) {
      entries.push(op("$elemMatch", operatorObjectArb(profile, notDepth - 1, true)));
      if (profile.kind === "open") {
        // The query form: a condition on sub-fields of the elements (open fields themselves).
        const subField = fc.constantFrom("b", "c", "0", "b.c");
        const query = fc
          .uniqueArray(fc.tuple(subField, operatorObjectArb(profileOf("b"), notDepth - 1, true)), {
            minLength: 0,
            maxLength: 2,
            selector: ([name]) => name,
          })
          .map((pairs) => Object.fromEntries(pairs));
        entries.push(op("$elemMatch", query));
      }
    }
  }
  if (notDepth > 0) {
    // `$not` may hold `$not` (docs/semantics.md 1.3), up to two levels here.
    const inner =
      profile.kind === "date"
        ? operatorObjectArb(profile, notDepth - 1, arrayOperators)
        : fc.oneof(
            operatorObjectArb(profile, notDepth - 1, arrayOperators),
            regexEntriesArb.map((e) => Object.fromEntries(e)),
          );
    entries.push(op("$not", inner));
  }
  const groupsArb = (minLength: number, maxLength: number) =>
    fc.uniqueArray(fc.oneof(...entries), { minLength, maxLength, selector: (e) => e[0]![0] });
  // One operator three times in four, so that operator objects match often enough to discriminate.
  return fc
    .oneof({ arbitrary: groupsArb(1, 1), weight: 3 }, { arbitrary: groupsArb(2, 3), weight: 1 })
    .map((groups) => {
      const out: Record<string, unknown> = {};
      for (const group of groups) for (const [k, v] of group) out[k] = v;
      return out;
    });
}

/** One field's value: a direct value (equality, pipe alternatives) or an operator object. */
export function fieldConditionArb(field: string, arrayOperators = false): fc.Arbitrary<unknown> {
  const profile = profileOf(field);
  return fc.oneof(
    { arbitrary: directValueArb(profile), weight: 2 },
    { arbitrary: operatorObjectArb(profile, 2, arrayOperators), weight: 3 },
  );
}

/** A `[field, value]` entry of a condition object. */
export function fieldEntryArb(
  inheritedNames = true,
  arrayOperators = false,
): fc.Arbitrary<[string, unknown]> {
  return fieldNameArb(inheritedNames).chain((field) =>
    fieldConditionArb(field, arrayOperators).map((value): [string, unknown] => [field, value]),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Conditions

/** Condition objects and top-level Search Conditions, built with `fc.letrec`. */
function conditionArbs(options: ConditionArbOptions = {}): {
  object: fc.Arbitrary<Record<string, unknown>>;
  root: fc.Arbitrary<unknown>;
} {
  const maxDepth = options.maxDepth ?? 3;
  const maxKeys = options.maxKeys ?? 3;
  const maxChildren = options.maxChildren ?? 3;
  const field = fieldEntryArb(options.inheritedNames ?? true, options.arrayOperators ?? false);
  const tree = fc.letrec<{ object: Record<string, unknown>; entry: [string, unknown] }>((tie) => ({
    entry: fc.oneof(
      { maxDepth, depthIdentifier: "condition" },
      { arbitrary: field, weight: 4 },
      {
        arbitrary: fc
          .tuple(
            fc.constantFrom("$and", "$or", "$nor"),
            fc.array(tie("object"), { minLength: 1, maxLength: maxChildren }),
          )
          .map(([op, children]): [string, unknown] => [op, children]),
        weight: 1,
      },
    ),
    object: fc
      .uniqueArray(tie("entry"), { minLength: 1, maxLength: maxKeys, selector: (e) => e[0] })
      .map((entries) => Object.fromEntries(entries)),
  }));
  const object = fc.oneof(
    { arbitrary: tree.object, weight: 15 },
    { arbitrary: fc.constant(null).map(() => ({})), weight: 1 },
  );
  const root = fc.oneof(
    { arbitrary: object, weight: 4 },
    { arbitrary: fc.array(tree.object, { minLength: 1, maxLength: maxChildren }), weight: 1 },
  );
  return { object, root };
}

/**
 * Valid raw Search Conditions for the default catalogue: a JSON object (AND of its entries) or, one time in
 * five, a non-empty top-level array of objects (OR). The root is `{}` (matches every incident) about one
 * time in twenty; nested objects are never empty. Every value
 * generated parses without issues (asserted in test/properties/conditions.test.ts).
 */
export function searchConditionsArb(options?: ConditionArbOptions): fc.Arbitrary<unknown> {
  return conditionArbs(options).root;
}

/** Valid raw Search Conditions that are always a JSON object (never a top-level array). */
export function conditionObjectArb(options?: ConditionArbOptions): fc.Arbitrary<Record<string, unknown>> {
  return conditionArbs(options).object;
}

/** Valid, non-empty condition objects (at least one entry), for the commands, which refuse `{}`. */
export function nonEmptyConditionObjectArb(
  options?: ConditionArbOptions,
): fc.Arbitrary<Record<string, unknown>> {
  return conditionArbs(options).object.filter((o) => Object.keys(o).length > 0);
}

// ---------------------------------------------------------------------------------------------------------
// Hostile input

/** Builds `depth` levels of nesting around `leaf`, alternating `$and` arrays and objects. */
export function deeplyNested(depth: number, leaf: unknown = { Title: "x" }): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = { $and: [value] };
  return value;
}

/** Hostile leaves: each a fresh value (JSON.parse makes `__proto__` an own key, as a network body would). */
const hostileLeafArb: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .constantFrom(
      '{"__proto__": {"polluted": true}}',
      '{"constructor": {"prototype": {"polluted": true}}}',
      '{"Title": {"__proto__": {"polluted": true}}}',
      '{"Title": {"$in": {"__proto__": ["x"]}}}',
      '{"prototype": 1}',
      '{"Custom.__proto__.polluted": true}',
      '{"Custom.constructor.prototype.polluted": true}',
      '{"$where": "this.polluted = true"}',
      '{"$expr": {"$eq": ["$Title", "x"]}}',
      '{"$function": {"body": "function(){return true}", "args": [], "lang": "js"}}',
      '{"Title": {"$where": "1"}}',
      '{"Title": {"$foo": 1}}',
      '{"$text": {"$search": "x"}}',
      '{"CreatedUtcTime": {"$gt": {"$date": "2024-02-30T00:00:00Z"}}}',
      '{"CreatedUtcTime": {"$gt": {"$date": "2024-01-01T00:00:00+01:00"}}}',
      '{"CreatedUtcTime": {"$gt": {"$date": "2024-01-01T00:00:00"}}}',
      '{"CreatedUtcTime": {"$gt": {"$date": "2024-01-01T24:00:00Z"}}}',
      '{"CreatedUtcTime": {"$gt": {"$date": 1704067200000}}}',
      '{"CreatedUtcTime": {"$gt": {"$date": {"$numberLong": "abc"}}}}',
      '{"CreatedUtcTime": {"$gt": {"$date": {"$numberLong": "99999999999999999999"}}}}',
      '{"CreatedUtcTime": "2024-01-01T00:00:00Z"}',
      '{"CreatedUtcTime": {"$lt": "2024-01-01T00:00:00Z"}}',
      '{"Severity": "high"}',
      '{"IngestionType": "Webhook|"}',
      '{"Status": "|"}',
      '{"Status": {"$in": ["Open", "Opened"]}}',
      '{"Number": 123}',
      '{"Title": true}',
      '{"Title": {"$regex": "(a)\\\\1"}}',
      '{"Title": {"$regex": "(?=x)"}}',
      '{"Title": {"$regex": "["}}',
      '{"Title": {"$regex": "x", "$options": "g"}}',
      '{"Title": {"$regex": "x", "$options": "ii"}}',
      '{"Title": {"$options": "i"}}',
      '{"Title": {"$regex": 5}}',
      '{"Title": {"$eq": "x", "Name": "y"}}',
      '{"Title": {"Name": "y"}}',
      '{"Title": ["a", "b"]}',
      '{"Tags": {"$size": -1}}',
      '{"Tags": {"$size": 1.5}}',
      '{"Tags": {"$size": "2"}}',
      '{"Tags": {"$exists": "yes"}}',
      '{"Tags": {"$not": "x"}}',
      '{"Tags": {"$not": {}}}',
      '{"Tags": {"$not": {"$and": [{"a": 1}]}}}',
      '{"Tags": {"$and": [{"a": 1}]}}',
      '{"$eq": 1}',
      '{"$and": []}',
      '{"$and": {}}',
      '{"$or": [1, "x", null]}',
      '{"$nor": "x"}',
      '{"a..b": 1}',
      '{"": 1}',
      '{".a": 1}',
      '{"Tags": {"$in": [[1], {"a": 1}]}}',
      '{"Tags": {"$all": "x"}}',
      "[]",
      "[[]]",
      "[1, 2]",
      "null",
      '"Title"',
    )
    .map((text) => JSON.parse(text) as unknown),
  fc
    .constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, Symbol("s"), 10n)
    .map((v) => ({ Score: v })),
  fc.integer({ min: 30, max: 80 }).map((depth) => deeplyNested(depth)),
  fc.integer({ min: 30, max: 80 }).map((depth) => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = [v];
    return { Tags: { $in: v } };
  }),
  fc.constant(null).map(() => ({ Title: "x".repeat(10_001) })),
  fc.constant(null).map(() => ({ Title: { $regex: "a".repeat(1_001) } })),
  fc.constant(null).map(() => ({ Tags: { $in: Array.from({ length: 10_001 }, (_, i) => i) } })),
  fc.constant(null).map(() => ({ $or: Array.from({ length: 1_200 }, (_, i) => ({ Score: i })) })),
  fc.constant(null).map(() => ({ Title: { $regex: "(a+)+$" } })),
);

/** Every position (parent and key) in a JSON tree, for replacing one node. */
function positions(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []) {
  if (Array.isArray(value)) {
    value.forEach((child, i) => {
      out.push([value, i]);
      positions(child, out);
    });
  } else if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) {
      out.push([value as Record<string, unknown>, key]);
      positions((value as Record<string, unknown>)[key], out);
    }
  }
  return out;
}

/** A valid condition with one node (chosen at random) replaced by a hostile value; the input is cloned. */
const mutatedConditionArb: fc.Arbitrary<unknown> = fc
  .tuple(
    searchConditionsArb({ maxDepth: 2 }),
    fc.nat(),
    fc.oneof(hostileLeafArb, fc.jsonValue({ maxDepth: 2 })),
  )
  .map(([valid, index, leaf]) => {
    const copy = structuredClone(valid);
    const all = positions(copy);
    if (all.length === 0) return leaf;
    const [parent, key] = all[index % all.length]!;
    (parent as Record<string | number, unknown>)[key] = leaf;
    return copy;
  });

/**
 * Anything at all, mostly invalid Search Conditions: arbitrary JSON values, arbitrary JS values (Maps,
 * Dates, boxed values, null-prototype objects, sparse arrays, typed arrays, bigints), prototype-named keys
 * as own properties, `$where`/`$expr`/`$function`, bad dates, nesting deeper than the limit, operands over
 * the size limits, and valid conditions with one node replaced by a hostile value.
 */
export function hostileInputArb(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: fc.jsonValue({ maxDepth: 4 }), weight: 2 },
    {
      arbitrary: fc.anything({
        maxDepth: 3,
        withBoxedValues: true,
        withMap: true,
        withSet: true,
        withNullPrototype: true,
        withObjectString: true,
        withTypedArray: true,
        withSparseArray: true,
        withDate: true,
        withBigInt: true,
        key: fc.oneof(fc.string(), fc.constantFrom(...FORBIDDEN_KEYS, "$where", "$and", "$in", "Title")),
      }),
      weight: 2,
    },
    { arbitrary: hostileLeafArb, weight: 2 },
    { arbitrary: mutatedConditionArb, weight: 4 },
  );
}
