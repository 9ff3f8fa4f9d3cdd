/**
 * An id of the service (a Long: an audience, an ad group, a campaign, a business), as its
 * decimal digits. A JavaScript number holds integers exactly only up to 2^53 − 1, and an id
 * past it read as a number would be requested back as another one; as text it is read, kept,
 * compared, printed and sent with every digit.
 */
export type Long = string;

/** Digits as the service writes a Long: an optional minus, no leading zero. */
const LONG_TEXT = /^-?(0|[1-9][0-9]*)$/;

export function isLong(value: unknown): value is Long {
  return typeof value === 'string' && LONG_TEXT.test(value);
}

/** A Long from a number that holds it exactly (a safe integer), or from its digits; undefined for anything else. */
export function longOf(value: unknown): Long | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  return isLong(value) ? value : undefined;
}

/**
 * An id as a number where it reads back exactly, else its digits in quotes (past 2^53 a number would read as another
 * id).
 */
export function idInFile(id: Long): number | string {
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : id;
}

/** `id: …` as a desired-state file writes it, for a hint to copy: quoted past 2^53, where `validate` refuses a number. */
export function idLine(id: Long): string {
  return `id: ${JSON.stringify(idInFile(id))}`;
}

/** Orders Longs as the numbers they are (sign, then length, then digits), not as text ("9" < "10"). */
export function compareLongs(a: Long, b: Long): number {
  const negative = a.startsWith('-');
  if (negative !== b.startsWith('-')) return negative ? -1 : 1;
  const order = a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return negative ? -order : order;
}

/** The Longs in ascending order, each once. */
export function sortLongs(ids: Iterable<Long>): Long[] {
  return [...new Set(ids)].sort(compareLongs);
}
