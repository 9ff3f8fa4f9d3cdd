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
