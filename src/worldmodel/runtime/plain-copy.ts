/**
 * A deep copy of JSON data with exactly the result of `JSON.parse(JSON.stringify(value))`, without the
 * text round trip (strings are shared, not re-encoded: a web observation's accessibility text is
 * copied by reference). Objects lose their `undefined`, function and symbol members, arrays hold
 * `null` for them, non-finite numbers become `null` (and -0 is 0); a value with `toJSON` (a Date) goes through JSON.
 * For plain JSON data only (states, observations, traces): no cycles.
 */
export function plainCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case "object":
      return value === null ? null : copyObject(value);
    default:
      return undefined;
  }
}

function omitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function copyObject(value: object): unknown {
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.parse(JSON.stringify(value));
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out[i] = omitted(item) ? null : copyValue(item);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (omitted(item)) continue;
    if (key === "__proto__")
      Object.defineProperty(out, key, {
        value: copyValue(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = copyValue(item);
  }
  return out;
}
