import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));

async function audiences(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { env: { ...process.env, NO_COLOR: '1' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the audiences command', () => {
  it('prints its help and exits 0', async () => {
    const result = await audiences('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('audiences <command> [options]');
    expect(result.stdout).toContain('--emulator');
  });

  it('rejects a missing command with a usage error, not a stack trace', async () => {
    const result = await audiences();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[USAGE\]/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('usage errors', () => {
  it('names an unknown command, an option without its value and a bad choice, without a stack trace', async () => {
    for (const [args, expected] of [
      [['bogus'], 'Unknown command: bogus'],
      [['plan', '-f'], 'Not enough arguments following: f'],
      [['plan', '--format', 'xml'], 'Invalid values'],
    ] as const) {
      const result = await audiences(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error\[USAGE\]/);
      expect(result.stderr).toContain(expected);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
