import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, workspace } from '../helpers/cli.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));
const fixtures = fileURLToPath(new URL('../fixtures/config/', import.meta.url));

async function audiences(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const empty = mkdtempSync(join(tmpdir(), 'audiences-validate-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('audiences validate', () => {
  it('exits 0 with one line per valid file', async () => {
    const result = await audiences(fixtures, 'validate', '-f', 'valid.yaml', '-f', 'other-account.yaml');
    expect(result).toEqual({
      code: 0,
      stdout: 'valid.yaml: ok (3 audiences)\nother-account.yaml: ok (1 audience)\n',
      stderr: '',
    });
  });

  it('reads ./audiences.yaml when no file is named', async () => {
    const dir = mkdtempSync(join(empty, 'default-'));
    copyFileSync(join(fixtures, 'valid.yaml'), join(dir, 'audiences.yaml'));
    const result = await audiences(dir, 'validate');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('audiences.yaml: ok (3 audiences)\n');
  });

  it('exits 1 when the default file is missing, saying so without a stack trace', async () => {
    const result = await audiences(empty, 'validate');
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toBe('audiences.yaml: file not found');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints every problem as FILE:LINE:COL: message with hints, then the verdict, and exits 1', async () => {
    const result = await audiences(fixtures, 'validate', '-f', 'invalid.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'invalid.yaml:4:11: audiences[0].type: unknown value "DISPLY"',
        '  hint: did you mean DISPLAY?',
        'invalid.yaml:5:12: audiences[0].ages[0]: 18 is not an age band',
        '  hint: age bands are 15, 20, 25, … 65, each the start of five years: 18 is in the band 15 (15 to 19)',
        'invalid.yaml:6:11: audiences[1].name: "seoul-women-20s" is already the name of audiences[0] (line 3)',
        '  hint: the name is the identity of an audience: make each unique',
        'invalid.yaml:8:5: audiences[1].agess: unknown field',
        '  hint: did you mean ages?',
        'invalid.yaml:9:5: audiences[1].customerFileTargetings: not allowed for a MESSAGE audience',
        '  hint: customerFileTargetings is for DISPLAY audiences only',
        'invalid.yaml: invalid (5 problems)',
        '',
      ].join('\n'),
    );
  });

  it('checks several files, answering for each, and fails if any fails', async () => {
    const result = await audiences(fixtures, 'validate', '-f', 'valid.yaml', '-f', 'latin1.yaml', '-f', 'missing.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('valid.yaml: ok (3 audiences)\n');
    expect(result.stderr).toContain('latin1.yaml:3:14: the file is not UTF-8 (byte 0xe9)\n');
    expect(result.stderr).toContain('latin1.yaml: invalid (1 problem)\n');
    expect(result.stderr).toContain('missing.yaml: file not found\n');
  });

  it('writes out the escapes of a file name in its verdict', async () => {
    const good = 'good\u001b]0;owned\u0007.yaml';
    const bad = 'bad\r\u001b[32mok.yaml';
    const cwd = await workspace({
      [good]: 'adAccountId: 1234\naudiences: []\n',
      [bad]: 'adAccountId: 1234\naudiences: 7\n',
    });
    const result = await runInProcess(['validate', '-f', good, '-f', bad], { cwd, env: {} });
    expect(result.stdout).toBe('good\\u001b]0;owned\\u0007.yaml: ok (0 audiences)\n');
    expect(result.stderr).toContain('bad\\r\\u001b[32mok.yaml: invalid (1 problem)\n');
    // eslint-disable-next-line no-control-regex -- no escape may reach the terminal
    expect(result.stdout + result.stderr).not.toMatch(/[\u001b\u0007\r]/);
  });

  it('takes two files for the same ad account, each with audiences of its own, naming each other', async () => {
    const cwd = await workspace({
      'a.yaml': 'adAccountId: 1234\naccountFiles: [team-b/b.yaml]\naudiences:\n  - name: a\n    type: DISPLAY\n',
      'team-b/b.yaml': 'adAccountId: 1234\naccountFiles: [../a.yaml]\naudiences: []\n',
    });
    const result = await audiences(cwd, 'validate', '-f', 'a.yaml', '-f', 'team-b/b.yaml');
    expect(result).toEqual({
      code: 0,
      stdout: 'a.yaml: ok (1 audience)\nteam-b/b.yaml: ok (0 audiences)\n',
      stderr: '',
    });
  });

  it('refuses a name two files of one ad account declare, and a prune they disagree on, naming both places', async () => {
    const cwd = await workspace({
      'a.yaml':
        'adAccountId: 1234\naccountFiles: [b.yaml]\nprune: true\naudiences:\n  - name: shared\n    type: DISPLAY\n',
      'b.yaml':
        'adAccountId: 1234\naccountFiles: [a.yaml]\naudiences:\n  - name: own\n    type: DISPLAY\n  - name: shared\n    type: DISPLAY\n',
      'c.yaml': 'adAccountId: 99\naudiences:\n  - name: shared\n    type: DISPLAY\n',
    });
    const result = await audiences(cwd, 'validate', 'a.yaml', 'b.yaml', 'c.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('a.yaml: ok (1 audience)\nc.yaml: ok (1 audience)\n');
    expect(result.stderr).toContain('b.yaml:6:11: audience "shared" is also declared in a.yaml:5:11\n');
    expect(result.stderr).toContain(
      'b.yaml:1:1: prune is false here but true in a.yaml:3:8, a file of the same ad account\n',
    );
    expect(result.stderr).toContain('b.yaml: invalid (2 problems)\n');
  });

  it('says an unclosed bracket where it opens, and a key out of line as indentation', async () => {
    const cwd = await workspace({
      'bracket.yaml':
        'adAccountId: 1234\naudiences:\n  - name: a\n    type: DISPLAY\n    ages: [20, 25\n    genders: [F]\n',
      'indent.yaml': 'adAccountId: 1234\naudiences:\n  - name: a\n    type: DISPLAY\n   ages: [20]\n',
    });
    expect(await audiences(cwd, 'validate', 'bracket.yaml', 'indent.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'bracket.yaml:5:11: YAML: the list opened with "[" is not closed with "]"',
        '  hint: end the list with "]"; a list written across lines also keeps each line indented deeper than its key',
        'bracket.yaml: invalid (1 problem)',
        'indent.yaml:5:1: YAML: sequence item without - indicator',
        '  hint: check the indentation: line this key up with the keys above it, or start a new item of the list with "- "',
        'indent.yaml: invalid (1 problem)',
        '',
      ].join('\n'),
    });
  });

  it('says a key indented deeper than the one above it at that key, once, and a value holding ": " as that', async () => {
    const cwd = await workspace({
      'deeper.yaml': 'adAccountId: 1234\naudiences:\n  - name: a\n     type: DISPLAY\n',
      'colon.yaml': 'adAccountId: 1234\naudiences:\n  - name: spring: sale\n    type: DISPLAY\n',
    });
    expect(await audiences(cwd, 'validate', 'deeper.yaml', 'colon.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'deeper.yaml:4:6: YAML: this key is indented deeper than the key above it, so it reads as part of that value',
        '  hint: line it up with the keys above it (the keys of one map start in the same column)',
        'deeper.yaml: invalid (1 problem)',
        'colon.yaml:3:11: YAML: this value holds ": ", which starts a map inside it',
        '  hint: quote the value ("…") to keep ": " in it',
        'colon.yaml: invalid (1 problem)',
        '',
      ].join('\n'),
    });
  });

  it('suggests the dashed form of a registration number written as ten bare digits, quoted or not, and says when that form cannot exist either', async () => {
    const business = (number: string) =>
      `adAccountId: 1234\nbusiness:\n  registrationNumber: ${number}\naudiences: []\n`;
    const cwd = await workspace({
      'bare.yaml': business('1208147521'),
      'quoted.yaml': business('"1208147521"'),
      'mistyped.yaml': business('1234567890'),
    });
    expect(await audiences(cwd, 'validate', 'bare.yaml', 'quoted.yaml', 'mistyped.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'bare.yaml:3:23: business.registrationNumber: expected text, got 1208147521',
        '  hint: write it with its hyphens: 120-81-47521',
        'bare.yaml: invalid (1 problem)',
        'quoted.yaml:3:23: business.registrationNumber: "1208147521" must be a business registration number NNN-NN-NNNNN, e.g. 120-81-47521',
        '  hint: write it with its hyphens: 120-81-47521',
        'quoted.yaml: invalid (1 problem)',
        'mistyped.yaml:3:23: business.registrationNumber: expected text, got 1234567890',
        '  hint: with its hyphens it would be 123-45-67890, but it has a wrong check digit (the last digit would be 1); a digit is mistyped: compare the number with the business registration certificate',
        'mistyped.yaml: invalid (1 problem)',
        '',
      ].join('\n'),
    });
  });

  it('prints warnings but exits 0', async () => {
    const result = await audiences(fixtures, 'validate', '-f', 'warning.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('warning.yaml: ok (1 audience)\n');
    expect(result.stderr).toBe(
      'warning.yaml:5:18: warning: audiences[0].genders[1]: repeats genders[0]\n  hint: a set holds each value once: remove the repeat\n',
    );
  });

  it('shows the first 200 problems in file order, then how many more there are, and counts them all', async () => {
    const dir = mkdtempSync(join(empty, 'many-'));
    // 5,004 problems of two kinds: 4,550 misspelt types (the schema's) and, on every tenth
    // audience but the first of them, a repeated name (a rule's): 454.
    const lines = ['adAccountId: 1234', 'audiences:'];
    for (let index = 0; index < 4550; index += 1)
      lines.push(`  - name: ${index % 10 === 9 ? 'twin' : `a${index}`}`, '    type: DISPLY');
    writeFileSync(join(dir, 'many.yaml'), `${lines.join('\n')}\n`);
    const result = await audiences(dir, 'validate', '-f', 'many.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const problems = result.stderr.split('\n').filter((line) => /^many\.yaml:\d+:\d+: /.test(line));
    expect(problems).toHaveLength(200);
    expect(problems.slice(0, 3)).toEqual([
      'many.yaml:4:11: audiences[0].type: unknown value "DISPLY"',
      'many.yaml:6:11: audiences[1].type: unknown value "DISPLY"',
      'many.yaml:8:11: audiences[2].type: unknown value "DISPLY"',
    ]);
    expect(problems).toContain(
      'many.yaml:41:11: audiences[19].name: "twin" is already the name of audiences[9] (line 21)',
    );
    const places = problems.map((line) => Number(line.split(':')[1]) * 1000 + Number(line.split(':')[2]));
    expect(places).toEqual([...places].sort((a, b) => a - b));
    expect(result.stderr.endsWith('… and 4804 more problems\nmany.yaml: invalid (5004 problems)\n')).toBe(true);
  });

  it('refuses a file past the size limit before reading it: FILE_TOO_LARGE, its name and size, for validate and plan alike', async () => {
    const dir = mkdtempSync(join(empty, 'large-'));
    // Sparse: 9 MB of zero bytes, which nothing could parse in time if it were read.
    writeFileSync(join(dir, 'big.yaml'), '');
    truncateSync(join(dir, 'big.yaml'), 9 * 1024 * 1024);
    copyFileSync(join(fixtures, 'valid.yaml'), join(dir, 'valid.yaml'));
    const expected = [
      'error[FILE_TOO_LARGE]: big.yaml is 9.0 MB, more than 8 MB, the limit of an audiences file',
      '  hint: is this the right file? 10,000 audiences take about 1 MB (2 MB as import writes them, with a comment each)',
      '',
    ].join('\n');
    expect(await audiences(dir, 'validate', '-f', 'valid.yaml', '-f', 'big.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: expected,
    });
    expect(await audiences(dir, 'plan', '--emulator', '-f', 'big.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: expected,
    });
  });

  it('refuses an -f without a file as a usage error', async () => {
    const result = await audiences(fixtures, 'validate', '-f');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[USAGE\]/);
  });
});

describe('validate quotes the file visibly', () => {
  it('prints no character from the file that would act on the terminal (bidi overrides in names, C1 controls in keys)', async () => {
    const cwd = await workspace({
      'audiences.yaml':
        'adAccountId: 1234\naudiences:\n  - name: "evil\u202egnp.exe"\n    type: DISPLAY\n  - name: "evil\u202egnp.exe"\n    type: DISPLAY\n  - name: b\n    type: DISPLAY\n    "ty\u009b2Jpe": x\n',
    });
    const { stderr } = await runInProcess(['validate'], { cwd, env: {} });
    expect(stderr).toContain('already the name');
    expect(stderr).toContain('evil\\u202egnp.exe');
    expect(stderr).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
  });
});

describe('validate --format json', () => {
  it('lists every file and its problems as data, with the same exit code', async () => {
    const cwd = await workspace({
      'good.yaml': 'adAccountId: 1234\naudiences:\n  - name: a\n    type: DISPLAY\n',
      'bad.yaml': 'adAccountId: 5678\naudiences:\n  - name: b\n    type: BANNER\n',
    });
    const result = await runInProcess(['validate', 'good.yaml', 'bad.yaml', '--format', 'json'], { cwd, env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const [good, bad] = JSON.parse(result.stdout) as Array<{
      file: string;
      valid: boolean;
      audiences: number;
      errors: Array<{ line: number; column: number; message: string }>;
    }>;
    expect(good).toEqual({ file: 'good.yaml', valid: true, audiences: 1, errors: [], warnings: [] });
    expect(bad).toMatchObject({
      file: 'bad.yaml',
      valid: false,
      errors: [{ line: 4, column: 11, pointer: '/audiences/0/type' }],
    });
    expect(bad?.errors[0]?.message).toContain('type');
    const refused = await runInProcess(['validate', 'missing.yaml', '--format', 'json'], { cwd, env: {} });
    expect(JSON.parse(refused.stdout)).toMatchObject([{ file: 'missing.yaml', valid: false }]);
  });
});
