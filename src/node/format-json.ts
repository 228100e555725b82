/**
 * The JSON text of the records the readers return and the CLI prints, whatever their depth.
 */

/**
 * The JSON text of a value read by `JSON.parse` (a record): `JSON.stringify(value, null, indent)`. A value
 * nested too deeply for `JSON.stringify`'s recursion (some thousands of levels, which `JSON.parse` reads
 * without limit; docs/cli.md "Output and exit codes") is written without recursion and compact whatever
 * `indent` (indented, its text would grow with the square of its depth): the text `JSON.stringify(value)`
 * gives on a larger stack.
 * @param value - a value of JSON: `null`, a boolean, a finite number, a string, an array or a plain object
 *   of these, as `JSON.parse` returns (no `toJSON`, no `undefined`)
 * @param indent - spaces of indentation (`JSON.stringify`'s `space`); none gives one line
 * @returns the text, or `undefined` when it is longer than the longest string JavaScript holds
 */
export function formatJson(value: unknown, indent?: number): string | undefined {
  try {
    return JSON.stringify(value, null, indent);
  } catch (error) {
    // "Maximum call stack size exceeded" or "Invalid string length".
    if (!(error instanceof RangeError)) throw error;
  }
  try {
    return stringifyWithoutRecursion(value);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** One open array or object of `stringifyWithoutRecursion`: its members (its keys for an object) and the next one. */
interface OpenContainer {
  readonly container: Record<string, unknown> | readonly unknown[];
  readonly keys: readonly string[] | undefined;
  next: number;
}

/** Compact JSON of a value of JSON, with an explicit stack instead of recursion. */
function stringifyWithoutRecursion(root: unknown): string {
  const parts: string[] = [];
  const open: OpenContainer[] = [];
  let value = root;
  for (;;) {
    if (Array.isArray(value)) {
      parts.push("[");
      open.push({ container: value, keys: undefined, next: 0 });
    } else if (typeof value === "object" && value !== null) {
      parts.push("{");
      open.push({ container: value as Record<string, unknown>, keys: Object.keys(value), next: 0 });
    } else {
      parts.push(JSON.stringify(value) ?? "null");
    }
    // The next member to write, closing the containers that are done.
    for (;;) {
      const top = open.at(-1);
      if (top === undefined) return parts.join("");
      const { container, keys } = top;
      if (top.next === (keys ?? (container as readonly unknown[])).length) {
        parts.push(keys === undefined ? "]" : "}");
        open.pop();
        continue;
      }
      if (top.next > 0) parts.push(",");
      if (keys === undefined) value = (container as readonly unknown[])[top.next];
      else {
        const key = keys[top.next]!;
        parts.push(JSON.stringify(key), ":");
        value = (container as Record<string, unknown>)[key];
      }
      top.next++;
      break;
    }
  }
}
