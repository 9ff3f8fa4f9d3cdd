/**
 * The fast reading of a valid file (src/config/plain-yaml.ts) must give exactly the value
 * yaml's parseDocument gives, and take only files in which parseDocument finds no problem,
 * since a valid file is never read by parseDocument at all. Checked on generated documents —
 * yaml's own output in its many styles, files laid out by hand with slips, and hand-written
 * scalars that YAML 1.1 and 1.2 read differently — and on every YAML file of the repository.
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parseDocument, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parsePlain } from '../../src/config/plain-yaml.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Either the fast reading refuses the text, or parseDocument (as validate-config.ts asks it) reads the same value
 * without a problem.
 */
function expectAgreement(text: string): void {
  const fast = parsePlain(text);
  if (fast === undefined) return;
  const doc = parseDocument(text, { prettyErrors: false, merge: true, uniqueKeys: true, logLevel: 'error' });
  expect(
    [...doc.errors, ...doc.warnings].map((problem) => problem.message),
    text,
  ).toEqual([]);
  expect(fast.value, text).toStrictEqual(doc.toJS());
}

/** Plain scalars that YAML 1.1 and YAML 1.2 core read differently, or that are near a number, a boolean or a null. */
const TRICKY_SCALARS = [
  '0b101',
  '0o17',
  '0O17',
  '017',
  '0x1F',
  '0X1f',
  '-0x1F',
  '+0o7',
  '1_000',
  '+12',
  '-0',
  '007',
  '.5',
  '-.5',
  '+.5',
  '1.',
  '-1.',
  '1e3',
  '1E-3',
  '-.5e2',
  '1.5e+3',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  'NaN',
  'inf',
  'true',
  'True',
  'TRUE',
  'tRUE',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  'null',
  'Null',
  'NULL',
  'nULL',
  '~',
  '',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '12:30:45',
  '1:20',
  '=',
  '<',
  '<<x',
  'a: b',
  '-',
  '- a',
  '#x',
  'a #b',
  'a#b',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.7976931348623157e309',
  '0.1',
  '00.1',
];

const token = fc.oneof(
  fc.constantFrom(...TRICKY_SCALARS),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.stringMatching(/^[-+.0-9eExXoObB_]{1,8}$/),
);

/** JSON-like values, with keys and strings drawn from the tricky tokens too. */
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, tie('scalar'), tie('list'), tie('map')),
  scalar: fc.oneof(
    token,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
  ),
  list: fc.array(tie('node'), { maxLength: 4 }),
  map: fc.dictionary(token, tie('node'), { maxKeys: 4 }),
})).node;

const styles = fc.record({
  collectionStyle: fc.constantFrom('any' as const, 'block' as const, 'flow' as const),
  defaultStringType: fc.constantFrom(
    'PLAIN' as const,
    'QUOTE_DOUBLE' as const,
    'QUOTE_SINGLE' as const,
    'BLOCK_FOLDED' as const,
    'BLOCK_LITERAL' as const,
  ),
  defaultKeyType: fc.constantFrom(null, 'PLAIN' as const, 'QUOTE_DOUBLE' as const, 'QUOTE_SINGLE' as const),
  lineWidth: fc.constantFrom(0, 20, 80),
  indent: fc.constantFrom(2, 4),
  indentSeq: fc.boolean(),
});

/** A tree as people lay it out by hand: maps of scalars, lists and maps, in many small variants. */
type Tree = null | boolean | number | string | Tree[] | { [key: string]: Tree };

const KEYS = ['name', 'type', 'ages', 'a-b', 'x_y', 'true', 'False', 'null', 'Null', 'e5', 'NaN', 'inf', 'y', 'on'];
const key = fc.oneof(fc.constantFrom(...KEYS), fc.stringMatching(/^[A-Za-z_][\w-]{0,6}$/));
const leaf: fc.Arbitrary<Tree> = fc.oneof(
  token,
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
);
const tree = fc.letrec<{ map: { [key: string]: Tree }; node: Tree }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), tie('map')),
  map: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
})).map;

/** How one scalar is written: each way a writer might pick. */
const layout = fc.record({
  step: fc.constantFrom(2, 4),
  indentlessLists: fc.boolean(),
  flowLists: fc.boolean(),
  dash: fc.constantFrom('- ', '-  '),
  comments: fc.boolean(),
  quote: fc.constantFrom('plain', 'double', 'single', 'mixed'),
  seed: fc.integer({ min: 0, max: 1000 }),
});
type Layout = typeof layout extends fc.Arbitrary<infer T> ? T : never;

function renderScalar(value: Tree, style: Layout, at: number): string {
  if (typeof value !== 'string') return value === null ? (['null', '~', ''][at % 3] ?? '') : String(value);
  const quote = style.quote === 'mixed' ? (['plain', 'double', 'single'] as const)[(style.seed + at) % 3] : style.quote;
  if (quote === 'double') return JSON.stringify(value);
  if (quote === 'single') return `'${value.replaceAll("'", "''")}'`;
  return value;
}

function renderTree(map: { [key: string]: Tree }, style: Layout): string {
  const lines: string[] = [];
  let counter = 0;
  const comment = (): string => (style.comments && (style.seed + counter++) % 3 === 0 ? '  # note' : '');
  const isScalar = (value: Tree): value is null | boolean | number | string =>
    value === null || typeof value !== 'object';
  const entries = (value: { [key: string]: Tree }, indent: number, first?: string): void => {
    Object.entries(value).forEach(([name, child], index) => {
      const pad = index === 0 && first !== undefined ? first : ' '.repeat(indent);
      counter += 1;
      if (isScalar(child)) lines.push(`${pad}${name}: ${renderScalar(child, style, counter)}${comment()}`.trimEnd());
      else if (Array.isArray(child) && (child.length === 0 || (style.flowLists && child.every(isScalar)))) {
        lines.push(
          `${pad}${name}: [${child.map((item) => renderScalar(item, style, counter)).join(', ')}]${comment()}`,
        );
      } else if (!Array.isArray(child) && Object.keys(child).length === 0) lines.push(`${pad}${name}: {}`);
      else {
        lines.push(`${pad}${name}:${comment()}`);
        if (Array.isArray(child)) items(child, style.indentlessLists ? indent : indent + style.step);
        else entries(child, indent + style.step);
      }
    });
  };
  const items = (list: Tree[], indent: number): void => {
    for (const item of list) {
      const pad = ' '.repeat(indent);
      counter += 1;
      if (isScalar(item)) lines.push(`${pad}${style.dash}${renderScalar(item, style, counter)}`.trimEnd());
      else if (Array.isArray(item) || Object.keys(item).length === 0)
        lines.push(`${pad}${style.dash}${JSON.stringify(item)}`);
      else entries(item, indent + style.dash.length, `${pad}${style.dash}`);
    }
  };
  entries(map, 0);
  return lines.join('\n') + '\n';
}

/**
 * Small slips of the hand: a space more or less, a blank line, trailing spaces, a tab, Windows line ends, a CR last.
 */
const slip = fc.record({
  line: fc.nat(),
  kind: fc.constantFrom('none', 'indent', 'dedent', 'blank', 'trailing', 'tab', 'join', 'crlf', 'cr-last'),
});
function applySlip(text: string, { line, kind }: { line: number; kind: string }): string {
  const lines = text.split('\n');
  const at = line % Math.max(1, lines.length - 1);
  const target = lines[at] ?? '';
  if (kind === 'indent') lines[at] = ` ${target}`;
  if (kind === 'dedent') lines[at] = target.replace(/^ /, '');
  if (kind === 'blank') lines.splice(at, 0, '');
  if (kind === 'trailing') lines[at] = `${target}  `;
  if (kind === 'tab') lines[at] = target.replace(': ', ':\t');
  if (kind === 'join' && at + 1 < lines.length) lines.splice(at, 2, `${target} ${(lines[at + 1] ?? '').trim()}`);
  if (kind === 'crlf') return lines.join('\r\n');
  if (kind === 'cr-last') return lines.join('\n').replace(/\n$/, '\r');
  return lines.join('\n');
}

describe('the fast reading of a plain file agrees with yaml', () => {
  it('on files laid out by hand, with slips', () => {
    let read = 0;
    fc.assert(
      fc.property(tree, layout, slip, (data, style, mistake) => {
        const text = applySlip(renderTree(data, style), mistake);
        expectAgreement(text);
        if (parsePlain(text) !== undefined) read += 1;
      }),
      { numRuns: 3000 },
    );
    // Many layouts are plain ones (random strings written plain are often not): enough of
    // them must be read fast, or this proves little.
    expect(read).toBeGreaterThan(500);
  });

  it('on documents yaml writes, in every style', () => {
    fc.assert(
      fc.property(value, styles, (data, options) => {
        expectAgreement(stringify(data, null, options));
      }),
      { numRuns: 1000 },
    );
  });

  it('on hand-written plain scalars, as keys, values and list items', () => {
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 6 }),
        fc.constantFrom('map', 'list', 'flow'),
        (tokens, shape) => {
          const lines =
            shape === 'map'
              ? tokens.map((item, index) => `k${index}: ${item}`)
              : shape === 'list'
                ? tokens.map((item) => `- ${item}`)
                : [`[${tokens.join(', ')}]`];
          expectAgreement(lines.join('\n') + '\n');
          expectAgreement(tokens.map((item) => `${item}: v`).join('\n') + '\n');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('on lines made of YAML punctuation', () => {
    const word = fc.constantFrom('a', 'x y', '1', '.5', 'true', '~', ' ', '  ');
    const punctuation = fc.constantFrom(
      ':',
      ': ',
      '-',
      '- ',
      '#',
      ' #',
      ',',
      ', ',
      '[',
      ']',
      '{',
      '}',
      '"',
      "'",
      '\\',
      '?',
      '!',
      '&',
      '*',
      '|',
      '>',
      '%',
      '@',
      '\t',
      '\r',
    );
    const piece = fc.oneof({ arbitrary: word, weight: 4 }, { arbitrary: punctuation, weight: 1 });
    const line = fc
      .tuple(
        fc.constantFrom('', '  ', '- ', '  - '),
        fc.constantFrom('', 'a: ', 'b: ', 'c:'),
        fc.array(piece, { maxLength: 6 }),
      )
      .map(([indent, key, pieces]) => indent + key + pieces.join(''));
    let read = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 4 }), (lines) => {
        const text = `k:\n${lines.join('\n')}\n`;
        expectAgreement(text);
        if (parsePlain(text) !== undefined) read += 1;
      }),
      { numRuns: 5000 },
    );
    // Most such lines are not plain, but enough must be for this to prove something.
    expect(read).toBeGreaterThan(500);
  });

  it('on each tricky scalar alone', () => {
    for (const item of TRICKY_SCALARS) {
      expectAgreement(`a: ${item}\n`);
      expectAgreement(`- ${item}\n`);
    }
    expect(parsePlain('a: 0b101\n')?.value).toEqual({ a: '0b101' });
    expect(parsePlain('a: -.5\n')?.value).toEqual({ a: -0.5 });
    expect(parsePlain('a: 0o17\n')?.value).toEqual({ a: 15 });
  });

  it('on every YAML file of the repository', () => {
    const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(files.length).toBeGreaterThan(20);
    let read = 0;
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      expectAgreement(text);
      if (parsePlain(text) !== undefined) read += 1;
    }
    // Most of them are plain: the fast reading is the usual one.
    expect(read).toBeGreaterThan(files.length / 2);
  });

  it('leaves anchors, aliases, tags, merge keys, directives and explicit keys to yaml', () => {
    for (const text of [
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'base: {a: 1}\nother:\n  <<: {b: 2}\n',
      '%YAML 1.1\n---\na: yes\n',
      '? a\n: 1\n',
    ]) {
      expect(parsePlain(text), text).toBeUndefined();
    }
  });

  it('leaves to yaml a file in which yaml finds a problem', () => {
    const problems = [
      'a: 1\na: 2\n',
      'true: 1\nTrue: 2\n',
      'a: {b: 1, b: 2}\n',
      'a: "\\q"\n',
      'a: [1, "\\x4"]\n',
      'a: 1\n---\nb: 2\n',
      'a: [1, 2\n',
      '\ta: 1\n',
      '['.repeat(20_000),
    ];
    for (const text of problems) expect(parsePlain(text), text).toBeUndefined();
  });

  it('reads keys as yaml names them in an object', () => {
    for (const text of [
      'True: 1\n__proto__: {x: 1}\n',
      '__proto__:\n  x: 1\n',
      'a:\n  - toString: 1\n    constructor:\n',
    ]) {
      expect(parsePlain(text), text).toBeDefined();
      expectAgreement(text);
    }
    expect(Object.getPrototypeOf(parsePlain('__proto__: 1\n')?.value)).toBe(Object.prototype);
  });

  it('refuses a long line that is not plain at once', () => {
    const spaces = ' '.repeat(60_000);
    const started = Date.now();
    for (const text of [`a: [x${spaces}\n`, `a: {a: x${spaces}\n`, `a: x${spaces}:\n`, `a: x${spaces}\t\n`])
      expect(parsePlain(text)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('leaves a huge line to yaml, without overflowing the stack', () => {
    const scalar = 'x'.repeat(9 * 1024 * 1024);
    for (const text of [`a: ${scalar}\n`, `a: "${scalar}"\n`, `a: [${scalar}]\n`])
      expect(parsePlain(text)).toBeUndefined();
    expect(parsePlain(`a: ${'x'.repeat(60_000)}\n`)?.value).toStrictEqual({ a: 'x'.repeat(60_000) });
  });
});
