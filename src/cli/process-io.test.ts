import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLineFrom } from './process-io.js';

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
