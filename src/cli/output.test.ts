import { describe, expect, it } from 'vitest';
import { ansiStyle, plainStyle } from '../render/index.js';
import type { GlobalOptions } from './command.js';
import type { Io } from './io.js';
import { outputStyle, wantsColour } from './output.js';

const args = (color: boolean | undefined): GlobalOptions => ({
  emulator: false,
  concurrency: 8,
  color,
  verbose: false,
  debug: false,
});
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
  it('colours on a terminal by default, never with --no-color, NO_COLOR or TERM=dumb', async () => {
    expect(await outputStyle(args(undefined), io(true))).toBe(ansiStyle);
    expect(await outputStyle(args(undefined), io(false))).toBe(plainStyle);
    expect(await outputStyle(args(false), io(true))).toBe(plainStyle);
    expect(await outputStyle(args(undefined), io(true, { NO_COLOR: '1' }))).toBe(plainStyle);
    expect(await outputStyle(args(undefined), io(true, { TERM: 'dumb' }))).toBe(plainStyle);
    expect(await outputStyle(args(undefined), io(true, { NO_COLOR: '' }))).toBe(ansiStyle);
  });

  it('colours when piped with --color or FORCE_COLOR, the flag first, then FORCE_COLOR over NO_COLOR', () => {
    expect(wantsColour(args(true), io(false))).toBe(true);
    expect(wantsColour(args(true), io(false, { NO_COLOR: '1', TERM: 'dumb' }))).toBe(true);
    expect(wantsColour(args(undefined), io(false, { FORCE_COLOR: '1' }))).toBe(true);
    expect(wantsColour(args(undefined), io(false, { FORCE_COLOR: '', NO_COLOR: '1' }))).toBe(true);
    expect(wantsColour(args(undefined), io(true, { FORCE_COLOR: '0' }))).toBe(false);
    expect(wantsColour(args(undefined), io(true, { FORCE_COLOR: 'false' }))).toBe(false);
    expect(wantsColour(args(false), io(true, { FORCE_COLOR: '1' }))).toBe(false);
  });
});
