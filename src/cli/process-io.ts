import { createInterface } from 'node:readline';
import type { Io } from './io.js';

/**
 * The real process's streams and environment. Writes are queued and leave once per turn of
 * the event loop, in the order they were made: the progress lines of an apply's writes that
 * answer together go out in one write to the stream instead of one system call each (on a
 * pipe, each also wakes the reader), a cost the requests in flight would otherwise wait for.
 * Anything still queued is written before the process exits and before a prompt waits.
 */
export function processIo(): Io {
  const queued: { stream: NodeJS.WriteStream; text: string }[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    let start = 0;
    while (start < queued.length) {
      const stream = queued[start]!.stream;
      let end = start;
      while (end < queued.length && queued[end]!.stream === stream) end += 1;
      stream.write(queued.slice(start, end).map((entry) => entry.text).join(''));
      start = end;
    }
    queued.length = 0;
  };
  const writer =
    (stream: NodeJS.WriteStream) =>
    (text: string): void => {
      queued.push({ stream, text });
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    };
  process.once('exit', flush);
  let lines: AsyncIterator<string> | undefined;
  return {
    stdout: writer(process.stdout),
    stderr: writer(process.stderr),
    isTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    readLine: async () => {
      flush();
      lines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
      const next = await lines.next();
      return next.done ? null : next.value;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
