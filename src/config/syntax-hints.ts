import { Parser, type CST, type YAMLError } from 'yaml';

/** One YAML syntax error as the file's problem: where the mistake most likely is, what it is, and what to do. */
export interface SyntaxProblem {
  offset: number;
  message: string;
  hint: string;
  /**
   * An unclosed bracket or quote, or a key indented into the value above: what yaml reports after it follows from it.
   */
  unclosed?: true;
}

/**
 * What yaml reports of a file it cannot read, said so that the hint fits the mistake. yaml
 * files errors of one cause under several codes (an unclosed `[` is BAD_INDENT when inside a
 * block; a line indented wrongly is often MISSING_CHAR), so the hint follows the message, and
 * an unclosed bracket or quote is reported where it opens: where the line it ran into is.
 */
export function syntaxProblem(error: YAMLError, text: string): SyntaxProblem {
  const offset = error.pos[0];
  const unclosedFlow =
    /^Flow (sequence|map) (?:in block collection )?must (?:be sufficiently indented and )?end with an? ([\]}])/.exec(
      error.message,
    );
  if (unclosedFlow) return flowProblem(text, offset, unclosedFlow[1] === 'map' ? 'map' : 'list');
  if (/^Missing closing ["']quote/.test(error.message)) return quoteProblem(text, offset);
  if (/^Nested mappings are not allowed in compact mappings/.test(error.message)) return deeperKeyProblem(text, offset);
  const message = yamlMessage(error, text);
  const hint =
    MESSAGE_HINTS.find(([pattern]) => pattern.test(error.message))?.[1] ??
    CODE_HINTS[error.code] ??
    'check the indentation and the quotes here and on the lines before';
  return { offset, message, hint };
}

/** Hints by yaml's message, for codes that cover several mistakes. */
const MESSAGE_HINTS: ReadonlyArray<readonly [RegExp, string]> = [
  [
    /^Sequence item without - indicator/,
    'check the indentation: line this key up with the keys above it, or start a new item of the list with "- "',
  ],
  [
    /^Unexpected flow-(?:seq|map)-end/,
    'this bracket closes none that is open: remove it, or add the one it should close',
  ],
  [
    /^Implicit map keys need to be followed by map values/,
    'a key is followed by ": " and its value; if this line belongs to the one above, check its indentation',
  ],
  [/^Missing , between flow/, 'separate the values inside [ ] or { } with commas'],
  [
    /^Missing , or : between flow map items|^Missing space after : in flow map/,
    'write each entry inside { } as key: value, the entries separated with commas',
  ],
  [/^Comments must be separated/, 'put a space before "#", or quote a value that holds one'],
  [
    /^Flow end indicator should be more indented/,
    'indent the closing bracket deeper than its key, or end the list on its last line',
  ],
  [/^Tags and anchors must be separated/, 'put a space after the anchor (&name) or the tag (!tag)'],
];

const CODE_HINTS: Partial<Record<string, string>> = {
  DUPLICATE_KEY: 'a key may appear once in a map: merge the two entries',
  MULTIPLE_DOCS: 'one file describes one ad account: put each account in its own file and pass each with -f',
  TAB_AS_INDENT: 'indent with spaces',
  MISSING_CHAR: 'check the punctuation (":", "- ", quotes, [ ], { }) here and on the line before',
  BAD_INDENT: 'indent each level by the same number of spaces, every item of a list or map alike',
  UNEXPECTED_TOKEN: 'check the indentation and the punctuation (":", "- ", [ ], { }) here and on the line before',
  BLOCK_AS_IMPLICIT_KEY:
    'check the indentation: the keys of one map start in the same column, and a key ends with ": " on its line',
  MULTILINE_IMPLICIT_KEY:
    'check the indentation: the keys of one map start in the same column, and a key ends with ": " on its line',
  BAD_SCALAR_START: 'quote a value that starts with a special character (@, `, %, |, >)',
  BAD_DQ_ESCAPE: 'in double quotes write a backslash as \\\\, or use single quotes',
};

/** yaml's message in the file's terms, without its own position (the issue has one). */
export function yamlMessage(error: YAMLError, text: string): string {
  if (error.code === 'DUPLICATE_KEY') {
    const key = /^[^:\n]*/.exec(text.slice(error.pos[0]))?.[0].trim() ?? '';
    return `duplicate key ${JSON.stringify(key.replace(/^["']|["']$/g, ''))}`;
  }
  if (error.code === 'MULTIPLE_DOCS') return 'a second YAML document starts here (---)';
  const message = error.message.replace(/ at line \d+, column \d+.*$/s, '');
  return `YAML: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}

/**
 * A `[` or `{` whose collection yaml ended before its closing bracket. Either the bracket is
 * missing, or the collection goes on, bracket and all, on a line indented no deeper than its
 * key: the line yaml stopped at then closes more brackets than it opens.
 */
function flowProblem(text: string, offset: number, noun: 'list' | 'map'): SyntaxProblem {
  const [open, close] = noun === 'list' ? ['[', ']'] : ['{', '}'];
  const start = unclosedStart(
    text,
    offset,
    (token) =>
      token.type === 'flow-collection' && token.start.source === open && !token.end.some((end) => end.source === close),
  );
  const line = text.slice(
    text.lastIndexOf('\n', offset - 1) + 1,
    text.indexOf('\n', offset) === -1 ? undefined : text.indexOf('\n', offset),
  );
  if (count(line, close) > count(line, open)) {
    return {
      offset,
      message: `YAML: this line goes on with the ${noun} opened with "${open}"${start === undefined ? '' : ` on line ${lineOf(text, start)}`}, but is not indented deeper than its key`,
      hint: `indent each line of a ${noun} written across lines deeper than its key, or write it on one line`,
      unclosed: true,
    };
  }
  return {
    offset: start ?? offset,
    message: `YAML: the ${noun} opened with "${open}"${start === undefined ? ' before here' : ''} is not closed with "${close}"`,
    hint: `end the ${noun} with "${close}"; a ${noun} written across lines also keeps each line indented deeper than its key`,
    unclosed: true,
  };
}

/**
 * A key indented deeper than the key above it (`- name: a` then `     type: …`): yaml reads it
 * as going on with that key's value and stops at the value. Said at the key, which is what moved;
 * yaml says the same of a value that holds ": " on its own line (`name: a: b`), said as that.
 */
function deeperKeyProblem(text: string, offset: number): SyntaxProblem {
  const lineEnd = text.indexOf('\n', offset);
  const rest = text.slice(offset, lineEnd === -1 ? undefined : lineEnd);
  if (/:(\s|$)/.test(rest)) {
    return {
      offset,
      message: 'YAML: this value holds ": ", which starts a map inside it',
      hint: 'quote the value ("…") to keep ": " in it',
      unclosed: true,
    };
  }
  const next = lineEnd === -1 ? -1 : text.slice(lineEnd + 1).search(/\S/);
  return {
    offset: next === -1 ? offset : lineEnd + 1 + next,
    message: 'YAML: this key is indented deeper than the key above it, so it reads as part of that value',
    hint: 'line it up with the keys above it (the keys of one map start in the same column)',
    unclosed: true,
  };
}

/** A quoted value that runs to where yaml stopped: said where its quote opens. */
function quoteProblem(text: string, offset: number): SyntaxProblem {
  const start = unclosedStart(
    text,
    offset,
    (token) =>
      (token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') && !isClosedQuote(token.source),
  );
  return {
    offset: start ?? offset,
    message: `YAML: the quote opened ${start === undefined ? 'before here' : 'here'} is not closed`,
    hint: "close it on this line; a quote inside the value is written \\\" in double quotes, '' in single quotes",
    unclosed: true,
  };
}

function isClosedQuote(source: string): boolean {
  return source.startsWith('"') ? /^"(?:[^"\\]|\\.)*"\s*$/s.test(source) : /^'(?:[^']|'')*'\s*$/s.test(source);
}

/**
 * Where the last token that `unclosed` picks out, of those that start before `offset`, starts.
 * Walked with a stack, not CST.visit's recursion: a hostile file nests thousands deep.
 */
function unclosedStart(text: string, offset: number, unclosed: (token: CST.Token) => boolean): number | undefined {
  let found: number | undefined;
  const stack: CST.Token[] = [...new Parser().parse(text)];
  for (let token = stack.pop(); token !== undefined; token = stack.pop()) {
    if (token.offset >= offset) continue;
    if (unclosed(token) && (found === undefined || token.offset > found)) found = token.offset;
    if (token.type === 'document' && token.value !== undefined) stack.push(token.value);
    if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      for (const item of token.items) {
        if ('key' in item && item.key) stack.push(item.key);
        if (item.value) stack.push(item.value);
      }
    }
  }
  return found;
}

function count(line: string, char: string): number {
  return line.split(char).length - 1;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}
