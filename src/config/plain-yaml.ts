import { FAILSAFE_SCHEMA, Type, load } from 'js-yaml';

/**
 * The fast reading of a file. yaml's document model, which knows where every value was
 * written, costs about six times what js-yaml costs (300 ms against 50 ms for a thousand
 * audiences), and only a file with a problem needs those positions. So a valid file is read
 * with js-yaml, and a file with any problem is read again with yaml to report it.
 *
 * The two parsers must then agree on every file read here, and js-yaml forgives some layouts
 * that yaml (and the editors, which use yaml) refuse. So this reading takes only files in the
 * plain layout people write and `import` produces, checked line by line below: block maps and
 * lists aligned on their columns, one entry per line, single-line scalars (plain or quoted)
 * and flat flow lists and maps, comments. Anything else — anchors, aliases, tags, merge keys,
 * block scalars, multi-line strings, nested flow collections, `- -` — is read by yaml only.
 * Scalars are resolved as yaml's core schema resolves them (YAML 1.2: no `0b` integers, `-.5`
 * is a number). test/property/plain-yaml.property.test.ts checks the agreement.
 */

// The four scalar types of yaml's core schema, with its patterns (yaml/dist/schema/core/).
const nul = new Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (data: string) => /^(?:~|[Nn]ull|NULL)?$/.test(data),
  construct: () => null,
});

const bool = new Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (data: string) => /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(data),
  construct: (data: string) => data.startsWith('t') || data.startsWith('T'),
});

const int = new Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
  resolve: (data: string) => /^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$/.test(data),
  construct: (data: string) => (data.startsWith('0o') ? parseInt(data.slice(2), 8) : data.startsWith('0x') ? parseInt(data.slice(2), 16) : parseInt(data, 10)),
});

const SPECIAL_FLOAT = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$|^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

const float = new Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (data: string) => SPECIAL_FLOAT.test(data) || FLOAT.test(data),
  construct: (data: string) => {
    if (!SPECIAL_FLOAT.test(data)) return parseFloat(data);
    if (data.slice(-3).toLowerCase() === 'nan') return NaN;
    return data.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  },
});

/** Strings, lists and maps, and the scalars above, tried in yaml's order. */
const CORE = FAILSAFE_SCHEMA.extend({ implicit: [nul, bool, int, float] });

// One line of the plain layout. A key is a name (not a null, which the two parsers name
// differently); a value is a single-line scalar or a flat flow list or map.
const DOUBLE = String.raw`"(?:[^"\\]|\\.)*"`;
const SINGLE = String.raw`'(?:[^']|'')*'`;
/** A plain scalar in a block: no indicator first, no `: ` or ` #` inside, no tab. */
const BLOCK_PLAIN = String.raw`(?:[^\s\-?:,\[\]{}#&*!|>'"%@\x60]|[-?:](?=[^\s]))(?:(?!: |:$| #)[^\t])*`;
/** A plain scalar in a flow collection: no flow indicators and no colon either. */
const FLOW_PLAIN = String.raw`(?:[^\s\-?:,\[\]{}#&*!|>'"%@\x60]|[-?](?=[^\s,\[\]{}:]))(?:(?! #)[^\t,\[\]{}:])*`;
const FLOW_SCALAR = `(?:${DOUBLE}|${SINGLE}|${FLOW_PLAIN})`;
const KEY = String.raw`(?!(?:null|Null|NULL)\s*:)[A-Za-z_][\w-]*`;
const FLOW_LIST = String.raw`\[ *(?:${FLOW_SCALAR} *(?:, *${FLOW_SCALAR} *)*,? *)?\]`;
const FLOW_MAP = String.raw`\{ *(?:${KEY}: +${FLOW_SCALAR} *(?:, *${KEY}: +${FLOW_SCALAR} *)*,? *)?\}`;
const VALUE = `(?:${DOUBLE}|${SINGLE}|${FLOW_LIST}|${FLOW_MAP}|${BLOCK_PLAIN})`;
/** Groups: the indent, the dash of a list item, the key, and the value of that key if any. */
const LINE = new RegExp(String.raw`^( *)(- +)?(?:(${KEY}):(?: +(${VALUE}))?|${VALUE})(?: +#.*)?$`);
const COMMENT_OR_BLANK = /^ *(?:#.*)?$/;

interface Frame {
  column: number;
  kind: 'map' | 'list';
}

/**
 * Whether the text is in the plain layout: each line a comment, a blank, `key: value`,
 * `- value` or `- key: value`; the entries of a map, and the items of a list, on one column;
 * what a `key:` opens either deeper, or a list on the key's own column.
 */
export function isPlainLayout(text: string): boolean {
  const stack: Frame[] = [];
  let opened: number | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (COMMENT_OR_BLANK.test(line)) continue;
    const match = LINE.exec(line);
    if (!match) return false;
    const indent = (match[1] ?? '').length;
    const dash = match[2];
    const keyed = match[3] !== undefined;
    // A bare value in a map is the second line of a multi-line scalar.
    if (dash === undefined && !keyed) return false;
    const kind = dash === undefined ? 'map' : 'list';
    if (opened !== undefined && (indent > opened || (indent === opened && kind === 'list'))) {
      stack.push({ column: indent, kind });
    } else {
      // A list on its key's column ends where that map goes on.
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as Frame;
        if (top.column > indent || (top.column === indent && top.kind === 'list' && kind === 'map')) stack.pop();
        else break;
      }
      if (stack.length === 0) {
        if (indent !== 0 || kind !== 'map') return false;
        stack.push({ column: 0, kind: 'map' });
      }
      const top = stack[stack.length - 1] as Frame;
      if (top.column !== indent || top.kind !== kind) return false;
    }
    opened = undefined;
    if (dash !== undefined && keyed) stack.push({ column: indent + dash.length, kind: 'map' });
    if (keyed && match[4] === undefined) opened = dash === undefined ? indent : indent + dash.length;
  }
  return stack.length > 0;
}

/**
 * The value of a file in the plain layout that js-yaml reads without complaint, or undefined:
 * the file is laid out otherwise, or js-yaml refuses it (a duplicate key, a bad escape), and
 * yaml's reading will say what is wrong or read it.
 */
export function loadPlain(text: string): { value: unknown } | undefined {
  if (!isPlainLayout(text)) return undefined;
  try {
    return { value: load(text, { schema: CORE }) };
  } catch {
    return undefined;
  }
}
