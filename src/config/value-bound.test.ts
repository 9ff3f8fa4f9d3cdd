import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { writesMoreValuesThan } from './value-bound.js';

/** The values yaml loads, counted as the limit counts them (the root included). */
function values(text: string): number {
  let count = 0;
  const stack: unknown[] = [parse(text)];
  while (stack.length > 0) {
    const value = stack.pop();
    count += 1;
    if (value !== null && typeof value === 'object') stack.push(...Object.values(value));
  }
  return count;
}

const repeat = (times: number, line: (index: number) => string): string =>
  Array.from({ length: times }, (_, index) => line(index)).join('');

describe('writesMoreValuesThan', () => {
  it('refuses one value a token, past the limit: numbers in a flow list, items of a block list', () => {
    expect(writesMoreValuesThan(`x: [${repeat(12, () => '1,')}1]\n`, 10)).toBe(true);
    expect(writesMoreValuesThan(`x:\n${repeat(12, () => '  - 1\n')}`, 10)).toBe(true);
    expect(writesMoreValuesThan(`x:\n${repeat(12, () => '  -\n')}`, 10)).toBe(true);
    expect(writesMoreValuesThan(`x: [${repeat(12, () => '[],')}[]]\n`, 10)).toBe(true);
    expect(writesMoreValuesThan(`x: [${repeat(12, () => '"q", ')}'s']\n`, 10)).toBe(true);
  });

  it('refuses keys and values past twice the limit', () => {
    expect(
      writesMoreValuesThan(
        repeat(30, (index) => `k${index}: v\n`),
        10,
      ),
    ).toBe(true);
  });

  it('never refuses a text that holds no more values than the limit', () => {
    const texts = [
      repeat(10, (index) => `k${index}: v\n`),
      `x:\n${repeat(8, () => '  - 1\n')}`,
      `x: [${repeat(7, () => '1,')}1]\n`,
      `- {${repeat(4, (index) => `k${index}: "v", `)}}\n`,
      `- ${repeat(4, () => '- ')}a\n`,
      'a: &a [1, 2]\nb: *a\nc: |\n  "quoted"\n  - text\n',
      '{"a": 1, "b": [2, 3], "c": {"d": null}}\n',
      `${repeat(5, (index) => `- k${index}: v\n  l: [a]\n`)}`,
    ];
    for (const text of texts) {
      const held = values(text);
      expect(writesMoreValuesThan(text, held), text).toBe(false);
      // And the bound is close: a limit far below what the text holds is found.
      if (held >= 8) expect(writesMoreValuesThan(text, Math.floor(held / 3)), text).toBe(true);
    }
  });
});
