/**
 * `IncidentSet`: a large in-memory collection of incidents that answers "the first incident that matches"
 * (docs/semantics.md 1.9) in microseconds, and counts or lists matches by scanning columns.
 *
 * Layout: the caller's objects (never modified) plus columns built once per incident on `add` (columns.ts):
 * dictionary-encoded scalar fields, catalogue date fields as epoch ms, hash indexes on the selective fields
 * (`Number`, `ExternalKey`, `IncidentId`), and the creation order (docs/semantics.md 1.9) as a sorted
 * permutation with its inverse (rank).
 *
 * Queries: the planner (planner.ts) turns the condition into column operators. `findFirst` picks the
 * cheapest access path (a hash lookup, a `CreatedUtcTime` range as a segment of the creation order,
 * per-label postings in creation order, or a walk of the creation order) and stops at the first match.
 * `count` and `findAll` evaluate the columns over selection bitsets and ask the compiled row predicate
 * only about the rows the columns cannot decide. No path takes a row as matching on an index's word alone
 * when the index cannot decide it (an array, an object, an unreadable value): such rows are re-checked, so
 * every answer is `evaluate`'s (SECURITY.md, "Searches over a collection").
 *
 * Every search takes an optional time budget (docs/semantics.md 1.7; docs/semantics.md 1.7): the plan and every
 * scan loop tick the budget's timer, which reads the caller's clock at least every 1,024 records.
 *
 * Records must not be modified after they are added: the columns hold what they contained then.
 */

import type { Condition } from "../conditions/ast.js";
import { DEFAULT_CATALOG } from "../conditions/catalog.js";
import { type CompileOptions, compile, type Predicate } from "../conditions/compile.js";
import type { ParseOptions } from "../conditions/options.js";
import {
  bitsToRows,
  DATE_COMPLEX,
  DATE_VALUE,
  DateColumn,
  DEFAULT_MAX_DICTIONARY,
  DictionaryColumn,
  emptyBitset,
  HashIndex,
  mergeRows,
  ownDataValue,
  popcount,
  setBit,
  sortRows,
} from "./columns.js";
import { toCondition } from "./condition-input.js";
import { LineScanner, type NdjsonSource, readNdjson } from "./ndjson.js";
import {
  AndPlan,
  buildPlan,
  conjuncts,
  DateLeaf,
  DictionaryLeaf,
  HashLeaf,
  type PlanNode,
  ResidualLeaf,
  resolveUnknown,
  type Storage,
  TextLeaf,
  TRUE,
  UNKNOWN,
} from "./planner.js";
import { ArrayRecords, CompactHashIndex, CompactRecords, type RecordStore } from "./record-store.js";
import { type BudgetTimer, type SearchBudget, startBudget } from "./search-budget.js";
import { validateIncidentSetOptions } from "./set-options.js";
import { DEFAULT_TEXT_INDEX_BYTES, TextColumn } from "./text-index.js";

/** The field whose value orders incidents (docs/semantics.md 1.9). */
export const ORDER_FIELD = "CreatedUtcTime";
/** The tie-break field of the order (docs/semantics.md 1.9). */
export const ID_FIELD = "IncidentId";
/** The fields with a hash index by default: the selective equality fields. */
export const DEFAULT_HASH_FIELDS: readonly string[] = ["Number", "ExternalKey", "IncidentId"];

/** Options of `IncidentSet`. */
export interface IncidentSetOptions extends ParseOptions {
  /**
   * Fields stored as dictionary-encoded columns: single field names (no `.`), catalogue or open fields.
   * Default: every single-segment text and enumerated field of the catalogue that has no hash index. A
   * column whose field has more than `maxDictionary` distinct values becomes a text column (`textIndex`),
   * or, with the text index off, is dropped (its conditions go to the row predicate).
   */
  readonly dictionaryFields?: readonly string[];
  /** Fields with a hash index for equality: single field names (default `DEFAULT_HASH_FIELDS`). */
  readonly hashFields?: readonly string[];
  /**
   * Distinct values past which a dictionary column is dropped: an integer ≥ 0 (default 4096). Codes widen
   * from 8 to 16 to 32 bits as the dictionary grows, so any size is exact; a large dictionary costs one
   * leaf evaluation per distinct value per query.
   */
  readonly maxDictionary?: number;
  /** Options for the compiled row predicates (`codegen: false` for environments without `new Function`). */
  readonly compile?: CompileOptions;
  /**
   * The text index (issue 14; docs/performance.md): a dictionary field that outgrows `maxDictionary` (titles,
   * host names) becomes a text column (a value id per row over all its distinct values) instead of being
   * dropped, and `$regex` conditions on it are answered through a trigram index over the distinct values,
   * testing the pattern once per candidate value. `maxBytes` bounds the trigram indexes of the set, all
   * fields together (an integer ≥ 0, default 256 MiB): a field whose index would not fit gets none, and its
   * patterns run on rows. `false` turns the text index off (such fields are dropped, as before). Default:
   * on. `footprint()` reports the bytes in use.
   */
  readonly textIndex?: boolean | { readonly maxBytes?: number };
}

/** How a query is answered, for `explain`. */
export interface IncidentSetPlan {
  /** The access path of `findFirst`: `hash`, `date-range`, `postings`, `scan`, or `union` (an OR). */
  readonly findFirst: string;
  /** The column plan of `count` / `findAll`, e.g. `and(dictionary Severity (…), row predicate (regex))`. */
  readonly columns: string;
  /**
   * How `count` answers: `histogram` (one dictionary leaf), `segment CreatedUtcTime` (a date range alone),
   * `candidates hash <field>` or `candidates date-range CreatedUtcTime` (a short candidate list, each row
   * re-checked), or `columns` (a pass over the columns; for an AND, the strategy: `seeded by <leaf>`,
   * `fused code bitsets`, `fused scan`, `fused scan with dates`, `column scans`). Rows the columns cannot
   * decide always go to the row predicate.
   */
  readonly count: string;
  /** How `findAll` answers: as `count`, without `histogram` and `segment`. */
  readonly findAll: string;
}

/** The column layout's size in bytes, for memory reports (typed arrays only; dictionary strings are shared). */
export interface IncidentSetFootprint {
  /**
   * Bytes of every typed array of the set (columns, order, text columns and trigram indexes, and the hash
   * indexes of a compact set).
   */
  readonly typedArrayBytes: number;
  readonly hashEntries: number;
  /** Bytes of the trigram indexes built so far (part of `typedArrayBytes`; 0 when none is built). */
  readonly textIndexBytes: number;
  /** The bound of `textIndexBytes` (the `textIndex.maxBytes` option; 0 when the text index is off). */
  readonly textIndexLimit: number;
  /**
   * Bytes of the records a compact set keeps (`fromNdjson`: their JSON lines and offsets, outside the
   * JavaScript heap); 0 when the set keeps the caller's objects.
   */
  readonly recordBytes: number;
}

interface AccessPath {
  readonly name: string;
  readonly cost: number;
  readonly run: () => number;
}

/**
 * An indexed, in-memory set of incidents (DESIGN.md: incidents). Each query method takes a `Condition` or
 * raw Search Conditions JSON.
 * @typeParam T - the record type; records are kept as given and returned as given
 * @example
 * const set = new IncidentSet(incidents);
 * set.findFirst({ Severity: { $in: ["High"] }, Status: "Open" }) //=> the earliest open high incident
 */
export class IncidentSet<T extends object = Record<string, unknown>> {
  private records: RecordStore<T> = new ArrayRecords<T>();
  private readonly parseOptions: ParseOptions;
  private readonly compileOptions: CompileOptions;
  private readonly dictionaries = new Map<string, DictionaryColumn>();
  private readonly dates = new Map<string, DateColumn>();
  private readonly hashes = new Map<string, HashIndex>();
  /** Every field read on add, once. */
  private readonly fields: string[];
  /** One value per `fields` entry, reused by `insert`. */
  private readonly scratch: unknown[] = [];
  /** Per `fields` entry: its columns and index (built on the first insert; reset when one is added). */
  private targets:
    | {
        dictionary: DictionaryColumn | undefined;
        text: TextColumn | undefined;
        date: DateColumn | undefined;
        hash: HashIndex | undefined;
      }[]
    | undefined;
  private readonly orderColumn: DateColumn;
  private capacity: number;
  /** Per row: `CreatedUtcTime` in ms, +Infinity when not a valid date (the order's first key). */
  private timeKey: Float64Array;
  /** Per row: `IncidentId` when a finite number, else +Infinity (the order's second key). */
  private idKey: Float64Array;
  /** Rows in creation order (docs/semantics.md 1.9), and each row's position in it. */
  private order: Int32Array = new Int32Array(0);
  private rank: Int32Array = new Int32Array(0);
  private ordered = 0;
  private readonly maxDictionary: number;
  private readonly storage: Storage;
  /** Text columns of dictionary fields that outgrew `maxDictionary` (text-index.ts). */
  private readonly texts = new Map<string, TextColumn>();
  /** The bytes the trigram indexes may still take; undefined when the text index is off. */
  private readonly textBudget: { remaining: number } | undefined;
  private readonly textLimit: number;

  /**
   * Builds a set from incident records.
   * @param incidents - incident records (objects; kept by reference, never modified)
   * @param options - catalogue and limits for raw JSON, column and index choices, predicate options
   * @throws {TypeError} when a record is not a non-array object, or an option is malformed or unknown
   *   (see `validateIncidentSetOptions`: each message names the option, what was expected and what was found)
   * @throws {RangeError} when `maxDictionary` or a limit is not an integer ≥ 0
   */
  constructor(incidents: Iterable<T> = [], options: IncidentSetOptions = {}) {
    validateIncidentSetOptions(options);
    const catalog = options.catalog ?? DEFAULT_CATALOG;
    this.parseOptions = {
      ...(options.catalog === undefined ? {} : { catalog: options.catalog }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    };
    this.compileOptions = options.compile ?? {};
    this.maxDictionary = options.maxDictionary ?? DEFAULT_MAX_DICTIONARY;
    const textIndex = options.textIndex ?? true;
    this.textLimit =
      textIndex === false
        ? 0
        : textIndex === true
          ? DEFAULT_TEXT_INDEX_BYTES
          : (textIndex.maxBytes ?? DEFAULT_TEXT_INDEX_BYTES);
    this.textBudget = textIndex === false ? undefined : { remaining: this.textLimit };
    const list = Array.isArray(incidents) ? (incidents as T[]) : [...incidents];
    this.capacity = Math.max(16, list.length);
    const hashFields = options.hashFields ?? DEFAULT_HASH_FIELDS;
    for (const field of hashFields) this.hashes.set(field, new HashIndex(field));
    const dictionaryFields =
      options.dictionaryFields ??
      Object.entries(catalog.fields)
        .filter(([name, spec]) => (spec.kind === "text" || spec.kind === "enum") && !name.includes("."))
        .map(([name]) => name)
        .filter((name) => !this.hashes.has(name));
    for (const field of dictionaryFields) {
      this.dictionaries.set(field, new DictionaryColumn(field, this.capacity, this.maxDictionary));
    }
    const dateFields = Object.entries(catalog.fields)
      .filter(([name, spec]) => spec.kind === "date" && !name.includes("."))
      .map(([name]) => name);
    if (!dateFields.includes(ORDER_FIELD)) dateFields.push(ORDER_FIELD);
    for (const field of dateFields) this.dates.set(field, new DateColumn(field, this.capacity));
    this.orderColumn = this.dates.get(ORDER_FIELD)!;
    this.fields = [
      ...new Set([...this.dictionaries.keys(), ...this.dates.keys(), ...this.hashes.keys(), ID_FIELD]),
    ];
    this.timeKey = new Float64Array(this.capacity);
    this.idKey = new Float64Array(this.capacity);
    const set = this;
    this.storage = {
      get size() {
        return set.records.length;
      },
      dictionary: (field) => {
        const column = this.dictionaries.get(field);
        return column === undefined || column.dropped ? undefined : column;
      },
      date: (field) => this.dates.get(field),
      postings: (column) => column.rowPostings(this.records.length),
      hash: (field) => this.hashes.get(field),
      text: (field) => this.texts.get(field),
    };
    list.forEach((incident, index) => {
      this.insert(incident, index);
    });
  }

  /** Number of incidents in the set. */
  get size(): number {
    return this.records.length;
  }

  /**
   * Adds an incident: its fields are read once (own properties, data or accessor, as the reference reads them) into the
   * columns; the object itself is kept, unchanged.
   * @param incident - the incident record
   * @returns this set
   * @throws {TypeError} when `incident` is not a non-array object
   */
  add(incident: T): this {
    if (
      this.records.compact &&
      typeof incident === "object" &&
      incident !== null &&
      !Array.isArray(incident)
    ) {
      // A compact set keeps the record's JSON form: the columns read that form too.
      this.insert(JSON.parse(JSON.stringify(incident)) as T, this.records.length);
    } else this.insert(incident, this.records.length);
    return this;
  }

  /**
   * Builds a compact set from NDJSON (one incident object per line; issue 14): the columns are built as the
   * lines are read, and each record is kept as the bytes of its line (about its JSON size, outside the
   * JavaScript heap) instead of as an object, so that millions of incidents fit in one process
   * (docs/performance.md, "Compact sets"). The indexed fields are read straight from each line's bytes;
   * a line the byte reader cannot read exactly as `JSON.parse` would (an escaped key, a byte order mark,
   * non-JSON, invalid UTF-8) goes through `JSON.parse`, so values and errors are always `JSON.parse`'s. The
   * hash indexes (`hashFields`) hold 32-bit hashes in typed arrays, and every row they name is checked
   * against its kept line, so lookups answer exactly as a set of objects does.
   *
   * Records are materialized on demand: `findFirst` and `findAll` return fresh objects, parsed from the
   * kept line, on every call. Conditions the columns cannot decide parse the rows they examine, so prefer
   * conditions on indexed fields on a compact set. Otherwise the set behaves exactly as
   * `new IncidentSet(records)` built from the parsed lines; `add` keeps an incident's `JSON.stringify`
   * form. The distinct values of dictionary and text columns stay on the heap (about 100 bytes each, with
   * the text index on; `textIndex: false` drops high-cardinality fields instead).
   *
   * Lines: `\n` ends a line; spaces, tabs and `\r` around it are dropped (CRLF); a line left blank is
   * skipped but counted; a last line without `\n` counts; a line may span any number of chunks (joined in
   * linear time); a byte order mark at the start of a line is dropped, as `TextDecoder` drops it.
   *
   * The engine reads no files: open the source and pass the stream, e.g.
   * `IncidentSet.fromNdjson(fs.createReadStream("incidents.ndjson"))`.
   * @param source - chunks of NDJSON as bytes (UTF-8) or strings: a readable stream, an async iterable or an
   *   iterable; a chunk's buffer may be reused by its producer once the next chunk is asked for
   * @param options - as for the constructor
   * @returns the set, once the source is exhausted
   * @throws {SyntaxError} (rejects) when a line is not valid UTF-8 or not JSON: `NDJSON line N: ` and the
   *   decoder's or `JSON.parse`'s message
   * @throws {TypeError} (rejects) when a line holds JSON other than an object (`NDJSON line N: expected an
   *   incident object, found …`), a chunk is neither a string nor a `Uint8Array`, or an option is malformed
   *   (see the constructor)
   * @throws {RangeError} (rejects) when an option is out of range (see the constructor), or the lines
   *   exceed 511 GiB
   * @example const set = await IncidentSet.fromNdjson(createReadStream("incidents.ndjson"));
   */
  static async fromNdjson<R extends object = Record<string, unknown>>(
    source: NdjsonSource,
    options: IncidentSetOptions = {},
  ): Promise<IncidentSet<R>> {
    const set = new IncidentSet<R>([], options);
    const records = new CompactRecords<R>();
    set.records = records;
    // Equality indexes in typed arrays, verified against the kept lines (record-store.ts).
    for (const field of set.hashes.keys()) {
      set.hashes.set(field, new CompactHashIndex(field, (row) => records.field(row, field)));
    }
    set.targets = undefined;
    const fields = set.fields;
    const scanner = new LineScanner(fields);
    const values: unknown[] = new Array(fields.length);
    const decoder = new TextDecoder("utf-8", { fatal: true });
    await readNdjson(
      source,
      (buffer, start, end, line) => {
        // The indexed fields straight from the bytes; JSON.parse for what the scanner leaves to it (and for
        // every error, whose message is JSON.parse's or the decoder's).
        if (!scanner.scan(buffer, start, end, values)) {
          let record: unknown;
          try {
            record = JSON.parse(decoder.decode(buffer.subarray(start, end)));
          } catch (error) {
            throw new SyntaxError(
              `NDJSON line ${line}: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          if (typeof record !== "object" || record === null || Array.isArray(record)) {
            throw new TypeError(
              `NDJSON line ${line}: expected an incident object, found ${describe(record)}.`,
            );
          }
          for (let k = 0; k < fields.length; k++) values[k] = ownDataValue(record, fields[k]!);
        }
        set.insertValues(values);
        records.pushBytes(buffer, start, end);
      },
      () => records.flush(),
    );
    for (const index of set.hashes.values()) if (index instanceof CompactHashIndex) index.prepare();
    return set;
  }

  private insert(incident: T, position: number): void {
    if (typeof incident !== "object" || incident === null || Array.isArray(incident)) {
      throw new TypeError(
        `Expected an incident object at position ${position}, found ${describe(incident)}.`,
      );
    }
    const values = this.scratch;
    for (let k = 0; k < this.fields.length; k++) {
      try {
        values[k] = ownDataValue(incident, this.fields[k]!);
      } catch {
        values[k] = []; // a hostile Proxy: the columns say "unknown", the row predicate decides
      }
    }
    this.insertValues(values);
    this.records.push(incident);
  }

  /**
   * Writes the next row's values (one per `fields` entry, as `ownDataValue` reads them) into the columns;
   * the caller then keeps the record in `records`.
   */
  private insertValues(values: readonly unknown[]): void {
    const row = this.records.length;
    if (row >= this.capacity) {
      this.capacity = Math.ceil(this.capacity * 1.5) + 16;
      this.timeKey = growFloat(this.timeKey, this.capacity);
      this.idKey = growFloat(this.idKey, this.capacity);
    }
    // The columns of each field, looked up once (until a text column appears).
    let targets = this.targets;
    if (targets === undefined) {
      targets = this.fields.map((field) => ({
        dictionary: this.dictionaries.get(field),
        text: this.texts.get(field),
        date: this.dates.get(field),
        hash: this.hashes.get(field),
      }));
      this.targets = targets;
    }
    const capacity = this.capacity;
    for (let k = 0; k < targets.length; k++) {
      const value = values[k];
      const { dictionary, date, hash } = targets[k]!;
      let text = targets[k]!.text;
      if (dictionary !== undefined && !dictionary.dropped) {
        if (this.textBudget !== undefined && this.overflows(dictionary, value)) {
          text = TextColumn.fromDictionary(dictionary, row, capacity, this.textBudget);
          this.texts.set(this.fields[k]!, text);
          this.targets = undefined;
        }
        dictionary.set(row, value, capacity);
      }
      text?.set(row, value, capacity);
      date?.set(row, value, capacity);
      hash?.set(row, value);
    }
    const id = values[this.fields.indexOf(ID_FIELD)];
    const orderState = this.orderColumn.states[row];
    this.timeKey[row] = orderState === DATE_VALUE ? this.orderColumn.ms[row]! : Number.POSITIVE_INFINITY;
    this.idKey[row] = typeof id === "number" && Number.isFinite(id) ? id : Number.POSITIVE_INFINITY;
  }

  /** True when `value` is a new scalar that a full dictionary column would be dropped for. */
  private overflows(column: DictionaryColumn, value: unknown): boolean {
    return (
      (typeof value === "string" || typeof value === "number" || typeof value === "boolean") &&
      column.values.length - 3 >= this.maxDictionary &&
      column.codeOf(value) === undefined
    );
  }

  /**
   * Brings the indexes up to date before a budgeted search. Index maintenance (the creation order after
   * adds) is not interrupted: it depends on the set, not on the condition, and its result is kept; the
   * clock is read once it is done.
   */
  private prepare(timer: BudgetTimer): void {
    this.ensureOrdered();
    timer.check();
  }

  /** Brings the creation order up to date with the added rows (sort the new rows, merge). */
  private ensureOrdered(): void {
    const size = this.records.length;
    if (this.ordered === size) return;
    const pending = new Int32Array(size - this.ordered);
    for (let i = 0; i < pending.length; i++) pending[i] = this.ordered + i;
    const sorted = sortRows(pending, this.timeKey, this.idKey);
    this.order = this.ordered === 0 ? sorted : mergeRows(this.order, sorted, this.timeKey, this.idKey);
    const rank = new Int32Array(size);
    for (let j = 0; j < size; j++) rank[this.order[j]!] = j;
    this.rank = rank;
    this.ordered = size;
  }

  /**
   * Finds the first incident that matches (docs/semantics.md 1.9): the earliest `CreatedUtcTime`; incidents
   * without a valid one after all dated ones; ties by `IncidentId` ascending (incidents without a numeric
   * `IncidentId` after those with one), then by insertion order.
   * @param conditions - a parsed Condition or raw Search Conditions JSON
   * @param budget - optional time budget (`maxTimeMS` with a `clock`; docs/semantics.md 1.7): the clock is read
   *   at the start and at least once every 1,024 records examined
   * @returns the matching incident (the caller's object), or undefined
   * @throws {SearchConditionsError} when raw JSON is invalid; `.issues` lists every problem
   * @throws {SearchTimeoutError} when the search runs past `budget.maxTimeMS`
   * @throws {TypeError} when the budget is malformed (see `startBudget`)
   * @example set.findFirst({ Number: "20240301-17" }) //=> { IncidentId: 101, Number: "20240301-17", … }
   */
  findFirst(conditions: Condition | unknown, budget?: SearchBudget): T | undefined {
    const timer = startBudget(budget);
    const condition = toCondition(conditions, this.parseOptions);
    this.prepare(timer);
    const row = this.firstRow(condition, timer).run();
    return row < 0 ? undefined : this.records.get(row);
  }

  /**
   * Finds every incident that matches, in the order of `findFirst` (docs/semantics.md 1.9).
   * @param conditions - a parsed Condition or raw Search Conditions JSON
   * @param budget - optional time budget, as for `findFirst` (docs/semantics.md 1.7)
   * @returns the matching incidents (the caller's objects); an empty array when none
   * @throws {SearchConditionsError} when raw JSON is invalid
   * @throws {SearchTimeoutError} when the search runs past `budget.maxTimeMS`
   * @throws {TypeError} when the budget is malformed (see `startBudget`)
   */
  findAll(conditions: Condition | unknown, budget?: SearchBudget): T[] {
    const timer = startBudget(budget);
    const condition = toCondition(conditions, this.parseOptions);
    this.prepare(timer);
    const rows = this.matchingRows(condition, timer);
    const out: T[] = new Array(rows.length);
    for (let k = 0; k < rows.length; k++) out[k] = this.records.get(rows[k]!);
    return out;
  }

  /**
   * Counts the incidents that match.
   * @param conditions - a parsed Condition or raw Search Conditions JSON
   * @param budget - optional time budget, as for `findFirst` (docs/semantics.md 1.7)
   * @returns the number of matching incidents
   * @throws {SearchConditionsError} when raw JSON is invalid
   * @throws {SearchTimeoutError} when the search runs past `budget.maxTimeMS`
   * @throws {TypeError} when the budget is malformed (see `startBudget`)
   */
  count(conditions: Condition | unknown, budget?: SearchBudget): number {
    const timer = startBudget(budget);
    const condition = toCondition(conditions, this.parseOptions);
    const plan = buildPlan(condition, this.storage, timer);
    // Histogram answers: one dictionary leaf with no row it cannot decide.
    if (plan instanceof DictionaryLeaf && plan.unknownCount === 0) return plan.trueCount;
    // A text-index leaf alone: the histogram of its accepted values.
    if (plan instanceof TextLeaf && plan.unknownCount === 0) return plan.trueCount();
    this.prepare(timer);
    // A CreatedUtcTime range alone: the length of its segment of the creation order.
    if (this.countsBySegment(plan)) {
      const [from, to] = this.segment(plan.interval!);
      return to - from;
    }
    const predicate = compile(condition, this.compileOptions);
    const small = this.candidatePath(plan, predicate, timer);
    if (small !== undefined) return small.length;
    if (plan instanceof ResidualLeaf) {
      // No column answers any part: the compiled row scan itself, without selection bitsets.
      const records = this.records;
      let total = 0;
      for (let row = 0; row < records.length; row++) {
        timer.tick();
        if (predicate(records.peek(row))) total++;
      }
      return total;
    }
    return popcount(this.denseMatches(plan, predicate, timer));
  }

  /**
   * How the set answers a query: the access path of `findFirst` and the column plan of `count`/`findAll`.
   * @throws {SearchConditionsError} when raw JSON is invalid
   */
  explain(conditions: Condition | unknown): IncidentSetPlan {
    const condition = toCondition(conditions, this.parseOptions);
    this.ensureOrdered();
    const plan = buildPlan(condition, this.storage);
    return {
      findFirst: this.firstRow(condition, startBudget(undefined)).name,
      columns: plan.describe(),
      count: this.denseOrCandidates(plan, true),
      findAll: this.denseOrCandidates(plan, false),
    };
  }

  /** Bytes held by the set's typed arrays, and entries of its hash indexes (for memory reports). */
  footprint(): IncidentSetFootprint {
    let bytes =
      this.timeKey.byteLength + this.idKey.byteLength + this.order.byteLength + this.rank.byteLength;
    for (const column of this.dictionaries.values()) bytes += column.bytes();
    for (const column of this.dates.values()) bytes += column.bytes();
    let textIndexBytes = 0;
    for (const column of this.texts.values()) {
      bytes += column.bytes();
      textIndexBytes += column.gramBytes();
    }
    let entries = 0;
    for (const index of this.hashes.values()) {
      entries += index.size;
      if (index instanceof CompactHashIndex) bytes += index.bytes();
    }
    return {
      typedArrayBytes: bytes,
      hashEntries: entries,
      textIndexBytes,
      textIndexLimit: this.textLimit,
      recordBytes: this.records.bytes(),
    };
  }

  // -------------------------------------------------------------------------------------------------------
  // findFirst

  /**
   * Chooses the cheapest access path for the first match of `condition`: a hash lookup, a walk of the
   * creation order, or a walk of per-label postings in creation order. A `CreatedUtcTime` interval in the
   * conjunction narrows both walks to its segment of the order (rows whose `CreatedUtcTime` holds an array,
   * which sort with the undated, are checked after the segment).
   */
  private firstRow(condition: Condition, timer: BudgetTimer): AccessPath {
    if (condition.kind === "or" && condition.children.length > 1) {
      const paths = condition.children.map((child) => this.firstRow(child, timer));
      return {
        name: `union(${paths.map((p) => p.name).join(", ")})`,
        cost: paths.reduce((sum, p) => sum + p.cost, 0),
        run: () => {
          let best = -1;
          for (const path of paths) {
            const row = path.run();
            if (row >= 0 && (best < 0 || this.rank[row]! < this.rank[best]!)) best = row;
          }
          return best;
        },
      };
    }
    const size = this.records.length;
    const plan = buildPlan(condition, this.storage, timer);
    const predicate = compile(condition, this.compileOptions);
    const records = this.records;
    const verify = (row: number): boolean => {
      timer.tick();
      const answer = plan.row(row);
      return answer === TRUE || (answer === UNKNOWN && predicate(records.peek(row)));
    };
    const leaves = conjuncts(plan);
    // The window of the creation order, and the selectivity of everything else.
    let from = 0;
    let to = size;
    let windowed = false;
    let rest = 1;
    for (const leaf of leaves) {
      if (leaf instanceof DateLeaf && leaf.column === this.orderColumn && leaf.interval !== undefined) {
        const [a, b] = this.segment(leaf.interval);
        from = Math.max(from, a);
        to = Math.min(to, b);
        windowed = true;
      } else rest *= leaf.estimate;
    }
    to = Math.max(from, to);
    rest = Math.max(rest, 1 / Math.max(size, 1));
    const tail = windowed && this.orderColumn.counts[DATE_COMPLEX]! > 0;
    const finish = (row: number): number =>
      row >= 0 || !tail ? row : this.firstOf(this.orderColumn.complexRows, verify);
    const window = to - from;
    const paths: AccessPath[] = [
      {
        name: windowed ? `date-range ${ORDER_FIELD}` : "scan",
        cost: Math.min(window, 1 / rest) + (tail ? this.orderColumn.counts[DATE_COMPLEX]! : 0),
        run: () => finish(this.scanFirst(from, to, verify)),
      },
    ];
    for (const leaf of leaves) {
      if (leaf instanceof HashLeaf && leaf.positive) {
        const candidates = leaf.candidates();
        // Verified by the whole predicate (the hash only narrows; its row() would build bitsets).
        paths.push({
          name: `hash ${leaf.index.field}`,
          cost: candidates.length,
          run: () =>
            this.firstOf(candidates, (row) => {
              timer.tick();
              return predicate(records.peek(row));
            }),
        });
      } else if (leaf instanceof TextLeaf && leaf.rejectsSpecial()) {
        // The rows of the accepted values (the pattern tested once per candidate value), then those the
        // column cannot decide; each verified by the whole plan.
        paths.push({
          name: `text-index ${leaf.column.field}`,
          cost: 2 * size * leaf.estimate + leaf.column.complexRows.length,
          run: () => {
            const best = this.firstOf(leaf.acceptedRows(), verify);
            const complex = this.firstOf(leaf.column.complexRows, verify);
            return best < 0 || (complex >= 0 && this.rank[complex]! < this.rank[best]!) ? complex : best;
          },
        });
      } else if (leaf instanceof DictionaryLeaf && leaf.accept[0] === 0 && leaf.estimate > 0) {
        const entries = window * leaf.estimate;
        const others = Math.max(rest / leaf.estimate, 1 / Math.max(size, 1));
        paths.push({
          name: `postings ${leaf.column.field}${windowed ? ` in date-range ${ORDER_FIELD}` : ""}`,
          cost: 2 * Math.min(entries, 1 / others) + 4 * leaf.acceptedCodes().length,
          run: () => finish(this.postingsFirst(leaf, verify, from, to)),
        });
      }
    }
    let best = paths[0]!;
    for (const path of paths) if (path.cost < best.cost) best = path;
    return best;
  }

  /** The first row of the creation order in positions [from, to) that `verify` accepts, or -1. */
  private scanFirst(from: number, to: number, verify: (row: number) => boolean): number {
    const order = this.order;
    for (let j = from; j < to; j++) {
      const row = order[j]!;
      if (verify(row)) return row;
    }
    return -1;
  }

  /** The earliest (by rank) of `rows` that `verify` accepts, or -1. */
  private firstOf(rows: ArrayLike<number>, verify: (row: number) => boolean): number {
    let best = -1;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k]!;
      if ((best < 0 || this.rank[row]! < this.rank[best]!) && verify(row)) best = row;
    }
    return best;
  }

  /**
   * Walks the postings of the accepted codes merged in creation order, from position `from` up to `to` of
   * the order; the first verified row, or -1.
   */
  private postingsFirst(
    leaf: DictionaryLeaf,
    verify: (row: number) => boolean,
    from: number,
    to: number,
  ): number {
    const { offsets, rows } = leaf.column.postings(this.order, this.records.length);
    const rank = this.rank;
    const codes = leaf.acceptedCodes();
    const heads: number[] = [];
    const ends: number[] = [];
    for (const code of codes) {
      // Postings are in creation order: binary-search the first entry at or after `from`.
      let lo = offsets[code]!;
      let hi = offsets[code + 1]!;
      ends.push(hi);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (rank[rows[mid]!]! < from) lo = mid + 1;
        else hi = mid;
      }
      heads.push(lo);
    }
    for (;;) {
      let pick = -1;
      let pickRank = to;
      for (let k = 0; k < codes.length; k++) {
        if (heads[k]! < ends[k]!) {
          const r = rank[rows[heads[k]!]!]!;
          if (r < pickRank) {
            pickRank = r;
            pick = k;
          }
        }
      }
      if (pick < 0) return -1;
      const row = rows[heads[pick]!]!;
      heads[pick]!++;
      if (verify(row)) return row; // verify ticks the budget
    }
  }

  /** Positions [from, to) of the creation order whose `CreatedUtcTime` lies in the interval. */
  private segment(interval: NonNullable<DateLeaf["interval"]>): [number, number] {
    const dated = this.orderColumn.counts[DATE_VALUE]!;
    const { order, timeKey } = this;
    const lowerBound = (test: (t: number) => boolean): number => {
      // First position in [0, dated) whose time passes `test` (monotone).
      let lo = 0;
      let hi = dated;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (test(timeKey[order[mid]!]!)) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    const from = interval.loInclusive
      ? lowerBound((t) => t >= interval.lo)
      : lowerBound((t) => t > interval.lo);
    const to = interval.hiInclusive
      ? lowerBound((t) => t > interval.hi)
      : lowerBound((t) => t >= interval.hi);
    return [from, Math.max(from, to)];
  }

  // -------------------------------------------------------------------------------------------------------
  // count / findAll

  /** Matching rows in creation order. */
  private matchingRows(condition: Condition, timer: BudgetTimer): Int32Array | number[] {
    const plan = buildPlan(condition, this.storage, timer);
    const predicate = compile(condition, this.compileOptions);
    const small = this.candidatePath(plan, predicate, timer);
    if (small !== undefined) return small;
    const bits = this.denseMatches(plan, predicate, timer);
    // Into creation order: set each match's position in the order, then read the positions ascending
    // (O(matches + rows / 32), no sort).
    const rows = bitsToRows(bits);
    const positions = emptyBitset(this.records.length);
    const rank = this.rank;
    for (let k = 0; k < rows.length; k++) setBit(positions, rank[rows[k]!]!);
    timer.tick(rows.length);
    const ordered = bitsToRows(positions);
    const order = this.order;
    for (let k = 0; k < ordered.length; k++) ordered[k] = order[ordered[k]!]!;
    timer.tick(ordered.length);
    return ordered;
  }

  /** Column evaluation over bitsets; undecided rows go to the row predicate. */
  private denseMatches(plan: PlanNode, predicate: Predicate, timer: BudgetTimer) {
    return resolveUnknown(plan.dense(null), (row) => predicate(this.records.peek(row)), timer);
  }

  /**
   * When a conjunct narrows the rows to a few candidates (a hash lookup, or a short `CreatedUtcTime`
   * segment), the matching rows in creation order by verifying just those; otherwise undefined.
   */
  private candidatePath(plan: PlanNode, predicate: Predicate, timer: BudgetTimer): number[] | undefined {
    const verify = (row: number): boolean => {
      timer.tick();
      const answer = plan.row(row);
      return answer === TRUE || (answer === UNKNOWN && predicate(this.records.peek(row)));
    };
    const best = this.candidateChoice(plan);
    if (best === undefined) return undefined;
    if (best.kind === "hash") {
      const rows = best.leaf.candidates().filter((row) => {
        timer.tick();
        return predicate(this.records.peek(row));
      });
      return rows.sort((a, b) => this.rank[a]! - this.rank[b]!);
    }
    const rows: number[] = [];
    for (let j = best.from; j < best.to; j++) {
      const row = this.order[j]!;
      if (verify(row)) rows.push(row);
    }
    const complex = this.orderColumn.complexRows.filter(verify);
    complex.sort((a, b) => this.rank[a]! - this.rank[b]!);
    return rows.concat(complex);
  }

  /** The candidate list `candidatePath` walks, if a conjunct narrows the rows enough (the creation order must be current). */
  private candidateChoice(
    plan: PlanNode,
  ):
    | { kind: "hash"; leaf: HashLeaf; cost: number }
    | { kind: "date"; from: number; to: number; cost: number }
    | undefined {
    const limit = Math.max(64, this.records.length / 64);
    let best:
      | { kind: "hash"; leaf: HashLeaf; cost: number }
      | { kind: "date"; from: number; to: number; cost: number }
      | undefined;
    for (const leaf of conjuncts(plan)) {
      if (leaf instanceof HashLeaf && leaf.positive) {
        const cost = leaf.hits.length + leaf.index.arrayRows.length;
        if (cost <= limit && (best === undefined || cost < best.cost)) best = { kind: "hash", leaf, cost };
      } else if (
        leaf instanceof DateLeaf &&
        leaf.column === this.orderColumn &&
        leaf.interval !== undefined
      ) {
        const [from, to] = this.segment(leaf.interval);
        const cost = to - from + this.orderColumn.counts[DATE_COMPLEX]!;
        if (cost <= limit && (best === undefined || cost < best.cost))
          best = { kind: "date", from, to, cost };
      }
    }
    return best;
  }

  /** What `explain` reports of `findAll` (and, with `counting`, of `count`): see `IncidentSetPlan`. */
  private denseOrCandidates(plan: PlanNode, counting: boolean): string {
    if (counting) {
      if (plan instanceof DictionaryLeaf && plan.unknownCount === 0) return "histogram";
      if (plan instanceof TextLeaf && plan.unknownCount === 0) return "histogram text-index";
      if (this.countsBySegment(plan)) return `segment ${ORDER_FIELD}`;
    }
    const choice = this.candidateChoice(plan);
    if (choice !== undefined) {
      return choice.kind === "hash"
        ? `candidates hash ${choice.leaf.index.field}`
        : `candidates date-range ${ORDER_FIELD}`;
    }
    return plan instanceof AndPlan ? `columns: ${plan.strategy()}` : "columns";
  }

  /** True when `count` answers by the length of a `CreatedUtcTime` segment of the creation order. */
  private countsBySegment(plan: PlanNode): plan is DateLeaf {
    return (
      plan instanceof DateLeaf &&
      plan.column === this.orderColumn &&
      plan.interval !== undefined &&
      this.orderColumn.counts[DATE_COMPLEX] === 0
    );
  }
}

function growFloat(array: Float64Array, capacity: number): Float64Array {
  const next = new Float64Array(capacity);
  next.set(array);
  return next;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
