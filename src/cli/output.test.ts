import { describe, expect, it } from 'vitest';
import { ansiStyle, plainStyle } from '../render/index.js';
import type { GlobalOptions } from './command.js';
import type { Io } from './io.js';
import { outputStyle } from './output.js';

const args = (color: boolean): GlobalOptions => ({ emulator: false, concurrency: 8, color, verbose: false, debug: false });
const io = (isTTY: boolean, env: Record<string, string> = {}): Io => ({
  stdout: () => undefined,
  stderr: () => undefined,
  isTTY,
  stdinIsTTY: false,
  readLine: async () => null,
  env,
  cwd: '.',
});

describe('outputStyle', () => {
  it('colours only on a terminal, never with --no-color or NO_COLOR', async () => {
    expect(await outputStyle(args(true), io(true))).toBe(ansiStyle);
    expect(await outputStyle(args(true), io(false))).toBe(plainStyle);
    expect(await outputStyle(args(false), io(true))).toBe(plainStyle);
    expect(await outputStyle(args(true), io(true, { NO_COLOR: '1' }))).toBe(plainStyle);
  });
});
