import { LineCounter, parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createLocator, fromPointer, toLabel, toPointer, type Path } from './positions.js';

function locate(text: string, path: Path, target: 'key' | 'value' = 'value'): string {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, merge: true });
  const { line, column } = createLocator(doc, lineCounter)(path, target);
  return `${line}:${column}`;
}

describe('createLocator', () => {
  const text = [
    'adAccountId: 1',
    'audiences:',
    '  - name: a',
    '    ages: [20, 25]',
    '    genders:',
    '      - F',
    '    empty:',
    '',
  ].join('\n');

  it('finds a value in block and flow collections', () => {
    expect(locate(text, ['adAccountId'])).toBe('1:14');
    expect(locate(text, ['audiences', 0])).toBe('3:5');
    expect(locate(text, ['audiences', 0, 'ages', 1])).toBe('4:16');
    expect(locate(text, ['audiences', 0, 'genders', 0])).toBe('6:9');
  });

  it('finds the key when asked, and for a value that has no text of its own', () => {
    expect(locate(text, ['audiences', 0, 'ages'], 'key')).toBe('4:5');
    expect(locate(text, ['audiences', 0, 'empty'])).toBe('7:5');
  });

  it('stops at the deepest node the text has', () => {
    expect(locate(text, ['audiences', 0, 'missing', 3])).toBe('3:5');
    expect(locate(text, ['audiences', 7])).toBe('3:3');
    expect(locate('', ['x'])).toBe('1:1');
  });

  it('follows an alias and a merge key to the text that holds the value', () => {
    const merged = ['base: &b', '  type: DISPLAY', 'list:', '  - <<: *b', '    name: x', '  - *b'].join('\n');
    expect(locate(merged, ['list', 0, 'type'])).toBe('2:9');
    expect(locate(merged, ['list', 0, 'name'])).toBe('5:11');
    expect(locate(merged, ['list', 1, 'type'])).toBe('2:9');
  });

  it('prefers a key written in the map over a merged one', () => {
    const merged = ['base: &b {type: DISPLAY}', 'item:', '  <<: *b', '  type: MESSAGE'].join('\n');
    expect(locate(merged, ['item', 'type'])).toBe('4:9');
  });
});

describe('pointers and labels', () => {
  it('round-trips JSON pointers with escapes', () => {
    expect(toPointer(['audiences', 0, 'a/b~c'])).toBe('/audiences/0/a~1b~0c');
    expect(fromPointer('/audiences/0/a~1b~0c')).toEqual(['audiences', '0', 'a/b~c']);
    expect(fromPointer('')).toEqual([]);
  });

  it('reads a path as people write it', () => {
    expect(toLabel(['audiences', 2, 'locations', 0, 'value'])).toBe('audiences[2].locations[0].value');
    expect(toLabel([])).toBe('');
  });
});
