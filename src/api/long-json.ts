/**
 * JSON as the services write it, with every digit of a Long. `JSON.parse` rounds an integer
 * past 2^53 to the nearest double (9007199254740993 becomes …992: another audience), so such
 * an answer is parsed with lossless-json: the integer reaches the wire schemas and the model as
 * its digits (a Long is a number or digits to them), and the answer as parsed exactly, the
 * integer a bigint, stays at hand (`exactOf`) for the fields the tool does not model, which an
 * update sends back as read. A request body writes a bigint, or a number kept as its digits
 * (`fromJsonText`), as the number it is.
 */
import { parse, stringify } from 'lossless-json';

/** Answers as parsed exactly, by the answer as the schemas and the model read it (only those that held such an integer). */
const exact = new WeakMap<object, unknown>();

/**
 * Parses an answer (throws SyntaxError as JSON.parse does); a key given twice keeps its last
 * value, as JSON.parse does. The seam of one performance choice: an answer without 16 digits in
 * a row holds no integer past 2^53, and JSON.parse reads it exactly and faster.
 */
export function parseAnswer(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const parsed = parse(text, null, {
    parseNumber: (digits) => (isInexactInteger(digits) ? BigInt(digits) : Number(digits)),
    onDuplicateKey: ({ newValue }) => newValue,
  });
  const read = withIntegersAsText(parsed);
  if (typeof read === 'object' && read !== null) exact.set(read, parsed);
  return read;
}

/** An integer written in digits that a number would not hold exactly. */
function isInexactInteger(digits: string): boolean {
  return /^-?\d+$/.test(digits) && !Number.isSafeInteger(Number(digits));
}

/** A copy of `value` with every bigint as its digits: what the schemas check and the model reads. */
function withIntegersAsText(value: unknown): unknown {
  if (typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map(withIntegersAsText);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withIntegersAsText(item)]));
  return value;
}

/** The answer `read` as parsed exactly: its integers past 2^53 as bigints (itself when it held none). */
export function exactOf(read: object): unknown {
  return exact.get(read) ?? read;
}

/** A value of an answer as JSON text, every digit of its integers kept: how a field the tool does not model is held. */
export function jsonText(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** JSON text held by `jsonText`, as a value a request body writes back exactly (its numbers as written). */
export function fromJsonText(text: string): unknown {
  return parse(text);
}

/** A request body as JSON: a bigint or a number held as its digits written as the number it is. */
export function writeBody(body: unknown): string {
  return stringify(body) ?? 'null';
}

/** A Long as a request body sends it: a JSON number, exact whatever its size. */
export function longToWire(id: string): number | bigint {
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : BigInt(id);
}
