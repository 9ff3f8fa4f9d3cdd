/** The file read when no -f is given: in a module of its own, so a command can name it without loading the reader. */
export const DEFAULT_CONFIG_FILE = 'audiences.yaml';
