/**
 * The query planner of `IncidentSet`: turns a condition into a tree of column operators with three-valued
 * answers per row (false, true, unknown) and picks access paths.
 *
 * - A field node whose field has a column becomes a column leaf: a dictionary leaf evaluates the node once
 *   per distinct value (an accept table over codes), a date leaf compares epoch ms, a hash leaf looks the
 *   operands up. Rows the column cannot answer (arrays, objects) are *unknown*.
 * - Any other node is a residual leaf: unknown for every row.
 * - `dense` evaluates a node over every row as bitsets (T: surely true, P: possibly true); AND children run
 *   most selective first, each only over the rows still possible, and switch to row-at-a-time once few
 *   remain. Unknown rows (P \ T) are finally decided by the compiled row predicate.
 * - Row-at-a-time answers combine under three-valued logic in one place (`and3`, `allOf`, `anyOf`).
 * - Access paths (the end of this file): `firstPath` chooses how `findFirst` walks to the first match (a
 *   hash lookup, a segment or walk of the creation order, postings, the text index, or a union for an OR) by
 *   the rows each would examine; `denseChoice` chooses how `count` and `findAll` answer (a histogram, a
 *   segment's length, a short candidate list, or the columns). `explain()` reports these choices.
 *
 * Every leaf's answer is the reference's (docs/semantics.md 1.5) by construction: accept tables come from the
 * same leaf semantics `compile` uses (`leafSemantics`) or, for a literal `$regex` on a text column, from the
 * comparison the literal means on the value's exact text (`checkLiteral`), and anything a column cannot
 * decide is unknown.
 * No access path takes a row as surely matching unless every child of every AND above it said so: a
 * candidate list (hash hits, postings) only narrows, and its rows are answered by the same leaves.
 *
 * Time budget (docs/semantics.md 1.7): a plan is built for one query with that query's `BudgetTimer`; every
 * loop over rows ticks it (row loops once per row, column passes once per 32-row word), and word-wide
 * bitset passes (32 rows per operation) count their rows once per pass.
 */

import { assertNever, type Condition, type FieldNode, type Operand } from "../conditions/ast.js";
import { leafSemantics } from "../conditions/leaf.js";
import { analyzeChain } from "../conditions/regex/chain.js";
import { analyzeLiteral, compileRegex, type RegexLiteral } from "../conditions/regex/matcher.js";
import {
  and,
  andNot,
  type Bitset,
  bitsToRows,
  emptyBitset,
  fullBitset,
  hasBit,
  not,
  or,
  popcount,
  popcount32,
  rowsToBits,
  setBit,
} from "./bitset.js";
import {
  CODE_COMPLEX,
  CODE_MISSING,
  CODE_NULL,
  type Codes,
  DATE_COMPLEX,
  DATE_MISSING,
  DATE_NULL,
  DATE_OTHER,
  DATE_VALUE,
  type DateColumn,
  type DictionaryColumn,
  FIRST_VALUE_CODE,
  type HashIndex,
} from "./columns.js";
import { countLabels, denseLabels, type LabelExpression } from "./label-bitsets.js";
import { type CreationOrder, type MsInterval, ORDER_FIELD } from "./order.js";
import { CompactHashIndex, hashKey } from "./record-store.js";
import { type BudgetTimer, startBudget } from "./search-budget.js";
import {
  AcceptTable,
  checkLiteral,
  type GramQuery,
  gramCount,
  proofEntries,
  proveChain,
  proveLiteral,
  regexGramQuery,
  TEXT_COMPLEX,
  TEXT_MISSING,
  type TextColumn,
} from "./text-index.js";

/** The timer of a search without a budget: ticks do nothing. */
const UNBOUNDED: BudgetTimer = startBudget(undefined);

/** A row's answer: surely false, surely true, or unknown (the row predicate decides). */
export type Tri = 0 | 1 | 2;
export const FALSE: Tri = 0;
export const TRUE: Tri = 1;
export const UNKNOWN: Tri = 2;

/**
 * Three-valued AND (Kleene logic, as the reference reads `$and` over rows a column cannot decide): false
 * wins, then unknown, else true.
 */
export function and3(a: Tri, b: Tri): Tri {
  return a === FALSE || b === FALSE ? FALSE : a === UNKNOWN || b === UNKNOWN ? UNKNOWN : TRUE;
}

/**
 * The three-valued AND of `initial` and each child's answer for row `i` (`and3` folded, stopping at the first
 * false). The one fold of every AND over plan nodes.
 */
export function allOf(children: readonly PlanNode[], i: number, initial: Tri = TRUE): Tri {
  let result = initial;
  for (let k = 0; k < children.length && result !== FALSE; k++) result = and3(result, children[k]!.row(i));
  return result;
}

/** The three-valued OR of the children's answers for row `i`: true wins (stopping there), then unknown. */
export function anyOf(children: readonly PlanNode[], i: number): Tri {
  let result: Tri = FALSE;
  for (let k = 0; k < children.length; k++) {
    const answer = children[k]!.row(i);
    if (answer === TRUE) return TRUE;
    if (answer === UNKNOWN) result = UNKNOWN;
  }
  return result;
}

/** A `$regex` field node. */
type RegexNode = Extract<FieldNode, { kind: "regex" }>;

/** The ids `0 … count-1`, ascending. */
function idsBelow(count: number): Int32Array {
  const ids = new Int32Array(count);
  for (let id = 0; id < count; id++) ids[id] = id;
  return ids;
}

/** No ids. */
const EMPTY_IDS = new Int32Array(0);

/** The union of two ascending id lists without common ids, ascending. */
function mergeAscending(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** What the planner sees of an incident set. */
export interface Storage {
  readonly size: number;
  /** False when the set's `compile.codegen` is false: label expressions then run without `new Function`. */
  readonly codegen: boolean;
  dictionary(field: string): DictionaryColumn | undefined;
  /** Per-code row lists of a dictionary column, rows ascending (built once per batch of adds). */
  postings(column: DictionaryColumn): { readonly offsets: Int32Array; readonly rows: Int32Array };
  date(field: string): DateColumn | undefined;
  hash(field: string): HashIndex | undefined;
  /** The text column of a field whose dictionary outgrew `maxDictionary` (text-index.ts), if any. */
  text(field: string): TextColumn | undefined;
  /** The date column of `ORDER_FIELD` (always kept: it orders the rows). */
  readonly orderColumn: DateColumn;
  /**
   * The creation order (docs/semantics.md 1.9), brought up to date with the rows added since it was last
   * used (index maintenance: not interrupted, its result is kept), then `timer.check()`.
   * @throws {SearchTimeoutError} from `timer`, once the order is up to date
   */
  creation(timer: BudgetTimer): CreationOrder;
  /**
   * The exact answer for rows of a condition: the compiled row predicate over each row's record, for the
   * rows the columns cannot decide.
   */
  check(condition: Condition): RowCheck;
}

/** Decides one row exactly (`true`: the row's record matches). */
export type RowCheck = (row: number) => boolean;

/** The rows surely matching (`t`) and possibly matching (`p`, a superset of `t`) of a node. */
export interface DenseResult {
  readonly t: Bitset;
  readonly p: Bitset;
}

/** A node of a plan. */
export interface PlanNode {
  /** The condition it answers. */
  readonly condition: Condition;
  /** Expected fraction of rows that are true (unknown rows count half): orders AND children. */
  readonly estimate: number;
  /** The answer for one row. */
  row(i: number): Tri;
  /** The answers for every row (bits outside `within`, when given, are unspecified). */
  dense(within: Bitset | null): DenseResult;
  /** One line for `explain`. */
  describe(): string;
}

// ---------------------------------------------------------------------------------------------------------
// Leaves

/** A field node answered by a dictionary column: one leaf evaluation per distinct value. */
export class DictionaryLeaf implements PlanNode {
  readonly condition: FieldNode;
  readonly column: DictionaryColumn;
  /** Per code: FALSE, TRUE or UNKNOWN (arrays and objects). */
  readonly accept: Uint8Array;
  readonly estimate: number;
  readonly size: number;
  /** Rows the leaf surely accepts (histogram), and rows it cannot decide. */
  readonly trueCount: number;
  readonly unknownCount: number;

  private readonly postings: () => { readonly offsets: Int32Array; readonly rows: Int32Array };
  private readonly timer: BudgetTimer;

  constructor(node: FieldNode, column: DictionaryColumn, storage: Storage, timer: BudgetTimer = UNBOUNDED) {
    this.condition = node;
    this.timer = timer;
    this.column = column;
    this.size = storage.size;
    this.postings = () => storage.postings(column);
    const size = this.size;
    const leaf = leafSemantics(node);
    const values = column.values;
    const accept = new Uint8Array(values.length);
    accept[CODE_MISSING] = leaf.missing ? TRUE : FALSE;
    accept[CODE_NULL] = leaf.one(null) ? TRUE : FALSE;
    accept[CODE_COMPLEX] = UNKNOWN;
    // One leaf evaluation per distinct value: a pass over the dictionary, ticked like a pass over rows.
    for (let code = FIRST_VALUE_CODE; code < values.length; code++) {
      timer.tick();
      accept[code] = leaf.one(values[code]) ? TRUE : FALSE;
    }
    this.accept = accept;
    let trueCount = 0;
    for (let code = 0; code < accept.length; code++)
      if (accept[code] === TRUE) trueCount += column.counts[code]!;
    this.trueCount = trueCount;
    this.unknownCount = column.counts[CODE_COMPLEX]!;
    this.estimate = size === 0 ? 0 : (trueCount + this.unknownCount / 2) / size;
  }

  row(i: number): Tri {
    return this.accept[this.column.codes[i]!] as Tri;
  }

  dense(within: Bitset | null): DenseResult {
    const { accept, size, timer } = this;
    const codes = this.column.codes;
    const words = (size + 31) >>> 5;
    if (
      within === null &&
      accept[CODE_MISSING] === FALSE &&
      this.trueCount + this.unknownCount <= size * SEED_FRACTION
    ) {
      // Few rows: set them from the postings instead of scanning the column.
      const t = new Uint32Array(words);
      const p = this.unknownCount === 0 ? t : new Uint32Array(words);
      const rows = this.seedRows();
      for (let k = 0; k < rows.length; k++) {
        timer.tick();
        const i = rows[k]!;
        if (accept[codes[i]!] === TRUE) setBit(t, i);
        if (p !== t) setBit(p, i);
      }
      return { t, p };
    }
    const t = new Uint32Array(words);
    if (this.unknownCount === 0) {
      for (let w = 0; w < words; w++) {
        if (within !== null && within[w] === 0) continue;
        timer.tick(32);
        const base = w << 5;
        const end = Math.min(base + 32, size);
        let bits = 0;
        for (let i = base; i < end; i++) bits |= accept[codes[i]!]! << (i - base);
        t[w] = bits;
      }
      return { t, p: t };
    }
    const p = new Uint32Array(words);
    for (let w = 0; w < words; w++) {
      if (within !== null && within[w] === 0) continue;
      timer.tick(32);
      const base = w << 5;
      const end = Math.min(base + 32, size);
      let tb = 0;
      let pb = 0;
      for (let i = base; i < end; i++) {
        const a = accept[codes[i]!]!;
        tb |= (a & 1) << (i - base);
        pb |= (a === 0 ? 0 : 1) << (i - base);
      }
      t[w] = tb;
      p[w] = pb;
    }
    return { t, p };
  }

  /** The rows the leaf does not reject (true or unknown), from the postings. */
  seedRows(): Int32Array {
    const { offsets, rows } = this.postings();
    const out = new Int32Array(this.trueCount + this.unknownCount);
    let k = 0;
    for (const code of this.acceptedCodes()) {
      out.set(rows.subarray(offsets[code]!, offsets[code + 1]!), k);
      k += offsets[code + 1]! - offsets[code]!;
    }
    return out;
  }

  /** The accepted codes (true or unknown), for postings. */
  acceptedCodes(): number[] {
    const codes: number[] = [];
    for (let code = 0; code < this.accept.length; code++) if (this.accept[code] !== FALSE) codes.push(code);
    return codes;
  }

  describe(): string {
    return `dictionary ${this.column.field} (${this.trueCount} true, ${this.unknownCount} unknown)`;
  }
}

/**
 * A `$regex` on a text column (text-index.ts): the trigram index narrows the distinct values to the
 * candidates that hold every trigram the pattern requires; a literal pattern (`analyzeLiteral`) is then
 * checked on the index's corpus with native string search (`checkLiteral`), any other pattern runs once per
 * candidate value (the same leaf semantics `compile` uses), and rows take their value's answer. Values added
 * after the index was built are tested one by one. Rows holding an array or an object are unknown (the row
 * predicate decides). A pattern without a required trigram is answered this
 * way only when the column has at most a quarter as many distinct values as rows (one test per value is
 * then cheaper than one per row). Otherwise (no required trigram, or no trigram index within the budget, on a
 * column with many distinct values) the leaf is `perRow`: each row takes its value's answer, tested on the
 * first row holding that value (a memo per value id), so a conjunction runs it last, only on the rows its
 * other children leave (`AndPlan`), instead of parsing those rows' records.
 */
export class TextLeaf implements PlanNode {
  readonly condition: RegexNode;
  readonly column: TextColumn;
  readonly estimate: number;
  readonly size: number;
  readonly query: GramQuery;
  /** The leaf's test of one value (`leafSemantics`), built when a first value must be tested (`one`). */
  private test: ((value: unknown) => boolean) | undefined;
  private readonly missingAnswer: Tri;
  private readonly nullAnswer: Tri;
  private readonly timer: BudgetTimer;
  private readonly key: string;
  /** The pattern as a literal, when it is one (checked on the corpus). */
  private readonly literal: RegexLiteral | undefined;
  /** Per value id, two bits: 0 not yet tested, 1 false, 2 true (row-at-a-time answers; `memoOf`). */
  private memo: Uint8Array | undefined;
  /** Per value id: 0 false, 1 true, for every value, and the true ids (`table()`). */
  private accept: AcceptTable | undefined;
  private candidateCount = -1;
  /**
   * True when the leaf has no answer per value to build (no trigram index within the budget, or a pattern
   * without a required trigram, on a column with more than a quarter as many distinct values as rows): it
   * answers row by row only (`row`, memoized per value id), and is never a seed or a candidate list.
   */
  readonly perRow: boolean;
  /** The value tests `table()` would run (candidate values), before any is cached. */
  private readonly tableTests: number;

  private constructor(
    node: RegexNode,
    column: TextColumn,
    size: number,
    query: GramQuery,
    timer: BudgetTimer,
    perRow: boolean,
  ) {
    this.condition = node;
    this.column = column;
    this.size = size;
    this.query = query;
    this.timer = timer;
    // A `$regex` matches strings only: never a missing field or null (leaf.ts), so the pattern need not
    // be compiled to say so; a table the lists prove entirely never compiles it.
    this.missingAnswer = FALSE;
    this.nullAnswer = FALSE;
    this.key = `${node.fieldKind}/${node.flags}/${node.source}`;
    this.literal = analyzeLiteral(node.source, node.flags);
    this.perRow = perRow;
    this.accept = perRow ? undefined : column.cachedAccept(this.key);
    const index = query.op === "all" || perRow ? undefined : column.textIndex();
    const values = column.values.length;
    const narrowed =
      index === undefined
        ? values
        : index.grams.estimate(query) + column.scalarIds.length + (values - index.count);
    this.tableTests = narrowed;
    const rowsPerValue =
      values === 0 ? 0 : (size - column.missingCount - column.nullCount - column.complexRows.length) / values;
    const special =
      (this.missingAnswer === TRUE ? column.missingCount : 0) +
      (this.nullAnswer === TRUE ? column.nullCount : 0) +
      column.complexRows.length / 2;
    // Without an index nothing narrows: the residual leaf's guess (a literal selects fewer rows).
    const fraction = perRow ? (this.literal === undefined ? 0.2 : 0.1) : (narrowed * rowsPerValue) / size;
    this.estimate = size === 0 ? 0 : Math.min(1, fraction + special / size);
  }

  /** The leaf's answer for one value (compiling the pattern on first use). */
  private one(value: unknown): boolean {
    this.test ??= leafSemantics(this.condition).one;
    return this.test(value);
  }

  /**
   * The value tests an accept table would cost now: 0 when cached, `Infinity` for a per-row leaf, else
   * the candidate values (the trigram index's estimate, the non-string values and those added since).
   */
  valueTests(): number {
    return this.accept !== undefined ? 0 : this.perRow ? Number.POSITIVE_INFINITY : this.tableTests;
  }

  /**
   * Before `rows` rows ask for their answers one by one (`answerOfId`, a deferred leaf): builds the accept
   * table first when that costs fewer value tests than those rows would run, so that each row then reads its
   * value's answer. A literal the trigram lists can prove (text-index.ts `proofEntries`) costs its lists'
   * entries, `LIST_ENTRIES_PER_TEST` to a value test; any other pattern its candidate values.
   */
  prepareRows(rows: number): void {
    if (this.accept !== undefined || this.perRow) return;
    const index = this.query.op === "all" ? undefined : this.column.textIndex();
    let cost = this.tableTests;
    if (index !== undefined && this.literal !== undefined) {
      const entries = proofEntries(index, this.literal);
      if (entries >= 0)
        cost =
          entries / LIST_ENTRIES_PER_TEST +
          this.column.scalarIds.length +
          (this.column.values.length - index.count);
    }
    if (cost < rows) this.table();
  }

  /**
   * The leaf of a `$regex` node on a text column: `perRow` when the column cannot narrow it (no required
   * trigram, or no trigram index within the budget) and has more than a quarter as many distinct values as
   * rows.
   */
  static create(node: RegexNode, column: TextColumn, size: number, timer: BudgetTimer): TextLeaf {
    const query = regexGramQuery(node.source, node.flags);
    const perValue = column.values.length * 4 <= size;
    const perRow = !perValue && (query.op === "all" || column.textIndex() === undefined);
    return new TextLeaf(node, column, size, query, timer, perRow);
  }

  /**
   * The answer for every value id (0 false, 1 true): the candidates of the trigram index, checked on the
   * corpus when the pattern is a literal, else each tested once; then the non-string values and the values
   * added since the index was built. Without an index (or for a pattern without trigrams), every value once.
   * Kept on the column per pattern until the next add.
   */
  table(): AcceptTable {
    if (this.accept !== undefined) return this.accept;
    const { column, timer } = this;
    const values = column.values;
    const index = this.query.op === "all" ? undefined : column.textIndex();
    const memo = this.memo;
    // Accepted without a test of the pattern (from the lists or the corpus), ascending; and by a test.
    let sure: Int32Array = EMPTY_IDS;
    const found: number[] = [];
    let foundSorted = true;
    const test = (id: number) => {
      timer.tick();
      const known = memo === undefined ? 0 : (memo[id >>> 2]! >>> ((id & 3) << 1)) & 3;
      if (known === 0 ? this.one(column.textOf(id)) : known === 2) found.push(id);
    };
    if (index === undefined) {
      for (let id = 0; id < values.length; id++) test(id);
      this.candidateCount = values.length;
    } else {
      // A literal is answered from the trigram lists when it can be (text-index.ts `proveLiteral`).
      // A literal chain, such as `(port scan|VPN) .* on`, likewise (`proveChain`).
      const literal = this.literal;
      const chain =
        literal === undefined ? analyzeChain(this.condition.source, this.condition.flags) : undefined;
      const proof =
        literal !== undefined
          ? proveLiteral(index, literal, timer, values)
          : chain !== undefined
            ? proveChain(index, chain, timer, values)
            : undefined;
      let checked: number;
      if (proof !== undefined) {
        sure = proof.accepted;
        const { undecided } = proof;
        for (let k = 0; k < undecided.length; k++) test(undecided[k]!);
        checked = proof.held;
      } else {
        const candidates = index.grams.candidates(this.query) ?? idsBelow(index.count);
        const viaCorpus: number[] = [];
        const checkedOnCorpus =
          literal !== undefined &&
          checkLiteral(index, literal, candidates, timer, (id) => viaCorpus.push(id), test);
        if (!checkedOnCorpus) for (let k = 0; k < candidates.length; k++) test(candidates[k]!);
        sure = Int32Array.from(viaCorpus);
        checked = candidates.length;
      }
      // The non-string values below the index's count (never candidates), then the values added since.
      let scalars = 0;
      for (const id of column.scalarIds) {
        if (id >= index.count) break;
        test(id);
        scalars++;
      }
      foundSorted = scalars === 0;
      for (let id = index.count; id < values.length; id++) test(id);
      this.candidateCount = checked + scalars + (values.length - index.count);
    }
    const tested = Int32Array.from(found);
    if (!foundSorted) tested.sort();
    const ids = tested.length === 0 ? sure : sure.length === 0 ? tested : mergeAscending(sure, tested);
    this.accept = new AcceptTable(ids, values.length);
    column.keepAccept(this.key, this.accept);
    return this.accept;
  }

  row(i: number): Tri {
    return this.answerOfId(this.column.ids[i]!);
  }

  /**
   * The answer for a row holding value id `id` (or `TEXT_MISSING`, `TEXT_NULL`, `TEXT_COMPLEX`): from the
   * accept table when built, else from the memo of the column and pattern (`memoOf`), testing the value on
   * its first use.
   */
  answerOfId(id: number): Tri {
    if (id < 0)
      return id === TEXT_MISSING ? this.missingAnswer : id === TEXT_COMPLEX ? UNKNOWN : this.nullAnswer;
    if (this.accept !== undefined) return this.accept.table[id] === 1 ? TRUE : FALSE;
    let memo = this.memo;
    if (memo === undefined) {
      memo = memoOf(this.column, this.key);
      this.memo = memo;
    }
    const shift = (id & 3) << 1;
    let known = (memo[id >>> 2]! >>> shift) & 3;
    if (known === 0) {
      known = this.one(this.column.textOf(id)) ? 2 : 1;
      memo[id >>> 2]! |= known << shift;
    }
    return known === 2 ? TRUE : FALSE;
  }

  /** Rows surely true (from the accepted values' row counts). */
  trueCount(): number {
    const { accepted } = this.table();
    const counts = this.column.counts;
    let total = 0;
    this.timer.tick(accepted.length + 1); // a pass over the accepted values
    for (let k = 0; k < accepted.length; k++) total += counts[accepted[k]!]!;
    if (this.missingAnswer === TRUE) total += this.column.missingCount;
    if (this.nullAnswer === TRUE) total += this.column.nullCount;
    return total;
  }

  /** Rows the leaf cannot decide (arrays, objects). */
  get unknownCount(): number {
    return this.column.complexRows.length;
  }

  /** The rows whose value is accepted (ascending within each value), for candidate walks. */
  acceptedRows(): Int32Array {
    const { accepted } = this.table();
    const { offsets, rows } = this.column.postings();
    let n = 0;
    for (let k = 0; k < accepted.length; k++) {
      const id = accepted[k]!;
      n += offsets[id + 1]! - offsets[id]!;
    }
    const out = new Int32Array(n);
    let j = 0;
    for (let k = 0; k < accepted.length; k++) {
      const id = accepted[k]!;
      const end = offsets[id + 1]!;
      for (let at = offsets[id]!; at < end; at++) out[j++] = rows[at]!;
    }
    this.timer.tick(n);
    return out;
  }

  /**
   * Sets the bit of every row whose value is accepted (`acceptedRows` without the list), or with `creation`
   * the bit of its position in the creation order; returns how many.
   */
  private markAcceptedRows(bits: Bitset, creation?: CreationOrder): number {
    const { accepted } = this.table();
    const postings = this.column.postings();
    const offsets = postings.offsets;
    // With an order: the postings as positions (`CreationOrder.ranksOf`), read in runs like the rows.
    const rows = creation === undefined ? postings.rows : creation.ranksOf(postings.rows);
    let n = 0;
    for (let k = 0; k < accepted.length; k++) {
      const id = accepted[k]!;
      const end = offsets[id + 1]!;
      for (let at = offsets[id]!; at < end; at++) setBit(bits, rows[at]!);
      n += end - offsets[id]!;
    }
    this.timer.tick(n);
    return n;
  }

  /**
   * True when the leaf's true rows are set from the postings: it lists rows (not `perRow`, rejects
   * missing and null) and few values are accepted (the table's count, not the estimate made before the
   * lists were read, so that a selective pattern whose trigrams are common qualifies too).
   */
  private fromPostings(): boolean {
    return this.listsRows() && this.table().accepted.length <= this.size * SEED_FRACTION;
  }

  /**
   * `findAll` of the leaf alone: its rows as `PositionedRows`, each set at its rank, in one pass over the
   * postings of the accepted values. Undefined unless `fromPostings` and no row holds an array or an object
   * (those rows need the row predicate).
   */
  positionsInOrder(creation: CreationOrder): PositionedRows | undefined {
    if (this.column.complexRows.length > 0 || !this.fromPostings()) return undefined;
    const positions = emptyBitset(this.size);
    const count = this.markAcceptedRows(positions, creation);
    return { positions, count, order: creation.order, rank: creation.rank };
  }

  /**
   * The rows the leaf does not reject, when it rejects missing and null values: the rows of its accepted
   * values, then those holding an array or an object (`unknownCount`, last).
   */
  candidates(): Int32Array {
    const accepted = this.acceptedRows();
    const complex = this.column.complexRows;
    if (complex.length === 0) return accepted;
    const out = new Int32Array(accepted.length + complex.length);
    out.set(accepted);
    out.set(complex, accepted.length);
    return out;
  }

  /** True when the leaf's true rows come only from accepted values (missing and null rows rejected). */
  rejectsSpecial(): boolean {
    return this.missingAnswer === FALSE && this.nullAnswer === FALSE;
  }

  /**
   * True when the leaf can list its rows (`acceptedRows`, `candidates`: a seed or a candidate list): it
   * builds an accept table (not `perRow`) and rejects missing and null values.
   */
  listsRows(): boolean {
    return !this.perRow && this.rejectsSpecial();
  }

  dense(within: Bitset | null): DenseResult {
    if (this.perRow) return this.denseByRows(within);
    const { size, timer } = this;
    const accept = this.table().table;
    const ids = this.column.ids;
    const words = (size + 31) >>> 5;
    const t = new Uint32Array(words);
    if (within === null && this.fromPostings()) this.markAcceptedRows(t);
    else {
      const missing = this.missingAnswer;
      const nul = this.nullAnswer;
      for (let w = 0; w < words; w++) {
        if (within !== null && within[w] === 0) continue;
        timer.tick(32);
        const base = w << 5;
        const end = Math.min(base + 32, size);
        let bits = 0;
        for (let i = base; i < end; i++) {
          const id = ids[i]!;
          const a = id >= 0 ? accept[id]! : id === TEXT_MISSING ? missing : id === TEXT_COMPLEX ? 0 : nul;
          bits |= a << (i - base);
        }
        t[w] = bits;
      }
    }
    if (this.column.complexRows.length === 0) return { t, p: t };
    const p = t.slice();
    for (const i of this.column.complexRows) setBit(p, i);
    timer.tick(this.column.complexRows.length);
    return { t, p };
  }

  /**
   * `dense` row by row (a per-row leaf): `row(i)` for each row of `within` (every row when null), one
   * `timer` tick each; rows holding an array or an object are possible, not true.
   */
  denseByRows(within: Bitset | null): DenseResult {
    const { size, timer } = this;
    const t = emptyBitset(size);
    const p = this.column.complexRows.length === 0 ? t : emptyBitset(size);
    const visit = (i: number) => {
      timer.tick();
      const answer = this.row(i);
      if (answer === FALSE) return;
      p[i >>> 5]! |= 1 << (i & 31);
      if (answer === TRUE) t[i >>> 5]! |= 1 << (i & 31);
    };
    if (within === null) for (let i = 0; i < size; i++) visit(i);
    else {
      const rows = bitsToRows(within);
      for (let k = 0; k < rows.length; k++) visit(rows[k]!);
    }
    return { t, p };
  }

  describe(): string {
    if (this.perRow) return `text ${this.column.field} (per row, memo per value)`;
    const how =
      this.query.op === "all"
        ? "every distinct value"
        : `${gramCount(this.query)} trigrams${this.candidateCount < 0 ? "" : `, ${this.candidateCount} candidate values`}`;
    return `text-index ${this.column.field} (${how})`;
  }
}

/**
 * Per text column, per pattern key (`TextLeaf`): each value id's answer in two bits (value id `id` in bits
 * `2 × (id % 4)` of byte `id / 4`: 0 not tested, 1 false, 2 true), a quarter of a byte per value so that
 * the memo of ten million rows' titles stays in the processor's cache.
 */
const MEMOS = new WeakMap<TextColumn, Map<string, Uint8Array>>();
/** Patterns memoized per text column at most (the least recently used dropped first). */
const MAX_MEMOS = 8;

/**
 * The memo of a text column and pattern key, covering every value id of the column (grown as values are
 * added: a value id's answer never changes, values are only appended). Kept across queries, at most
 * `MAX_MEMOS` patterns per column, a quarter of a byte per distinct value each.
 */
function memoOf(column: TextColumn, key: string): Uint8Array {
  let byKey = MEMOS.get(column);
  if (byKey === undefined) {
    byKey = new Map();
    MEMOS.set(column, byKey);
  }
  let memo = byKey.get(key);
  const bytes = (column.values.length + 3) >>> 2;
  if (memo !== undefined) byKey.delete(key);
  if (memo === undefined || memo.length < bytes) {
    const next = new Uint8Array(bytes + (bytes >>> 3) + 16);
    if (memo !== undefined) next.set(memo);
    memo = next;
  }
  if (byKey.size >= MAX_MEMOS) {
    const oldest = byKey.keys().next().value;
    if (oldest !== undefined) byKey.delete(oldest);
  }
  byKey.set(key, memo);
  return memo;
}

/** The field nodes a date column can answer (see `dateLeafEligible`). */
export type DateEligibleNode = Extract<FieldNode, { kind: "range" | "eq" | "ne" | "in" | "nin" | "exists" }>;

/**
 * Whether a field node can be answered by a date column: a single-segment node on a catalogue date field
 * whose operands are all dates (or null, for equality): ranges, `$eq`/`$ne`, `$in`/`$nin`, `$exists`.
 */
export function dateLeafEligible(node: FieldNode): node is DateEligibleNode {
  if (node.fieldKind !== "date" || node.path.length !== 1) return false;
  switch (node.kind) {
    case "range":
      return (
        (node.lower !== undefined || node.upper !== undefined) &&
        (node.lower === undefined || node.lower.operand.type === "date") &&
        (node.upper === undefined || node.upper.operand.type === "date")
      );
    case "eq":
    case "ne":
      return dateOrNull(node.operand);
    case "in":
    case "nin":
      return node.operands.every(dateOrNull);
    case "exists":
      return true;
    case "all":
    case "regex":
    case "size":
    case "type":
    case "mod":
    case "elemMatch":
      return false; // no date operand: the row predicate answers
    default:
      return assertNever(node);
  }
}

/** A field node on a catalogue date field answered by its date column (epoch ms). */
export class DateLeaf implements PlanNode {
  readonly condition: DateEligibleNode;
  readonly column: DateColumn;
  readonly estimate: number;
  readonly size: number;
  /** Answers for the non-date states (missing, null, other), UNKNOWN for complex. */
  private readonly stateAnswer: Uint8Array;
  /** The test of a date value (ms). */
  readonly test: (ms: number) => boolean;
  private readonly timer: BudgetTimer;
  /** For a positive range or `$eq` date: the ms interval [lo, hi] with inclusivity (segments of the order). */
  readonly interval: MsInterval | undefined;

  constructor(node: DateEligibleNode, column: DateColumn, size: number, timer: BudgetTimer = UNBOUNDED) {
    this.condition = node;
    this.column = column;
    this.size = size;
    this.timer = timer;
    const leaf = leafSemantics(node);
    const answers = new Uint8Array(5);
    answers[DATE_MISSING] = leaf.missing ? TRUE : FALSE;
    answers[DATE_NULL] = leaf.one(null) ? TRUE : FALSE;
    // Every present non-date scalar answers alike for date operands: no date equals it or lies in a range.
    answers[DATE_OTHER] = leaf.one("not a date") ? TRUE : FALSE;
    answers[DATE_COMPLEX] = UNKNOWN;
    answers[DATE_VALUE] = UNKNOWN; // decided by `test`
    this.stateAnswer = answers;
    this.test = dateTest(node);
    this.interval = intervalOf(node);
    this.estimate = this.sampleEstimate();
  }

  /** The fraction of true rows (unknown counted half) among up to 256 evenly spaced rows. */
  private sampleEstimate(): number {
    if (this.size === 0) return 0;
    const step = Math.max(1, Math.floor(this.size / 256));
    let hits = 0;
    let seen = 0;
    for (let i = 0; i < this.size; i += step) {
      const answer = this.row(i);
      hits += answer === TRUE ? 1 : answer === UNKNOWN ? 0.5 : 0;
      seen++;
    }
    return hits / seen;
  }

  row(i: number): Tri {
    const state = this.column.states[i]!;
    if (state === DATE_VALUE) return this.test(this.column.ms[i]!) ? TRUE : FALSE;
    return this.stateAnswer[state] as Tri;
  }

  dense(within: Bitset | null): DenseResult {
    const { size, timer } = this;
    const { ms, states, counts } = this.column;
    const words = (size + 31) >>> 5;
    const t = new Uint32Array(words);
    const interval = this.interval;
    const answers = this.stateAnswer;
    const hasComplex = counts[DATE_COMPLEX]! > 0;
    const p = hasComplex ? new Uint32Array(words) : t;
    const otherTrue =
      answers[DATE_MISSING] === TRUE || answers[DATE_NULL] === TRUE || answers[DATE_OTHER] === TRUE;
    if (interval !== undefined && !otherTrue) {
      // NaN (non-dates) fails every comparison: a branch-free interval test over the ms column.
      const { lo, hi, loInclusive, hiInclusive } = interval;
      for (let w = 0; w < words; w++) {
        if (within !== null && within[w] === 0) continue;
        timer.tick(32);
        const base = w << 5;
        const end = Math.min(base + 32, size);
        let bits = 0;
        for (let i = base; i < end; i++) {
          const m = ms[i]!;
          const ok = (loInclusive ? m >= lo : m > lo) && (hiInclusive ? m <= hi : m < hi);
          bits |= (ok ? 1 : 0) << (i - base);
        }
        t[w] = bits;
      }
    } else {
      const test = this.test;
      for (let w = 0; w < words; w++) {
        if (within !== null && within[w] === 0) continue;
        timer.tick(32);
        const base = w << 5;
        const end = Math.min(base + 32, size);
        let bits = 0;
        for (let i = base; i < end; i++) {
          const state = states[i]!;
          const ok = state === DATE_VALUE ? test(ms[i]!) : answers[state] === TRUE;
          bits |= (ok ? 1 : 0) << (i - base);
        }
        t[w] = bits;
      }
    }
    if (hasComplex) {
      p.set(t);
      for (const i of this.column.complexRows) setBit(p, i);
      timer.tick(this.column.complexRows.length);
    }
    return { t, p };
  }

  /** True when `interval` alone decides every row: no array values, and no non-date state is accepted. */
  decidesByInterval(): boolean {
    return (
      this.interval !== undefined &&
      this.column.counts[DATE_COMPLEX] === 0 &&
      this.stateAnswer[DATE_MISSING] === FALSE &&
      this.stateAnswer[DATE_NULL] === FALSE &&
      this.stateAnswer[DATE_OTHER] === FALSE
    );
  }

  describe(): string {
    return `date ${this.column.field}`;
  }
}

/** True when `ms` lies in `interval` (NaN, not a date, lies in none). */
function inInterval(interval: MsInterval, ms: number): boolean {
  const { lo, hi, loInclusive, hiInclusive } = interval;
  return (loInclusive ? ms >= lo : ms > lo) && (hiInclusive ? ms <= hi : ms < hi);
}

/** The test of a date value for an eligible node (see `dateLeafEligible`). */
function dateTest(node: DateEligibleNode): (ms: number) => boolean {
  switch (node.kind) {
    case "range": {
      const interval = rangeInterval(node);
      return (ms) => inInterval(interval, ms);
    }
    case "eq":
    case "ne": {
      const positive = node.kind === "eq";
      if (node.operand.type !== "date") return () => !positive;
      const k = node.operand.value;
      return (ms) => (ms === k) === positive;
    }
    case "in":
    case "nin": {
      const positive = node.kind === "in";
      const dates = new Set<number>();
      for (const o of node.operands) if (o.type === "date" && !Number.isNaN(o.value)) dates.add(o.value);
      return (ms) => dates.has(ms) === positive;
    }
    case "exists": {
      const exists = node.exists;
      return () => exists;
    }
    default:
      return assertNever(node);
  }
}

/** The interval of an eligible range node (a missing bound is infinite; bounds are dates). */
function rangeInterval(node: Extract<DateEligibleNode, { kind: "range" }>): MsInterval {
  return {
    lo: node.lower === undefined ? Number.NEGATIVE_INFINITY : (node.lower.operand as { value: number }).value,
    loInclusive: node.lower?.inclusive ?? true,
    hi: node.upper === undefined ? Number.POSITIVE_INFINITY : (node.upper.operand as { value: number }).value,
    hiInclusive: node.upper?.inclusive ?? true,
  };
}

/** The date interval of a positive range or `$eq` date node: the rows it accepts among the dated ones. */
function intervalOf(node: DateEligibleNode): MsInterval | undefined {
  if (node.kind === "range") return rangeInterval(node);
  if (node.kind === "eq" && node.operand.type === "date" && !Number.isNaN(node.operand.value)) {
    const k = node.operand.value;
    return { lo: k, loInclusive: true, hi: k, hiInclusive: true };
  }
  return undefined;
}

/** The field nodes a hash index can answer (see `hashLeafEligible`). */
export type HashEligibleNode = Extract<FieldNode, { kind: "eq" | "ne" | "in" | "nin" }>;

/** A string, number or boolean operand (module-level: no closure per planned node). */
function scalar(o: Operand): boolean {
  return o.type === "string" || o.type === "number" || o.type === "boolean";
}

/** A date or null operand. */
function dateOrNull(o: Operand): boolean {
  return o.type === "date" || o.type === "null";
}

/** Whether a field node can use a hash index: `$eq`/`$in`/`$ne`/`$nin` with string, number or boolean operands. */
export function hashLeafEligible(node: FieldNode): node is HashEligibleNode {
  if (node.path.length !== 1) return false;
  switch (node.kind) {
    case "eq":
    case "ne":
      return scalar(node.operand);
    case "in":
    case "nin":
      return node.operands.every(scalar);
    case "range":
    case "all":
    case "regex":
    case "exists":
    case "size":
    case "type":
    case "mod":
    case "elemMatch":
      return false; // not an equality: the other columns or the row predicate answer
    default:
      return assertNever(node);
  }
}

/**
 * A field node answered by a hash index (equality on a selective field). On a compact set's index
 * (`CompactHashIndex`) the rows are first probed by hash alone (`probed`: a superset of the hits, read from
 * no record); the exact hits are read back from the records only when asked for (`hits`), since the paths
 * that walk candidates check each row against the whole condition anyway.
 */
export class HashLeaf implements PlanNode {
  readonly condition: HashEligibleNode;
  readonly index: HashIndex;
  readonly positive: boolean;
  /** Rows that may equal an operand (exactly the hits on a plain `HashIndex`), each once. */
  readonly probed: readonly number[];
  readonly estimate: number;
  readonly size: number;
  private bits: { hit: Bitset; array: Bitset } | undefined;
  private exact: readonly number[] | undefined;
  private readonly values: readonly unknown[];
  private readonly timer: BudgetTimer;

  constructor(node: HashEligibleNode, index: HashIndex, size: number, timer: BudgetTimer = UNBOUNDED) {
    this.condition = node;
    this.timer = timer;
    this.index = index;
    this.size = size;
    this.positive = node.kind === "eq" || node.kind === "in";
    const operands = node.kind === "eq" || node.kind === "ne" ? [node.operand] : node.operands;
    const values: unknown[] = [];
    for (const operand of operands) {
      if (operand.type === "null" || operand.type === "date" || values.includes(operand.value)) continue;
      values.push(operand.value);
    }
    this.values = values;
    if (index instanceof CompactHashIndex) {
      // Distinct operands with one hash probe the same rows: each hash once.
      const seen = new Set<number>();
      const probed: number[] = [];
      for (const value of values) {
        const h = hashKey(value as string | number | boolean);
        if (seen.has(h)) continue;
        seen.add(h);
        for (const row of index.probe(value)) probed.push(row);
      }
      this.probed = probed;
    } else {
      const hits: number[] = [];
      for (const value of values) for (const row of index.rowsOf(value)) hits.push(row);
      this.probed = hits;
      this.exact = hits;
    }
    const fraction = size === 0 ? 0 : (this.probed.length + index.arrayRows.length / 2) / size;
    this.estimate = this.positive ? fraction : 1 - fraction;
  }

  /** Rows whose scalar value equals an operand (surely true for `$eq`/`$in`), each once. */
  get hits(): readonly number[] {
    if (this.exact === undefined) {
      const index = this.index as CompactHashIndex;
      const values = this.values;
      this.timer.tick(this.probed.length);
      this.exact = this.probed.filter((row) => values.some((value) => index.holds(row, value)));
    }
    return this.exact;
  }

  /**
   * Candidate rows of a positive leaf, for paths that check each against the whole condition: the probed
   * rows (a superset of the hits) and every row holding an array, each once.
   */
  candidates(): number[] {
    return [...this.probed, ...this.index.arrayRows];
  }

  private bitsets(): { hit: Bitset; array: Bitset } {
    if (this.bits === undefined) {
      this.timer.tick(this.hits.length + this.index.arrayRows.length);
      this.bits = {
        hit: rowsToBits(this.hits, this.size),
        array: rowsToBits(this.index.arrayRows, this.size),
      };
    }
    return this.bits;
  }

  row(i: number): Tri {
    const { hit, array } = this.bitsets();
    if (hasBit(array, i)) return UNKNOWN;
    return hasBit(hit, i) === this.positive ? TRUE : FALSE;
  }

  dense(): DenseResult {
    const { hit, array } = this.bitsets();
    this.timer.tick(this.size); // one word-wide pass
    if (this.positive) return { t: hit, p: or(hit, array) };
    return { t: not(or(hit, array), this.size), p: not(hit, this.size) };
  }

  describe(): string {
    return `hash ${this.index.field} (${this.hits.length} hits)`;
  }
}

/** A node no column answers: unknown for every row. */
export class ResidualLeaf implements PlanNode {
  readonly condition: Condition;
  readonly estimate: number;
  readonly size: number;

  constructor(node: Condition, size: number) {
    this.condition = node;
    this.size = size;
    this.estimate =
      node.kind === "regex" ? (compileRegex(node.source, node.flags).literal === undefined ? 0.2 : 0.1) : 0.5;
  }

  row(): Tri {
    return UNKNOWN;
  }

  dense(within: Bitset | null): DenseResult {
    return { t: emptyBitset(this.size), p: within ?? fullBitset(this.size) };
  }

  describe(): string {
    return `row predicate (${this.condition.kind})`;
  }
}

/** A constant answer (`{}` is true for every row). */
class ConstantNode implements PlanNode {
  readonly condition: Condition;
  readonly estimate: number;
  readonly value: boolean;
  readonly size: number;

  constructor(node: Condition, value: boolean, size: number) {
    this.condition = node;
    this.value = value;
    this.estimate = value ? 1 : 0;
    this.size = size;
  }

  row(): Tri {
    return this.value ? TRUE : FALSE;
  }

  dense(): DenseResult {
    const bits = this.value ? fullBitset(this.size) : emptyBitset(this.size);
    return { t: bits, p: bits };
  }

  describe(): string {
    return String(this.value);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Logical nodes

/** Below this fraction of possible rows, an AND switches from column scans to row-at-a-time. */
const ROW_MODE_FRACTION = 1 / 24;
/** An AND child selecting at most this fraction of the rows seeds row-at-a-time evaluation. */
const SEED_FRACTION = 1 / 8;
/**
 * The seed fraction when the alternative is a fused scan of every row (a date interval among the
 * children, or columns without per-code bitsets): a seed row costs about three times a scanned row, so
 * seeding pays up to about a third of the rows; a quarter keeps a margin.
 */
const SCAN_SEED_FRACTION = 1 / 4;

/** The strategy of an AND of labels over per-code bitsets (`AndPlan.strategy`). */
const FUSED_CODE_BITSETS = "fused code bitsets";
/** The access path's strategy for an OR or NOT of labels over per-code bitsets (`denseChoice`). */
const LABEL_BITSETS = "label bitsets";

/**
 * AND of children under three-valued logic (false wins, then unknown). Evaluation: a selective child's
 * rows seed a row-at-a-time pass; else column leaves deciding every row run fused (dictionary leaves of
 * low-cardinality columns as word-wide operations on per-code bitsets, otherwise up to three column leaves
 * in one pass over the rows); else children run most selective first, each over the rows still possible,
 * switching to row-at-a-time when few remain.
 */
export class AndPlan implements PlanNode {
  readonly condition: Condition;
  readonly children: readonly PlanNode[];
  readonly estimate: number;
  readonly size: number;
  private readonly timer: BudgetTimer;

  /**
   * Text leaves run last, row by row, on the rows the other children leave (see `deferTextLeaves`); empty
   * when none is.
   */
  readonly deferred: readonly TextLeaf[];
  /** The other children, as one node (an AND of them, or the one child), when `deferred` is not empty. */
  private readonly first: PlanNode | undefined;

  /** The creation order and its date column, for `segmentScan` (absent: no segment scans). */
  private readonly order: OrderAccess | undefined;
  /** False: label expressions without generated code (`Storage.codegen`). */
  private readonly codegen: boolean;

  constructor(
    node: Condition,
    children: PlanNode[],
    size: number,
    timer: BudgetTimer = UNBOUNDED,
    order?: OrderAccess,
    codegen = true,
  ) {
    this.condition = node;
    this.size = size;
    this.timer = timer;
    this.order = order;
    this.codegen = codegen;
    const deferred = deferTextLeaves(children, size, order?.column);
    // Most selective first; deferred text leaves after the other column leaves; residual leaves (unknown
    // everywhere) last.
    this.children = children
      .map((child, index) => ({
        child,
        index,
        key:
          child instanceof ResidualLeaf
            ? 4 + child.estimate
            : deferred.includes(child as TextLeaf)
              ? 2 + child.estimate
              : child.estimate,
      }))
      .sort((a, b) => a.key - b.key || a.index - b.index)
      .map((entry) => entry.child);
    this.estimate = children.reduce((product, child) => product * child.estimate, 1);
    this.deferred = deferred;
    const rest = this.children.filter((child) => !deferred.includes(child as TextLeaf));
    this.first =
      deferred.length === 0
        ? undefined
        : rest.length === 1
          ? rest[0]!
          : new AndPlan(node, rest, size, timer, undefined, codegen);
  }

  row(i: number): Tri {
    return allOf(this.children, i);
  }

  dense(within: Bitset | null): DenseResult {
    const segment = this.segmentChoice();
    if (segment !== undefined) return this.segmentScan(within, segment);
    if (this.first !== undefined) return this.thenRows(this.first.dense(within), this.deferred);
    const seeded = this.seeded(within);
    if (seeded !== undefined) return seeded;
    const fused = this.fused(within);
    if (fused !== undefined) return fused;
    let t: Bitset | null = null;
    let p: Bitset | null = within;
    const children = this.children;
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!;
      if (child instanceof ResidualLeaf) continue; // unknown everywhere: leaves p as is, t empty
      if (p !== null && popcount(p) < this.size * ROW_MODE_FRACTION) {
        return this.rowMode(t, p, k);
      }
      const result = child.dense(p);
      t = t === null ? result.t : and(t, result.t);
      p = p === null ? result.p : and(p, result.p);
      this.timer.tick(this.size); // the word-wide ANDs
    }
    if (p === null) {
      const all = fullBitset(this.size);
      return { t: this.hasResidual() ? emptyBitset(this.size) : all, p: all };
    }
    if (t === null || this.hasResidual()) return { t: emptyBitset(this.size), p };
    return { t: and(t, p), p };
  }

  /**
   * When one child selects few rows (a dictionary leaf by its postings, a hash leaf by its hits), only
   * those rows are examined, row by row: a selection vector instead of column scans.
   */
  private seeded(within: Bitset | null): DenseResult | undefined {
    const best = this.seedLeaf(this.seedFraction(within));
    if (best === undefined) return undefined;
    // A hash leaf's candidates are its hits (surely true) then the rows holding an array (unknown: an
    // element may equal an operand, or not); a text leaf's, the rows of its accepted values (surely true)
    // then those holding an array or an object (unknown). A dictionary leaf's seed rows are re-read with
    // the others.
    const rows =
      best instanceof DictionaryLeaf
        ? best.seedRows()
        : best instanceof HashLeaf
          ? [...best.hits, ...best.index.arrayRows]
          : best.candidates();
    const sure =
      best instanceof HashLeaf
        ? best.hits.length
        : best instanceof TextLeaf
          ? rows.length - best.unknownCount
          : rows.length;
    const outT = emptyBitset(this.size);
    const outP = emptyBitset(this.size);
    // Dictionary children are read straight from their columns (no virtual call per row).
    const codes: Codes[] = [];
    const accepts: Uint8Array[] = [];
    const others: PlanNode[] = [];
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf) {
        codes.push(child.column.codes);
        accepts.push(child.accept);
      } else if (child !== best) others.push(child);
    }
    const dictionaries = codes.length;
    const timer = this.timer;
    for (let k = 0; k < rows.length; k++) {
      timer.tick();
      const i = rows[k]!;
      if (within !== null && (within[i >>> 5]! & (1 << (i & 31))) === 0) continue;
      let answer: Tri = k < sure ? TRUE : UNKNOWN;
      for (let c = 0; c < dictionaries && answer !== FALSE; c++) {
        answer = and3(answer, accepts[c]![codes[c]![i]!] as Tri);
      }
      if (answer !== FALSE) answer = allOf(others, i, answer);
      if (answer === FALSE) continue;
      outP[i >>> 5]! |= 1 << (i & 31);
      if (answer === TRUE) outT[i >>> 5]! |= 1 << (i & 31);
    }
    return { t: outT, p: outP };
  }

  /**
   * When every child is a column leaf that decides every row (dictionary columns without arrays or objects,
   * `CreatedUtcTime`-style intervals on a date column without arrays), one branch-free pass over the
   * columns ANDs the children's answers: no intermediate bitsets.
   */
  private fused(within: Bitset | null): DenseResult | undefined {
    const shape = this.fusedShape();
    if (shape === undefined) return undefined;
    const { codes, accepts, date } = shape;
    if (date === undefined && within === null) {
      const bits = this.fusedByCodeBitsets();
      if (bits !== undefined) return { t: bits, p: bits };
    }
    if (codes.length > 3) return undefined;
    // Fewer than three columns: repeat the first (AND is idempotent), so one loop shape serves all.
    while (codes.length < 3) {
      codes.push(codes[0]!);
      accepts.push(accepts[0]!);
    }
    const size = this.size;
    const t = new Uint32Array((size + 31) >>> 5);
    if (date === undefined) fusedScan(t, size, within, codes, accepts, this.timer);
    else fusedScanWithDates(t, size, within, codes, accepts, date.column.ms, date.interval!, this.timer);
    if (within !== null) for (let w = 0; w < t.length; w++) t[w]! &= within[w]!;
    return { t, p: t };
  }

  /**
   * The children as fused-pass inputs when every child is a column leaf deciding every row (at most one
   * date interval), with at least one dictionary leaf; otherwise undefined.
   */
  private fusedShape(): { codes: Codes[]; accepts: Uint8Array[]; date: DateLeaf | undefined } | undefined {
    const codes: Codes[] = [];
    const accepts: Uint8Array[] = [];
    let date: DateLeaf | undefined;
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf && child.unknownCount === 0) {
        codes.push(child.column.codes);
        accepts.push(child.accept);
      } else if (child instanceof DateLeaf && date === undefined && child.decidesByInterval()) {
        date = child;
      } else return undefined;
    }
    return codes.length === 0 ? undefined : { codes, accepts, date };
  }

  /**
   * The strategy `dense(null)` takes (what `explain` reports): `seeded by <leaf>`, `fused code bitsets`,
   * `fused scan`, `fused scan with dates`, or `column scans`.
   */
  strategy(): string {
    if (this.segmentChoice() !== undefined) {
      if (this.deferred.length === 0) return `segment ${ORDER_FIELD}, labels by word`;
      return `segment ${ORDER_FIELD}, then per row ${this.deferred.map((leaf) => leaf.describe()).join(", ")}`;
    }
    if (this.first !== undefined) {
      const first = this.first instanceof AndPlan ? this.first.strategy() : this.first.describe();
      return `${first}, then per row ${this.deferred.map((leaf) => leaf.describe()).join(", ")}`;
    }
    const seed = this.seedLeaf(this.seedFraction(null));
    if (seed !== undefined) return `seeded by ${seed.describe()}`;
    const shape = this.fusedShape();
    if (shape !== undefined) {
      const bitsets = this.children.every(
        (child) => child instanceof DictionaryLeaf && child.column.keepsCodeBitsets(),
      );
      if (shape.date === undefined && bitsets) return FUSED_CODE_BITSETS;
      if (shape.codes.length <= 3) return shape.date === undefined ? "fused scan" : "fused scan with dates";
    }
    return "column scans";
  }

  /**
   * The largest fraction of the rows a seed may select: `SCAN_SEED_FRACTION` when `dense(within)` would
   * otherwise scan every row (`fused scan`, `fused scan with dates`), else `SEED_FRACTION` (per-code
   * bitsets and column scans work a word of 32 rows at a time).
   */
  private seedFraction(within: Bitset | null): number {
    const shape = this.fusedShape();
    if (shape === undefined || shape.codes.length > 3) return SEED_FRACTION;
    const bitsets =
      shape.date === undefined &&
      within === null &&
      this.children.every((child) => child instanceof DictionaryLeaf && child.column.keepsCodeBitsets());
    return bitsets ? SEED_FRACTION : SCAN_SEED_FRACTION;
  }

  /**
   * The child whose rows seed a row-at-a-time pass: the most selective dictionary leaf that rejects
   * missing values, positive hash leaf, or text leaf rejecting missing and null values (by its estimate:
   * its accepted values are known only once its table is built), when it selects at most `fraction` of
   * the rows (`seedFraction`).
   */
  private seedLeaf(fraction: number): DictionaryLeaf | HashLeaf | TextLeaf | undefined {
    const limit = this.size * fraction;
    let best: DictionaryLeaf | HashLeaf | TextLeaf | undefined;
    let bestCount = limit;
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf && child.accept[CODE_MISSING] === FALSE) {
        const count = child.trueCount + child.unknownCount;
        if (count <= bestCount) {
          best = child;
          bestCount = count;
        }
      } else if (child instanceof HashLeaf && child.positive) {
        const count = child.probed.length + child.index.arrayRows.length;
        if (count <= bestCount) {
          best = child;
          bestCount = count;
        }
      } else if (child instanceof TextLeaf && child.listsRows()) {
        const count = child.estimate * this.size;
        if (count <= bestCount) {
          best = child;
          bestCount = count;
        }
      }
    }
    return best;
  }

  /**
   * `fused` over whole words: the children (dictionary leaves deciding every row, of columns with per-code
   * bitsets) as a label expression (label-bitsets.ts). Undefined when a column keeps no per-code bitsets.
   */
  private fusedByCodeBitsets(): Bitset | undefined {
    const expression = labelExpression(this, this.size);
    return expression === undefined
      ? undefined
      : denseLabels(expression, this.size, this.timer, this.codegen);
  }

  private hasResidual(): boolean {
    return this.children.some((child) => child instanceof ResidualLeaf);
  }

  /**
   * The segment of the creation order to scan (`segmentScan`): when text leaves are deferred and a child is
   * a `CreatedUtcTime` interval deciding every row (`DateLeaf.decidesByInterval`) whose segment holds at
   * most half the rows; undefined otherwise.
   */
  private segmentChoice(): { date: DateLeaf; from: number; to: number } | undefined {
    const order = this.order;
    if (order === undefined) return undefined;
    const labelsOnly = this.deferred.length === 0 && this.labelsAndIntervalOnly(order);
    if (this.deferred.length === 0 && !labelsOnly) return undefined;
    for (const child of this.children) {
      if (child instanceof DateLeaf && child.column === order.column && child.decidesByInterval()) {
        const [from, to] = order.creation().segment(child.interval!);
        // Labels and the interval alone: word operations over the segment and one step per row found, so
        // a segment of any length beats a pass over the rows.
        return labelsOnly || to - from <= this.size / 2 ? { date: child, from, to } : undefined;
      }
    }
    return undefined;
  }

  /**
   * True when this AND is a `CreatedUtcTime` interval deciding every row and dictionary leaves deciding
   * every row on columns that keep per-code bitsets (at least one): a segment scan then runs in word
   * operations alone (docs/performance.md, "Labels and a creation-time interval").
   */
  private labelsAndIntervalOnly(order: OrderAccess): boolean {
    let labels = 0;
    let interval = 0;
    for (const child of this.children) {
      if (child instanceof DictionaryLeaf && child.unknownCount === 0 && child.column.keepsCodeBitsets())
        labels++;
      else if (child instanceof DateLeaf && child.column === order.column && child.decidesByInterval())
        interval++;
      else return false;
    }
    return labels > 0 && interval === 1;
  }

  /**
   * The rows of a `CreatedUtcTime` segment, read in creation order: the interval decides every row (those
   * outside are false). Dictionary children deciding every row, of columns with few codes, select positions
   * by word operations on per-code bitsets over the order (`CreationOrder.codeBitsetsInOrder`); on the
   * positions left, the other dictionary children read their codes, and deferred text leaves their value
   * ids, from copies permuted into creation order (`CreationOrder.inOrder`: reads in ascending positions),
   * other children answer by row, and text leaves run last. `timer` counts each word-wide pass's positions
   * once per pass, then ticks once per position left.
   */
  private segmentScan(
    within: Bitset | null,
    { date, from, to }: { date: DateLeaf; from: number; to: number },
  ): DenseResult {
    const creation = this.order!.creation();
    const order = creation.order;
    const codes: Codes[] = [];
    const accepts: Uint8Array[] = [];
    const selectors: { bits: readonly Uint32Array[]; accepted: number[] }[] = [];
    const others: PlanNode[] = [];
    const texts: TextLeaf[] = [];
    const textIds: Int32Array[] = [];
    for (const child of this.children) {
      if (child === date) continue;
      if (child instanceof DictionaryLeaf) {
        const column = child.column;
        if (child.unknownCount === 0 && column.keepsCodeBitsets()) {
          const accepted: number[] = [];
          for (let code = 0; code < child.accept.length; code++)
            if (child.accept[code] !== FALSE && column.counts[code]! > 0) accepted.push(code);
          selectors.push({ bits: creation.codeBitsetsInOrder(column.codes, column.values.length), accepted });
        } else {
          codes.push(creation.inOrder(column.codes));
          accepts.push(child.accept);
        }
      } else if (child instanceof TextLeaf && this.deferred.includes(child)) {
        texts.push(child);
        textIds.push(creation.inOrder(child.column.ids));
      } else others.push(child);
    }
    const outT = emptyBitset(this.size);
    const outP = emptyBitset(this.size);
    const timer = this.timer;
    const positions = segmentPositions(from, to, selectors, timer);
    for (const text of texts) text.prepareRows(positions.length);
    const dictionaries = codes.length;
    const single = texts.length === 1 && others.length === 0 && dictionaries === 0 ? texts[0]! : undefined;
    const singleIds = textIds[0];
    let unknown = false;
    for (let k = 0; k < positions.length; k++) {
      timer.tick();
      const j = positions[k]!;
      const i = order[j]!;
      if (within !== null && (within[i >>> 5]! & (1 << (i & 31))) === 0) continue;
      let answer: Tri;
      if (single !== undefined) answer = single.answerOfId(singleIds![j]!);
      else {
        answer = TRUE;
        for (let c = 0; c < dictionaries && answer !== FALSE; c++) {
          answer = and3(answer, accepts[c]![codes[c]![j]!] as Tri);
        }
        if (answer === FALSE) continue;
        if (others.length > 0) answer = allOf(others, i, answer);
        for (let n = 0; n < texts.length && answer !== FALSE; n++) {
          answer = and3(answer, texts[n]!.answerOfId(textIds[n]![j]!));
        }
      }
      if (answer === FALSE) continue;
      outP[i >>> 5]! |= 1 << (i & 31);
      if (answer === TRUE) outT[i >>> 5]! |= 1 << (i & 31);
      else unknown = true;
    }
    return { t: outT, p: unknown ? outP : outT };
  }

  /**
   * Finishes `leaves` row by row over the rows `result` leaves possible: a row stays true when `result`
   * says true and every leaf says true, possible unless one says false.
   */
  private thenRows(result: DenseResult, leaves: readonly PlanNode[]): DenseResult {
    const outT = emptyBitset(this.size);
    const outP = emptyBitset(this.size);
    const { t, p } = result;
    const rows = bitsToRows(p);
    for (const leaf of leaves) if (leaf instanceof TextLeaf) leaf.prepareRows(rows.length);
    const timer = this.timer;
    for (let k = 0; k < rows.length; k++) {
      timer.tick();
      const i = rows[k]!;
      const w = i >>> 5;
      const bit = 1 << (i & 31);
      const answer = allOf(leaves, i, (t[w]! & bit) !== 0 ? TRUE : UNKNOWN);
      if (answer === FALSE) continue;
      outP[w]! |= bit;
      if (answer === TRUE) outT[w]! |= bit;
    }
    return { t: outT, p: outP };
  }

  /** Finishes children `from…` row by row over the possible rows `p`. */
  private rowMode(t: Bitset | null, p: Bitset, from: number): DenseResult {
    const outT = emptyBitset(this.size);
    const outP = emptyBitset(this.size);
    const rest = this.children.slice(from).filter((child) => !(child instanceof ResidualLeaf));
    const residual = this.hasResidual();
    const timer = this.timer;
    for (const i of bitsToRows(p)) {
      timer.tick();
      // Residual children answer unknown for every row: folded in once, as the initial answer.
      const answer = allOf(rest, i, (t === null || hasBit(t, i)) && !residual ? TRUE : UNKNOWN);
      if (answer !== FALSE) setBit(outP, i);
      if (answer === TRUE) setBit(outT, i);
    }
    return { t: outT, p: outP };
  }

  describe(): string {
    return `and(${this.children.map((c) => c.describe()).join(", ")})`;
  }
}

/** OR of children under three-valued logic (true wins, then unknown): the union of their bitsets. */
export class OrPlan implements PlanNode {
  readonly condition: Condition;
  readonly children: readonly PlanNode[];
  readonly estimate: number;
  readonly size: number;

  private readonly timer: BudgetTimer;
  private readonly codegen: boolean;

  constructor(
    node: Condition,
    children: PlanNode[],
    size: number,
    timer: BudgetTimer = UNBOUNDED,
    codegen = true,
  ) {
    this.condition = node;
    this.children = children;
    this.size = size;
    this.timer = timer;
    this.codegen = codegen;
    this.estimate = Math.min(
      1,
      children.reduce((sum, child) => sum + child.estimate, 0),
    );
  }

  row(i: number): Tri {
    return anyOf(this.children, i);
  }

  dense(within: Bitset | null): DenseResult {
    const labels = denseByLabels(this, this.size, this.timer, this.codegen);
    if (labels !== undefined) return labels;
    let t = emptyBitset(this.size);
    let p = emptyBitset(this.size);
    for (const child of this.children) {
      const result = child.dense(within);
      t = or(t, result.t);
      p = or(p, result.p);
      this.timer.tick(this.size); // the word-wide ORs
    }
    return { t, p };
  }

  describe(): string {
    return `or(${this.children.map((c) => c.describe()).join(", ")})`;
  }
}

/** Negation (`$not`, and `$nor` over an OR): surely true where the child is surely false, unknown stays unknown. */
export class NotPlan implements PlanNode {
  readonly condition: Condition;
  readonly child: PlanNode;
  readonly estimate: number;
  readonly size: number;

  private readonly timer: BudgetTimer;
  private readonly codegen: boolean;

  constructor(
    node: Condition,
    child: PlanNode,
    size: number,
    timer: BudgetTimer = UNBOUNDED,
    codegen = true,
  ) {
    this.condition = node;
    this.child = child;
    this.size = size;
    this.timer = timer;
    this.codegen = codegen;
    this.estimate = 1 - child.estimate;
  }

  row(i: number): Tri {
    const answer = this.child.row(i);
    return answer === UNKNOWN ? UNKNOWN : answer === TRUE ? FALSE : TRUE;
  }

  dense(within: Bitset | null): DenseResult {
    const labels = denseByLabels(this, this.size, this.timer, this.codegen);
    if (labels !== undefined) return labels;
    const result = this.child.dense(within);
    return { t: not(result.p, this.size), p: not(result.t, this.size) };
  }

  describe(): string {
    return `not(${this.child.describe()})`;
  }
}

/**
 * The positions `j` in `[from, to)` of the creation order where every selector holds: for each, the OR of
 * its accepted codes' bitsets over positions (`CreationOrder.codeBitsetsInOrder`), ANDed word by word.
 * `timer` counts each word-wide pass's positions once per pass.
 */
function segmentPositions(
  from: number,
  to: number,
  selectors: readonly { bits: readonly Uint32Array[]; accepted: readonly number[] }[],
  timer: BudgetTimer,
): Int32Array {
  if (to <= from) return new Int32Array(0);
  const w0 = from >>> 5;
  const w1 = (to - 1) >>> 5;
  const words = w1 - w0 + 1;
  const acc = new Uint32Array(words).fill(0xffffffff);
  // The segment's first and last words hold positions outside it.
  acc[0]! &= 0xffffffff << (from & 31);
  acc[words - 1]! &= 0xffffffff >>> (31 - ((to - 1) & 31));
  const part = new Uint32Array(words);
  for (const { bits, accepted } of selectors) {
    part.fill(0);
    for (const code of accepted) {
      const b = bits[code]!;
      for (let w = 0; w < words; w++) part[w]! |= b[w0 + w]!;
      timer.tick(32 * words); // a word-wide pass
    }
    for (let w = 0; w < words; w++) acc[w]! &= part[w]!;
    timer.tick(32 * words);
  }
  let n = 0;
  for (let w = 0; w < words; w++) n += popcount32(acc[w]!);
  const out = new Int32Array(n);
  let k = 0;
  for (let w = 0; w < words; w++) {
    let x = acc[w]!;
    while (x !== 0) {
      const low = x & -x;
      out[k++] = ((w0 + w) << 5) + 31 - Math.clz32(low);
      x ^= low;
    }
  }
  return out;
}

/** What an AND plan needs of the creation order for segment scans (`AndPlan.segmentScan`). */
export interface OrderAccess {
  /** The date column of `ORDER_FIELD`. */
  readonly column: DateColumn;
  /** The creation order, up to date. */
  creation(): CreationOrder;
}

/** A text leaf's row check costs about this many cheap column checks (a memo read, else a string search). */
const TEXT_ROW_COST = 4;

/**
 * Trigram list entries read in the time of one test of a value by its pattern (a few nanoseconds an entry
 * in a pass over the lists, a few hundred for a test that reaches the value's text): `TextLeaf.prepareRows`.
 */
const LIST_ENTRIES_PER_TEST = 32;

/**
 * The text leaves among an AND's children that should run last, row by row, on the rows the others leave
 * (the cost model of docs/performance.md, "Text conditions in a conjunction"): every `perRow` leaf, and a
 * leaf whose accept table and seed would cost more than that, i.e. when
 * `rowsLeft × TEXT_ROW_COST + firstCost < valueTests + 2 × textRows`, where `rowsLeft` is the rows × the
 * other column leaves' estimates, `firstCost` what the others' cheapest start costs (a seed's rows; a
 * `CreatedUtcTime` segment of at most half the rows, or a scan, in word operations: an eighth of their
 * rows), `valueTests` the candidate values the table would test (0 once cached), and `textRows` the rows
 * the text leaf would seed (each checked against the other children). None when no other child is a
 * column leaf.
 */
function deferTextLeaves(
  children: readonly PlanNode[],
  size: number,
  orderColumn: DateColumn | undefined,
): TextLeaf[] {
  let rowsLeft = size;
  let firstCost = size / 8;
  let columns = 0;
  for (const child of children) {
    if (child instanceof TextLeaf || child instanceof ResidualLeaf) continue;
    columns++;
    rowsLeft *= child.estimate;
    if (child instanceof DictionaryLeaf && child.accept[CODE_MISSING] === FALSE)
      firstCost = Math.min(firstCost, child.trueCount + child.unknownCount);
    else if (child instanceof HashLeaf && child.positive)
      firstCost = Math.min(firstCost, child.probed.length + child.index.arrayRows.length);
    else if (
      child instanceof DateLeaf &&
      child.column === orderColumn &&
      child.decidesByInterval() &&
      child.estimate <= 0.5
    )
      firstCost = Math.min(firstCost, (child.estimate * size) / 8); // a segment scan in word operations
  }
  if (columns === 0) return [];
  const deferred: TextLeaf[] = [];
  for (const child of children) {
    if (!(child instanceof TextLeaf)) continue;
    const seeded = child.valueTests() + 2 * child.estimate * size;
    if (child.perRow || rowsLeft * TEXT_ROW_COST + firstCost < seeded) deferred.push(child);
  }
  return deferred;
}

/** One pass ANDing three dictionary columns' accept tables into `t` (see `AndPlan.fused`). */
function fusedScan(
  t: Bitset,
  size: number,
  within: Bitset | null,
  codes: readonly Codes[],
  accepts: readonly Uint8Array[],
  timer: BudgetTimer,
): void {
  const c0 = codes[0]!;
  const c1 = codes[1]!;
  const c2 = codes[2]!;
  const a0 = accepts[0]!;
  const a1 = accepts[1]!;
  const a2 = accepts[2]!;
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) bits |= (a0[c0[i]!]! & a1[c1[i]!]! & a2[c2[i]!]!) << (i - base);
    t[w] = bits;
  }
}

/** `fusedScan` with an interval on a date column (NaN, not a date, fails both comparisons). */
function fusedScanWithDates(
  t: Bitset,
  size: number,
  within: Bitset | null,
  codes: readonly Codes[],
  accepts: readonly Uint8Array[],
  ms: Float64Array,
  interval: MsInterval,
  timer: BudgetTimer,
): void {
  const c0 = codes[0]!;
  const c1 = codes[1]!;
  const c2 = codes[2]!;
  const a0 = accepts[0]!;
  const a1 = accepts[1]!;
  const a2 = accepts[2]!;
  const { lo, hi, loInclusive, hiInclusive } = interval;
  for (let w = 0; w < t.length; w++) {
    if (within !== null && within[w] === 0) continue;
    timer.tick(32);
    const base = w << 5;
    const end = Math.min(base + 32, size);
    let bits = 0;
    for (let i = base; i < end; i++) {
      const m = ms[i]!;
      const inside = (loInclusive ? m >= lo : m > lo) && (hiInclusive ? m <= hi : m < hi) ? 1 : 0;
      bits |= (a0[c0[i]!]! & a1[c1[i]!]! & a2[c2[i]!]! & inside) << (i - base);
    }
    t[w] = bits;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Building plans

/**
 * True when `plan` is a label expression (label-bitsets.ts): a dictionary leaf deciding every row (no array
 * or object values) on a column that keeps per-code bitsets, or an AND (no text leaf deferred), OR or NOT
 * of such plans. Reads no column.
 */
export function isLabelExpression(plan: PlanNode): boolean {
  if (plan instanceof DictionaryLeaf) return plan.unknownCount === 0 && plan.column.keepsCodeBitsets();
  if (plan instanceof AndPlan) return plan.deferred.length === 0 && plan.children.every(isLabelExpression);
  if (plan instanceof OrPlan) return plan.children.every(isLabelExpression);
  if (plan instanceof NotPlan) return isLabelExpression(plan.child);
  return false;
}

/**
 * `plan` as a label expression over its columns' per-code bitsets (built on first use, O(rows) a column,
 * kept until the next add), or undefined when it is not one (`isLabelExpression`). A leaf is the OR of its
 * accepted codes' bitsets, or the complement of its rejected codes' when fewer rows' codes are rejected
 * than accepted (codes no row holds are left out of both).
 */
function labelExpression(plan: PlanNode, size: number): LabelExpression | undefined {
  if (!isLabelExpression(plan)) return undefined;
  const build = (node: PlanNode): LabelExpression => {
    if (node instanceof DictionaryLeaf) {
      const bits = node.column.codeBitsets(size)!;
      const accepted: Bitset[] = [];
      const rejected: Bitset[] = [];
      const { accept } = node;
      const counts = node.column.counts;
      for (let code = 0; code < accept.length; code++) {
        if (counts[code]! === 0) continue;
        // UNKNOWN only on CODE_COMPLEX, which no row holds here (`unknownCount === 0`).
        (accept[code] === TRUE ? accepted : rejected).push(bits[code]!);
      }
      const complement = rejected.length < accepted.length;
      return { kind: "codes", bits: complement ? rejected : accepted, complement };
    }
    if (node instanceof AndPlan) return { kind: "and", children: node.children.map(build) };
    if (node instanceof OrPlan) return { kind: "or", children: node.children.map(build) };
    return { kind: "not", child: build((node as NotPlan).child) };
  };
  return build(plan);
}

/**
 * `plan.dense` as a label expression (every row decided, so `t` and `p` are one bitset), or undefined when
 * `plan` is not one (`isLabelExpression`).
 * @throws {SearchTimeoutError} from `timer`
 */
function denseByLabels(
  plan: PlanNode,
  size: number,
  timer: BudgetTimer,
  codegen: boolean,
): DenseResult | undefined {
  const expression = labelExpression(plan, size);
  if (expression === undefined) return undefined;
  const t = denseLabels(expression, size, timer, codegen);
  return { t, p: t };
}

/**
 * Builds the plan of a condition over a storage: column leaves where a column answers the node, residual
 * leaves elsewhere.
 * @param timer - the query's budget timer (docs/semantics.md 1.7), ticked by every pass the plan makes over rows
 *   or dictionary values; default: no budget
 * @throws {SearchTimeoutError} from `timer`, while building (dictionary accept tables) or evaluating
 */
export function buildPlan(condition: Condition, storage: Storage, timer: BudgetTimer = UNBOUNDED): PlanNode {
  const size = storage.size;
  // A field node needs no recursion (the common single-field query allocates nothing more).
  if (
    condition.kind !== "and" &&
    condition.kind !== "or" &&
    condition.kind !== "nor" &&
    condition.kind !== "not"
  )
    return leafPlan(condition, storage, timer);
  const build = (child: Condition) => buildPlan(child, storage, timer);
  switch (condition.kind) {
    case "and":
      if (condition.children.length === 0) return new ConstantNode(condition, true, size);
      if (condition.children.length === 1) return build(condition.children[0]!);
      return new AndPlan(
        condition,
        condition.children.map(build),
        size,
        timer,
        { column: storage.orderColumn, creation: () => storage.creation(timer) },
        storage.codegen,
      );
    case "or":
      if (condition.children.length === 0) return new ConstantNode(condition, false, size);
      if (condition.children.length === 1) return build(condition.children[0]!);
      return new OrPlan(condition, condition.children.map(build), size, timer, storage.codegen);
    case "nor":
      return new NotPlan(
        condition,
        condition.children.length === 0
          ? new ConstantNode(condition, false, size)
          : new OrPlan(condition, condition.children.map(build), size, timer, storage.codegen),
        size,
        timer,
        storage.codegen,
      );
    case "not":
      return new NotPlan(condition, build(condition.child), size, timer, storage.codegen);
    default:
      return assertNever(condition);
  }
}

function leafPlan(node: FieldNode, storage: Storage, timer: BudgetTimer): PlanNode {
  const size = storage.size;
  if (node.path.length !== 1) return new ResidualLeaf(node, size);
  const field = node.path[0]!;
  const hash = storage.hash(field);
  if (hash !== undefined && hashLeafEligible(node)) return new HashLeaf(node, hash, size, timer);
  const date = storage.date(field);
  if (date !== undefined && dateLeafEligible(node)) return new DateLeaf(node, date, size, timer);
  const dictionary = storage.dictionary(field);
  if (dictionary !== undefined) return new DictionaryLeaf(node, dictionary, storage, timer);
  const text = storage.text(field);
  if (text !== undefined && node.kind === "regex") {
    return TextLeaf.create(node, text, size, timer);
  }
  return new ResidualLeaf(node, size);
}

/** The conjuncts of a plan: an AND's children, or the plan itself. */
export function conjuncts(plan: PlanNode): readonly PlanNode[] {
  return plan instanceof AndPlan ? plan.children : [plan];
}

/**
 * Finishes a dense evaluation: rows in P \ T are decided by `decide(row)`, one `timer` tick each; returns
 * the matching rows.
 * @throws {SearchTimeoutError} from `timer`
 */
export function resolveUnknown(
  result: DenseResult,
  decide: (row: number) => boolean,
  timer: BudgetTimer = UNBOUNDED,
): Bitset {
  if (result.p === result.t) return result.t;
  const unknown = andNot(result.p, result.t);
  const t = result.t.slice();
  for (const row of bitsToRows(unknown)) {
    timer.tick();
    if (decide(row)) setBit(t, row);
  }
  return t;
}

// ---------------------------------------------------------------------------------------------------------
// Access paths: how findFirst, count and findAll answer a query

/**
 * One way to answer a query. `name` is what `explain()` reports; `cost` (for `findFirst`) the expected rows
 * examined; `run` answers (a row number for `findFirst`, -1 when none matches).
 */
export interface AccessPath<R> {
  readonly name: string;
  readonly cost: number;
  readonly run: () => R;
}

/**
 * The cheapest access path for the first match of `condition` (docs/semantics.md 1.9): a hash lookup, a
 * walk of the creation order, a walk of per-label postings in creation order, or the rows of a `$regex`'s
 * accepted values from the text index; for an OR, the union of its children's paths (the earliest of their
 * first rows). A `CreatedUtcTime` interval in the conjunction narrows both walks to its segment of the order
 * (rows whose `CreatedUtcTime` holds an array, which sort with the undated, are checked after the segment).
 * Every row a path returns is verified by the whole plan and, where the columns cannot decide, by the row
 * predicate: a path only narrows.
 * @param storage - the set's columns; `storage.creation` must already be up to date (findFirst prepares it)
 * @param timer - the query's budget timer, ticked once per row examined
 * @throws {SearchTimeoutError} from `timer`, while planning (accept tables) or running
 */
export function firstPath(condition: Condition, storage: Storage, timer: BudgetTimer): AccessPath<number> {
  const creation = storage.creation(UNBOUNDED);
  const rank = creation.rank;
  if (condition.kind === "or" && condition.children.length > 1) {
    const paths = condition.children.map((child) => firstPath(child, storage, timer));
    return {
      name: `union(${paths.map((p) => p.name).join(", ")})`,
      cost: paths.reduce((sum, p) => sum + p.cost, 0),
      run: () => {
        let best = -1;
        for (const path of paths) {
          const row = path.run();
          if (row >= 0 && (best < 0 || rank[row]! < rank[best]!)) best = row;
        }
        return best;
      },
    };
  }
  const size = storage.size;
  const orderColumn = storage.orderColumn;
  const plan = buildPlan(condition, storage, timer);
  const leaves = conjuncts(plan);
  // The window of the creation order, and the selectivity of everything else.
  let from = 0;
  let to = size;
  let windowed = false;
  let rest = 1;
  for (const leaf of leaves) {
    if (leaf instanceof DateLeaf && leaf.column === orderColumn && leaf.interval !== undefined) {
      const [a, b] = creation.segment(leaf.interval);
      from = Math.max(from, a);
      to = Math.min(to, b);
      windowed = true;
    } else rest *= leaf.estimate;
  }
  to = Math.max(from, to);
  rest = Math.max(rest, 1 / Math.max(size, 1));
  const complexRows = orderColumn.complexRows;
  const tail = windowed && complexRows.length > 0;
  const window = to - from;
  // The candidate paths as data (name, cost, what to walk); the cheapest one gets the only closure.
  const choices: FirstChoice[] = [
    {
      kind: "scan",
      name: windowed ? `date-range ${ORDER_FIELD}` : "scan",
      cost: Math.min(window, 1 / rest) + (tail ? complexRows.length : 0),
    },
  ];
  for (const leaf of leaves) {
    if (leaf instanceof HashLeaf && leaf.positive) {
      const candidates = leaf.candidates();
      choices.push({ kind: "hash", name: `hash ${leaf.index.field}`, cost: candidates.length, candidates });
    } else if (leaf instanceof TextLeaf && leaf.listsRows()) {
      choices.push({
        kind: "text",
        name: `text-index ${leaf.column.field}`,
        cost: 2 * size * leaf.estimate + leaf.column.complexRows.length,
        leaf,
      });
    } else if (leaf instanceof DictionaryLeaf && leaf.accept[CODE_MISSING] === FALSE && leaf.estimate > 0) {
      const entries = window * leaf.estimate;
      const others = Math.max(rest / leaf.estimate, 1 / Math.max(size, 1));
      choices.push({
        kind: "postings",
        name: `postings ${leaf.column.field}${windowed ? ` in date-range ${ORDER_FIELD}` : ""}`,
        cost: 2 * Math.min(entries, 1 / others) + 4 * leaf.acceptedCodes().length,
        leaf,
      });
    }
  }
  let choice = choices[0]!;
  for (const other of choices) if (other.cost < choice.cost) choice = other;
  return new FirstPath(choice, { condition, plan, storage, creation, timer, from, to, tail });
}

/** What running a `findFirst` path needs (see `FirstPath`). */
interface FirstPathContext {
  readonly condition: Condition;
  readonly plan: PlanNode;
  readonly storage: Storage;
  readonly creation: CreationOrder;
  readonly timer: BudgetTimer;
  /** The window of the creation order. */
  readonly from: number;
  readonly to: number;
  /** Whether rows whose `CreatedUtcTime` holds an array are checked after the window. */
  readonly tail: boolean;
}

/**
 * The chosen access path of `findFirst` (`firstPath`), run by a method: no closure is made per query on the
 * way to a key's row.
 */
class FirstPath implements AccessPath<number> {
  readonly name: string;
  readonly cost: number;

  constructor(
    private readonly choice: FirstChoice,
    private readonly context: FirstPathContext,
  ) {
    this.name = choice.name;
    this.cost = choice.cost;
  }

  run(): number {
    const { choice } = this;
    const { condition, plan, storage, creation, timer, from, to, tail } = this.context;
    const rank = creation.rank;
    const check = storage.check(condition);
    // Verified by the whole predicate (the hash only narrows; its row() would build bitsets).
    if (choice.kind === "hash") return firstChecked(choice.candidates, rank, check, timer);
    const verify = (row: number): boolean => {
      timer.tick();
      const answer = plan.row(row);
      return answer === TRUE || (answer === UNKNOWN && check(row));
    };
    if (choice.kind === "text") {
      // The rows of the accepted values (the pattern tested once per candidate value), then those the
      // column cannot decide; each verified by the whole plan.
      const best = firstOf(choice.leaf.acceptedRows(), rank, verify);
      const complex = firstOf(choice.leaf.column.complexRows, rank, verify);
      return best < 0 || (complex >= 0 && rank[complex]! < rank[best]!) ? complex : best;
    }
    const row =
      choice.kind === "scan"
        ? scanFirst(creation.order, from, to, verify)
        : postingsFirst(choice.leaf, storage, creation, verify, from, to);
    // Rows whose CreatedUtcTime holds an array sort with the undated: checked after the window.
    return row >= 0 || !tail ? row : firstOf(storage.orderColumn.complexRows, rank, verify);
  }
}

/** The earliest (by rank) of `rows` that `check` accepts, or -1; one `timer` tick per row checked. */
function firstChecked(
  rows: ArrayLike<number>,
  rank: Int32Array,
  check: RowCheck,
  timer: BudgetTimer,
): number {
  let best = -1;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    if (best >= 0 && rank[row]! >= rank[best]!) continue;
    timer.tick();
    if (check(row)) best = row;
  }
  return best;
}

/** A candidate access path of `findFirst` (see `firstPath`), as data: what it walks and its cost. */
type FirstChoice =
  | { readonly kind: "scan"; readonly name: string; readonly cost: number }
  | { readonly kind: "hash"; readonly name: string; readonly cost: number; readonly candidates: number[] }
  | { readonly kind: "text"; readonly name: string; readonly cost: number; readonly leaf: TextLeaf }
  | {
      readonly kind: "postings";
      readonly name: string;
      readonly cost: number;
      readonly leaf: DictionaryLeaf;
    };

/** The first row of the creation order in positions [from, to) that `verify` accepts, or -1. */
function scanFirst(order: Int32Array, from: number, to: number, verify: RowCheck): number {
  for (let j = from; j < to; j++) {
    const row = order[j]!;
    if (verify(row)) return row;
  }
  return -1;
}

/** The earliest (by rank) of `rows` that `verify` accepts, or -1 (rows of a lower rank are not verified). */
function firstOf(rows: ArrayLike<number>, rank: Int32Array, verify: RowCheck): number {
  let best = -1;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k]!;
    if ((best < 0 || rank[row]! < rank[best]!) && verify(row)) best = row;
  }
  return best;
}

/**
 * Walks the postings of the leaf's accepted codes merged in creation order, from position `from` up to `to`
 * of the order; the first verified row, or -1.
 */
function postingsFirst(
  leaf: DictionaryLeaf,
  storage: Storage,
  creation: CreationOrder,
  verify: RowCheck,
  from: number,
  to: number,
): number {
  const { offsets, rows } = leaf.column.postings(creation.order, storage.size);
  const rank = creation.rank;
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

/**
 * A short candidate list that a conjunct narrows the rows to: the hits of a positive hash leaf (and the rows
 * holding an array), or a `CreatedUtcTime` segment of the creation order (and the rows holding an array),
 * when at most max(64, rows / 64) rows; undefined otherwise. The creation order must be up to date.
 */
function candidateChoice(
  plan: PlanNode,
  storage: Storage,
  creation: CreationOrder,
):
  | { kind: "hash"; leaf: HashLeaf; cost: number }
  | { kind: "date"; from: number; to: number; cost: number }
  | undefined {
  const limit = Math.max(64, storage.size / 64);
  const complex = storage.orderColumn.complexRows.length;
  let best:
    | { kind: "hash"; leaf: HashLeaf; cost: number }
    | { kind: "date"; from: number; to: number; cost: number }
    | undefined;
  for (const leaf of conjuncts(plan)) {
    if (leaf instanceof HashLeaf && leaf.positive) {
      const cost = leaf.probed.length + leaf.index.arrayRows.length;
      if (cost <= limit && (best === undefined || cost < best.cost)) best = { kind: "hash", leaf, cost };
    } else if (
      leaf instanceof DateLeaf &&
      leaf.column === storage.orderColumn &&
      leaf.interval !== undefined
    ) {
      const [from, to] = creation.segment(leaf.interval);
      const cost = to - from + complex;
      if (cost <= limit && (best === undefined || cost < best.cost)) best = { kind: "date", from, to, cost };
    }
  }
  return best;
}

/**
 * The access path of `findAll` (`counting`: false) or `count` (true) for `condition` and its plan:
 * - `histogram` (count only): one dictionary leaf deciding every row: the sum of its accepted codes' counts;
 *   `histogram text-index`: one text leaf deciding every row: the sum of its accepted values' counts;
 * - `segment CreatedUtcTime` (count only): a `CreatedUtcTime` range alone, on a column without arrays: the
 *   length of its segment of the creation order;
 * - `candidates hash <field>` / `candidates date-range CreatedUtcTime`: a short candidate list (see
 *   `candidateChoice`), each row verified by the plan and the row predicate;
 * - `columns` (for an AND, `columns: <strategy>`, see `AndPlan.strategy`): the plan over bitsets, the rows it
 *   cannot decide given to the row predicate; when no column answers any part (a residual leaf), `count` runs
 *   the compiled row scan itself, without bitsets, under the same name.
 * `run` returns the matching rows in creation order (`findAll`: a list, or `PositionedRows`) or their number
 * (`count`). Histogram paths
 * need no creation order; every other path brings it up to date first (`storage.creation`).
 * @throws {SearchTimeoutError} from `timer`, while running
 */
export function denseChoice(
  condition: Condition,
  plan: PlanNode,
  storage: Storage,
  timer: BudgetTimer,
  counting: true,
): AccessPath<number>;
export function denseChoice(
  condition: Condition,
  plan: PlanNode,
  storage: Storage,
  timer: BudgetTimer,
  counting: false,
): AccessPath<FoundRows>;
export function denseChoice(
  condition: Condition,
  plan: PlanNode,
  storage: Storage,
  timer: BudgetTimer,
  counting: boolean,
): AccessPath<number> | AccessPath<FoundRows> {
  if (counting) {
    if (plan instanceof DictionaryLeaf && plan.unknownCount === 0) {
      return { name: "histogram", cost: 0, run: () => plan.trueCount };
    }
    if (plan instanceof TextLeaf && !plan.perRow && plan.unknownCount === 0) {
      return { name: "histogram text-index", cost: 0, run: () => plan.trueCount() };
    }
    // Labels only: counted block by block, without a bitset of every row (label-bitsets.ts).
    const labels =
      plan instanceof AndPlan
        ? plan.strategy() === FUSED_CODE_BITSETS
        : (plan instanceof OrPlan || plan instanceof NotPlan) && isLabelExpression(plan);
    if (labels) {
      const size = storage.size;
      return {
        name: `columns: ${plan instanceof AndPlan ? FUSED_CODE_BITSETS : LABEL_BITSETS}`,
        cost: size / 32,
        run: () => countLabels(labelExpression(plan, size)!, size, timer, storage.codegen),
      };
    }
  }
  const creation = storage.creation(timer);
  const orderColumn = storage.orderColumn;
  if (
    counting &&
    plan instanceof DateLeaf &&
    plan.column === orderColumn &&
    plan.interval !== undefined &&
    orderColumn.complexRows.length === 0
  ) {
    const [from, to] = creation.segment(plan.interval);
    return { name: `segment ${ORDER_FIELD}`, cost: 0, run: () => to - from };
  }
  const check = storage.check(condition);
  const choice = candidateChoice(plan, storage, creation);
  const rank = creation.rank;
  const byRank = (a: number, b: number) => rank[a]! - rank[b]!;
  let path: AccessPath<Int32Array | number[]>;
  if (choice?.kind === "hash") {
    path = {
      name: `candidates hash ${choice.leaf.index.field}`,
      cost: choice.cost,
      run: () => {
        const rows = choice.leaf.candidates().filter((row) => {
          timer.tick();
          return check(row);
        });
        return rows.sort(byRank);
      },
    };
  } else if (choice?.kind === "date") {
    const verify = (row: number): boolean => {
      timer.tick();
      const answer = plan.row(row);
      return answer === TRUE || (answer === UNKNOWN && check(row));
    };
    path = {
      name: `candidates date-range ${ORDER_FIELD}`,
      cost: choice.cost,
      run: () => {
        const rows: number[] = [];
        for (let j = choice.from; j < choice.to; j++) {
          const row = creation.order[j]!;
          if (verify(row)) rows.push(row);
        }
        const complex = orderColumn.complexRows.filter(verify);
        complex.sort(byRank);
        return rows.concat(complex);
      },
    };
  } else if (counting && plan instanceof ResidualLeaf) {
    // No column answers any part: the compiled row scan itself, without selection bitsets.
    const size = storage.size;
    return {
      name: "columns",
      cost: size,
      run: () => {
        let total = 0;
        for (let row = 0; row < size; row++) {
          timer.tick();
          if (check(row)) total++;
        }
        return total;
      },
    };
  } else {
    const dense = () => resolveUnknown(plan.dense(null), check, timer);
    const name =
      plan instanceof AndPlan
        ? `columns: ${plan.strategy()}`
        : (plan instanceof OrPlan || plan instanceof NotPlan) && isLabelExpression(plan)
          ? `columns: ${LABEL_BITSETS}`
          : "columns";
    if (counting) return { name, cost: storage.size, run: () => popcount(dense()) };
    const alone = plan instanceof TextLeaf ? plan : undefined;
    return {
      name,
      cost: storage.size,
      run: () => alone?.positionsInOrder(creation) ?? positionsInCreationOrder(dense(), creation, timer),
    };
  }
  if (!counting) return path;
  return { name: path.name, cost: path.cost, run: () => path.run().length };
}

/**
 * Matching rows as a bitset over the positions of the creation order (bit `j` set when row `order[j]`
 * matches), with their number and the order they index: records are then read position by position, so
 * the answer comes out in creation order without a sort (`RecordStore.getAllInOrder`).
 */
export interface PositionedRows {
  readonly positions: Bitset;
  readonly count: number;
  /** The creation order the positions index (`order[j]`: the row at position `j`) and its inverse. */
  readonly order: Int32Array;
  readonly rank: Int32Array;
}

/** What `findAll`'s access path returns: the rows in creation order, or `PositionedRows`. */
export type FoundRows = Int32Array | number[] | PositionedRows;

/**
 * The rows of a bitset as `PositionedRows`: each set row's rank sets its bit among the positions, in one
 * pass over the row bitset (rows ascending, so ranks are read in row order). O(matches + rows / 32), no
 * sort, no list of rows.
 */
function positionsInCreationOrder(bits: Bitset, creation: CreationOrder, timer: BudgetTimer): PositionedRows {
  const rank = creation.rank;
  const positions = new Uint32Array(bits.length);
  let count = 0;
  for (let w = 0; w < bits.length; w++) {
    let x = bits[w]!;
    while (x !== 0) {
      const low = x & -x;
      const p = rank[(w << 5) + 31 - Math.clz32(low)]!;
      positions[p >>> 5]! |= 1 << (p & 31);
      x ^= low;
      count++;
    }
  }
  timer.tick(count);
  return { positions, count, order: creation.order, rank };
}
