/** The file read when no -f is given: in a module of its own, so a command can name it without loading the reader. */
export const DEFAULT_CONFIG_FILE = 'audiences.yaml';

/** The files a command reads: those named, each once, or the default file when none is. */
export function namedFiles(files: readonly string[]): string[] {
  return files.length > 0 ? [...new Set(files)] : [DEFAULT_CONFIG_FILE];
}
