/**
 * JSON as the services write it, with every digit of a Long. `JSON.parse` rounds an integer
 * past 2^53 to the nearest double (9007199254740993 becomes …992: another audience), so
 * answers are parsed with lossless-json, such an integer kept as its digits (the wire schemas
 * take a Long as a number or as digits); and a request body writes a Long given as a bigint
 * as the number it is.
 */
import { parse, stringify } from 'lossless-json';

/** An integer JavaScript cannot hold exactly stays text; any other number is a number, as JSON.parse reads it. */
function parseNumber(text: string): number | string {
  const value = Number(text);
  return Number.isInteger(value) && !Number.isSafeInteger(value) && /^-?\d+$/.test(text) ? text : value;
}

/** Parses an answer (throws SyntaxError as JSON.parse does); a key given twice keeps its last value, as JSON.parse does. */
export function parseAnswer(text: string): unknown {
  return parse(text, null, { parseNumber, onDuplicateKey: ({ newValue }) => newValue });
}

/** A request body as JSON: a bigint (a Long past 2^53) written as a number with every digit. */
export function writeBody(body: unknown): string {
  return stringify(body) ?? 'null';
}

/** A Long as a request body sends it: a JSON number, exact whatever its size. */
export function longToWire(id: string): number | bigint {
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : BigInt(id);
}
