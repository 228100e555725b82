/**
 * The timeline conformance table (docs/semantics.md 2; specification 2.2): every rule of Filter, Sort Order and
 * sorting, as data. `timeline.test.ts` runs each case against `queryTimeline`, `TimelineIndex` and the
 * composition `sortTimelineEntries(filterTimelineEntries(…))`.
 */

import { emptyEntryText } from "../support/timeline-entries.js";

/** One case: raw entries, the raw Filter and Sort Order as a caller sends them, and the expected answer. */
export interface TimelineCase {
  /** Unique and readable: "filter: a term in Note keeps the entry". */
  readonly name: string;
  /** The rule it checks: "docs/semantics.md 2 filter", "docs/semantics.md 2 sort order", "docs/semantics.md 2 sorting". */
  readonly rule: string;
  /** Entries as a backend or a file would hold them (not necessarily valid). */
  readonly entries: readonly unknown[];
  /** Raw Filter term; omitted means absent. */
  readonly filter?: string;
  /** Raw Sort Order token; omitted means absent. */
  readonly sortOrder?: unknown;
  /** The `TimelineID`s of the answer in order, or a substring of the error that refuses the query. */
  readonly expected: readonly number[] | { readonly error: string };
}

const MISSING = Symbol("missing");

/**
 * An entry with neutral empty text, the given id and time (`MISSING` leaves `Time` out), and overrides.
 */
function entry(id: number, time: string | typeof MISSING | number, fields: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = { TimelineID: id, ...emptyEntryText() };
  if (time !== MISSING) base.Time = time;
  return { ...base, ...fields };
}

const FILTER = "docs/semantics.md 2 filter";
const TOKENS = "docs/semantics.md 2 sort order";
const SORTING = "docs/semantics.md 2 sorting";

/** One entry per searched field, each holding "needle" (in various cases) only there. */
const PER_FIELD = [
  entry(1, "2024-01-01 10:00:01", { Summary: "A NEEDLE in the summary" }),
  entry(2, "2024-01-01 10:00:02", { Note: "needle in the note" }),
  entry(3, "2024-01-01 10:00:03", { EventType: "NeedleEvent" }),
  entry(4, "2024-01-01 10:00:04", { Tactic: ["Execution", "Needle Tactic"] }),
  entry(5, "2024-01-01 10:00:05", { Technique: ["T1059", "T1000 neeDLE"] }),
  entry(6, "2024-01-01 10:00:06", { RiskLevel: "needle-high" }),
  entry(7, "2024-01-01 10:00:07", { Description: "long text with a needle inside" }),
  entry(8, "2024-01-01 10:00:08", { Author: "Needle Bot" }),
  entry(9, "2024-01-01 10:00:09", { Summary: "haystack only", Host: "needle", Extra: ["needle"] }),
];

const SORT_SET = [
  entry(1, "2024-03-01 10:00:00"),
  entry(2, "2024-03-01 09:00:00"),
  entry(3, "2024-02-29 23:59:59"),
  entry(4, "2024-03-01 10:00:00"),
  entry(5, "2025-01-01 00:00:00"),
];

const MIXED_SET = [
  entry(10, "2024-02-30 10:00:00"),
  entry(7, MISSING),
  entry(8, "not a time"),
  entry(9, "2024-01-01 10:00:00"),
  entry(6, "2024-01-01 10:00:00"),
  entry(11, "2023-12-31 23:59:59"),
];

const TOKEN_SET = [entry(1, "2024-05-01 00:00:00"), entry(2, "2024-04-01 00:00:00"), entry(3, "x")];
const TOKEN_ASC = [2, 1, 3];
const TOKEN_DESC = [1, 2, 3];

const accepted = (
  token: unknown,
  expected: readonly number[],
  label = JSON.stringify(token),
): TimelineCase => ({
  name: `sort order: ${label} is accepted`,
  rule: TOKENS,
  entries: TOKEN_SET,
  sortOrder: token,
  expected,
});
const refused = (token: unknown, label = JSON.stringify(token)): TimelineCase => ({
  name: `sort order: ${label} is refused, naming the accepted tokens`,
  rule: TOKENS,
  entries: TOKEN_SET,
  sortOrder: token,
  expected: { error: "expected ASC, ascending, DESC or descending" },
});

/** Validity of one `Time` under sorting: a valid one sorts before id 1 (time 2030), an invalid one after. */
const timeValidity = (time: unknown, valid: boolean, why: string): TimelineCase => ({
  name: `sorting: ${JSON.stringify(time)} is ${valid ? "a valid" : "an invalid"} time (${why})`,
  rule: SORTING,
  entries: [entry(1, "2030-01-01 00:00:00"), entry(2, time as string)],
  sortOrder: "ASC",
  expected: valid ? [2, 1] : [1, 2],
});

const textCase = (name: string, text: string, filter: string, keeps: boolean): TimelineCase => ({
  name: `filter: ${name}`,
  rule: FILTER,
  entries: [entry(1, "2024-01-01 00:00:00", { Summary: text }), entry(2, "2024-01-01 00:00:01")],
  filter,
  expected: keeps ? [1] : [],
});

export const TIMELINE_CASES: readonly TimelineCase[] = [
  // Searched fields
  {
    name: "filter: a term in Summary keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "IN THE SUMMARY",
    expected: [1],
  },
  {
    name: "filter: a term in Note keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "in the note",
    expected: [2],
  },
  {
    name: "filter: a term in EventType keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "leevent",
    expected: [3],
  },
  {
    name: "filter: a term in an element of Tactic keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "needle tactic",
    expected: [4],
  },
  {
    name: "filter: a term in an element of Technique keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "t1000",
    expected: [5],
  },
  {
    name: "filter: a term in RiskLevel keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "-high",
    expected: [6],
  },
  {
    name: "filter: a term in Description keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "needle inside",
    expected: [7],
  },
  {
    name: "filter: a term in Author keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "bot",
    expected: [8],
  },
  {
    name: "filter: a term in Time keeps the entry",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "10:00:05",
    expected: [5],
  },
  {
    name: "filter: a date prefix of Time keeps every entry of that day",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "2024-01-01",
    expected: [1, 2, 3, 4, 5, 6, 7, 8, 9],
  },
  {
    name: "filter: one term found in several fields keeps each entry once",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "needle",
    expected: [1, 2, 3, 4, 5, 6, 7, 8],
  },
  {
    name: "filter: fields outside the list (extra keys) are not searched",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "needle",
    sortOrder: "DESC",
    expected: [8, 7, 6, 5, 4, 3, 2, 1],
  },
  {
    name: "filter: TimelineID is not searched",
    rule: FILTER,
    entries: [entry(4242, "2024-01-01 00:00:00"), entry(1, "2024-01-01 00:00:00", { Note: "ref 4242" })],
    filter: "4242",
    expected: [1],
  },
  {
    name: "filter: a term never spans two fields",
    rule: FILTER,
    entries: [entry(1, "2024-01-01 00:00:00", { Summary: "abc", Note: "def" })],
    filter: "cd",
    expected: [],
  },
  {
    name: "filter: a term never spans two elements of Tactic",
    rule: FILTER,
    entries: [entry(1, "2024-01-01 00:00:00", { Tactic: ["Initial", "Access"] })],
    filter: "InitialAccess",
    expected: [],
  },
  {
    name: "filter: the term matches the Time text of an entry with an invalid time, which sorts last",
    rule: FILTER,
    entries: [entry(1, "not a time"), entry(2, "2024-01-01 00:00:00", { Note: "time" })],
    filter: "TIME",
    expected: [2, 1],
  },
  {
    name: "filter: an ill-typed field of an unvalidated entry is not searched",
    rule: FILTER,
    entries: [
      entry(1, "2024-01-01 00:00:00", { Summary: 123, Tactic: "needle", Technique: [7, null, "needle"] }),
    ],
    filter: "123",
    expected: [],
  },
  {
    name: "filter: string elements of an array with ill-typed neighbours are still searched",
    rule: FILTER,
    entries: [entry(1, "2024-01-01 00:00:00", { Technique: [7, null, "needle"] })],
    filter: "needle",
    expected: [1],
  },

  // Trimming and the empty term
  {
    name: "filter: the term is trimmed",
    rule: FILTER,
    entries: PER_FIELD,
    filter: " \t bot \n",
    expected: [8],
  },
  {
    name: "filter: an empty term filters nothing",
    rule: FILTER,
    entries: SORT_SET,
    filter: "",
    expected: [3, 2, 1, 4, 5],
  },
  {
    name: "filter: a white-space-only term filters nothing",
    rule: FILTER,
    entries: SORT_SET,
    filter: "   \t",
    expected: [3, 2, 1, 4, 5],
  },
  {
    name: "filter: an absent term filters nothing",
    rule: FILTER,
    entries: SORT_SET,
    expected: [3, 2, 1, 4, 5],
  },
  {
    name: "filter: a term found nowhere keeps nothing",
    rule: FILTER,
    entries: PER_FIELD,
    filter: "absent-word",
    expected: [],
  },
  textCase("inner white space is kept, not collapsed", "Lateral Movement", "lateral  movement", false),
  textCase("inner white space matches exactly", "Lateral Movement", "l movem", true),

  // Ignoring case
  textCase("upper-case term, mixed-case text", "Phishing mail", "PHISH", true),
  textCase("lower-case term, upper-case text", "PHISHING MAIL", "phishing", true),
  textCase("mixed-case term", "phishing mail", "pHiShInG", true),
  textCase("a substring inside a word matches", "Phishing", "ishi", true),
  textCase("non-ASCII: ÉVÉNEMENT matches événement", "Un événement critique", "ÉVÉNEMENT", true),
  textCase(
    "non-ASCII: decomposed text matches a precomposed term (NFC)",
    "e\u0301ve\u0301nement",
    "ÉVÉNEMENT",
    true,
  ),
  textCase(
    "non-ASCII: a decomposed term matches precomposed text (NFC)",
    "événement",
    "E\u0301VE\u0301NEMENT",
    true,
  ),
  textCase("non-ASCII: an unaccented term does not match accented text", "événement", "evenement", false),
  textCase(
    "non-ASCII: a base letter does not match inside a decomposed accented letter",
    "cafe\u0301",
    "cafe",
    false,
  ),
  textCase("non-ASCII: Cyrillic", "Привет, мир", "ПРИВЕТ", true),
  textCase("non-ASCII: Greek final sigma matches capital sigma", "οδος", "ΟΔΟΣ", true),
  textCase("non-ASCII: capital sharp s matches ß", "Straße", "STRAẞE", true),
  textCase("non-ASCII: ß does not match ss (simple case folding)", "Straße", "STRASSE", false),
  textCase("non-ASCII: the Kelvin sign matches k", "5 \u212A", "5 k", true),
  textCase("non-ASCII: dotted capital I matches only itself", "İstanbul", "istanbul", false),
  textCase("non-ASCII: CJK text", "李雷 reviewed", "李雷", true),
  textCase("non-ASCII: astral characters (emoji)", "alert 🔥 raised", "🔥 RAISED", true),
  textCase("non-ASCII: Deseret letters fold across case", "\u{10428}", "\u{10400}", true),

  // Literal terms
  textCase("regex metacharacters are literal: a.b* in text", "xa.b*y", "a.b*", true),
  textCase("regex metacharacters are literal: a.b* does not match aXbbb", "aXbbb", "a.b*", false),
  textCase("regex metacharacters are literal: (admin", "user (admin) logged in", "(ADMIN", true),
  textCase("regex metacharacters are literal: [x]", "flag [x] set", "[X]", true),
  textCase("regex metacharacters are literal: [x] does not match x", "x", "[x]", false),
  textCase("regex metacharacters are literal: \\d is a backslash and a d", "C:\\dir", "\\d", true),
  textCase("regex metacharacters are literal: \\d does not match a digit", "5", "\\d", false),
  textCase("regex metacharacters are literal: .* does not match everything", "anything", ".*", false),
  textCase("regex metacharacters are literal: a|b does not match a", "a", "a|b", false),
  textCase("regex metacharacters are literal: ^ and $", "cost ^up $5", "^UP $", true),
  textCase("regex metacharacters are literal: ? + {2} / ]", "x?+{2}/]", "?+{2}/]", true),

  // Sort Order tokens
  accepted("ASC", TOKEN_ASC),
  accepted("asc", TOKEN_ASC),
  accepted("Asc", TOKEN_ASC),
  accepted("ascending", TOKEN_ASC),
  accepted("ASCENDING", TOKEN_ASC),
  accepted("  ASC  ", TOKEN_ASC),
  accepted("DESC", TOKEN_DESC),
  accepted("desc", TOKEN_DESC),
  accepted("descending", TOKEN_DESC),
  accepted("Descending", TOKEN_DESC),
  accepted("\tdesc\n", TOKEN_DESC),
  accepted("", TOKEN_ASC, "the empty string (ascending)"),
  accepted("   ", TOKEN_ASC, "white space only (ascending)"),
  accepted(null, TOKEN_ASC, "null (ascending)"),
  { name: "sort order: absent means ascending", rule: TOKENS, entries: TOKEN_SET, expected: TOKEN_ASC },
  refused("up"),
  refused("ascend"),
  refused("DSC"),
  refused("ASC DESC"),
  refused("a"),
  refused("1"),
  refused("asc,"),
  refused("A S C"),
  refused(1, "the number 1"),
  refused(true, "the boolean true"),

  // Sorting
  {
    name: "sorting: ASC goes from earliest to latest, across days and years",
    rule: SORTING,
    entries: SORT_SET,
    sortOrder: "ASC",
    expected: [3, 2, 1, 4, 5],
  },
  {
    name: "sorting: DESC goes from latest to earliest, exactly the reverse of ASC",
    rule: SORTING,
    entries: SORT_SET,
    sortOrder: "DESC",
    expected: [5, 4, 1, 2, 3],
  },
  {
    name: "sorting: ties go by TimelineID ascending under ASC",
    rule: SORTING,
    entries: [
      entry(3, "2024-01-01 00:00:00"),
      entry(1, "2024-01-01 00:00:00"),
      entry(2, "2024-01-01 00:00:00"),
    ],
    sortOrder: "asc",
    expected: [1, 2, 3],
  },
  {
    name: "sorting: ties go by TimelineID descending under DESC",
    rule: SORTING,
    entries: [
      entry(3, "2024-01-01 00:00:00"),
      entry(1, "2024-01-01 00:00:00"),
      entry(2, "2024-01-01 00:00:00"),
    ],
    sortOrder: "desc",
    expected: [3, 2, 1],
  },
  {
    name: "sorting: TimelineIDs compare as numbers (9 before 10)",
    rule: SORTING,
    entries: [
      entry(10, "2024-01-01 00:00:00"),
      entry(9, "2024-01-01 00:00:00"),
      entry(100, "2024-01-01 00:00:00"),
    ],
    expected: [9, 10, 100],
  },
  {
    name: "sorting: one second apart is ordered",
    rule: SORTING,
    entries: [entry(1, "2024-01-01 10:00:01"), entry(2, "2024-01-01 10:00:00")],
    expected: [2, 1],
  },
  {
    name: "sorting: invalid and missing times come last under ASC, by TimelineID",
    rule: SORTING,
    entries: MIXED_SET,
    sortOrder: "ASC",
    expected: [11, 6, 9, 7, 8, 10],
  },
  {
    name: "sorting: invalid and missing times come last under DESC, still by TimelineID ascending",
    rule: SORTING,
    entries: MIXED_SET,
    sortOrder: "DESC",
    expected: [9, 6, 11, 7, 8, 10],
  },
  {
    name: "sorting: when every time is invalid, both orders go by TimelineID ascending",
    rule: SORTING,
    entries: [entry(3, "x"), entry(1, MISSING), entry(2, "")],
    sortOrder: "DESC",
    expected: [1, 2, 3],
  },
  {
    name: "sorting: no entries give no entries",
    rule: SORTING,
    entries: [],
    sortOrder: "DESC",
    expected: [],
  },
  timeValidity("2024-02-29 10:00:00", true, "a leap day"),
  timeValidity("2024-02-30 10:00:00", false, "no roll-over of an impossible date"),
  timeValidity("2023-02-29 10:00:00", false, "not a leap year"),
  timeValidity("2100-02-29 10:00:00", false, "century not divisible by 400"),
  timeValidity("2000-02-29 10:00:00", true, "divisible by 400"),
  timeValidity("2024-04-31 10:00:00", false, "April has 30 days"),
  timeValidity("2024-13-01 10:00:00", false, "month 13"),
  timeValidity("2024-00-10 10:00:00", false, "month 0"),
  timeValidity("2024-01-00 10:00:00", false, "day 0"),
  timeValidity("2024-01-01 24:00:00", false, "hour 24"),
  timeValidity("2024-01-01 23:60:00", false, "minute 60"),
  timeValidity("2024-01-01 23:59:60", false, "no leap second"),
  timeValidity("2024-1-01 10:00:00", false, "single-digit month"),
  timeValidity("2024-01-01T10:00:00Z", false, "ISO form"),
  timeValidity("2024-01-01 10:00:00 ", false, "trailing space"),
  timeValidity(" 2024-01-01 10:00:00", false, "leading space"),
  timeValidity("2024-01-01 10:00:00.000", false, "fractional seconds"),
  timeValidity("2024-01-01 10:00", false, "no seconds"),
  timeValidity("2024/01/01 10:00:00", false, "slashes"),
  timeValidity("２０２４-01-01 10:00:00", false, "full-width digits"),
  timeValidity("0000-01-01 00:00:00", false, "year 0000"),
  timeValidity("0001-01-01 00:00:00", true, "year 0001"),
  timeValidity(1704103200000, false, "a number"),
  timeValidity(null, false, "null"),
  {
    name: "sorting: year 9999 sorts after year 2024",
    rule: SORTING,
    entries: [entry(1, "9999-12-31 23:59:59"), entry(2, "2024-01-01 00:00:00")],
    expected: [2, 1],
  },
  {
    name: "sorting: filter then sort DESC",
    rule: SORTING,
    entries: [
      entry(1, "2024-01-02 00:00:00", { Note: "phish" }),
      entry(2, "2024-01-03 00:00:00", { Note: "other" }),
      entry(3, "2024-01-04 00:00:00", { Summary: "PHISH" }),
      entry(4, "bad", { Author: "phisher" }),
    ],
    filter: "Phish",
    sortOrder: "descending",
    expected: [3, 1, 4],
  },
];
