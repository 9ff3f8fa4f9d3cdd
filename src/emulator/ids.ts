/**
 * The service's ids (Longs) as the emulator keeps them: their decimal digits, so that an id past
 * 2^53 (which a JavaScript number cannot hold) is stored, compared and answered exactly. Answers
 * write them as JSON numbers with every digit, as the real service does; bodies are read the same
 * way (see http-plumbing.ts). Written from the spec alone: no client code.
 */
export type Long = string;

/** The largest Long. */
const MAX_LONG = 9223372036854775807n;

/** A path, query or header id: a positive Long written in digits, no leading zero. */
export function parseId(text: string): Long | undefined {
  if (!/^[1-9][0-9]{0,18}$/.test(text)) return undefined;
  return BigInt(text) <= MAX_LONG ? text : undefined;
}

/** A body's id: a positive integer JSON number, read with every digit (a number, or a bigint past 2^53). */
export function idOf(value: unknown): Long | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? String(value) : undefined;
  if (typeof value === 'bigint') return value > 0n && value <= MAX_LONG ? String(value) : undefined;
  return undefined;
}

/** An id as an answer writes it: a JSON number (a bigint, so that every digit is written). */
export function wireId(id: Long): bigint {
  return BigInt(id);
}

/** The id after `id`. */
export function nextId(id: Long): Long {
  return String(BigInt(id) + 1n);
}

/** Orders ids as the numbers they are. */
export function compareIds(a: Long, b: Long): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
