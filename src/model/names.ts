import picomatch from 'picomatch';

/**
 * Audience names matched against globs (`ignore`, `import --name`). Names are not paths:
 * `*` matches any characters, `/` included, and a leading dot too.
 */
export function nameMatcher(globs: string | readonly string[]): (name: string) => boolean {
  const list = typeof globs === 'string' ? [globs] : [...globs];
  return list.length === 0 ? () => false : picomatch(list, { bash: true, dot: true });
}
