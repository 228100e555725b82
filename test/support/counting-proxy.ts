/**
 * Records that count how often the engine reads them: the cost of matching as a count, never as a time
 * (docs/semantics.md 1.7, "The walk of a dotted path"). Every object and array of the record is wrapped in
 * a Proxy whose `get`, `getOwnPropertyDescriptor` (`Object.hasOwn`), `has`, `ownKeys` and `getPrototypeOf`
 * traps add one to `reads`; one Proxy per object, so that identity is kept (two routes to a value reach
 * the same Proxy, as they reach the same object).
 */

/** A counter of reads, shared by every Proxy of one record. */
export interface ReadCounter {
  reads: number;
}

/**
 * Wraps a record (a tree or graph of plain objects and arrays) so that every read of it is counted.
 * @param value - the record; scalars are returned as they are
 * @param counter - where reads are counted (`reads` grows by one per trap call)
 * @returns the record seen through counting Proxies (answers every read as the record does)
 */
export function countingRecord<T>(value: T, counter: ReadCounter): T {
  const proxies = new WeakMap<object, object>();
  const wrap = (inner: unknown): unknown => {
    if (typeof inner !== "object" || inner === null) return inner;
    let proxy = proxies.get(inner);
    if (proxy === undefined) {
      proxy = new Proxy(inner, handler);
      proxies.set(inner, proxy);
    }
    return proxy;
  };
  const handler: ProxyHandler<object> = {
    get(target, key) {
      counter.reads++;
      return wrap(Reflect.get(target, key));
    },
    getOwnPropertyDescriptor(target, key) {
      counter.reads++;
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    has(target, key) {
      counter.reads++;
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      counter.reads++;
      return Reflect.ownKeys(target);
    },
    getPrototypeOf(target) {
      counter.reads++;
      return Reflect.getPrototypeOf(target);
    },
  };
  return wrap(value) as T;
}

/** The number of values in a JSON-like record: each object, array and scalar (the record's size). */
export function valueCount(value: unknown): number {
  if (typeof value !== "object" || value === null) return 1;
  let count = 1;
  for (const inner of Object.values(value)) count += valueCount(inner);
  return count;
}

/**
 * `{"a": [{"0": [{"0": … 2 … }]}]}`, `depth` levels of `[{"0": …}]`, as JSON text: the record whose walk
 * under `a.0.0…` took exponential time (a numeric segment both indexes each array and reads the field "0"
 * of its element).
 */
export function nestedZerosText(depth: number): string {
  return `{"a":${'[{"0":'.repeat(depth)}2${"}]".repeat(depth)}}`;
}

/** The record of the same size and depth without the trap: `{"a": [{"b": [{"b": … 2 … }]}]}`. */
export function nestedPlainText(depth: number): string {
  return `{"a":${'[{"b":'.repeat(depth)}2${"}]".repeat(depth)}}`;
}

/** `a` followed by `count` segments `segment` (`a.0.0.0`). */
export function repeatedPath(count: number, segment = "0"): string {
  return ["a", ...Array.from({ length: count }, () => segment)].join(".");
}
