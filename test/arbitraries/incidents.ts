/**
 * fast-check arbitraries of incident records, for property and differential tests of every implementation
 * of the Search Conditions semantics.
 *
 * - `incidentArb()`: a record with `IncidentId`, the 15 documented fields of specification 2.3 (each
 *   missing one time in ten), and open fields (`Score`, `Tags`, `Custom`, `Flag`, `SeenAt`, sometimes
 *   `Extra`). Values come from the pools of `pools.ts` (shared with the condition arbitraries) and are
 *   realistic most of the time, odd some of the time: `null`, numbers in text fields, arrays (implicit
 *   traversal), nested objects, `CreatedUtcTime` as a JS `Date`, an ISO string (docs/semantics.md 1.5), an
 *   invalid date string, an epoch number or an invalid `Date`.
 * - `incidentArb({ columnOddities: true })`: besides, every field an `IncidentSet` indexes (the hash fields
 *   `Number`, `ExternalKey`, `IncidentId`; the dictionary columns of the text and enumerated fields and of
 *   the open fields `Score`, `Tags`, `Flag`, `Extra`; the date column `CreatedUtcTime`) holds, one time in
 *   three, something a column cannot take at face value: `null`, an own `undefined`, an array (empty,
 *   nested, of mixed types, holding `null` or objects), an object, a `Date`, or a value of another type.
 * - `hostileRecordArb()`: what an untrusted caller could pass as a record: `null`, arrays, primitives,
 *   records with prototype-named own keys (via JSON.parse), null-prototype records, arbitrary JS values.
 */
import fc from "fast-check";
import {
  DATE_POOL,
  ENUM_FIELDS,
  LABEL_POOLS,
  NUMBER_POOL,
  OPEN_STRING_POOL,
  TAG_POOL,
  TEXT_FIELD_NAMES,
  TEXT_POOLS,
} from "./pools.js";

/** Options of `incidentArb`. */
export interface IncidentArbOptions {
  /**
   * Allow `CreatedUtcTime` as an ISO-8601 string (our extension, docs/semantics.md 1.5; MongoDB only compares
   * BSON dates). Default true.
   */
  readonly isoStrings?: boolean;
  /** Allow odd values (null, wrong types, arrays, nested objects, invalid dates). Default true. */
  readonly oddValues?: boolean;
  /**
   * Put column-hostile values in every field an `IncidentSet` indexes, one time in three (see the module
   * comment): arrays (empty, nested, mixed-type, with `null`), `null`, own `undefined`, objects, `Date`s,
   * values of other types. Default false (other suites compare against peers that differ on some of them).
   */
  readonly columnOddities?: boolean;
}

/**
 * What a column cannot take at face value, around the scalars of `pool`: `null`, an own `undefined`,
 * arrays (empty, of pool values, nested, mixed with `null`, numbers, booleans and objects), objects, a
 * `Date`, and values of another type.
 */
export function columnOddityArb(pool: readonly unknown[]): fc.Arbitrary<unknown> {
  const scalar = fc.constantFrom(...pool);
  const other = fc.constantFrom<unknown>(null, 0, -0, 1, 5, 7.5, true, false, "", "5", "Phishing", "EXT-1");
  const element = fc.oneof(
    { arbitrary: scalar, weight: 3 },
    { arbitrary: other, weight: 2 },
    { arbitrary: scalar.map((v) => ({ Name: v })), weight: 1 },
  );
  return fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.array(scalar, { maxLength: 3 }),
    fc.array(element, { minLength: 1, maxLength: 4 }),
    fc.array(fc.array(element, { maxLength: 2 }), { minLength: 1, maxLength: 2 }),
    fc.tuple(scalar, fc.array(scalar, { maxLength: 2 })).map(([v, inner]) => [inner, v]),
    scalar.map((v) => ({ Name: v })),
    fc.constant(null).map(() => ({})),
    other,
    fc.constantFrom(...DATE_POOL).map((iso) => new Date(iso)),
  );
}

/** One time in three a column oddity (when enabled), else the field's own arbitrary. */
function columnOdd(
  arb: fc.Arbitrary<unknown>,
  pool: readonly unknown[],
  enabled: boolean,
): fc.Arbitrary<unknown> {
  return enabled
    ? fc.oneof({ arbitrary: arb, weight: 2 }, { arbitrary: columnOddityArb(pool), weight: 1 })
    : arb;
}

/** `CreatedUtcTime` oddities for the date column: arrays of dates and ISO strings (nested, mixed, with null). */
function dateOddityArb(): fc.Arbitrary<unknown> {
  const date = fc.constantFrom(...DATE_POOL).map((iso) => new Date(iso));
  const isoString = fc.constantFrom(...DATE_POOL);
  const element = fc.oneof(date, isoString, fc.constantFrom<unknown>(null, "yesterday", 0, true));
  return fc.oneof(
    fc.array(element, { maxLength: 3 }),
    fc.array(fc.array(element, { maxLength: 2 }), { minLength: 1, maxLength: 2 }),
    isoString.map((iso) => ({ $date: iso })),
    fc.constant(undefined),
    fc.constant(null).map(() => Object.create(null) as object),
  );
}

/** Weighted choice between a realistic value and an odd one. */
function mostly<T>(
  typical: fc.Arbitrary<T>,
  odd: fc.Arbitrary<unknown>,
  oddValues: boolean,
): fc.Arbitrary<unknown> {
  return oddValues ? fc.oneof({ arbitrary: typical, weight: 6 }, { arbitrary: odd, weight: 1 }) : typical;
}

/** A value of a documented text field: a pool string; odd: null, a number, an array of pool strings, an object. */
function textValueArb(pool: readonly string[], oddValues: boolean): fc.Arbitrary<unknown> {
  const odd = fc.oneof(
    fc.constant(null),
    fc.constantFrom(...NUMBER_POOL),
    fc.array(fc.constantFrom(...pool), { maxLength: 3 }),
    fc.constantFrom(...pool).map((name) => ({ Name: name })),
  );
  return mostly(fc.constantFrom(...pool), odd, oddValues);
}

/** A `CreatedUtcTime` value: a JS `Date` of the pool; ISO strings; odd: invalid strings, numbers, null. */
function createdArb(isoStrings: boolean, oddValues: boolean): fc.Arbitrary<unknown> {
  const asDate = fc.constantFrom(...DATE_POOL).map((iso) => new Date(iso));
  const typical = isoStrings
    ? fc.oneof(asDate, fc.constantFrom(...DATE_POOL))
    : (asDate as fc.Arbitrary<unknown>);
  const odd = fc.oneof(
    fc.constantFrom(
      "2024-02-30T00:00:00Z",
      "2024-01-01 00:00:00",
      "2024-01-01T00:00:00+01:00",
      "yesterday",
      "",
    ),
    fc.constantFrom(...DATE_POOL).map((iso) => Date.parse(iso)),
    fc.constant(null),
    fc.constant(null).map(() => new Date(Number.NaN)),
    fc.array(asDate, { minLength: 1, maxLength: 2 }),
  );
  return mostly(typical, odd, oddValues);
}

/** Makes every key optional with probability 1/10 of absence; `IncidentId` is always present. */
function withSomeMissing(
  model: Record<string, fc.Arbitrary<unknown>>,
  optionalWeight: Record<string, number> = {},
): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(model).map(([key, arb]) => {
    const absentWeight = optionalWeight[key] ?? 1;
    return fc
      .oneof(
        { arbitrary: arb.map((v) => ({ present: true as const, v })), weight: 10 - absentWeight },
        { arbitrary: fc.constant({ present: false as const }), weight: absentWeight },
      )
      .map((r): [string, { present: boolean; v?: unknown }] => [key, r]);
  });
  return fc.tuple(...entries).map((pairs) => {
    const out: Record<string, unknown> = {};
    for (const [key, r] of pairs) if (r.present) out[key] = r.v;
    return out;
  });
}

/**
 * An incident record: `IncidentId` (a positive integer), the 15 documented fields of specification 2.3,
 * and the open fields `Score`, `Tags`, `Custom` (`{Owner, Priority}`, or an array of such objects),
 * `Flag`, `SeenAt` (a JS `Date`, or an ISO string, which in an open field is not a date), `Extra`.
 */
export function incidentArb(options: IncidentArbOptions = {}): fc.Arbitrary<Record<string, unknown>> {
  const odd = options.oddValues ?? true;
  const columns = options.columnOddities ?? false;
  const model: Record<string, fc.Arbitrary<unknown>> = {
    IncidentId: columnOdd(
      fc.integer({ min: 1, max: 1_000_000 }),
      [1, 2, 3, 4, 5, 6, "3", 2.5, -1, Number.NaN, Number.POSITIVE_INFINITY],
      columns,
    ),
  };
  for (const field of TEXT_FIELD_NAMES) {
    model[field] = columnOdd(textValueArb(TEXT_POOLS[field], odd), TEXT_POOLS[field], columns);
  }
  for (const field of ENUM_FIELDS) {
    const labels = LABEL_POOLS[field];
    model[field] = columnOdd(
      mostly(
        fc.constantFrom(...labels),
        fc.oneof(
          fc.constant(null),
          fc.constantFrom(...labels).map((l) => l.toLowerCase()),
          fc.array(fc.constantFrom(...labels), { maxLength: 2 }),
        ),
        odd,
      ),
      labels,
      columns,
    );
  }
  model.CreatedUtcTime = columns
    ? fc.oneof(
        { arbitrary: createdArb(options.isoStrings ?? true, odd), weight: 2 },
        { arbitrary: dateOddityArb(), weight: 1 },
      )
    : createdArb(options.isoStrings ?? true, odd);
  model.Score = mostly(
    fc.constantFrom(...NUMBER_POOL),
    fc.oneof(
      fc.constantFrom(...OPEN_STRING_POOL),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.constantFrom(...NUMBER_POOL), { maxLength: 3 }),
    ),
    odd,
  );
  model.Tags = mostly(
    fc.array(fc.constantFrom(...TAG_POOL), { maxLength: 3 }),
    fc.oneof(
      fc.constantFrom(...TAG_POOL),
      fc.constant(null),
      fc.array(fc.array(fc.constantFrom(...TAG_POOL))),
    ),
    odd,
  );
  const custom = withSomeMissing(
    {
      Owner: fc.constantFrom(...OPEN_STRING_POOL),
      Priority: fc.constantFrom(...NUMBER_POOL),
    },
    { Owner: 2, Priority: 2 },
  );
  model.Custom = mostly(
    custom,
    fc.oneof(fc.array(custom, { minLength: 1, maxLength: 2 }), fc.constant("alice"), fc.constant(null)),
    odd,
  );
  model.Score = columnOdd(model.Score, NUMBER_POOL, columns);
  model.Tags = columnOdd(model.Tags, TAG_POOL, columns);
  model.Flag = columnOdd(fc.boolean(), [true, false], columns);
  model.SeenAt = mostly(
    fc.constantFrom(...DATE_POOL).map((iso) => new Date(iso)),
    fc.constantFrom(...DATE_POOL),
    odd,
  );
  model.Extra = columnOdd(
    fc.oneof(fc.constantFrom(...NUMBER_POOL), fc.constantFrom(...OPEN_STRING_POOL), fc.boolean()),
    OPEN_STRING_POOL,
    columns,
  );
  return withSomeMissing(model, { IncidentId: 0, Extra: 8, Flag: 3, SeenAt: 3 });
}

/** A list of incidents with distinct `IncidentId`s. */
export function incidentListArb(
  options: IncidentArbOptions & { readonly minLength?: number; readonly maxLength?: number } = {},
): fc.Arbitrary<Record<string, unknown>[]> {
  return fc.uniqueArray(incidentArb(options), {
    minLength: options.minLength ?? 0,
    maxLength: options.maxLength ?? 20,
    selector: (incident) => incident.IncidentId,
  });
}

/**
 * What an untrusted caller could pass where a record is expected: `null`, `undefined`, primitives,
 * arrays, records whose own keys are `__proto__`/`constructor`/`prototype` or shadow `Object.prototype`
 * names (made by JSON.parse, as a network body would be), null-prototype records, and arbitrary JS values.
 */
export function hostileRecordArb(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(null, undefined, 0, "Title", true),
    fc.constant(null).map(() => ["Phishing", { Title: "x" }]),
    fc
      .constantFrom(
        '{"__proto__": {"Title": "Phishing email reported", "Severity": "High"}, "IncidentId": 1}',
        '{"constructor": {"prototype": {"Severity": "High"}}, "IncidentId": 2}',
        '{"toString": "x", "valueOf": 1, "hasOwnProperty": true, "IncidentId": 3}',
        '{"Custom": {"__proto__": {"Owner": "alice"}}, "IncidentId": 4}',
        '{"Tags": {"length": 2, "0": "vip"}, "IncidentId": 5}',
        '{"Title": {"$regex": "x"}, "IncidentId": 6}',
      )
      .map((text) => JSON.parse(text) as unknown),
    incidentArb().map((incident) => Object.assign(Object.create(null) as object, incident)),
    fc.anything({
      maxDepth: 3,
      withBoxedValues: true,
      withMap: true,
      withNullPrototype: true,
      withSparseArray: true,
      withDate: true,
      key: fc.oneof(fc.constantFrom("Title", "Tags", "Custom", "Score", "CreatedUtcTime"), fc.string()),
    }),
  );
}
