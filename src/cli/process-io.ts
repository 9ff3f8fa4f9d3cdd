import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Io } from './io.js';

/**
 * Text for a stream, written once per turn of the event loop rather than once per call: an
 * apply writes a progress line per change, and each write to a pipe is a system call that the
 * answers arriving meanwhile wait for, so a large apply's writes leave sooner (bench/NOTES.md). `flush` writes what is
 * pending at once; `atExit` registers it for the process's exit, so a second Ctrl-C (process.exit) loses no line
 * either.
 */
export function turnBuffered(
  write: (text: string) => void,
  atExit: (flush: () => void) => void,
): { write(text: string): void; flush(): void } {
  let pending = '';
  let registered = false;
  const flush = (): void => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    write(text);
  };
  return {
    write: (text) => {
      if (!registered) {
        registered = true;
        atExit(flush);
      }
      if (pending === '') setImmediate(flush);
      pending += text;
    },
    flush,
  };
}

/**
 * Whether the reader of a stream of the process went away (`audiences plan | head`): from
 * then on nothing more is written to it, and the command goes on to its end. A plan still
 * completes, an apply never stops halfway for want of a reader, the exit code is the
 * command's own, and no stack trace is printed for a closed pipe. Any other error of the
 * stream is not a reader that left: it stays an error.
 */
function readerGone(stream: NodeJS.WritableStream): () => boolean {
  let gone = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    gone = true;
  });
  return () => gone;
}

/**
 * The real process's streams and environment. Lines for stderr wait for the end of the turn
 * (see turnBuffered); whatever goes to stdout writes them first, so the two keep their order.
 */
export function processIo(): Io {
  const stdoutGone = readerGone(process.stdout);
  const stderrGone = readerGone(process.stderr);
  // At the exit the write must be done before the process ends: a pipe is written to
  // asynchronously on some systems (macOS), so the last lines go out with writeSync.
  let exiting = false;
  const writeStderr = (text: string): void => {
    if (stderrGone()) return;
    if (exiting) writeSync(process.stderr.fd, text);
    else process.stderr.write(text);
  };
  const stderr = turnBuffered(writeStderr, (flush) =>
    process.on('exit', () => {
      exiting = true;
      flush();
    }),
  );
  return {
    stdout: (text) => {
      stderr.flush();
      if (!stdoutGone()) process.stdout.write(text);
    },
    stderr: stderr.write,
    isTTY: process.stdout.isTTY === true,
    // Asked only before a prompt: opening process.stdin slows every start, and most commands never read it.
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
