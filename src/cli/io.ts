/** What a command may touch of the outside world, injected so tests can run the real CLI in-process. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (colour, prompts). */
  isTTY: boolean;
  /** Whether stdin is a terminal (confirmation prompts). */
  readonly stdinIsTTY: boolean;
  readLine: () => Promise<string | null>;
  env: Record<string, string | undefined>;
  cwd: string;
}
