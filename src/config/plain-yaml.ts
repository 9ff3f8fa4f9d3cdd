import { CST, Schema, isScalar, type ScalarTag } from 'yaml';

/**
 * The fast reading of a file. yaml's parseDocument knows where every value was written, and
 * that costs many times what reading the values alone does; only a file with a problem needs
 * those positions. So a file in the plain layout people write and `import` produces is read
 * here, line by line, and everything else, and any file with a problem, is read again by
 * parseDocument. The figures that keep this are `npm run bench`'s `configCpuMs` (plan-offline)
 * and `cold-start-validate` (bench/NOTES.md).
 *
 * The plain layout, checked line by line below: block maps and lists aligned on their
 * columns, one entry per line, single-line scalars (plain or quoted) and flat flow lists and
 * maps, comments. Anything else — anchors, aliases, tags, merge keys, block scalars,
 * multi-line strings, nested flow collections, `- -`, a duplicate key — is left to yaml.
 * The scalars are yaml's own: plain ones resolved by the tags of its core schema (YAML 1.2:
 * `yes`, `no` and `0b101` are strings, `017` is seventeen), quoted ones decoded by its
 * CST.resolveAsScalar. test/property/plain-yaml.property.test.ts checks that what is read
 * here is what parseDocument reads, and that parseDocument finds no problem in it.
 */

/** What refuses a file: the caller reads it with yaml instead. */
const NOT_PLAIN = Symbol('not plain');

// One line of the plain layout. A key is a name (not a null, which yaml would read as the
// empty key); a value is a single-line scalar or a flat flow list or map. Each pattern
// reads a run of spaces one way only: with two (a scalar's trailing spaces or the spaces
// before a comment), refusing a line grew with the cube of its spaces (`a: [x` and 4000
// spaces: 12 s).
const DOUBLE = String.raw`"(?:[^"\\]|\\.)*"`;
const SINGLE = String.raw`'(?:[^']|'')*'`;
/** A plain scalar in a block: no indicator first, no `: ` or ` #` inside, no tab; it ends on what is not a space. */
const BLOCK_PLAIN = String.raw`(?:[^\s\-?:,\[\]{}#&*!|>'"%@\x60]|[-?:](?=[^\s]))(?:[^ \t:]|:(?=[^ ])| +(?=[^ \t#]))*`;
/** A plain scalar in a flow collection: no flow indicators and no colon either. */
const FLOW_PLAIN = String.raw`(?:[^\s\-?:,\[\]{}#&*!|>'"%@\x60]|[-?](?=[^\s,\[\]{}:]))(?:[^ \t,\[\]{}:]| +(?=[^ \t,\[\]{}:#]))*`;
const FLOW_SCALAR = `(?:${DOUBLE}|${SINGLE}|${FLOW_PLAIN})`;
const KEY = String.raw`(?!(?:null|Null|NULL)\s*:)[A-Za-z_][\w-]*`;
const FLOW_LIST = String.raw`\[ *(?:${FLOW_SCALAR} *(?:, *${FLOW_SCALAR} *)*(?:, *)?)?\]`;
const FLOW_MAP = String.raw`\{ *(?:${KEY}: +${FLOW_SCALAR} *(?:, *${KEY}: +${FLOW_SCALAR} *)*(?:, *)?)?\}`;
const VALUE = `(?:${DOUBLE}|${SINGLE}|${FLOW_LIST}|${FLOW_MAP}|${BLOCK_PLAIN})`;
/**
 * Groups: the indent, the dash of a list item, the key and the value of that key if any, or the value of a bare item.
 */
const LINE = new RegExp(String.raw`^( *)(- +)?(?:(${KEY}):(?: +(${VALUE}))?|(${VALUE}))(?: +(?:#.*)?)?$`);
const COMMENT_OR_BLANK = /^ *(?:#.*)?$/;
const LINE_BREAK = /\r?\n/;
/** The items of a flow list, and the entries of a flow map, in a value LINE has checked. */
const FLOW_ITEM = new RegExp(FLOW_SCALAR, 'g');
const FLOW_ENTRY = new RegExp(`(${KEY}): +(${FLOW_SCALAR})`, 'g');

/**
 * Far above any line people or `import` write; far below the length (some megabytes) at
 * which LINE's backtracking overflows the stack.
 */
const MAX_LINE = 64 * 1024;

/** The scalar tags of yaml's core schema, in the order yaml tries them. */
const CORE_TAGS = new Schema({ schema: 'core' }).tags.filter(
  (tag): tag is ScalarTag => !tag.collection && tag.default === true && tag.test !== undefined,
);

type YamlMap = Record<string, unknown>;
type Frame = { column: number; kind: 'map'; map: YamlMap } | { column: number; kind: 'list'; list: unknown[] };
/** Plain scalars already resolved in this file: a file repeats few of them many times. */
type Resolved = Map<string, unknown>;

/**
 * The value of a file in the plain layout, or undefined: the file is laid out otherwise, or
 * yaml would find a problem in it (a duplicate key, a bad escape), and yaml's reading will
 * say what is wrong or read it.
 *
 * Each line is a comment, a blank, `key: value`, `- value` or `- key: value`; the entries of
 * a map, and the items of a list, sit on one column; what a `key:` opens is either deeper,
 * or a list on the key's own column.
 */
export function parsePlain(text: string): { value: unknown } | undefined {
  const stack: Frame[] = [];
  let root: YamlMap | undefined;
  /** A `key:` with nothing after it on its line, and the column what it opens must start on. */
  let opened: { map: YamlMap; key: string; column: number } | undefined;
  const resolved: Resolved = new Map();
  for (const line of text.split(LINE_BREAK)) {
    // A CR that ends no line is content to yaml in some places and a space in others.
    if (line.length > MAX_LINE || line.includes('\r')) return undefined;
    if (COMMENT_OR_BLANK.test(line)) continue;
    const match = LINE.exec(line);
    if (!match) return undefined;
    const indent = (match[1] ?? '').length;
    const dash = match[2];
    const key = match[3];
    // A bare value in a map is the second line of a multi-line scalar.
    if (dash === undefined && key === undefined) return undefined;
    const kind = dash === undefined ? 'map' : 'list';
    let top: Frame;
    if (opened !== undefined && (indent > opened.column || (indent === opened.column && kind === 'list'))) {
      top = kind === 'map' ? { column: indent, kind, map: {} } : { column: indent, kind, list: [] };
      opened.map[opened.key] = top.kind === 'map' ? top.map : top.list;
      stack.push(top);
    } else {
      // A list on its key's column ends where that map goes on.
      while (stack.length > 0) {
        const last = stack[stack.length - 1] as Frame;
        if (last.column > indent || (last.column === indent && last.kind === 'list' && kind === 'map')) stack.pop();
        else break;
      }
      if (root === undefined) {
        if (indent !== 0 || kind !== 'map') return undefined;
        root = {};
        stack.push({ column: 0, kind: 'map', map: root });
      }
      top = stack[stack.length - 1] as Frame;
      if (top.column !== indent || top.kind !== kind) return undefined;
    }
    opened = undefined;

    let map: YamlMap;
    if (top.kind === 'map') map = top.map;
    else if (key === undefined) {
      const item = parseValue(match[5] ?? '', resolved);
      if (item === NOT_PLAIN) return undefined;
      top.list.push(item);
      continue;
    } else {
      map = {};
      top.list.push(map);
      stack.push({ column: indent + (dash ?? '').length, kind: 'map', map });
    }
    const name = keyOf(key ?? '', resolved);
    if (Object.hasOwn(map, name)) return undefined;
    const source = match[4];
    const value = source === undefined ? null : parseValue(source, resolved);
    if (value === NOT_PLAIN) return undefined;
    put(map, name, value);
    if (source === undefined) opened = { map, key: name, column: dash === undefined ? indent : indent + dash.length };
  }
  return root === undefined ? undefined : { value: root };
}

/** A value LINE has matched. */
function parseValue(source: string, resolved: Resolved): unknown {
  switch (source[0]) {
    case '[':
      return parseFlowList(source, resolved);
    case '{':
      return parseFlowMap(source, resolved);
    default:
      return parseScalar(source, resolved);
  }
}

function parseFlowList(source: string, resolved: Resolved): unknown {
  const list: unknown[] = [];
  FLOW_ITEM.lastIndex = 0;
  for (let match = FLOW_ITEM.exec(source); match !== null; match = FLOW_ITEM.exec(source)) {
    const value = parseScalar(match[0], resolved);
    if (value === NOT_PLAIN) return NOT_PLAIN;
    list.push(value);
  }
  return list;
}

function parseFlowMap(source: string, resolved: Resolved): unknown {
  const map: YamlMap = {};
  FLOW_ENTRY.lastIndex = 0;
  for (let match = FLOW_ENTRY.exec(source); match !== null; match = FLOW_ENTRY.exec(source)) {
    const name = keyOf(match[1] ?? '', resolved);
    const value = parseScalar(match[2] ?? '', resolved);
    if (value === NOT_PLAIN || Object.hasOwn(map, name)) return NOT_PLAIN;
    put(map, name, value);
  }
  return map;
}

/**
 * A quoted scalar decoded as yaml decodes it, or a plain one resolved by the core schema: a
 * plain scalar on one line is its own text.
 */
function parseScalar(source: string, resolved: Resolved): unknown {
  const quote = source[0] === '"' ? 'double-quoted-scalar' : source[0] === "'" ? 'single-quoted-scalar' : undefined;
  if (quote === undefined) return resolvePlain(source, resolved);
  let failed = false;
  const { value } = CST.resolveAsScalar({ type: quote, offset: 0, indent: 0, source }, true, () => {
    failed = true;
  });
  return failed ? NOT_PLAIN : value;
}

/** The core schema's tags never report a problem: a plain scalar they do not take is a string. */
function resolvePlain(source: string, resolved: Resolved): unknown {
  if (resolved.has(source)) return resolved.get(source);
  const tag = CORE_TAGS.find((candidate) => candidate.test?.test(source) === true);
  const scalar = tag === undefined ? source : tag.resolve(source, () => undefined, { intAsBigInt: false });
  const value = isScalar(scalar) ? scalar.value : scalar;
  resolved.set(source, value);
  return value;
}

/** A key as yaml names it in a JavaScript object: `true:` is the key "true". */
function keyOf(source: string, resolved: Resolved): string {
  return String(resolvePlain(source, resolved));
}

/** As yaml's toJS sets a key: `__proto__` becomes an own key, not the object's prototype. */
function put(map: YamlMap, key: string, value: unknown): void {
  if (key in map) Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
  else map[key] = value;
}
