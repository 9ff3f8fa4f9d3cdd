import { createInterface } from 'node:readline';
import type { Io } from './io.js';

/** The real process's streams and environment. */
export function processIo(): Io {
  let lines: AsyncIterator<string> | undefined;
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    readLine: async () => {
      lines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
      const next = await lines.next();
      return next.done ? null : next.value;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
