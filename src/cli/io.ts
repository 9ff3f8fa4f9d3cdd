import { redact } from '../secrets.js';

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

/**
 * The same outside world, every line written to it passing through `redact`: a secret that a
 * value quotes (an audience or a business named after the token, say) is masked on the way
 * out, whatever command or renderer wrote it.
 */
export function maskingSecrets(io: Io): Io {
  return {
    stdout: (text) => io.stdout(redact(text)),
    stderr: (text) => io.stderr(redact(text)),
    isTTY: io.isTTY,
    // A getter of its own: asking opens stdin, which only a prompt should do.
    get stdinIsTTY() {
      return io.stdinIsTTY;
    },
    readLine: () => io.readLine(),
    env: io.env,
    cwd: io.cwd,
  };
}
