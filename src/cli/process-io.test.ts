import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLineFrom, turnBuffered } from './process-io.js';

describe('readLineFrom', () => {
  it('reads one line, then lets go of the input so it cannot keep the process alive', async () => {
    const input = new PassThrough();
    const answer = readLineFrom(input);
    input.write('yes\nmore typed ahead\n');
    expect(await answer).toBe('yes');
    expect(input.listenerCount('data')).toBe(0);
    expect(input.listenerCount('end')).toBe(0);
    expect(input.isPaused()).toBe(true);
  });

  it('answers null when the input ends without a line', async () => {
    const input = new PassThrough();
    const answer = readLineFrom(input);
    input.end();
    expect(await answer).toBeNull();
    expect(await readLineFrom(input)).toBeNull();
  });

  it('reads again for a second question', async () => {
    const input = new PassThrough();
    const first = readLineFrom(input);
    input.write('no\n');
    expect(await first).toBe('no');
    const second = readLineFrom(input);
    input.write('yes\n');
    expect(await second).toBe('yes');
  });
});

describe('turnBuffered', () => {
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('writes what a turn wrote in one write, in order, once the turn is over', async () => {
    const writes: string[] = [];
    const buffered = turnBuffered(
      (text) => writes.push(text),
      () => undefined,
    );
    buffered.write('ok one\n');
    buffered.write('ok two\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['ok one\nok two\n']);
    buffered.write('ok three\n');
    await nextTurn();
    expect(writes).toEqual(['ok one\nok two\n', 'ok three\n']);
  });

  it('writes what is pending at once when flushed, and registers that flush for the exit once', async () => {
    const writes: string[] = [];
    const atExit: Array<() => void> = [];
    const buffered = turnBuffered(
      (text) => writes.push(text),
      (flush) => atExit.push(flush),
    );
    buffered.write('line\n');
    buffered.flush();
    expect(writes).toEqual(['line\n']);
    buffered.write('last\n');
    expect(atExit).toHaveLength(1);
    atExit[0]?.();
    expect(writes).toEqual(['line\n', 'last\n']);
    await nextTurn();
    expect(writes).toEqual(['line\n', 'last\n']);
  });
});
