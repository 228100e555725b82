/**
 * The dictionary and hash leaves of a plan, and the leaves no column answers (plan/index.ts has the map): a
 * field node answered by a column, per row and per bitset pass (passes.ts). A dictionary leaf evaluates the
 * node once per distinct value (an accept table over codes), a hash leaf probes the operands; rows a column
 * cannot answer (arrays, objects) are unknown. A residual leaf (no column answers) is unknown everywhere; a
 * constant is `{}` or an empty `$or`. The date leaf is date-leaf.ts, the `$regex` leaf on a text column
 * text-leaf.ts.
 *
 * Every leaf's answer is the reference's (docs/semantics.md 1.5) by construction: accept tables come from the
 * same leaf semantics `compile` uses (`leafSemantics`), and anything a column cannot decide is unknown.
 */

import type { Condition, FieldNode, Operand } from "../../conditions/ast.js";
import { leafSemantics } from "../../conditions/leaf.js";
import { compileRegex } from "../../conditions/regex/matcher.js";
import { type Bitset, emptyBitset, fullBitset, hasBit, not, or, rowsToBits, setBit } from "../bitset.js";
import {
  CODE_COMPLEX,
  CODE_MISSING,
  CODE_NULL,
  type DictionaryColumn,
  FIRST_VALUE_CODE,
  type HashIndex,
} from "../columns.js";
import { CompactHashIndex } from "../record-store.js";
import type { BudgetTimer } from "../search-budget.js";
import { countedEstimate, hashEstimate, RESIDUAL_GUESS, regexGuess, SEED_FRACTION } from "./cost.js";
import {
  type DenseResult,
  FALSE,
  type PlanNode,
  type Storage,
  TRUE,
  type Tri,
  UNBOUNDED,
  UNKNOWN,
} from "./node.js";
import { codesPass, codesPass3 } from "./passes.js";

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
    this.estimate = countedEstimate(trueCount, this.unknownCount, size);
  }

  row(i: number): Tri {
    return this.accept[this.column.codes[i]!] as Tri;
  }

  dense(within: Bitset | null): DenseResult {
    const { accept, size, timer } = this;
    const codes = this.column.codes;
    const words = (size + 31) >>> 5;
    if (within === null && accept[CODE_MISSING] === FALSE && this.seedCount() <= size * SEED_FRACTION) {
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
      codesPass(t, size, within, codes, accept, timer);
      return { t, p: t };
    }
    const p = new Uint32Array(words);
    codesPass3(t, p, size, within, codes, accept, timer);
    return { t, p };
  }

  /** The rows the leaf does not reject (true or unknown), from the postings. */
  seedRows(): Int32Array {
    const { offsets, rows } = this.postings();
    const out = new Int32Array(this.seedCount());
    let k = 0;
    for (const code of this.acceptedCodes()) {
      out.set(rows.subarray(offsets[code]!, offsets[code + 1]!), k);
      k += offsets[code + 1]! - offsets[code]!;
    }
    return out;
  }

  /** The rows the leaf does not reject (true or unknown): how many `seedRows` lists. */
  seedCount(): number {
    return this.trueCount + this.unknownCount;
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

/** The field nodes a hash index can answer (see `hashLeafEligible`). */
export type HashEligibleNode = Extract<FieldNode, { kind: "eq" | "ne" | "in" | "nin" }>;

/** A string, number or boolean operand (module-level: no closure per planned node). */
function scalar(o: Operand): boolean {
  return o.type === "string" || o.type === "number" || o.type === "boolean";
}

/** Whether a field node can use a hash index: `$eq`/`$in`/`$ne`/`$nin` with string, number or boolean operands. */
export function hashLeafEligible(node: FieldNode): node is HashEligibleNode {
  if (node.path.length !== 1) return false;
  if (node.kind === "eq" || node.kind === "ne") return scalar(node.operand);
  if (node.kind === "in" || node.kind === "nin") return node.operands.every(scalar);
  return false; // not an equality (any other kind): the other columns or the row predicate answer
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
      // Distinct operands with one hash may probe the same rows (or not: a crowded hash's rows are grouped
      // by value): each row once.
      let probed: number[] = [];
      for (const value of values) for (const row of index.probe(value)) probed.push(row);
      if (values.length > 1) probed = [...new Set(probed)];
      this.probed = probed;
    } else {
      const hits: number[] = [];
      for (const value of values) for (const row of index.rowsOf(value)) hits.push(row);
      this.probed = hits;
      this.exact = hits;
    }
    this.estimate = hashEstimate(this.probed.length, index.arrayRows.length, size, this.positive);
  }

  /** Rows whose scalar value equals an operand (surely true for `$eq`/`$in`), each once. */
  get hits(): readonly number[] {
    if (this.exact === undefined) {
      const index = this.index as CompactHashIndex;
      const values = this.values;
      this.timer.tick(this.probed.length);
      this.exact = this.probed.filter((row) => index.holdsAny(row, values));
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

  /** How many rows `candidates` lists. */
  seedCount(): number {
    return this.probed.length + this.index.arrayRows.length;
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
      node.kind === "regex"
        ? regexGuess(compileRegex(node.source, node.flags).literal !== undefined)
        : RESIDUAL_GUESS;
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
export class ConstantNode implements PlanNode {
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
