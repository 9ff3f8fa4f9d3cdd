import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workspace } from '../helpers/cli.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));

async function audiences(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return audiencesIn(process.cwd(), ...args);
}

async function audiencesIn(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
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

  it("prints its own version, wherever it runs (not a package.json of the current folder's)", async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const elsewhere = await workspace({ 'package.json': '{"name": "other", "version": "9.9.9"}' });
    for (const cwd of [process.cwd(), elsewhere]) {
      expect(await audiencesIn(cwd, '--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
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
