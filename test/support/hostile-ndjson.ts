/**
 * Hostile NDJSON for property tests of the byte readers (fast-check arbitraries): escaped and repeated
 * keys, keys inside nested objects and strings, `\u0000`, surrogates, CRLF, byte order marks, numbers in
 * every JSON form (and invalid ones), invalid UTF-8 of every kind spliced into lines, lines cut short.
 * Shared by the line kernel's tests (src/node/kernel.test.ts) and the block scanner's
 * (src/node/block-scanner.test.ts).
 */
import fc from "fast-check";

export const encoder = new TextEncoder();

const blank = fc.constantFrom("", "", "", " ", "\t", "\r", "  \t ");
const keyText = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom(
      '"Status"',
      '"Title"',
      '"n"',
      '""',
      '"é"',
      '"x"',
      '"y"',
      '"z"',
      '"Status "',
      '"status"',
      '"Titl"',
      '"TitleTitleTitleTitle"',
      '"k1"',
      '"k2"',
      '"k3"',
      '"k4"',
    ),
  },
  // Escaped keys (the kernel leaves their lines to the scanner).
  fc.constantFrom('"a\\"b"', '"\\ud800"', '"Sta\\u0074us"', '"\\u0053tatus"', '"\\u0000"'),
);
const validNumber = fc.constantFrom(
  "0",
  "-0",
  "7",
  "-12",
  "0.5",
  "-0.0",
  "1e5",
  "1E+5",
  "2e-3",
  "1.5E-300",
  "123456789012345678901234567890",
  "9007199254740993",
  "1e400",
  "-1e-400",
);
const invalidNumber = fc.constantFrom(
  "01",
  "1.",
  ".5",
  "-",
  "1e",
  "1e+",
  "+1",
  "0x10",
  "1_0",
  "NaN",
  "Infinity",
);
const numberText = fc.oneof({ weight: 6, arbitrary: validNumber }, invalidNumber);
const literalText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("true", "false", "null") },
  fc.constantFrom("tru", "nul", "True", "fals", "nulll", "truex"),
);
const validString = fc.constantFrom(
  '"Open"',
  '"Closed"',
  '""',
  '"a\\nb"',
  '"q\\"q"',
  '"back\\\\slash"',
  '"\\/"',
  '"\\u0000"',
  '"\\ud83d\\ude00"',
  '"\\udc00"',
  '"\\ud800x"',
  '"é"',
  '"日本語テキスト"',
  '"😀 emoji"',
  '"{\\"Status\\":\\"Open\\"}"',
  '"\\"Status\\":1"',
  '"a long title of plain words for the vector loop, past sixteen bytes"',
  '"a long title with é in the middle, past sixteen bytes, and more"',
);
const stringText = fc.oneof(
  { weight: 8, arbitrary: validString },
  fc.constantFrom('"tab\there"', '"bad \\x escape"', '"bad \\u12 escape"', '"unterminated'),
);

const { value: valueText } = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    stringText,
    numberText,
    literalText,
    tie("object"),
    tie("array"),
  ),
  object: fc
    .array(fc.tuple(blank, keyText, blank, blank, tie("value"), blank), { maxLength: 4 })
    .map(
      (members) =>
        `{${members.map(([a, key, b, c, value, d]) => `${a}${key}${b}:${c}${value}${d}`).join(",")}}`,
    ),
  array: fc
    .array(fc.tuple(blank, tie("value"), blank), { maxLength: 3 })
    .map((items) => `[${items.map(([a, value, b]) => `${a}${value}${b}`).join(",")}]`),
}));

/** A top-level object: mostly the wanted keys, sometimes repeated, in any order. */
const objectText = fc
  .array(fc.tuple(keyText, blank, valueText), { maxLength: 7 })
  .map((members) => `{${members.map(([key, b, value]) => `${key}:${b}${value}`).join(",")}}`);

/** A line's text: usually an object, sometimes another JSON value or none; blanks, a BOM, a CR around it. */
export const lineText = fc
  .tuple(
    fc.constantFrom("", "", "", "\ufeff", " "),
    fc.oneof({ weight: 8, arbitrary: objectText }, valueText, fc.constant("")),
    blank,
    fc.constantFrom("", "", "\r"),
  )
  .map(([before, body, after, cr]) => `${before}${body}${after}${cr}`);

/** Bytes that break a line: invalid UTF-8 of every kind, a NUL, structure. */
export const badBytes = [
  [0x80],
  [0xff],
  [0xc0, 0x80],
  [0xc3],
  [0xe0, 0x80, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf0, 0x9f, 0x98],
  [0x00],
  [0x22],
  [0x5c],
  [0x7b],
  [0x7d],
  [0x0a],
];

/** NDJSON bytes: lines, each perhaps with bad bytes spliced in or cut short. */
export const ndjsonBytes = fc
  .array(
    fc.tuple(
      lineText,
      // One line in six gets bad bytes, one in ten is cut short.
      fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, fc.tuple(fc.nat(), fc.constantFrom(...badBytes))),
      fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, fc.nat()),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .chain((lines) =>
    fc.constant(
      lines.map(([text, splice, cut]) => {
        let bytes = encoder.encode(text);
        if (splice !== null) {
          const at = splice[0] % (bytes.length + 1);
          bytes = new Uint8Array([...bytes.subarray(0, at), ...splice[1], ...bytes.subarray(at)]);
        }
        if (cut !== null) bytes = bytes.subarray(0, cut % (bytes.length + 1));
        return bytes;
      }),
    ),
  )
  .chain((lines) =>
    fc.boolean().map((lastNewline) => {
      const parts: number[] = [];
      lines.forEach((line, i) => {
        parts.push(...line);
        if (i < lines.length - 1 || lastNewline) parts.push(10);
      });
      return new Uint8Array(parts);
    }),
  );

/** Valid JSON values of every kind (none of `valueText`'s invalid ones). */
const validValue = fc.oneof(
  { weight: 4, arbitrary: validString },
  validNumber,
  fc.constantFrom("true", "false", "null", "[]", "{}", '{"a":[1,{"b":"c"}]}', '[ "x" , {"Status":1} ]'),
);

/**
 * NDJSON bytes whose lines mostly share one list of keys (each line a prefix of it, in order, most of them
 * all of it), as an export's lines do: written without blanks or with some, and now and then another line
 * (of `lineText`, or bad bytes). `valid`: values only valid JSON and few other lines (a build reads most
 * exports to their end); else values of every kind, invalid ones included. Holds the byte readers'
 * per-shape devices (the kernel's epochs and cuts, the fast path) to their answers.
 */
export function shapedNdjsonBytes(valid: boolean): fc.Arbitrary<Uint8Array> {
  const value = valid ? validValue : fc.oneof({ weight: 4, arbitrary: validString }, valueText);
  return fc
    .tuple(
      fc.uniqueArray(keyText, { minLength: 1, maxLength: 6 }),
      fc.array(
        fc.oneof(
          {
            weight: valid ? 40 : 8,
            arbitrary: fc
              .tuple(
                // Most lines hold all the keys.
                fc.oneof({ weight: 3, arbitrary: fc.constant(6) }, fc.nat(6)),
                fc.array(value, { minLength: 6, maxLength: 6 }),
                // Blanks: none; only around the colons (the same tail, `}`, as a compact line's); anywhere.
                fc.oneof(
                  { weight: 4, arbitrary: fc.constant(null) },
                  { weight: 2, arbitrary: fc.tuple(fc.constant(""), blank, fc.constant("")) },
                  fc.tuple(blank, blank, blank),
                ),
              )
              .map(([count, values, blanks]) => ({ count, values, blanks })),
          },
          { weight: 1, arbitrary: lineText.map((text) => encoder.encode(text)) },
          { weight: 1, arbitrary: fc.constantFrom(...badBytes).map((bytes) => new Uint8Array(bytes)) },
        ),
        { minLength: 1, maxLength: 8 },
      ),
      fc.boolean(),
    )
    .map(([keys, lines, lastNewline]) => {
      const parts: number[] = [];
      lines.forEach((line, i) => {
        if (line instanceof Uint8Array) parts.push(...line);
        else {
          const { count, values, blanks } = line;
          const [a, b, c] = blanks ?? ["", "", ""];
          const members = keys.slice(0, Math.max(1, count));
          const text = `{${a}${members.map((key, k) => `${key}${b}:${b}${values[k]}${c}`).join(`,${a}`)}}`;
          parts.push(...encoder.encode(text));
        }
        if (i < lines.length - 1 || lastNewline) parts.push(10);
      });
      return new Uint8Array(parts);
    });
}
