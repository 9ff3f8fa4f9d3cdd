import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ignoreMatcher, nameMatcher, parseNameGlob } from './names.js';

/** Characters that paths, globs, Unicode and terminals treat specially, and any code point at all. */
const tricky = fc.constantFrom(
  '/',
  '.',
  '..',
  '/./',
  '/../',
  '*',
  '?',
  '[',
  ']',
  '\\',
  '!',
  '^',
  '-',
  '{',
  '}',
  '(',
  ')',
  ',',
  'é',
  'e\u0301',
  '\u0301',
  '\n',
  '\u0000',
  '\u001b',
  '\ud800',
  '\udc00',
  '😀',
);
const unit = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  tricky,
  fc.constantFrom('a', 'b', 'legacy-'),
);
const name = fc.string({ unit, maxLength: 10 });

/** The names near `base`: itself, one character more or less, another Unicode spelling, or any other. */
const near = (base: string) =>
  fc.oneof(
    fc.constant(base),
    fc.constant(base.slice(0, -1)),
    unit.map((extra) => base + extra),
    unit.map((extra) => extra + base),
    fc.constant(base.normalize('NFC')),
    fc.constant(base.normalize('NFD')),
    name,
  );

/** Globs are read by code point, so "starts with" is too (a lone surrogate and its partner are one character). */
const codePoints = (text: string) => Array.from(text);
const startsWith = (text: string, prefix: string) =>
  codePoints(prefix).every((char, index) => codePoints(text)[index] === char);
// Compared as arrays: joined again after a reverse, two lone surrogates could pair into another character.
const endsWith = (text: string, suffix: string) => {
  const chars = codePoints(text);
  const tail = codePoints(suffix);
  return tail.length <= chars.length && tail.every((char, index) => chars[chars.length - tail.length + index] === char);
};

const matches = (glob: string, text: string) => nameMatcher(glob)(text);

/** A glob that matches this name and no other, as a person writes one: every glob character escaped. */
const escapeNameGlob = (name: string) => name.replace(/[\\*?[\]{}()!]/g, '\\$&');

const RUNS = { numRuns: 2000 };

describe('name globs match names as plain text', () => {
  it('matches `.` and `..` segments, slashes and leading dots like any other characters', () => {
    for (const text of ['legacy-x/.', 'legacy-a/./b', 'legacy-../..', 'legacy-/', 'legacy-'])
      expect(matches('legacy-*', text)).toBe(true);
    expect(matches('*', './a')).toBe(true);
    expect(matches('*', '')).toBe(true);
    expect(matches('team-?.holiday', 'team-/.holiday')).toBe(true);
    expect(matches('?', '😀')).toBe(true);
    expect(matches('a/./b', 'a/b')).toBe(false);
    expect(matches('a//b', 'a/b')).toBe(false);
  });

  it('an escaped name matches that name and no other', () => {
    fc.assert(
      fc.property(
        name.chain((base) => fc.tuple(fc.constant(base), near(base))),
        ([base, other]) => {
          expect(matches(escapeNameGlob(base), other)).toBe(other === base);
        },
      ),
      RUNS,
    );
  });

  it('`prefix*` matches exactly the names that start with prefix, `*suffix` those that end with it', () => {
    fc.assert(
      fc.property(name, name, fc.boolean(), (fix, rest, glued) => {
        const text = glued ? fix + rest : rest;
        expect(matches(`${escapeNameGlob(fix)}*`, text)).toBe(startsWith(text, fix));
        const tail = glued ? rest + fix : rest;
        expect(matches(`*${escapeNameGlob(fix)}`, tail)).toBe(endsWith(tail, fix));
      }),
      RUNS,
    );
  });

  it('`?` matches exactly one character, whatever it is', () => {
    fc.assert(
      fc.property(name, name, fc.string({ unit, maxLength: 2 }), (before, after, middle) => {
        const text = before + middle + after;
        const expected =
          startsWith(text, before) &&
          endsWith(text, after) &&
          codePoints(text).length === codePoints(before).length + codePoints(after).length + 1;
        expect(matches(`${escapeNameGlob(before)}?${escapeNameGlob(after)}`, text)).toBe(expected);
      }),
      RUNS,
    );
  });

  it('`[…]` matches one character of the set, `[!…]` one that is not in it; `\\` makes any character literal', () => {
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 4 }), fc.oneof(unit, name), (members, text) => {
        const set = members.flatMap(codePoints);
        const escaped = set.map((char) => `\\${char}`).join('');
        const single = codePoints(text).length === 1;
        expect(matches(`[${escaped}]`, text)).toBe(single && set.includes(text));
        expect(matches(`[!${escaped}]`, text)).toBe(single && !set.includes(text));
      }),
      RUNS,
    );
  });

  it('reads any text as a glob or refuses it, and never throws', () => {
    fc.assert(
      fc.property(name, (glob) => {
        const parsed = parseNameGlob(glob);
        if (parsed.ok) expect(typeof parsed.matches(glob)).toBe('boolean');
        else expect(parsed.problem).not.toBe('');
      }),
      RUNS,
    );
  });

  it('takes ranges of code points, a `]` first as a member, and `^` as `!`', () => {
    expect(matches('x[a-c]', 'xb')).toBe(true);
    expect(matches('x[a-c]', 'xd')).toBe(false);
    expect(matches('[]x]', ']')).toBe(true);
    expect(matches('[^a]', 'b')).toBe(true);
    expect(matches('[a-]', '-')).toBe(true);
    expect(matches('[😀-😂]', '😁')).toBe(true);
  });

  it('refuses what other glob dialects read otherwise, and what is not closed, with the glob escaped', () => {
    const refused = (glob: string) => {
      const parsed = parseNameGlob(glob);
      return parsed.ok ? undefined : { problem: parsed.problem, suggestion: parsed.suggestion };
    };
    expect(refused('{a,b}-*')).toEqual({
      problem: '`{` is not glob syntax here (no braces, groups or extglobs)',
      suggestion: '\\{a,b\\}-*',
    });
    expect(refused('+(a|b)')?.suggestion).toBe('+\\(a|b\\)');
    expect(refused('!legacy-*')?.suggestion).toBe('\\!legacy-*');
    expect(refused('a\\(b(')?.suggestion).toBe('a\\(b\\(');
    expect(refused('[a')?.problem).toBe('a `[` is not closed by a `]`');
    expect(refused('a\\')?.problem).toBe('it ends with a lone `\\`');
    expect(refused('[[:alpha:]]')?.problem).toBe('POSIX classes such as `[[:alpha:]]` are not supported');
    expect(refused('[z-a]')?.problem).toBe('the range `z-a` runs backwards');
    expect(refused('a!b')).toBeUndefined();
    expect(() => nameMatcher('{a,b}')).toThrow(/was not checked/);
  });
});

describe('ignore globs', () => {
  it('match a name in any of its Unicode spellings (as written, NFC, NFD), so no spelling of an ignored name is deleted', () => {
    fc.assert(
      fc.property(name, (base) => {
        const isIgnored = ignoreMatcher([escapeNameGlob(base)]);
        for (const spelling of [base, base.normalize('NFC'), base.normalize('NFD')])
          expect(isIgnored(spelling)).toBe(true);
      }),
      RUNS,
    );
    expect(ignoreMatcher(['caf\u00e9-*'])('cafe\u0301-old')).toBe(true);
    expect(ignoreMatcher(['cafe\u0301-*'])('caf\u00e9-old')).toBe(true);
    expect(nameMatcher('caf\u00e9-*')('cafe\u0301-old')).toBe(false);
  });
});
