/**
 * JSON as the services write it, with every digit of a Long. `JSON.parse` rounds an integer
 * past 2^53 to the nearest double (9007199254740993 becomes …992: another audience), so such
 * an answer is parsed with lossless-json: the integer reaches the wire schemas and the model as
 * its digits (a Long is a number or digits to them), and the answer as parsed exactly, every
 * number a double cannot hold kept as written, stays at hand (`exactOf`) for the fields the tool
 * does not model, which an update sends back as read. A request body writes a bigint, or a
 * number kept as written (`fromJsonText`), as the number it is.
 */
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/**
 * Answers as parsed exactly, by the answer as the schemas and the model read it (only those that held such an integer).
 */
const exact = new WeakMap<object, unknown>();

/**
 * Parses an answer (throws SyntaxError as JSON.parse does); a key given twice keeps its last
 * value, as JSON.parse does. The seam of one performance choice: an answer without 16 digits in
 * a row holds no integer past 2^53, and JSON.parse reads it exactly and faster.
 */
export function parseAnswer(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const parsed = parse(text, null, {
    parseNumber: (written) => (isSafeNumber(written) ? Number(written) : new LosslessNumber(written)),
    onDuplicateKey: ({ newValue }) => newValue,
  });
  const read = withIntegersAsText(parsed);
  if (typeof read === 'object' && read !== null) exact.set(read, parsed);
  return read;
}

/**
 * A copy of `value` as the schemas check it and the model reads it: an integer a double cannot
 * hold as its digits, any other number a double cannot hold as the nearest one, as JSON.parse reads it.
 */
function withIntegersAsText(value: unknown): unknown {
  if (isLosslessNumber(value)) return /^-?\d+$/.test(value.value) ? value.value : Number(value.value);
  if (Array.isArray(value)) return value.map(withIntegersAsText);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withIntegersAsText(item)]));
  return value;
}

/** The answer `read` as parsed exactly: the numbers a double cannot hold as written (itself when it held none). */
export function exactOf(read: object): unknown {
  return exact.get(read) ?? read;
}

/** A value of an answer as JSON text, every digit of its integers kept: how a field the tool does not model is held. */
export function jsonText(value: unknown): string {
  return stringify(value) ?? 'null';
}

/**
 * Whether two JSON texts hold one value, every digit of their numbers compared (a service may
 * space or order what it answers otherwise than it was sent); two absences are one too.
 */
export function sameJsonText(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalText(parse(a)) === canonicalText(parse(b));
}

/** A parsed value as JSON text with the keys of every object in order. */
function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
  if (typeof value === 'object' && value !== null && !isLosslessNumber(value)) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalText(record[key])}`)
      .join(',')}}`;
  }
  // A number as the value it is (1.50 is 1.5), every digit kept where a double would lose one.
  if (isLosslessNumber(value)) return isSafeNumber(value.value) ? String(Number(value.value)) : value.value;
  return jsonText(value);
}

/** JSON text held by `jsonText`, as a value a request body writes back exactly (its numbers as written). */
export function fromJsonText(text: string): unknown {
  return parse(text);
}

/**
 * A request body as JSON: a bigint or a number held as its digits written as the number it is. The seam of a
 * performance choice: a body with neither (every create of ids a double holds) is written by JSON.stringify, the same
 * text several times faster, so a large apply's writes leave sooner (bench/NOTES.md).
 */
export function writeBody(body: unknown): string {
  return (holdsExactNumbers(body) ? stringify(body) : JSON.stringify(body)) ?? 'null';
}

/** Whether `value` holds a number JSON.stringify cannot write: a bigint, or a number kept as written. */
function holdsExactNumbers(value: unknown): boolean {
  if (typeof value === 'bigint') return true;
  if (typeof value !== 'object' || value === null) return false;
  if (isLosslessNumber(value)) return true;
  if (Array.isArray(value)) return value.some(holdsExactNumbers);
  return Object.values(value).some(holdsExactNumbers);
}

/** A Long as a request body sends it: a JSON number, exact whatever its size. */
export function longToWire(id: string): number | bigint {
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : BigInt(id);
}
