/**
 * Search Conditions → a parameterized SQL `WHERE` clause over the schema of `schema.ts`
 * (docs/postgresql.md). FerretDB 1.x's approach: push down what the typed columns decide, and re-check
 * every fetched row with `compile`, so the answer is exactly `evaluate`'s.
 *
 * Each condition is translated to two clauses over a row:
 * - `maybe`, a superset: every incident that matches satisfies it (never drops a match);
 * - `sure`, a subset: every incident that satisfies it matches.
 * Negation swaps them (`NOT sure` is a superset of the negation), so `$not`, `$nor`, `$ne` and `$nin` stay
 * sound. Every clause is two-valued (never SQL `NULL`), so `NOT` means what it says. Values are always
 * parameters (`$1`, `$2`, …), never spliced into the text; identifiers are checked and quoted.
 *
 * What is pushed down: conditions on single-segment catalogue fields that have a column — equality,
 * `$in`, `$ne`, `$nin` with strings or `null`, `$exists`, and `$gt`/`$gte`/`$lt`/`$lte`/equality with
 * `$date` operands on `CreatedUtcTime`. Everything else (open fields, dotted paths, `$regex`, text ranges,
 * `$size`, `$all`, `$mod`) is `maybe = TRUE`, `sure = FALSE`: left to the re-check. On a column, `$type` is
 * decided where it names the column's own type (a string, an instant) and `$elemMatch` keeps only the
 * irregular rows (arrays), which the re-check decides.
 */

import { assertNever, type Condition, type FieldNode, type Operand } from "../conditions/ast.js";
import { boundComparison } from "../conditions/operators.js";
import {
  type ColumnMap,
  CREATED_COLUMN,
  DEFAULT_COLUMNS,
  quoteIdentifier,
  storableText,
  timestampText,
} from "./schema.js";

/** Options of `toSqlWhere`. */
export interface ToSqlOptions {
  /** Catalogue field → column (default: the columns `migrate()` creates, `DEFAULT_COLUMNS`). */
  readonly columns?: ColumnMap;
  /** The number of the first parameter (default 1), to append the clause to a query with parameters. */
  readonly firstParameter?: number;
  /** A table alias to qualify columns with (checked like a column name). */
  readonly alias?: string;
}

/**
 * A translated condition.
 * - `text` with `values` (`$firstParameter` onwards): the superset clause: rows it rejects never match;
 *   rows it keeps must be re-checked with `compile`.
 * - `sure`: the subset clause (rows it keeps match for certain), with its own `values`, numbered after
 *   those of `text`: a query that uses both binds `[...values, ...sure.values]`.
 * - `exact`: true when both clauses are the same (no row needs a re-check).
 */
export interface SqlWhere {
  readonly text: string;
  readonly values: unknown[];
  readonly sure: { readonly text: string; readonly values: unknown[] };
  readonly exact: boolean;
}

const TRUE = "TRUE";
const FALSE = "FALSE";

interface Clause {
  readonly maybe: string;
  readonly sure: string;
}

const UNDECIDED: Clause = { maybe: TRUE, sure: FALSE };

/**
 * Translates a parsed condition to SQL over the incidents table of `migrate()`.
 * @param condition - a Condition from `parseSearchConditions`
 * @param options - `columns` (default `DEFAULT_COLUMNS`), `firstParameter` (default 1), `alias`
 * @returns `{ text, sure, values, exact }` (see {@link SqlWhere})
 * @throws {TypeError} when a column name or the alias is not an allowed identifier
 * @example
 * toSqlWhere(parseSearchConditions({ Severity: "High" }))
 * //=> { text: '(("f_severity" IS NOT NULL AND "f_severity" = ANY($1::text[])) OR "irregular" @> ARRAY[$2::text])',
 * //     values: [["High"], "Severity"], sure: { text: '("f_severity" IS NOT NULL AND "f_severity" = ANY($3::text[]))',
 * //     values: [["High"]] }, exact: false }
 */
export function toSqlWhere(condition: Condition, options: ToSqlOptions = {}): SqlWhere {
  const translator = new Translator(
    options.columns ?? DEFAULT_COLUMNS,
    options.alias === undefined ? "" : `${quoteIdentifier(options.alias)}.`,
  );
  const clause = translator.condition(condition);
  // Parameters are numbered once the clauses are final, so that a value whose clause was simplified
  // away (`FALSE AND …`) is never bound. `sure` numbers its own parameters after `text`'s.
  const first = options.firstParameter ?? 1;
  const text = render(clause.maybe, translator.values, first);
  const sure = render(clause.sure, translator.values, first + text.values.length);
  return { text: text.text, values: text.values, sure, exact: clause.maybe === clause.sure };
}

function render(sql: string, all: readonly unknown[], first: number): { text: string; values: unknown[] } {
  const numbers = new Map<number, number>();
  const values: unknown[] = [];
  const text = sql.replace(PLACEHOLDER, (_match, index: string) => {
    const k = Number(index);
    let n = numbers.get(k);
    if (n === undefined) {
      n = first + values.length;
      numbers.set(k, n);
      values.push(all[k]);
    }
    return `$${n}`;
  });
  return { text, values };
}

/**
 * A value's place in a clause before numbering. The clauses are written here, never from values, and hold
 * no other `⟨`.
 */
const PLACEHOLDER = /⟨(\d+)⟩/g;

class Translator {
  readonly values: unknown[] = [];

  constructor(
    private readonly columns: ColumnMap,
    private readonly qualifier: string,
  ) {}

  condition(node: Condition): Clause {
    switch (node.kind) {
      case "and":
        return this.joined(node.children, "AND");
      case "or":
        return this.joined(node.children, "OR");
      case "nor":
        return negate(this.joined(node.children, "OR"));
      case "not":
        return negate(this.condition(node.child));
      default:
        return this.field(node);
    }
  }

  /** The clauses of `children` joined with `op`, each side with each side. */
  private joined(children: readonly Condition[], op: "AND" | "OR"): Clause {
    const clauses = children.map((c) => this.condition(c));
    return {
      maybe: joinAll(
        clauses.map((c) => c.maybe),
        op,
      ),
      sure: joinAll(
        clauses.map((c) => c.sure),
        op,
      ),
    };
  }

  private field(node: FieldNode): Clause {
    if (node.path.length !== 1) return UNDECIDED;
    const name = node.path[0]!;
    const column = Object.hasOwn(this.columns, name) ? this.columns[name] : undefined;
    if (column === undefined) return UNDECIDED;
    const col = `${this.qualifier}${quoteIdentifier(column)}`;
    const isDate = column === CREATED_COLUMN;
    // The value is present but not of the column's type (an array, a number, null, a non-date, …). Its
    // parameter is added by the first case that uses it, so that no unused parameter is ever bound.
    let irregularSql: string | undefined;
    const irregular = () => {
      irregularSql ??= `${this.qualifier}"irregular" @> ARRAY[${this.param(name)}::text]`;
      return irregularSql;
    };
    // The value is missing: no column value and not irregular.
    const missing = () => `(${col} IS NULL AND NOT ${irregular()})`;
    switch (node.kind) {
      // What a column cannot decide: left to the re-check.
      case "regex":
      case "size":
      case "all":
      case "mod":
        return UNDECIDED;
      case "eq":
        return this.equality(col, isDate, [node.operand], irregular(), missing());
      case "in":
        return this.equality(col, isDate, node.operands, irregular(), missing());
      case "ne":
        return negate(this.equality(col, isDate, [node.operand], irregular(), missing()));
      case "nin":
        return negate(this.equality(col, isDate, node.operands, irregular(), missing()));
      case "exists": {
        const present = `(${col} IS NOT NULL OR ${irregular()})`;
        const clause = node.exists ? present : `NOT ${present}`;
        return { maybe: clause, sure: clause };
      }
      case "type": {
        // A column holds a string (text columns) or an instant (the date column: a JS Date or an ISO string,
        // which is what `date` means there, docs/semantics.md 1.3); `null`, arrays and other kinds are
        // irregular, decided by the re-check.
        const columnType = isDate ? "date" : "string";
        const sure = node.types.includes(columnType) ? `(${col} IS NOT NULL)` : FALSE;
        return { sure, maybe: sure === FALSE ? irregular() : `(${sure} OR ${irregular()})` };
      }
      case "elemMatch":
      case "bits":
        // Only an array can match (a bit test matches integers, which no column holds), and an array is
        // irregular: the re-check decides those rows.
        return { sure: FALSE, maybe: irregular() };
      case "range": {
        if (!this.rangeOnColumn(node, isDate)) return UNDECIDED;
        const irregularRows = irregular();
        const parts: string[] = [];
        if (node.lower?.operand.type === "date") {
          parts.push(
            `${col} ${boundComparison("lower", node.lower.inclusive)} ${this.instant(node.lower.operand.value)}`,
          );
        }
        if (node.upper?.operand.type === "date") {
          parts.push(
            `${col} ${boundComparison("upper", node.upper.inclusive)} ${this.instant(node.upper.operand.value)}`,
          );
        }
        const sure = `(${col} IS NOT NULL AND ${parts.join(" AND ")})`;
        return { sure, maybe: `(${sure} OR ${irregularRows})` };
      }
      default:
        return assertNever(node);
    }
  }

  /**
   * Whether a range is decided on the column: only instants on the date column. Text order in SQL
   * (collations, UTF-8 versus UTF-16 order) is not JavaScript's, so text ranges are left to the re-check.
   */
  private rangeOnColumn(node: Extract<FieldNode, { kind: "range" }>, isDate: boolean): boolean {
    if (!isDate) return false;
    return [node.lower, node.upper].every((bound) => bound === undefined || bound.operand.type === "date");
  }

  /** Equality with any of `operands` (`$eq`, `$in`): strings and `null` on text columns, dates on the date column. */
  private equality(
    col: string,
    isDate: boolean,
    operands: readonly Operand[],
    irregular: string,
    missing: string,
  ): Clause {
    const strings: string[] = [];
    const instants: number[] = [];
    let withNull = false;
    for (const operand of operands) {
      if (operand.type === "null") withNull = true;
      // A stored value never holds U+0000 (PostgreSQL text cannot) or an unpaired surrogate (UTF-8 cannot),
      // so such a string equals nothing; binding it would fail the query, or turn into U+FFFD and match
      // that. Likewise an instant outside what a column holds equals no stored instant.
      else if (operand.type === "string" && !isDate) {
        if (storableText(operand.value)) strings.push(operand.value);
      } else if (operand.type === "date" && isDate) {
        if (timestampText(operand.value) !== undefined) instants.push(operand.value);
      }
      // Any other operand can only equal an irregular value (or nothing): the re-check decides.
    }
    const sure: string[] = [];
    // `col IS NOT NULL AND col = ANY(…)` is two-valued (never NULL) and can use an index on the column.
    if (strings.length > 0)
      sure.push(`(${col} IS NOT NULL AND ${col} = ANY(${this.param(strings)}::text[]))`);
    if (instants.length > 0) {
      const list = instants.map((ms) => this.instant(ms)).join(", ");
      sure.push(`(${col} IS NOT NULL AND ${col} IN (${list}))`);
    }
    // null matches a missing field (and an irregular value that is or holds null: re-checked).
    if (withNull) sure.push(missing);
    const sureClause = joinAll(sure, "OR", FALSE);
    return { sure: sureClause, maybe: sureClause === FALSE ? irregular : `(${sureClause} OR ${irregular})` };
  }

  /** An instant as SQL; outside what a column holds, the infinity on its side (it bounds every stored one). */
  private instant(ms: number): string {
    const text = timestampText(ms);
    if (text === undefined) return ms < 0 ? "'-infinity'::timestamptz" : "'infinity'::timestamptz";
    return `${this.param(text)}::timestamptz`;
  }

  private param(value: unknown): string {
    this.values.push(value);
    return `⟨${this.values.length - 1}⟩`;
  }
}

function negate(clause: Clause): Clause {
  return { maybe: not(clause.sure), sure: not(clause.maybe) };
}

function not(sql: string): string {
  if (sql === TRUE) return FALSE;
  if (sql === FALSE) return TRUE;
  return `NOT (${sql})`;
}

/** Joins two-valued clauses; the empty AND is TRUE, the empty OR is `empty` (FALSE). */
function joinAll(parts: readonly string[], op: "AND" | "OR", empty: string = op === "AND" ? TRUE : FALSE) {
  const identity = op === "AND" ? TRUE : FALSE;
  const absorbing = op === "AND" ? FALSE : TRUE;
  const kept: string[] = [];
  for (const part of parts) {
    if (part === absorbing) return absorbing;
    if (part !== identity) kept.push(part);
  }
  if (kept.length === 0) return parts.length === 0 ? empty : identity;
  return kept.length === 1 ? kept[0]! : `(${kept.join(` ${op} `)})`;
}
