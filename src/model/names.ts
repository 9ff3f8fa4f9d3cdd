/**
 * Globs of audience names (`ignore`, `import --name`). A name is plain text, not a path: `*`
 * matches any characters (`/`, `.` and `..` among them), `?` exactly one, `[…]` one of a set,
 * and `\` makes the next character literal. This small matcher stands in for picomatch, which
 * reads every text as a path: it never lets `*` match a `.` or `..` segment (`legacy-*` missed
 * `legacy-x/.`, so prune deleted what `ignore` names) and has no option to turn that off;
 * wildcard-match has no `[…]`.
 *
 * The characters other glob dialects give a meaning (`{…}` braces, `(…)` groups and extglobs,
 * a leading `!` negation) are refused unless escaped: a glob written for those dialects would
 * otherwise match less here, and what `ignore` no longer matches, prune deletes.
 */

/** A checked glob: its matcher, or what is wrong, how to mend it, and the glob with its reserved characters escaped. */
export type NameGlob =
  { ok: true; matches: (name: string) => boolean } | { ok: false; problem: string; hint: string; suggestion: string };

/** Characters that would mean something else in another glob dialect: never read as plain text. */
const RESERVED = new Set(['{', '}', '(', ')']);

/** The glob's matcher, or what is wrong with it (and how to write it) when it is not one. */
export function parseNameGlob(glob: string): NameGlob {
  const chars = Array.from(glob);
  const refuse = (
    problem: string,
    hint = 'write `\\` before a character to match it as it is; for alternatives, write one glob each',
  ): NameGlob => ({
    ok: false,
    problem,
    hint,
    suggestion: escapeReserved(glob),
  });
  if (chars[0] === '!') return refuse('a leading `!` (negation) is not supported: a glob says which names match');
  let source = '';
  for (let index = 0; index < chars.length; index += 1) {
    const char = chars[index] as string;
    if (char === '\\') {
      const next = chars[(index += 1)];
      if (next === undefined) return refuse('it ends with a lone `\\`', 'write `\\\\` to match a backslash');
      source += literal(next);
    } else if (char === '*') {
      if (!source.endsWith('[^]*')) source += '[^]*';
    } else if (char === '?') {
      source += '[^]';
    } else if (char === '[') {
      const set = parseSet(chars, index + 1);
      if ('problem' in set) return refuse(set.problem, set.hint);
      source += set.source;
      index = set.end;
    } else if (RESERVED.has(char)) {
      return refuse(`\`${char}\` is not glob syntax here (no braces, groups or extglobs)`);
    } else {
      source += literal(char);
    }
  }
  const pattern = new RegExp(`^${source}$`, 'u');
  return { ok: true, matches: (name) => pattern.test(name) };
}

/**
 * A matcher of several globs (a name matches when one of them does). The globs must have been
 * checked with parseNameGlob: the file's are validated, the command line's are a usage error.
 */
export function nameMatcher(globs: string | readonly string[]): (name: string) => boolean {
  const matchers = (typeof globs === 'string' ? [globs] : globs).map((glob) => {
    const parsed = parseNameGlob(glob);
    if (!parsed.ok) throw new Error(`the name glob ${JSON.stringify(glob)} was not checked: ${parsed.problem}`);
    return parsed.matches;
  });
  return (name) => matchers.some((matches) => matches(name));
}

/**
 * The `ignore` globs: a name is ignored when they match it in any of its Unicode spellings (as
 * written, NFC, NFD), the globs taken in each spelling too. Two spellings of one name print
 * alike, and an audience a glob seems to name must never be deleted because its bytes differ.
 */
export function ignoreMatcher(globs: readonly string[]): (name: string) => boolean {
  const matching = matchingGlob(globs);
  return (name) => matching(name) !== undefined;
}

/**
 * The first of the globs that matches a name as `ignoreMatcher` does (in any of their Unicode
 * spellings), for a message that names it; undefined when none does.
 */
export function matchingGlob(globs: readonly string[]): (name: string) => string | undefined {
  const spellings = (text: string) => [text, text.normalize('NFC'), text.normalize('NFD')];
  const matchers = globs.map((glob) => {
    const variants = spellings(glob).filter((variant) => variant === glob || parseNameGlob(variant).ok);
    return { glob, matches: nameMatcher([...new Set(variants)]) };
  });
  // No glob matches anything: a name is not normalized twice to find that out (a plan asks it of every audience).
  if (matchers.length === 0) return () => undefined;
  return (name) => {
    const names = spellings(name);
    return matchers.find(({ matches }) => names.some(matches))?.glob;
  };
}

/** The glob with its reserved characters (those parseNameGlob refuses) escaped, its other syntax kept. */
function escapeReserved(glob: string): string {
  return glob.replace(/\\[^]|^!|[{}()]/gu, (match) => (match.startsWith('\\') ? match : `\\${match}`));
}

/** One code point as a RegExp atom (the `u` flag reads `\u{…}` as that code point, a lone surrogate too). */
function literal(char: string): string {
  return `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`;
}

/**
 * The set `[…]` whose first character is at `start` (after the `[`): `!` or `^` first negates,
 * a `]` first is a member, `a-z` is a range of code points, `\` escapes. `end` is the index of
 * its closing `]`.
 */
function parseSet(chars: string[], start: number): { source: string; end: number } | { problem: string; hint: string } {
  let index = start;
  const negated = chars[index] === '!' || chars[index] === '^';
  if (negated) index += 1;
  const members: string[] = [];
  const unclosed = { problem: 'a `[` is not closed by a `]`', hint: 'close the set, or write `\\[` to match a `[`' };
  const member = (): string | undefined => {
    const char = chars[index];
    if (char !== '\\') return char;
    index += 1;
    return chars[index];
  };
  for (let first = true; first || chars[index] !== ']'; first = false) {
    if (index >= chars.length) return unclosed;
    if (chars[index] === '[' && chars[index + 1] === ':') {
      return {
        problem: 'POSIX classes such as `[[:alpha:]]` are not supported',
        hint: 'list the characters or a range instead, e.g. `[a-z]`',
      };
    }
    const low = member();
    if (low === undefined) return unclosed;
    index += 1;
    if (chars[index] === '-' && chars[index + 1] !== undefined && chars[index + 1] !== ']') {
      index += 1;
      const high = member();
      if (high === undefined) return unclosed;
      index += 1;
      if ((high.codePointAt(0) ?? 0) < (low.codePointAt(0) ?? 0)) {
        return {
          problem: `the range \`${low}-${high}\` runs backwards`,
          hint: `write it low to high: \`${high}-${low}\``,
        };
      }
      members.push(`${literal(low)}-${literal(high)}`);
    } else {
      members.push(literal(low));
    }
  }
  return { source: `[${negated ? '^' : ''}${members.join('')}]`, end: index };
}
