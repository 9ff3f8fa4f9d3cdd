import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';

/** picomatch, loaded on first use: most files have no globs, and loading it is some ms of every start. */
let picomatch: typeof Picomatch | undefined;

/**
 * Audience names matched against globs (`ignore`, `import --name`). Names are not paths:
 * `*` matches any characters, `/` included, and a leading dot too.
 */
export function nameMatcher(globs: string | readonly string[]): (name: string) => boolean {
  const list = typeof globs === 'string' ? [globs] : [...globs];
  if (list.length === 0) return () => false;
  picomatch ??= createRequire(import.meta.url)('picomatch') as typeof Picomatch;
  return picomatch(list, { bash: true, dot: true });
}
