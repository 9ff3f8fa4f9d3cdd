import { CST, Lexer } from 'yaml';

/**
 * Whether a YAML text certainly holds more than `limit` values (the root included), found
 * without building them. yaml's parseDocument spends time and memory on each value it reads,
 * however short, so a file of tiny values costs far more than its size suggests; its lexer
 * builds nothing, and stops here at the bound (bench/NOTES.md).
 *
 * Three counts each name distinct values: the `:` of map entries (each has a value, if only
 * null), the `- ` of list items, and the tokens that start a value (a scalar, an alias, a
 * flow list or map) less the keys among them, each followed by its `:`. Lists or maps written
 * as keys, and merges of empty maps, can make the last count run ahead of the values: a file
 * that does so past the limit is refused all the same.
 */
export function writesMoreValuesThan(text: string, limit: number): boolean {
  let starts = 0;
  let colons = 0;
  let dashes = 0;
  let scalarText = false;
  for (const token of new Lexer().lex(text)) {
    // The text of a plain or block scalar follows its SCALAR token, and may start with anything.
    if (scalarText) {
      scalarText = false;
      continue;
    }
    const first = token.charAt(0);
    if (token === ':') colons += 1;
    else if (token === '-') dashes += 1;
    else if (token === CST.SCALAR) {
      scalarText = true;
      starts += 1;
    } else if (token === '[' || token === '{' || first === '"' || first === "'" || first === '*') starts += 1;
    else continue;
    // The root is one value more; a key whose `:` is still to come, one start less.
    if (colons >= limit || dashes >= limit || starts - colons > limit) return true;
  }
  return false;
}
