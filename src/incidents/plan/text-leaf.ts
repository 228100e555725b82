/**
 * The `$regex` leaf on a text column (plan/index.ts has the map; the index itself is text/index.ts): the
 * trigram index narrows the distinct values to the candidates that hold every trigram the pattern requires;
 * a literal pattern (`analyzeLiteral`) is then proved from the trigram lists or checked on the index's
 * corpus with native string search, any other pattern runs once per candidate value, and rows take their
 * value's answer (an accept table per value id, `table()`). A leaf that cannot narrow answers row by row
 * (`perRow`), memoized per value id (`memoOf`). Every answer is the reference's (docs/semantics.md 1.5):
 * the lists only narrow, and a row holding an array or an object is unknown.
 */

import type { FieldNode } from "../../conditions/ast.js";
import { leafSemantics } from "../../conditions/leaf.js";
import { analyzeChain } from "../../conditions/regex/chain.js";
import { analyzeLiteral, type RegexLiteral } from "../../conditions/regex/matcher.js";
import { type Bitset, bitsToRows, emptyBitset, setBit } from "../bitset.js";
import type { CreationOrder } from "../order.js";
import type { BudgetTimer } from "../search-budget.js";
import { checkLiteral } from "../text/candidate-check.js";
import { proveChain } from "../text/chain-proof.js";
import { type GramQuery, gramCount, regexGramQuery } from "../text/gram-query.js";
import { idsBelow, NO_IDS, unite } from "../text/id-lists.js";
import { proofEntries, proveLiteral } from "../text/literal-proof.js";
import { AcceptTable, TEXT_COMPLEX, TEXT_MISSING, type TextColumn } from "../text/text-column.js";
import { LIST_ENTRIES_PER_TEST, regexGuess, SEED_FRACTION } from "./cost.js";
import { type DenseResult, FALSE, type PlanNode, TRUE, type Tri, UNKNOWN } from "./node.js";
import { idsPass, type PositionedRows, possibleWith, RowAnswers } from "./passes.js";

/** A `$regex` field node. */
type RegexNode = Extract<FieldNode, { kind: "regex" }>;

/**
 * A `$regex` on a text column (text/index.ts): the trigram index narrows the distinct values to the
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
    const fraction = perRow ? regexGuess(this.literal !== undefined) : (narrowed * rowsPerValue) / size;
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
   * value's answer. A literal the trigram lists can prove (text/literal-proof.ts `proofEntries`) costs its lists'
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
    let sure: Int32Array = NO_IDS;
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
      // A literal is answered from the trigram lists when it can be (text/literal-proof.ts `proveLiteral`).
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
    // Disjoint lists (an id is accepted from the lists or by a test, never both): their merge.
    const ids = unite(sure, tested);
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
      idsPass(t, size, within, ids, accept, this.missingAnswer, this.nullAnswer, timer);
    }
    const complex = this.column.complexRows;
    return { t, p: complex.length === 0 ? t : possibleWith(t, complex, timer) };
  }

  /**
   * `dense` row by row (a per-row leaf): `row(i)` for each row of `within` (every row when null), one
   * `timer` tick each; rows holding an array or an object are possible, not true.
   */
  denseByRows(within: Bitset | null): DenseResult {
    const { size, timer } = this;
    const out = new RowAnswers(size);
    const visit = (i: number) => {
      timer.tick();
      out.set(i, this.row(i));
    };
    if (within === null) for (let i = 0; i < size; i++) visit(i);
    else {
      const rows = bitsToRows(within);
      for (let k = 0; k < rows.length; k++) visit(rows[k]!);
    }
    return { t: out.t, p: this.column.complexRows.length === 0 ? out.t : out.p };
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
 * The memo of a text column and pattern key (`TextColumn.memos`): each value id's answer in two bits
 * (value id `id` in bits `2 × (id % 4)` of byte `id / 4`: 0 not tested, 1 false, 2 true), a quarter of a
 * byte per value so that the memo of ten million rows' titles stays in the processor's cache. It covers
 * every value id of the column (grown as values are added: a value id's answer never changes, values are
 * only appended) and is kept across queries under the column's cache bounds.
 */
function memoOf(column: TextColumn, key: string): Uint8Array {
  let memo = column.memos.get(key);
  const bytes = (column.values.length + 3) >>> 2;
  if (memo === undefined || memo.length < bytes) {
    const next = new Uint8Array(bytes + (bytes >>> 3) + 16);
    if (memo !== undefined) next.set(memo);
    memo = next;
    column.memos.set(key, memo, memo.byteLength + 2 * key.length);
  }
  return memo;
}
