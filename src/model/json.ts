/** Plain JSON values: what the plan and the model are made of (no classes, Maps, Dates or undefined). */
export type JsonScalar = string | number | boolean | null;
export type JsonValue = JsonScalar | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** JSON with object keys sorted at every depth: equal values give equal text. */
export function stableStringify(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableStringify(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  return stableStringify(a) === stableStringify(b);
}

/**
 * A record keyed by names the user chose (image names, file paths), for lookups by those
 * names: `toString`, `constructor` or `__proto__` are then keys like any other, never the
 * properties every object has. `entries` may hold any of them.
 */
export function dictionary<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  for (const [key, value] of entries) record[key] = value;
  return record;
}

/** The value of `record` under its own key `key`, never an inherited property. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
