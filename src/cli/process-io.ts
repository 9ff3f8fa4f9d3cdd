import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Io } from './io.js';

/** The real process's streams and environment. */
export function processIo(): Io {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTTY: process.stdout.isTTY === true,
    // Asked only before a prompt: opening process.stdin costs a start 5 ms, and most commands never read it.
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    readLine: () => readLineFrom(process.stdin),
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * One line of `input`, or null at its end. The reader is closed once the line is in, so a
 * terminal's stdin does not keep the process alive after the answer.
 */
export function readLineFrom(input: Readable): Promise<string | null> {
  if (input.readableEnded) return Promise.resolve(null);
  return new Promise((resolve) => {
    const reader = createInterface({ input });
    let answer: string | null = null;
    reader.once('line', (line) => {
      answer = line;
      reader.close();
    });
    reader.once('close', () => resolve(answer));
  });
}
