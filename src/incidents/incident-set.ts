/**
 * `IncidentSet`: a large in-memory collection of incidents that answers "the first incident that matches"
 * (docs/semantics.md 1.9) in microseconds, and counts or lists matches by scanning columns.
 *
 * Layout: the caller's records (objects, never modified, or a compact store of their JSON lines: ndjson.ts)
 * plus columns built once per incident on `add` (columns.ts): dictionary-encoded scalar fields, catalogue
 * date fields as epoch ms, hash indexes on the selective fields (`Number`, `ExternalKey`, `IncidentId`),
 * text columns for fields past `maxDictionary` (text/index.ts), and the creation order (order.ts).
 *
 * Queries: this class reads the input and delegates. The planner (plan/index.ts) turns the condition into
 * column operators and chooses the access path of each method (`firstPath` for `findFirst`, `denseChoice`
 * for `count` and `findAll`; `explain` reports the same choices). No path takes a row as matching on an
 * index's word alone when the index cannot decide it (an array, an object, an unreadable value): such rows
 * are re-checked by the compiled row predicate, so every answer is `evaluate`'s (SECURITY.md, "Searches over
 * a collection").
 *
 * Every search takes an optional time budget (docs/semantics.md 1.7): the plan and every scan loop tick the
 * budget's timer, which reads the caller's clock at least every 1,024 records, and so does the walk of a
 * dotted path inside one record's check (`underWalkBudget`: one record per 256 values examined).
 *
 * Records must not be modified after they are added: the columns hold what they contained then.
 */

import type { Condition } from "../conditions/ast.js";
import { DEFAULT_CATALOG } from "../conditions/catalog.js";
import { type CompileOptions, compile } from "../conditions/compile.js";
import { duplicateKeyMessage, findDuplicateKey } from "../conditions/json-duplicate-keys.js";
import { underWalkBudget } from "../conditions/leaf.js";
import type { ParseOptions } from "../conditions/options.js";
import { conjunctionOf, parseSearchConditions } from "../conditions/parse.js";
import type { SearchConditionsInput } from "../conditions/print.js";
import type { BlockKernelFactory } from "./block-kernel.js";
import {
  DATE_VALUE,
  DateColumn,
  DEFAULT_MAX_DICTIONARY,
  DictionaryColumn,
  HashIndex,
  ownDataValue,
} from "./columns.js";
import { toCondition } from "./condition-input.js";
import { FIELD_ASCII, FIELD_VALUE, LineScanner, SCAN_OK } from "./line-scanner.js";
import {
  isByteReader,
  type LineSink,
  type NdjsonByteReader,
  type NdjsonSource,
  readNdjson,
  readNdjsonInPlace,
  splitLines,
} from "./ndjson.js";
import {
  type LabelPart,
  lineError,
  type NdjsonPart,
  PACKED_CHARS,
  packValues,
  unpackValues,
} from "./ndjson-parts.js";
import { CreationOrder, ID_FIELD, ORDER_FIELD } from "./order.js";
import { buildPlan, denseChoice, firstPath, type RowCheck, type Storage } from "./plan/index.js";
import { ArrayRecords, CompactHashIndex, CompactRecords, type RecordStore } from "./record-store.js";
import { type BudgetTimer, startBudget } from "./search-budget.js";
import {
  DEFAULT_SITE_FIELD,
  type IncidentSetOptions,
  type SearchOptions,
  searchSite,
  validateIncidentSetOptions,
} from "./set-options.js";
import { DEFAULT_TEXT_INDEX_BYTES, TextColumn } from "./text/index.js";

/** Sets built with at least this many incidents build their text indexes in the constructor. */
const EAGER_TEXT_INDEX_ROWS = 50_000;

/** The fields with a hash index by default: the selective equality fields. */
export const DEFAULT_HASH_FIELDS: readonly string[] = ["Number", "ExternalKey", "IncidentId"];

export type { IncidentSetOptions, SearchOptions } from "./set-options.js";

/** Site conditions a set keeps parsed (`{ site }` searches); past it the cache starts over. */
const MAX_SITE_CONDITIONS = 256;

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
   * `fused code bitsets`, `fused scan`, `fused scan with dates`, `column scans`; for an OR or NOT of labels
   * only, `label bitsets` (docs/performance.md, "Label expressions"); when a `$regex` on a text
   * column runs last, row by row, on the rows the other children leave: `segment CreatedUtcTime, then per
   * row text <field> (…)` or `<strategy of the others>, then per row text <field> (…)`; docs/performance.md,
   * "Text conditions in a conjunction"). Rows the columns cannot decide always go to the row predicate.
   */
  readonly count: string;
  /** How `findAll` answers: as `count`, without `histogram` and `segment`. */
  readonly findAll: string;
}

/** The column layout's size in bytes, for memory reports (typed arrays only; dictionary strings are shared). */
export interface IncidentSetFootprint {
  /**
   * Bytes of every typed array of the set (columns, order, text columns and their tables of value ids, text
   * indexes, and the hash indexes of a compact set), plus two figures of the heap: 8 bytes per distinct
   * value of a text column, and a text index's corpus (its distinct values joined in a string, and its
   * lowercased copy once built).
   */
  readonly typedArrayBytes: number;
  readonly hashEntries: number;
  /**
   * Bytes of the text indexes built so far (corpus of distinct values and its lowercased copy, offsets,
   * trigram lists; part of `typedArrayBytes`; 0 when none is built: in a set read by `fromNdjson`, until the
   * first query that reads one, docs/semantics.md, "The text index").
   */
  readonly textIndexBytes: number;
  /** The bound of `textIndexBytes` (the `textIndex.maxBytes` option; 0 when the text index is off). */
  readonly textIndexLimit: number;
  /**
   * Bytes of the records a compact set keeps (`fromNdjson`: their JSON lines and offsets, outside the
   * JavaScript heap); 0 when the set keeps the caller's objects.
   */
  readonly recordBytes: number;
  /**
   * Bytes of the JavaScript heap held by the copy of the records' references in creation order that
   * `findAll` keeps after an answer of at least a sixteenth of the rows (8 bytes a row; 0 before, after an
   * `add` changed the order and the next `findAll`, and always for a compact set).
   */
  readonly orderedRecordBytes: number;
}

/** How `IncidentSet.fromNdjson` reads its bytes (beside the set's options). */
export interface NdjsonReading {
  /**
   * A block kernel (the Node side's WebAssembly SIMD line kernel, `lineKernel()`) that reads each chunk's
   * lines before the JavaScript scanner, with the same answers (docs/semantics.md 1.7, "The byte reader").
   */
  readonly kernel?: BlockKernelFactory;
  /**
   * Ends the build early (docs/semantics.md 1.7, "Ending a build early"): `fromNdjson` rejects with the
   * signal's reason and returns no set. Checked before the first read and after each chunk's or read's
   * lines (no clock is read), and a wait for the next chunk or read ends at an abort; a stream's iterator is
   * then ended (a Node stream is destroyed), a byte reader is left open (its caller closes it).
   */
  readonly signal?: AbortSignal;
}

/**
 * An indexed, in-memory set of incidents (docs/architecture.md). Each query method takes a `Condition` or
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
  /**
   * The fields read on add, each once, in the order they are read: every dictionary, date and hash field,
   * and `IncidentId` (the order's second key).
   */
  private readonly fields: string[];
  /** The position of `IncidentId` (the order's second key) in `fields`. */
  private readonly idIndex: number;
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
  /** The creation order (docs/semantics.md 1.9): each row's sort keys, the sorted rows and their ranks. */
  private readonly creation: CreationOrder;
  private readonly maxDictionary: number;
  private readonly storage: Storage;
  /** Text columns of dictionary fields that outgrew `maxDictionary` (text/index.ts). */
  private readonly texts = new Map<string, TextColumn>();
  /** The bytes the text indexes may still take; undefined when the text index is off. */
  private readonly textBudget: { remaining: number } | undefined;
  private readonly textLimit: number;
  /** The row check of each condition object a query used (`Storage.check`); dropped with the condition. */
  private readonly checks = new WeakMap<Condition, RowCheck>();
  /** The field that names an incident's site (`siteField`): always a dictionary column. */
  private readonly siteField: string;
  /** `{ siteField: { $eq: site } }`, parsed, by site (at most `MAX_SITE_CONDITIONS`). */
  private readonly siteConditions = new Map<string, Condition>();
  /** A condition AND its site's, by condition and site, so that a repeated query reuses its row check. */
  private readonly withinSite = new WeakMap<Condition, Map<string, Condition>>();

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
    // The site field is one more label (docs/semantics.md 1.9, "Within a site").
    this.siteField = options.siteField ?? DEFAULT_SITE_FIELD;
    const labelFields =
      dictionaryFields.includes(this.siteField) || this.hashes.has(this.siteField)
        ? dictionaryFields
        : [...dictionaryFields, this.siteField];
    for (const field of labelFields) {
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
    this.idIndex = this.fields.indexOf(ID_FIELD);
    this.creation = new CreationOrder(this.capacity);
    const set = this;
    this.storage = {
      get size() {
        return set.records.length;
      },
      codegen: this.compileOptions.codegen !== false,
      dictionary: (field) => {
        const column = this.dictionaries.get(field);
        return column === undefined || column.dropped ? undefined : column;
      },
      date: (field) => this.dates.get(field),
      postings: (column) => column.rowPostings(this.records.length),
      hash: (field) => this.hashes.get(field),
      text: (field) => this.texts.get(field),
      orderColumn: this.orderColumn,
      creation: (timer) => {
        this.creation.update();
        timer.check();
        return this.creation;
      },
      check: (condition) => {
        // One row check per condition object (a caller repeating a parsed condition reuses it), compiled on
        // its first row: a query the columns answer alone never compiles its predicate.
        let known = this.checks.get(condition);
        if (known === undefined) {
          let predicate: ((incident: unknown) => boolean) | undefined;
          known = (row) => {
            predicate ??= compile(condition, this.compileOptions);
            return predicate(this.records.peek(row));
          };
          this.checks.set(condition, known);
        }
        return known;
      },
    };
    list.forEach((incident, index) => {
      this.insert(incident, index);
    });
    // A large set builds the text index of each text column with the set, so that no query pays for it
    // (a small set's index takes milliseconds: built by the field's first pattern).
    if (list.length >= EAGER_TEXT_INDEX_ROWS) for (const column of this.texts.values()) column.buildIndex();
    // The creation order (a sort of every row) is built with the set, so that the first query does not pay
    // for it (see `count`, "First query").
    this.creation.update();
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
   * Builds a compact set from NDJSON (one incident object per line): the columns are built as the
   * lines are read, and each record is kept as the bytes of its line, shaped (without its keys, its
   * repeated short values and the values its text and date columns hold; a fifth of a one-shot export's
   * line, outside the JavaScript heap) instead of as an object, so that millions of incidents fit in one
   * process (docs/performance.md, "Compact sets" and "Memory per incident, part by part"). A record read
   * back is `JSON.parse` of its original line (key order, escapes, numbers and nested values included). The indexed fields are read straight from each line's bytes
   * (strings of ASCII bytes are looked up in the columns by their bytes, and built only when new); a line
   * the byte reader cannot read exactly as `JSON.parse` would (non-JSON, invalid UTF-8, a top level that is
   * not an object) goes through `JSON.parse`, so values and errors are always `JSON.parse`'s. A line that
   * repeats a key in one object, at any depth, is refused (docs/semantics.md 3.1, "Duplicate keys"). The
   * hash indexes (`hashFields`) hold 32-bit hashes in typed arrays, and every row they name is checked
   * against its kept line, so lookups answer exactly as a set of objects does.
   *
   * Records are materialized on demand: `findFirst` and `findAll` return fresh objects, parsed from the
   * kept line, on every call. Conditions the columns cannot decide parse the rows they examine, so prefer
   * conditions on indexed fields on a compact set. Otherwise the set behaves exactly as
   * `new IncidentSet(records)` built from the parsed lines; `add` keeps an incident's `JSON.stringify`
   * form. The distinct values of dictionary and text columns stay on the heap (about 100 bytes each, with
   * the text index on; `textIndex: false` drops high-cardinality fields instead). The text indexes are not
   * built here but by the first query that reads one (docs/semantics.md, "The text index", "Built when first
   * needed"): that query pays for it, and the answers are the same.
   *
   * Lines: `\n` ends a line; spaces, tabs and `\r` around it are dropped (CRLF); a line left blank is
   * skipped but counted; a last line without `\n` counts; a line may span any number of chunks (joined in
   * linear time); a byte order mark at the start of a line is dropped, as `TextDecoder` drops it.
   *
   * The engine opens no files: the caller opens the source and passes it. A file is best passed as a
   * `FileHandle` (`await fs.promises.open(path)`; any byte reader of that shape, `NdjsonByteReader`): the
   * set then reads the bytes into two buffers it reuses, and asks for the next read before it reads the
   * lines of the last one (about a tenth faster than a stream at 3M–10M
   * incidents; docs/performance.md, "Sixth pass"). It reads until a read returns 0 bytes and leaves the
   * handle open. A stream (`fs.createReadStream(path)`) works as well, as does any iterable of chunks.
   * @param source - a byte reader (`NdjsonByteReader`: `read(buffer, offset, length, null)` resolving with
   *   `{ bytesRead }`, as `FileHandle.read`; it must write only into `buffer[offset, offset + length)`, and
   *   only before it resolves); or chunks of NDJSON as bytes (UTF-8) or strings: a readable stream, an async
   *   iterable or an iterable, where a chunk's buffer may be reused by its producer once the next chunk is
   *   asked for
   * @param options - as for the constructor
   * @param reading - how the bytes are read: `kernel`, a block kernel (the WebAssembly SIMD line kernel of
   *   the Node side, `lineKernel()` of src/node/kernel.ts) that reads each chunk's lines before the
   *   JavaScript scanner, with the same answers (docs/semantics.md 1.7, "The byte reader"); `signal`, an
   *   `AbortSignal` that ends the build (see `NdjsonReading.signal`)
   * @returns the set, once the source is exhausted
   * @throws {SyntaxError} (rejects) when a line is not valid UTF-8 or not JSON: `NDJSON line N: ` and the
   *   decoder's or `JSON.parse`'s message; when a line repeats a key in one object: `NDJSON line N: the
   *   incident repeats the key 'K' in one object (at PATH): each key may appear once.`
   * @throws {TypeError} (rejects) when `source` is a string or a `String` (a path is not a source: `IncidentSet.fromNdjson:
   *   the source "…" is a string, not a source of NDJSON chunks: …`, with how to open the file; NDJSON text
   *   goes in an array, `[text]`) or a single `Uint8Array` (wrap it: `[bytes]`); docs/semantics.md 1.7,
   *   "IncidentSet options"; when a line holds JSON other than an object (`NDJSON line N: expected an
   *   incident object, found …`), a chunk is neither a string nor a `Uint8Array`, a read resolves with
   *   other than `{ bytesRead }` from 0 to the length asked for (`NDJSON reader: a read of up to N bytes
   *   resolved with …`), or an option is malformed (see the constructor); whatever the source throws (a
   *   failed read: its own error)
   * @throws {RangeError} (rejects) when an option is out of range (see the constructor), or the lines
   *   need more than 65,535 chunks of memory (about 16 TiB)
   * @throws {TypeError} (rejects) when `reading.signal` is given and is not an `AbortSignal`
   * @throws the signal's reason (rejects) once `reading.signal` is aborted, before the source is exhausted
   * @example
   * const handle = await open("incidents.ndjson"); // import { open } from "node:fs/promises"
   * const set = await IncidentSet.fromNdjson(handle).finally(() => handle.close());
   */
  static async fromNdjson<R extends object = Record<string, unknown>>(
    source: NdjsonSource | NdjsonByteReader,
    options: IncidentSetOptions = {},
    reading: NdjsonReading = {},
  ): Promise<IncidentSet<R>> {
    refuseNonChunkSource(source);
    const signal = reading.signal;
    if (signal !== undefined && !(signal instanceof AbortSignal))
      throw new TypeError(`IncidentSet.fromNdjson: signal must be an AbortSignal, not ${describe(signal)}.`);
    const set = new IncidentSet<R>([], options);
    signal?.throwIfAborted();
    const { records, sink, afterChunk, whole } = IncidentSet.lineReader(set, reading);
    // A reader fills the records' own chunks, whose lines are then kept where they were read.
    if (isByteReader(source))
      await readNdjsonInPlace(source, (length) => records.newChunk(length), sink, afterChunk, whole, signal);
    else await readNdjson(source, sink, afterChunk, whole, signal);
    IncidentSet.finishNdjson(set, records);
    return set;
  }

  /**
   * A build over ranges of whole lines of NDJSON, for a parallel `fromNdjson` (ndjson-parts.ts): the lines
   * of each range are read as `fromNdjson` reads them (`lines`, with `kernel` as `NdjsonReading.kernel`, if
   * given); the build is then
   * either exported as a part (`exportPart`, in another thread) or ends as a set (`finish`), after the
   * parts of the ranges that follow were appended in order (`append`). Not for callers: the Node entry's
   * `fromNdjson` with `threads` (docs/node.md).
   * @internal
   * @throws {TypeError} {RangeError} when an option is malformed or out of range (see the constructor)
   */
  static ndjsonBuild<R extends object = Record<string, unknown>>(
    options: IncidentSetOptions = {},
    kernel?: BlockKernelFactory,
  ): NdjsonBuild<R> {
    const set = new IncidentSet<R>([], options);
    const { records, sink, afterChunk, whole } = IncidentSet.lineReader(
      set,
      kernel === undefined ? {} : { kernel },
    );
    let line = 0;
    let appended = false;
    return {
      get line() {
        return line;
      },
      lines(buffer, start, end, last) {
        line = splitLines(buffer, start, end, line, last, sink, whole);
        afterChunk();
      },
      exportPart() {
        const rows = records.length;
        const labels: LabelPart[] = [];
        for (const [field, dictionary] of set.dictionaries) {
          const text = set.texts.get(field);
          if (text !== undefined) {
            text.flushAscii();
            labels.push({
              field,
              kind: "text",
              ids: text.ids,
              values: packValues(text.values, PACKED_CHARS, text.valueHashes()),
            });
          } else if (dictionary.dropped) labels.push({ field, kind: "dropped" });
          else labels.push({ field, kind: "codes", codes: dictionary.codes, values: dictionary.values });
        }
        const hashes: { field: string; hashes: Uint32Array; arrayRows: number[] }[] = [];
        for (const [field, index] of set.hashes) {
          if (index instanceof CompactHashIndex) hashes.push({ field, ...index.exportRows() });
        }
        const order = set.creation.exportRows();
        return {
          lines: line,
          rows,
          records: records.exportPart(),
          labels,
          dates: [...set.dates].map(([field, column]) => ({ field, ms: column.ms, states: column.states })),
          hashes,
          order: { time: order.time, id: order.id, dated: order.dated, sorted: order.sorted },
        };
      },
      settle(expectedRows) {
        if (appended) return;
        appended = true;
        records.trim();
        set.creation.update();
        if (expectedRows !== undefined) set.reserveRows(expectedRows);
      },
      append(part) {
        if (part.error !== undefined) throw new Error("IncidentSet: a part with an error is not appended.");
        this.settle();
        set.appendPart(part);
        line += part.lines;
      },
      finish() {
        if (appended) {
          // The decoders of the parts' lines read spliced values from the set's columns, as they are now.
          const columns = new Map<string, TextColumn | DictionaryColumn>();
          for (const [field, dictionary] of set.dictionaries) {
            const text = set.texts.get(field);
            if (text !== undefined) columns.set(field, text);
            else if (set.textBudget !== undefined && !dictionary.dropped) columns.set(field, dictionary);
          }
          records.rebindParts(columns, set.dates);
        }
        IncidentSet.finishNdjson(set, records);
        return set;
      },
    };
  }

  /**
   * Sizes the columns, indexes and record places of a build from NDJSON for `rows` rows in all, and each
   * text column's value table for as many more values, in proportion, as its rows so far gave: the appends
   * of the parts that follow then allocate nothing of that. Each typed array allocated late, when the heap
   * holds millions of strings, made V8 mark the whole heap again (a dozen full collections reclaiming
   * nothing, about half a second each, while 5M rows were appended at 10M: `--trace-gc`). Pays:
   * bench/one-shot.ts, the 10M build and the "set build" row (CHANGELOG.md, Unreleased).
   */
  private reserveRows(rows: number): void {
    const now = this.records.length;
    if (!(rows > now) || !Number.isSafeInteger(rows)) return;
    this.capacity = Math.max(this.capacity, rows);
    for (const dictionary of this.dictionaries.values()) dictionary.reserve(rows);
    for (const date of this.dates.values()) date.reserve(rows);
    for (const text of this.texts.values()) {
      text.reserve(rows, now === 0 ? 0 : Math.ceil((text.values.length * (rows - now)) / now));
    }
    for (const index of this.hashes.values()) if (index instanceof CompactHashIndex) index.reserve(rows);
    this.creation.reserve(rows);
    if (this.records instanceof CompactRecords) this.records.reserve(rows);
  }

  /**
   * Appends a part of a parallel build (ndjson-parts.ts) after this set's rows, as reading its lines here
   * would have: the parts' dictionary codes and text value ids remapped to this set's (a dictionary that
   * the values new to it take past `maxDictionary` becomes a text column, or is dropped, as in `insertField`),
   * its dates, hashes and order keys, and its records (kept as they are, decoded by the part's shapes).
   */
  private appendPart(part: NdjsonPart): void {
    const records = this.records as CompactRecords<T>;
    const base = records.length;
    const rows = part.rows;
    this.capacity = Math.max(this.capacity, base + rows);
    const capacity = this.capacity;
    for (const label of part.labels ?? []) {
      const dictionary = this.dictionaries.get(label.field)!;
      let text = this.texts.get(label.field);
      if (text === undefined && !dictionary.dropped) {
        if (label.kind === "codes" && dictionary.appendCodes(label.codes, label.values, rows, base, capacity))
          continue;
        // Past `maxDictionary` in all (a part's own overflow is one): as `insertField` does.
        if (this.textBudget !== undefined) {
          text = TextColumn.fromDictionary(dictionary, base, capacity, this.textBudget);
          this.texts.set(label.field, text);
          records.spliceFrom(label.field, text);
        }
        dictionary.drop();
      }
      if (text === undefined) continue;
      if (label.kind === "codes") text.appendIds(label.codes, label.values, rows, base, capacity, 3);
      else if (label.kind === "text") {
        const packed = label.values;
        text.appendIds(label.ids, unpackValues(packed), rows, base, capacity, 0, packed.hashes);
      } else throw new Error(`IncidentSet: part of '${label.field}' without its values.`);
    }
    for (const date of part.dates ?? []) {
      this.dates.get(date.field)!.appendRows(date.ms, date.states, rows, base, capacity);
    }
    for (const hash of part.hashes ?? []) {
      const index = this.hashes.get(hash.field);
      if (index instanceof CompactHashIndex) index.appendRows(hash.hashes, rows, hash.arrayRows, base);
    }
    const order = part.order;
    if (order !== undefined)
      this.creation.appendRows(order.time, order.id, rows, order.dated, base, order.sorted);
    if (part.records !== undefined) records.appendPart(part.records);
    this.targets = undefined;
  }

  /**
   * The compact store of a set read from NDJSON and the callbacks that read lines into it (`readNdjson`'s
   * `sink`, `afterChunk` and `whole`): what `fromNdjson` and `ndjsonBuild` share.
   */
  private static lineReader<R extends object>(
    set: IncidentSet<R>,
    reading: NdjsonReading,
  ): {
    records: CompactRecords<R>;
    sink: LineSink;
    afterChunk: () => void;
    whole: (chunk: Uint8Array, from: number, length: number) => number;
  } {
    // Lines kept shaped: without their keys, labels and text columns' values (record-shapes.ts).
    const records = new CompactRecords<R>({ shapes: true });
    set.records = records;
    for (const [field, column] of set.dates) records.spliceDates(field, column);
    // A label a dictionary column holds is left out of the line as a text column's value is (the column
    // already looked its bytes up: the shapes' own dictionary of the key is not looked up again). Only with
    // a text budget: a dictionary dropped past `maxDictionary` then hands its rows to a text column, which
    // the records splice from in its place (`insertField`); without one, the dropped codes would be lost.
    // Pays: bench/one-shot.ts, "set build" row (CHANGELOG.md, Unreleased: the ratios of paired builds).
    if (set.textBudget !== undefined)
      for (const [field, column] of set.dictionaries) records.spliceFrom(field, column);
    // Equality indexes in typed arrays, verified against the kept lines (record-store.ts).
    for (const field of set.hashes.keys()) {
      set.hashes.set(field, new CompactHashIndex(field, fieldReader(records, field)));
    }
    set.targets = undefined;
    const fields = set.fields;
    const scanner = new LineScanner(fields, reading.kernel);
    // Whether the kernel holds the current chunk (from its first line read whole; released after the chunk).
    let prepared = false;
    const values: unknown[] = new Array(fields.length);
    const decoder = new TextDecoder("utf-8", { fatal: true });
    const sink: LineSink = (buffer, start, end, line) => {
      // The indexed fields straight from the bytes; JSON.parse for what the scanner leaves to it (and for
      // every error, whose message is JSON.parse's or the decoder's).
      const status = scanner.scanLine(buffer, start, end);
      if (status === SCAN_OK) set.insertLine(scanner, buffer);
      else {
        let text: string;
        let record: unknown;
        try {
          text = decoder.decode(buffer.subarray(start, end));
          record = JSON.parse(text);
        } catch (error) {
          throw lineError(SyntaxError, line, error instanceof Error ? error.message : String(error));
        }
        if (typeof record !== "object" || record === null || Array.isArray(record)) {
          throw lineError(TypeError, line, `expected an incident object, found ${describe(record)}.`);
        }
        // docs/semantics.md 3.1, "Duplicate keys": JSON.parse would keep the last of two equal keys.
        const repeated = findDuplicateKey(text);
        if (repeated !== undefined)
          throw lineError(SyntaxError, line, duplicateKeyMessage("the incident", repeated));
        for (let k = 0; k < fields.length; k++) values[k] = ownDataValue(record, fields[k]!);
        set.insertValues(values);
      }
      records.pushBytes(buffer, start, end);
    };
    const afterChunk = (): void => {
      // The chunk's lines are in the columns before its buffer goes back to the source.
      for (const column of set.texts.values()) column.flushAscii();
      records.flush();
      scanner.release();
      prepared = false;
    };
    // Most lines are read in one pass: the scanner finds where the object ends and checks that the line
    // ends there (the splitter's search for `\n` is skipped); any other line goes to the sink above.
    const whole = (chunk: Uint8Array, from: number, length: number): number => {
      let start = from;
      while (start < length && (chunk[start] === 32 || chunk[start] === 9 || chunk[start] === 13)) start++;
      if (!prepared && scanner.hasKernel) {
        // With the kernel's cuts of the lines, for the shape encoder (record-shapes.ts `encode`).
        scanner.prepare(chunk, start, length, true);
        prepared = true;
      }
      if (scanner.scanLine(chunk, start, length, true) !== SCAN_OK) return -1;
      set.insertLine(scanner, chunk);
      records.pushBytes(
        chunk,
        start,
        scanner.lineEnd,
        scanner.members,
        scanner.memberCuts,
        scanner.shapeEpoch,
        scanner.memberCutsAt,
      );
      return scanner.next;
    };
    return { records, sink, afterChunk, whole };
  }

  /** Ends a build from NDJSON: records trimmed, hash and text indexes deferred, order sorted. */
  private static finishNdjson<R extends object>(set: IncidentSet<R>, records: CompactRecords<R>): void {
    records.trim();
    // The equality indexes' buckets are built by the first lookup of their field, as the text indexes are
    // by the first query that reads one (docs/semantics.md, "Built when first needed"): each costs a radix
    // sort of every row's hash and three arrays of 4-8 bytes a row, allocated when the heap is largest (at
    // 10M, each made V8 mark the whole heap again: six full collections at the build's end, `--trace-gc`).
    // Pays: bench/one-shot.ts, "set build" row and the 10M build (CHANGELOG.md, Unreleased); the first
    // lookup's time is printed beside the build's.
    // Unlike the constructor, the text indexes are not built here but by the first query that needs one
    // (docs/semantics.md, "The text index": "Built when first needed"), as a large set's constructor
    // builds them (with the lowered corpus): about a quarter of the build of 1M distinct titles, which kept
    // the build at 0.30x DuckDB's one-thread load (bench/one-shot.ts, "IncidentSet.fromNdjson vs DuckDB's
    // single-thread load"). The answers are the same either way.
    if (set.records.length >= EAGER_TEXT_INDEX_ROWS)
      for (const column of set.texts.values()) column.deferIndex();
    set.creation.update();
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

  /** The columns and index of each `fields` entry, looked up once (until a text column appears). */
  private columnTargets(): NonNullable<IncidentSet<T>["targets"]> {
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
    return targets;
  }

  /**
   * Writes the next row's values (one per `fields` entry, as `ownDataValue` reads them) into the columns;
   * the caller then keeps the record in `records`.
   */
  private insertValues(values: readonly unknown[]): void {
    const row = this.records.length;
    if (row >= this.capacity) this.capacity = Math.ceil(this.capacity * 1.5) + 16;
    const targets = this.columnTargets();
    for (let k = 0; k < targets.length; k++) this.insertField(k, targets[k]!, row, values[k]);
    const dated = this.orderColumn.states[row] === DATE_VALUE;
    this.creation.set(row, dated ? this.orderColumn.ms[row]! : undefined, values[this.idIndex]);
  }

  /** Writes field `k`'s value of row `row` into its columns. */
  private insertField(
    k: number,
    target: NonNullable<IncidentSet<T>["targets"]>[number],
    row: number,
    value: unknown,
  ): void {
    const { dictionary, date, hash } = target;
    const capacity = this.capacity;
    let text = target.text;
    if (dictionary !== undefined && !dictionary.dropped) {
      if (this.textBudget !== undefined && this.overflows(dictionary, value)) {
        text = TextColumn.fromDictionary(dictionary, row, capacity, this.textBudget);
        this.texts.set(this.fields[k]!, text);
        // A shaped store leaves the column's values out of the rows it keeps from now on (record-shapes.ts).
        if (this.records instanceof CompactRecords) this.records.spliceFrom(this.fields[k]!, text);
        this.targets = undefined;
      }
      dictionary.set(row, value, capacity);
    }
    text?.set(row, value, capacity);
    date?.set(row, value, capacity);
    hash?.set(row, value);
  }

  /**
   * Writes the next row's fields, as `scanner` read them from the line in `b` (`SCAN_OK`), into the columns,
   * exactly as `insertValues` would write their values: strings of ASCII bytes are looked up by their bytes
   * and built only when a column has not seen them.
   */
  private insertLine(scanner: LineScanner, b: Uint8Array): void {
    const row = this.records.length;
    if (row >= this.capacity) this.capacity = Math.ceil(this.capacity * 1.5) + 16;
    const capacity = this.capacity;
    const targets = this.columnTargets();
    const { kinds, starts, ends } = scanner;
    for (let k = 0; k < targets.length; k++) {
      const kind = kinds[k];
      if (kind !== FIELD_ASCII) {
        this.insertField(k, targets[k]!, row, kind === FIELD_VALUE ? scanner.values[k] : undefined);
        continue;
      }
      const target = targets[k]!;
      const start = starts[k]!;
      const end = ends[k]!;
      const { dictionary, text, date, hash } = target;
      if (dictionary !== undefined && !dictionary.dropped) {
        const code = dictionary.codeOfAscii(b, start, end);
        if (code >= 0) dictionary.setCode(row, code, capacity);
        else {
          const value = scanner.value(b, k) as string;
          this.insertField(k, target, row, value);
          continue;
        }
      } else if (text !== undefined) text.queueAscii(row, b, start, end, capacity, scanner.decodeAscii);
      if (date !== undefined) date.setAscii(row, b, start, end, capacity);
      if (hash !== undefined) {
        if (hash instanceof CompactHashIndex) hash.setAscii(row, b, start, end);
        else hash.set(row, scanner.value(b, k));
      }
    }
    const dated = this.orderColumn.states[row] === DATE_VALUE;
    this.creation.set(row, dated ? this.orderColumn.ms[row]! : undefined, scanner.value(b, this.idIndex));
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
    this.storage.creation(timer);
  }

  /**
   * The condition a search answers: the input (parsed when raw JSON), AND the site's condition when `site` is
   * given (docs/semantics.md 1.9, "Within a site"), the same object for the same condition and site, so
   * that a repeated query reuses its row check.
   * @throws {SearchConditionsError} when raw JSON is invalid, or the site cannot be an operand of the site
   *   field (longer than the string limit; a label outside an enumerated site field of the catalogue)
   */
  private searchCondition(conditions: unknown, site: string | undefined): Condition {
    const condition = toCondition(conditions, this.parseOptions);
    if (site === undefined) return condition;
    let bySite = this.withinSite.get(condition);
    if (bySite === undefined) {
      bySite = new Map();
      this.withinSite.set(condition, bySite);
    }
    let scoped = bySite.get(site);
    if (scoped === undefined) {
      let ofSite = this.siteConditions.get(site);
      if (ofSite === undefined) {
        ofSite = parseSearchConditions({ [this.siteField]: { $eq: site } }, this.parseOptions);
        if (this.siteConditions.size >= MAX_SITE_CONDITIONS) this.siteConditions.clear();
        this.siteConditions.set(site, ofSite);
      }
      scoped = conjunctionOf([condition, ofSite]);
      if (bySite.size >= MAX_SITE_CONDITIONS) bySite.clear();
      bySite.set(site, scoped);
    }
    return scoped;
  }

  /**
   * Finds the first incident that matches (docs/semantics.md 1.9): the earliest `CreatedUtcTime`; incidents
   * without a valid one after all dated ones; ties by `IncidentId` ascending (incidents without a numeric
   * `IncidentId` after those with one), then by insertion order.
   *
   * First query: see `count`.
   *
   * With `{ site }`, the first match of that site (docs/semantics.md 1.9, "Within a site"): the site is one
   * more label of the plan (the site field's dictionary column), so the row predicate never reads an
   * incident of another site, and the first match of the site is found even when an earlier one exists in
   * another site. One set serves every site.
   * @param conditions - a parsed Condition, or raw Search Conditions JSON (`SearchConditionsInput`: an object, or an
   *   array of objects); a value of unknown type goes to `parseSearchConditions` first (any value reaching here
   *   at run time is still checked by the parser)
   * @param options - optional: `site` (only incidents of that site), and a time budget (`maxTimeMS` with a
   *   `clock`; docs/semantics.md 1.7): the clock is read at the start and at least once every 1,024 records
   *   examined
   * @returns the matching incident (the caller's object), or undefined
   * @throws {SearchConditionsError} when raw JSON is invalid (`.issues` lists every problem), or the site
   *   cannot be an operand of the site field (longer than the string limit; not a label of an enumerated
   *   site field)
   * @throws {SearchTimeoutError} when the search runs past `maxTimeMS`
   * @throws {TypeError} when the options are malformed: an unknown key, a `site` that is not a string, a
   *   malformed budget (see `startBudget`)
   * @example set.findFirst({ Number: "20240301-17" }) //=> { IncidentId: 101, Number: "20240301-17", … }
   * @example set.findFirst({ Severity: "High" }, { site: "APAC SOC", maxTimeMS: 2000, clock: () => performance.now() })
   */
  findFirst(conditions: Condition | SearchConditionsInput, options?: SearchOptions): T | undefined {
    const site = searchSite(options);
    const timer = startBudget(options);
    const condition = this.searchCondition(conditions, site);
    this.prepare(timer);
    const row = underWalkBudget(timer, () => firstPath(condition, this.storage, timer).run());
    return row < 0 ? undefined : this.records.get(row);
  }

  /**
   * Finds every incident that matches, in the order of `findFirst` (docs/semantics.md 1.9). The first answer
   * holding 1/16 of the rows or more keeps the set's records in creation order (one reference, 8 bytes, a
   * row, on the heap: `footprint().orderedRecordBytes`) until rows are added, so that large answers are read
   * in order.
   * @param conditions - a parsed Condition or raw Search Conditions JSON, as for `findFirst`
   * @param options - optional `site` and time budget, as for `findFirst` (docs/semantics.md 1.7, 1.9)
   * @returns the matching incidents (the caller's objects); an empty array when none
   * @throws {SearchConditionsError} when raw JSON is invalid, or the site is refused (as for `findFirst`)
   * @throws {SearchTimeoutError} when the search runs past `maxTimeMS`
   * @throws {TypeError} when the options are malformed (as for `findFirst`)
   */
  findAll(conditions: Condition | SearchConditionsInput, options?: SearchOptions): T[] {
    const site = searchSite(options);
    const timer = startBudget(options);
    const condition = this.searchCondition(conditions, site);
    this.prepare(timer);
    const found = underWalkBudget(timer, () => {
      const plan = buildPlan(condition, this.storage, timer);
      return denseChoice(condition, plan, this.storage, timer, false).run();
    });
    return "positions" in found ? this.records.getAllInOrder(found) : this.records.getAll(found);
  }

  /**
   * Counts the incidents that match.
   *
   * First query: the set builds with itself the creation order (`CreatedUtcTime`, then `IncidentId`: two
   * 8-byte and two 4-byte numbers a row) and, from 50,000 incidents, the text indexes (bounded by
   * `textIndex.maxBytes`), except a set read by `fromNdjson`, whose first `$regex` on a text field builds
   * that field's index (docs/semantics.md, "The text index"). Other indexes are built by the first query that needs them, in one pass over the
   * rows, and kept until rows are added: per label (dictionary) column, its postings (4 bytes a row, in
   * creation order and in row order, one each), its bitsets by label (one bit a row per label, for columns
   * of at most 24 labels) and their copies in creation order (the same size; at most 8 columns); a
   * generated loop per shape of label expression (at most 256). So the first query of a kind costs about one
   * pass over the rows more than the next: on 100,000 generated incidents (one run, under load) the first
   * count of the specification's sample took about 16 times as long as the second, about 80 times before
   * the order was built with the set. `footprint()` reports what is held.
   * @param conditions - a parsed Condition or raw Search Conditions JSON, as for `findFirst`
   * @param options - optional `site` and time budget, as for `findFirst` (docs/semantics.md 1.7, 1.9)
   * @returns the number of matching incidents
   * @throws {SearchConditionsError} when raw JSON is invalid, or the site is refused (as for `findFirst`)
   * @throws {SearchTimeoutError} when the search runs past `maxTimeMS`
   * @throws {TypeError} when the options are malformed (as for `findFirst`)
   */
  count(conditions: Condition | SearchConditionsInput, options?: SearchOptions): number {
    const site = searchSite(options);
    const timer = startBudget(options);
    const condition = this.searchCondition(conditions, site);
    // Histogram answers need no creation order; every other path brings it up to date (budget checked).
    return underWalkBudget(timer, () => {
      const plan = buildPlan(condition, this.storage, timer);
      return denseChoice(condition, plan, this.storage, timer, true).run();
    });
  }

  /**
   * How the set answers a query: the access path of `findFirst` and the column plan of `count`/`findAll`.
   * The plan of a `$regex` on a text field depends on its text index: a set read by `fromNdjson` that has
   * not built it yet builds it here, as the query would (docs/semantics.md, "The text index", "Built when
   * first needed"), so the plan reported is the plan the query runs.
   * @param conditions - a parsed Condition or raw Search Conditions JSON, as for `findFirst`
   * @param options - optional `site`, as for `findFirst` (a budget is accepted and not used)
   * @throws {SearchConditionsError} when raw JSON is invalid, or the site is refused (as for `findFirst`)
   * @throws {TypeError} when the options are malformed (as for `findFirst`)
   */
  explain(conditions: Condition | SearchConditionsInput, options?: SearchOptions): IncidentSetPlan {
    const condition = this.searchCondition(conditions, searchSite(options));
    const timer = startBudget(undefined);
    this.prepare(timer);
    const plan = buildPlan(condition, this.storage);
    return {
      findFirst: firstPath(condition, this.storage, timer).name,
      columns: plan.describe(),
      count: denseChoice(condition, plan, this.storage, timer, true).name,
      findAll: denseChoice(condition, plan, this.storage, timer, false).name,
    };
  }

  /** Bytes held by the set's typed arrays, and entries of its hash indexes (for memory reports). */
  footprint(): IncidentSetFootprint {
    let bytes = this.creation.bytes();
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
      orderedRecordBytes: this.records.orderedBytes(),
    };
  }
}

/**
 * A build of a parallel `fromNdjson` over ranges of whole lines (`IncidentSet.ndjsonBuild`; ndjson-parts.ts).
 * @internal
 */
export interface NdjsonBuild<R extends object> {
  /** The number of the last line read or appended (blank lines counted). */
  readonly line: number;
  /**
   * Reads the lines of `buffer[start, end)`: it starts at a line's start and ends after a `\n` or, `last`,
   * at the end of the input; numbered after `line`.
   * @throws {SyntaxError} {TypeError} as `fromNdjson` does, for the first bad line
   */
  lines(buffer: Uint8Array, start: number, end: number, last: boolean): void;
  /** The rows read, as a part to append to another build (this build must not be used after). */
  exportPart(): NdjsonPart;
  /**
   * Readies the rows read for the parts to come (their records trimmed, their order sorted, so that each
   * part's sorted rows are merged in): done by the first `append`, or before, while the parts are awaited.
   * With `expectedRows`, the rows expected once every part is appended, the build is sized for them
   * (nothing of an answer depends on it: a part past the estimate grows the build as before).
   */
  settle(expectedRows?: number): void;
  /** Appends a part (without an error) of the range after the ones read and appended so far. */
  append(part: NdjsonPart): void;
  /** Ends the build: the set. */
  finish(): IncidentSet<R>;
}

/**
 * Reads `field` of a kept line, for a hash index's verification. Made here, outside `fromNdjson`, so that the
 * closure a built set keeps captures only the records and the field: a closure made in `fromNdjson` would
 * share its scope with the reader's scanner, and keep the records' untrimmed last chunk (up to 256 MiB) alive
 * as long as the set (found by a heap snapshot; ndjson-build.test.ts, "what a built set keeps outside the heap").
 */
function fieldReader<R extends object>(records: CompactRecords<R>, field: string): (row: number) => unknown {
  return (row) => records.field(row, field);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Refuses a source that is iterable but not a source of chunks: a string (the path the caller meant to
 * open, or NDJSON text, both iterable one character at a time) and a single `Uint8Array` (iterable one
 * number at a time). Before: `fromNdjson("/path/to/export.ndjson")` used to read the path as NDJSON.
 * @throws {TypeError} for a string, a `String` object or a `Uint8Array`
 */
function refuseNonChunkSource(source: unknown): void {
  if (typeof source === "string" || source instanceof String) {
    const text = String(source);
    const shown = JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
    throw new TypeError(
      `IncidentSet.fromNdjson: the source ${shown} is a string, not a source of NDJSON chunks: the engine opens no files. ` +
        "Open the file and pass the handle: `const handle = await open(path)` (node:fs/promises), then " +
        "`await IncidentSet.fromNdjson(handle).finally(() => handle.close())`; or pass `fs.createReadStream(path)`. " +
        "For NDJSON text already in memory, pass it in an array: `[text]`.",
    );
  }
  if (source instanceof Uint8Array) {
    throw new TypeError(
      "IncidentSet.fromNdjson: the source is a single Uint8Array, which iterates as numbers, not as chunks: pass it in an array, `[bytes]`.",
    );
  }
}
