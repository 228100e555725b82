/**
 * The one list of known differences of the conformance harness (`harness.ts`). Each entry names the
 * engines it applies to, the reason, and the cases (by name, from `match-cases.ts` or `jstests-cases.ts`).
 * A skipped case still runs and must still differ (pinned by its example); when a fix makes it agree, the
 * run fails until the entry is removed. `run: false` entries are not run at all (they would hang).
 *
 * Who decides (docs/semantics.md 1.5): MongoDB's own test suite decides the semantics; mingo only executes the
 * MongoDB translation (`toMongoFilter`), and where mingo itself departs from MongoDB the entry says so
 * ("mingo deviates from MongoDB: …") and covers the `mongo` engines only.
 */

/** The engines of the harness: one adapter each (see the runners in this folder). */
export const ENGINES = [
  "evaluate",
  "compile:codegen",
  "compile:closure",
  "compile:tiered",
  "incident-set:default",
  "incident-set:no-columns",
  "incident-set:tiny-dictionaries",
  "incident-set:open-dictionaries",
  "incident-set:open-hashes",
  "incident-set:ndjson",
  "line-matcher",
  "line-matcher:kernel",
  "mongo:date",
  "mongo:string",
] as const;

/** An engine's name: `family:variant`, or `evaluate`. */
export type EngineName = (typeof ENGINES)[number];

/** A family of engines: a skip that names it covers every variant. */
export type EngineFamily = "compile" | "incident-set" | "mongo";

/** One known difference. */
export interface Skip {
  /** The engines (names or families) it applies to, or `"all"`. */
  readonly engines: "all" | readonly (EngineName | EngineFamily)[];
  /** Why the engine answers differently from the table. */
  readonly reason: string;
  /** The case names. */
  readonly tests: readonly string[];
  /** `false`: never run these cases on these engines (they would not finish). */
  readonly run?: false;
}

/** True when `skip` covers `engine`. */
export function skipApplies(skip: Skip, engine: EngineName): boolean {
  if (skip.engines === "all") return true;
  const family = engine.split(":")[0];
  return skip.engines.some((name) => name === engine || name === family);
}

/** The known differences. */
export const SKIPS: readonly Skip[] = [
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its bit tests match fractions and NaN, read integers past 2^53 and masks past 2^32 otherwise than MongoDB's 64-bit two's complement, and read no position past 63 as the sign bit (MongoDB's bittest.js)",
    tests: [
      'jstests bittest.js: {"a":{"$bitsAllClear":0}} (4)',
      'jstests bittest.js: {"a":{"$bitsAllClear":129}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllClear":16}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllClear":1}} (3)',
      'jstests bittest.js: {"a":{"$bitsAllClear":2305843009213694000}}',
      'jstests bittest.js: {"a":{"$bitsAllClear":255}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllClear":6917529027641082000}}',
      'jstests bittest.js: {"a":{"$bitsAllSet":0}} (4)',
      'jstests bittest.js: {"a":{"$bitsAllSet":16}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllSet":1}} (3)',
      'jstests bittest.js: {"a":{"$bitsAllSet":2305843009213694000}}',
      'jstests bittest.js: {"a":{"$bitsAllSet":255}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllSet":54}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllSet":55}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllSet":6917529027641082000}}',
      'jstests bittest.js: {"a":{"$bitsAllSet":88}} (2)',
      'jstests bittest.js: {"a":{"$bitsAllSet":[1,7,6,3,100]}}',
      'jstests bittest.js: {"a":{"$bitsAnyClear":18}} (2)',
      'jstests bittest.js: {"a":{"$bitsAnyClear":2305843009213694000}}',
      'jstests bittest.js: {"a":{"$bitsAnyClear":24}} (2)',
      'jstests bittest.js: {"a":{"$bitsAnyClear":255}} (2)',
      'jstests bittest.js: {"a":{"$bitsAnyClear":6917529027641082000}}',
      'jstests bittest.js: {"a":{"$bitsAnyClear":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63]}}',
      'jstests bittest.js: {"a":{"$bitsAnySet":2305843009213694000}}',
      'jstests bittest.js: {"a":{"$bitsAnySet":255}} (2)',
      'jstests bittest.js: {"a":{"$bitsAnySet":6917529027641082000}}',
      'jstests bittest.js: {"a":{"$bitsAnySet":9}} (2)',
      'jstests bittest.js: {"a":{"$bitsAnySet":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63]}}',
    ],
  },
  // ---- mingo and $elemMatch, $type, $mod (docs/semantics.md 1.3, revised; the filters are MongoDB's own operators) ----
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its $mod does not truncate the dividend towards zero (4.5 mod 4 is not 0 there), matches values beyond 64 bits and numeric strings ('-5'), looks into nested arrays and not into an array reached by a dotted path (MongoDB's mod.js, mod_special_values.js)",
    tests: [
      "$mod: the integer part of the value, the remainder with the dividend's sign (MongoDB)",
      "$not $mod matches non-numbers and missing fields",
      'jstests mod/mod.js: {"a":{"$mod":[-10000000000,-5000000000]}}',
      'jstests mod/mod.js: {"a":{"$mod":[-10000000000,5000000000]}}',
      'jstests mod/mod.js: {"a":{"$mod":[-4000000000,0]}}',
      'jstests mod/mod.js: {"a":{"$mod":[10000000000,-5000000000]}}',
      'jstests mod/mod.js: {"a":{"$mod":[10000000000,5000000000]}}',
      'jstests mod/mod.js: {"a":{"$mod":[4,0]}}',
      'jstests mod/mod.js: {"a":{"$mod":[4000000000,0]}}',
      'jstests mod/mod.js: {"arr":{"$mod":[4,0]}}',
      'jstests mod/mod.js: {"arr.b":{"$mod":[3,0]}}',
      'jstests mod/mod.js: {"arr.b.c":{"$mod":[5,0]}}',
      'jstests mod/mod_special_values.js: {"attribute":{"$mod":[1,0]}} (2)',
      'jstests mod/mod_special_values.js: {"attribute":{"$mod":[1,0]}}',
      'jstests mod/mod_special_values.js: {"attribute":{"$mod":[10,4]}}',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its $type does not look into arrays (MongoDB's type_array.js: {a: [1, 'foo']} is a number and a string) and calls null a date",
    tests: [
      "$type: string on a text field (a column decides it, arrays are re-checked)",
      "$type: date on an open field: only a valid JS Date",
      "$type: object is a plain object (not an array, not a Date); null and missing are not objects",
      'jstests type/type_array.js: {"a":{"$type":"number"}}',
      'jstests type/type_array.js: {"a":{"$type":"string"}}',
      'jstests type/type_array.js: {"a":{"$type":["long",2]}}',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its $elemMatch value form looks into nested arrays ([[5]] matches {$gt: 4, $lt: 6}) and its object form skips array elements, which MongoDB reads as documents (MongoDB's elemmatch_value.js, elemmatch_object.js)",
    tests: [
      "$elemMatch: one element meets every operator (implicit traversal meets each in any element)",
      'jstests elemmatch/elemmatch_object.js: {"a":{"$elemMatch":{"$or":[{},{}]}}}',
      'jstests elemmatch/elemmatch_object.js: {"a":{"$elemMatch":{}}}',
      'jstests elemmatch/elemmatch_value.js: {"a":{"$elemMatch":{"$elemMatch":{"$lt":6,"$gt":4}}}}',
      'jstests elemmatch/elemmatch_value.js: {"a":{"$elemMatch":{"$elemMatch":{"b":{"$lt":6,"$gt":4}}}}}',
      'jstests elemmatch/elemmatch_value.js: {"a":{"$elemMatch":{"$lt":6,"$gt":4}}}',
      'jstests elemmatch/elemmatch_value.js: {"a":{"$elemMatch":{"b":{"$elemMatch":{"$lt":6,"$gt":4}}}}}',
      'jstests elemmatch/elemmatch_value.js: {"a":{"$elemMatch":{"b":{"$lt":6,"$gt":4}}}}',
      'jstests elemmatch/elemmatch_value.js: {"a.b":{"$elemMatch":{"$lt":6,"$gt":4}}}',
    ],
  },
  // ---- mingo, the executor of the MongoDB translation, departs from MongoDB ----
  {
    engines: ["mongo"],
    reason:
      "not run: mingo's backtracking RegExp would not finish (MongoDB's PCRE has a match limit and fails the query)",
    tests: ["$regex: a pattern that backtracks exponentially elsewhere runs in linear time"],
    run: false,
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its $regex also looks into nested arrays; MongoDB looks one level deep",
    tests: ["$regex: nested arrays are not traversed"],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it runs JavaScript's RegExp without the u flag, which does not fold k with U+212A; MongoDB's PCRE2 does",
    tests: ["$regex: i folds k with the Kelvin sign (RE2)"],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it applies $size to the list of reached values; MongoDB, like the library, to each reached array",
    tests: ["$size: through an array of objects, any reached array"],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it orders NaN below numbers in $lt; MongoDB's matcher, like the library, never matches NaN in a numeric range (jstests/core/query/type_bracket.js)",
    tests: ["numbers: NaN in a record lies in no range and equals no JSON number"],
  },
  // ---- MongoDB's own tests (jstests-cases.ts) ----
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: on a dotted path through an array it does not count the elements that reach no value as missing (MongoDB 9.0, SERVER-36681), so null equality, $in and $nin with null answer the other way",
    tests: [
      'jstests null_query_semantics.js: {"a.b":{"$eq":null}} (2)',
      'jstests null_query_semantics.js: {"a.b":{"$ne":null}} (2)',
      'jstests null_query_semantics.js: {"a.b":{"$in":[null,75]}}',
      'jstests null_query_semantics.js: {"$or":[{"a.b":null},{"a.b":75}]}',
      'jstests null_query_semantics.js: {"a.b":{"$nin":[null,75]}}',
      'jstests ne/ne_null_indexed.js: {"a.b":{"$ne":null}}',
      'jstests ne/ne_null_indexed.js: {"a.b":{"$eq":null}}',
      'jstests array/arrayfind5.js: {"a.b":null}',
      'jstests array/arrayfind5.js: {"a.b":null} (2)',
      'jstests ne/ne_null.js: {"a.b":{"$ne":null}}',
      'jstests ne/ne_null.js: {"a.b":{"$eq":null}}',
      'jstests nin/nin_null.js: {"a.b":{"$nin":[null]}}',
      'jstests nin/nin_null.js: {"a.b":{"$in":[null]}}',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      'mingo deviates from MongoDB: a numeric path segment both indexes an array and, unlike MongoDB, is followed into the nested arrays it reaches, while objects inside the array are not searched for the field "0"',
    tests: [
      'jstests match_numeric_components.js: {"a.0":42}',
      'jstests match_numeric_components.js: {"a.0":{"$ne":42}}',
      'jstests match_numeric_components.js: {"a.0.0":42}',
      'jstests match_numeric_components.js: {"a.0":{"$gt":41}}',
      'jstests match_numeric_components.js: {"a.0":{"$in":[41,42,43]}}',
      'jstests match_numeric_components.js: {"a.0":{"$nin":[41,42,43]}}',
      'jstests match_numeric_components.js: {"_id":{"$lt":15},"a.0":{"$gt":41}}',
      'jstests match_numeric_components.js: {"a.0":{"$all":[42]}}',
      'jstests match_numeric_components.js: {"$or":[{"a.0":42},{"notARealField":123}]}',
      'jstests match_numeric_components.js: {"a":{"$elemMatch":{"0.0":{"$eq":42}}}}',
      'jstests match_numeric_components.js: {"a.0":{"$type":"number"}}',
      'jstests match_numeric_components.js: {"a.0":{"$mod":[42,0]}}',
      'jstests match_numeric_components.js: {"f1.0":{"$elemMatch":{"$eq":5}}}',
      'jstests match_numeric_components.js: {"f0":"zz","f1.0":{"$elemMatch":{"$eq":5}}}',
      "numeric segments: 24 levels of [{0: …}] reach 2 under 24 to 48 zeros, each value once per segment",
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: $elemMatch on an array whose elements are arrays also tries the elements of those arrays (MongoDB tries each element as a whole)",
    tests: [
      'jstests array/arrayfind8.js: {"$and":[{"a":{"$elemMatch":{"$in":[5]}}},{}]}',
      'jstests array/arrayfind8.js: {"$and":[{"a":{"$elemMatch":{"b":{"$gte":1,"$lte":1}}}},{}]}',
      'jstests array/arrayfind8.js: {"$and":[{"a":{"$elemMatch":{"b":{"$gte":1,"$lte":1}}}},{}]} (2)',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: the operators of one field on a dotted path must be met by the same reached value (MongoDB: each by any value the path reaches)",
    tests: ['jstests array/arrayfind8.js: {"$and":[{"a.b":{"$elemMatch":{"$in":[1,2]},"$in":[2,3]}},{}]}'],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: $gte/$lte with null do not match a missing field (MongoDB: they match null and missing, so $not of them matches neither)",
    tests: [
      'jstests null_query_semantics.js: {"a":{"$not":{"$gte":null}}}',
      'jstests type_bracket.js: {"a":{"$gte":null}}',
      'jstests type_bracket.js: {"a":{"$lte":null}}',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: $size on a dotted path applies to the list of reached values (MongoDB, like the library, applies it to each reached array)",
    tests: [
      'jstests find/find_size.js: {"a.b":{"$size":2}}',
      'jstests find/find_size.js: {"a.b.c":{"$size":1}}',
      'jstests find/find_size.js: {"a.b.c.d":{"$size":1}}',
      'jstests find/find_size.js: {"a.b":{"$size":1}}',
      'jstests find/find_size.js: {"a.b.c":{"$size":2}}',
      'jstests find/find_size.js: {"a.b.b.a":{"$size":1}}',
      'jstests find/find_size.js: {"a.b":{"$size":3}}',
      'jstests find/find_size.js: {"a.b":{"$size":2}} (2)',
      'jstests find/find_size.js: {"a.b.c":{"$size":1}} (2)',
      'jstests find/find_size.js: {"a.b.c":{"$size":0}}',
      'jstests find/find_size.js: {"a.b":{"$size":0}}',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: a path segment too large to be an array index (9223372036854776000) is still read as an index; MongoDB reads it as a field name and traverses the array",
    tests: ['jstests match_numeric_components.js: {"a.9223372036854776000.9223372036854776000":42}'],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it orders NaN below every number, so $lte 0 matches NaN; MongoDB's type bracketing never puts NaN in a numeric range",
    tests: ['jstests type_bracket.js: {"a":{"$lte":0}}'],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it runs JavaScript's RegExp without the u flag, where \\p{\u2026} is not a Unicode class; MongoDB's PCRE reads \\p{Latin}, \\p{L}, \\p{N} as the library's RE2 does",
    tests: [
      'jstests regex/regex_unicode.js: {"text":{"$regex":"\\\\p{Latin}"}}',
      'jstests regex/regex_unicode.js: {"text":{"$regex":"^\\\\p{Latin}+$"}}',
      'jstests regex/regex_unicode.js: {"text":{"$regex":"\\\\p{Hangul}"}}',
      'jstests regex/regex_unicode.js: {"text":{"$regex":"^\\\\p{Hangul}+$"}}',
      'jstests regex/regex_unicode.js: {"text":{"$regex":"^\\\\p{L}+$"}}',
      'jstests regex/regex_unicode.js: {"text":{"$regex":"^\\\\p{N}+$"}}',
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its null misses the places inside an array where a dotted path reaches nothing (MongoDB 9.0's rule, SERVER-36681; the project's own cases of it)",
    tests: [
      "null 9.0: $all with null and $gte/$lte null follow null equality on a dotted path",
      "null 9.0: $ne null and $nin with null are the exact negations",
      "null 9.0: arrayfind5.js {a.b: null} with an element object without b",
      "null 9.0: the examples of {a.b: null}",
      "null 9.0: ne_null.js {a.b: {$eq: null}}",
      "null 9.0: ne_null.js {a.b: {$ne: null}}",
      "null 9.0: ne_null_indexed.js {a.b: {$eq: null}}",
      "null 9.0: ne_null_indexed.js {a.b: {$ne: null}}",
      "null 9.0: nin_null.js {a.b: {$in: [null]}}",
      "null 9.0: nin_null.js {a.b: {$nin: [null]}}",
      "null 9.0: null_query_semantics.js {$or: [{a.b: null}, {a.b: 75}]}",
      "null 9.0: null_query_semantics.js {a.b: {$eq: null}}",
      "null 9.0: null_query_semantics.js {a.b: {$in: [null, 75]}}",
      "null 9.0: null_query_semantics.js {a.b: {$ne: null}}",
      "null 9.0: null_query_semantics.js {a.b: {$nin: [null, 75]}}",
      "null: a path through an array of objects sees their values",
      "null: a path through an array that reaches no value is missing",
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: its $gte/$lte null do not match a missing field or a missing place, which MongoDB treats as null (type_bracket.js, null_query_semantics.js)",
    tests: [
      "null 9.0: null_query_semantics.js {a: {$not: {$gte: null}}}",
      "null 9.0: {a.b: {$gte: null}} is null equality",
      "type bracketing: type_bracket.js {a: {$gte: null}}",
      "type bracketing: type_bracket.js {a: {$lte: null}}",
    ],
  },
  {
    engines: ["mongo"],
    reason:
      "mingo deviates from MongoDB: it follows a numeric path segment into the array it reaches at the end of the path (match_numeric_components.js; the project's own cases of it)",
    tests: [
      "numeric segments: match_numeric_components.js {$or: [{a.0: 42}, {notARealField: 123}]}",
      "numeric segments: match_numeric_components.js {_id: {$lt: 15}, a.0: {$gt: 41}}",
      "numeric segments: match_numeric_components.js {a.0.0: 42}",
      "numeric segments: match_numeric_components.js {a.0: 42}",
      "numeric segments: match_numeric_components.js {a.0: {$all: [42]}}",
      "numeric segments: match_numeric_components.js {a.0: {$gt: 41}}",
      "numeric segments: match_numeric_components.js {a.0: {$in: [41, 42, 43]}}",
      "numeric segments: match_numeric_components.js {a.0: {$ne: 42}}",
      "numeric segments: match_numeric_components.js {a.0: {$nin: [41, 42, 43]}}",
    ],
  },
];
