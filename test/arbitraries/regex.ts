/**
 * RE2 patterns from a grammar: atoms (given by the caller, who may nest whole patterns in groups),
 * quantified pieces of every kind (greedy and lazy, counted), concatenations and alternations. Shared by
 * the regex budget's and the matcher's property tests.
 */
import fc from "fast-check";

/** The quantifiers a piece may carry: every kind RE2 reads, greedy and lazy, counted and open. */
const QUANTIFIERS = [
  "*",
  "+",
  "?",
  "*?",
  "+?",
  "??",
  "{0}",
  "{1}",
  "{2}",
  "{3,}",
  "{0,2}",
  "{1,3}",
  "{2,4}?",
];

/**
 * A pattern arbitrary.
 * @param atoms - the atoms, given the pattern arbitrary itself for groups (`re.map((r) => \`(?:${r})\`)`)
 */
export function regexPatternArb(
  atoms: (re: fc.Arbitrary<string>) => fc.Arbitrary<string>[],
): fc.Arbitrary<string> {
  return fc.letrec<{ re: string; atom: string; piece: string }>((tie) => ({
    atom: fc.oneof({ depthSize: "small", withCrossShrink: true }, ...atoms(tie("re"))),
    piece: fc.oneof(
      tie("atom"),
      fc.tuple(tie("atom"), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => `${a}${q}`),
    ),
    re: fc.oneof(
      { depthSize: "small" },
      fc.array(tie("piece"), { minLength: 0, maxLength: 4 }).map((parts) => parts.join("")),
      fc.array(tie("piece"), { minLength: 2, maxLength: 3 }).map((parts) => parts.join("|")),
    ),
  })).re;
}
