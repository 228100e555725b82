/**
 * Counts the reads a function makes of an input, as a load-independent stand-in for "quickly": a refusal
 * that reads a bounded part of a huge input costs a bounded time on any machine, however busy.
 */

/**
 * The input behind proxies (every object and array, reached lazily) that count property reads (`get`) and
 * key listings (`ownKeys`, one per listing); with `descriptors`, also descriptor reads and `in` tests (a
 * reader that goes through `Object.hasOwn` or `Object.getOwnPropertyDescriptor` is then counted too).
 * @returns the proxied input and the number of reads so far
 */
export function countingReads<T>(
  input: T,
  { descriptors = false }: { readonly descriptors?: boolean } = {},
): { readonly proxy: T; reads(): number } {
  let reads = 0;
  const proxies = new WeakMap<object, object>();
  const wrap = (value: unknown): unknown => {
    if (typeof value !== "object" || value === null) return value;
    const known = proxies.get(value);
    if (known !== undefined) return known;
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        reads++;
        return wrap(Reflect.get(target, key, receiver));
      },
      ownKeys(target) {
        reads++;
        return Reflect.ownKeys(target);
      },
      has(target, key) {
        if (descriptors) reads++;
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor(target, key) {
        if (descriptors) reads++;
        const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
        if (descriptor !== undefined && "value" in descriptor) descriptor.value = wrap(descriptor.value);
        return descriptor;
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  return { proxy: wrap(input) as T, reads: () => reads };
}
