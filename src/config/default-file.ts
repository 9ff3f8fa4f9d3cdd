import { resolve } from 'node:path';

/** The file read when no -f is given: in a module of its own, so a command can name it without loading the reader. */
export const DEFAULT_CONFIG_FILE = 'audiences.yaml';

/**
 * The files a command reads: those named, each once (as first named: `a.yaml` and `./a.yaml` are one file, never two
 * files of its account), or the default file when none is.
 */
export function namedFiles(files: readonly string[], cwd: string): string[] {
  if (files.length === 0) return [DEFAULT_CONFIG_FILE];
  const first = new Map<string, string>();
  for (const file of files) {
    const path = resolve(cwd, file);
    if (!first.has(path)) first.set(path, file);
  }
  return [...first.values()];
}
