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

  it('names an unknown option once, as typed, with the nearest known one', async () => {
    for (const [args, expected] of [
      [['apply', '--auto-aprove'], 'error[USAGE]: unknown argument --auto-aprove\n  hint: did you mean --auto-approve?'],
      [['plan', '--detailed-exit-code'], 'error[USAGE]: unknown argument --detailed-exit-code\n  hint: did you mean --detailed-exitcode?'],
      [['validate', '--no-colr'], 'error[USAGE]: unknown argument --no-colr\n  hint: did you mean --no-color?'],
      [['plan', '-x'], 'error[USAGE]: unknown argument -x\n  hint: run `audiences --help`'],
      [['plan', '--bogus-thing'], 'error[USAGE]: unknown argument --bogus-thing\n  hint: run `audiences --help`'],
    ] as const) {
      const result = await audiences(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(expected);
    }
  });

  it('checks option values before anything else, each with a hint', async () => {
    for (const [args, expected] of [
      [['plan', '--concurrency', 'abc'], 'error[USAGE]: --concurrency takes a whole number of at least 1\n  hint: e.g. --concurrency 8'],
      [['plan', '--concurrency'], 'error[USAGE]: Not enough arguments following: concurrency'],
      [['validate', '-f', ''], 'error[USAGE]: -f needs a file name\n  hint: audiences validate -f audiences.yaml'],
      [['plan', '-f', 'a.yaml', '-f', ' '], 'error[USAGE]: -f needs a file name\n  hint: audiences plan -f audiences.yaml'],
      [['plan', '--out', ''], 'error[USAGE]: --out needs a file name\n  hint: audiences plan --out plan.json'],
      [['import', '--ad-account', '1234', '-o', ''], 'error[USAGE]: -o needs a file name'],
      [['company', '120-81-47521', '-f', ''], 'error[USAGE]: -f needs a file name'],
      [['plan', '--requests-per-second', '0'], 'error[USAGE]: --requests-per-second takes a number above 0\n  hint: '],
      [['import', '--ad-account', 'abc'], 'error[USAGE]: --ad-account takes one positive whole number\n  hint: e.g. --ad-account 1234'],
      [['emulator', '--port', '99999'], 'error[USAGE]: --port must be an integer from 0 to 65535\n  hint: '],
    ] as const) {
      const result = await audiences(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(expected);
    }
  });
});
