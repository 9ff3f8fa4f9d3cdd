import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, readdir, readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emptyImageLock, renderImageLock } from '../../src/config/image-lock.js';
import { runInProcess, workspace } from '../helpers/cli.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));

async function audiences(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return audiencesIn(process.cwd(), ...args);
}

async function audiencesIn(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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

describe('the audiences command', () => {
  it('prints its help and exits 0', async () => {
    const result = await audiences('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('audiences <command> [options]');
    expect(result.stdout).toContain('--emulator');
  });

  it("prints its own version, wherever it runs (not a package.json of the current folder's)", async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
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

describe('command-line conventions', () => {
  const env = { ADS_ACCESS_TOKEN: 'token' };
  const file = 'adAccountId: 1234\naudiences:\n  - name: seoul\n    type: DISPLAY\n';

  it('-h and -v are --help and --version', async () => {
    const help = await audiences('-h');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('audiences <command> [options]');
    const version = await audiences('-v');
    expect(version).toEqual(await audiences('--version'));
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('plan and validate take files as arguments, as -f does', async () => {
    const cwd = await workspace({ 'x.yaml': file });
    const validated = await runInProcess(['validate', 'x.yaml'], { cwd, env: {} });
    expect(validated).toMatchObject({ code: 0, stdout: 'x.yaml: ok (1 audience)\n' });
    const planned = await runInProcess(['plan', 'x.yaml', '--emulator', '--format', 'json'], { cwd, env: {} });
    expect(planned.code).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject([{ adAccountId: 1234, summary: { create: 1 } }]);
  });

  it('apply of a desired-state file says what was meant', async () => {
    const cwd = await workspace({ 'audiences.yaml': `# the account\n${file}` });
    const result = await runInProcess(['apply', 'audiences.yaml', '--emulator'], { cwd, env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[PLAN_INVALID]: audiences.yaml is a desired-state file, not a saved plan');
    expect(result.stderr).toContain('run `audiences apply -f audiences.yaml`');
  });

  it('the image lock or a saved plan given as a desired-state file is said to be what it is, not checked against the schema', async () => {
    const cwd = await workspace({ 'audiences.yaml': file, 'images.lock.json': renderImageLock(emptyImageLock()) });
    expect((await runInProcess(['plan', '--emulator', '--out', 'plan.json'], { cwd, env: {} })).code).toBe(0);
    const lock = [
      'images.lock.json: this is the image lock (written by the tool), not a desired-state file',
      '  hint: give the desired-state file instead (audiences.yaml by default, the YAML file beside the lock): plan and apply read the lock beside it',
    ];
    const plan = [
      'plan.json: this is a saved plan (written by `audiences plan --out`), not a desired-state file',
      '  hint: apply it with `audiences apply plan.json` (no -f), or read it with `audiences show plan.json`; validate and plan read the desired-state file, audiences.yaml by default',
    ];
    expect(await runInProcess(['validate', 'images.lock.json', 'plan.json'], { cwd, env: {} })).toEqual({
      code: 1,
      stdout: '',
      stderr: [...lock, 'images.lock.json: invalid (1 problem)', ...plan, 'plan.json: invalid (1 problem)', ''].join(
        '\n',
      ),
    });
    const indented = (lines: string[]) => lines.map((line) => `  ${line}`).join('\n');
    for (const args of [
      ['plan', 'images.lock.json'],
      ['apply', '-f', 'images.lock.json'],
    ]) {
      const result = await runInProcess([...args, '--emulator'], { cwd, env: {} });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `error[CONFIG_INVALID]: images.lock.json is not valid (1 problem)\n${indented(lock)}\n`,
      );
    }
    for (const args of [
      ['plan', '-f', 'plan.json'],
      ['apply', '-f', 'plan.json'],
    ]) {
      const result = await runInProcess([...args, '--emulator'], { cwd, env: {} });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error[CONFIG_INVALID]: plan.json is not valid (1 problem)\n${indented(plan)}\n`);
    }
    const applied = await runInProcess(['apply', 'images.lock.json', '--emulator'], { cwd, env: {} });
    expect(applied.stderr).toContain(
      'error[PLAN_INVALID]: images.lock.json is the image lock (written by the tool), not a saved plan\n',
    );
    expect(applied.code).toBe(1);
  });

  it("a subcommand's help lists its own options, then the global ones, with examples and the environment it reads", async () => {
    const { stdout, code } = await audiences('plan', '--help');
    expect(code).toBe(0);
    const at = (text: string) => stdout.indexOf(text);
    expect(at('--out')).toBeGreaterThan(at('Options:'));
    expect(at('Global options:')).toBeGreaterThan(at('--out'));
    expect(at('--emulator')).toBeGreaterThan(at('Global options:'));
    expect(at('Examples:')).toBeGreaterThan(at('--emulator'));
    expect(stdout).toMatch(/Environment:\n {2}ADS_API_URL/);
    expect((await audiences('validate', '--help')).stdout).not.toContain('Environment:');
  });

  it('blames the variable that was set: the business service at ADS_API_URL when ADS_COMPANY_URL is not set', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nbusiness:\n  registrationNumber: 120-81-47521\naudiences: []\n`,
    });
    const plain = await runInProcess(['plan'], { cwd, env: { ...env, ADS_API_URL: 'http://ads.example.com' } });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/^error\[INSECURE_URL\]: ADS_API_URL: refusing/);
    expect(plain.stderr).not.toContain('ADS_COMPANY_URL');
    const company = await runInProcess(['plan'], {
      cwd,
      env: { ...env, ADS_API_URL: 'https://ads.example.com', ADS_COMPANY_URL: 'http://company.example.com' },
    });
    expect(company.stderr).toMatch(/^error\[INSECURE_URL\]: ADS_COMPANY_URL: refusing/);
  });

  it('colours piped output with --color or FORCE_COLOR, and not by default', async () => {
    const cwd = await workspace({ 'audiences.yaml': file });
    const ansi = `${String.fromCharCode(27)}[`;
    expect((await runInProcess(['plan', '--emulator'], { cwd, env: {} })).stdout).not.toContain(ansi);
    expect((await runInProcess(['plan', '--emulator', '--color'], { cwd, env: {} })).stdout).toContain(ansi);
    expect((await runInProcess(['plan', '--emulator'], { cwd, env: { FORCE_COLOR: '1' } })).stdout).toContain(ansi);
  });
});

describe('help rendered at build time', () => {
  it('is what the parser renders, for the command line and each command, and is what --help prints', async () => {
    const cached = JSON.parse(
      await readFile(new URL('../../dist/bundle/help.json', import.meta.url), 'utf8'),
    ) as Record<string, string>;
    expect(Object.keys(cached)).toEqual(['', 'validate', 'plan', 'show', 'apply', 'import', 'company', 'emulator']);
    for (const [command, text] of Object.entries(cached)) {
      const args = command === '' ? ['--help'] : [command, '--help'];
      const parsed = await run(process.execPath, [bin, ...args], {
        env: { ...process.env, AUDIENCES_NO_HELP_CACHE: '1' },
      });
      expect(text, command).toBe(parsed.stdout);
      expect((await audiences(...args)).stdout, command).toBe(text);
    }
    expect((await audiences('plan', '-h')).stdout).toBe(cached['plan']);
  });
});

describe('code cache', () => {
  const file = 'adAccountId: 1234\naudiences:\n  - name: seoul\n    type: DISPLAY\n';
  const { bundle } = JSON.parse(readFileSync(new URL('../../dist/bundle/manifest.json', import.meta.url), 'utf8')) as {
    bundle: string;
  };
  // Named by the source it was made from.
  const key = createHash('sha256')
    .update(readFileSync(new URL(`../../dist/bundle/${bundle}`, import.meta.url), 'utf8'))
    .digest('hex')
    .slice(0, 32);
  const cacheOf = (command: string) => `${key}.${command}.node-${process.version}-${process.arch}.cache`;

  async function validateWith(env: Record<string, string>): Promise<{ code: number; stdout: string }> {
    const cwd = await workspace({ 'audiences.yaml': file });
    try {
      return { code: 0, ...(await run(process.execPath, [bin, 'validate'], { cwd, env: { PATH: '', ...env } })) };
    } catch (error) {
      return error as { code: number; stdout: string };
    }
  }

  it("keeps one per command in the user's cache folder, made by its first run and used by the next", async () => {
    const home = await workspace({});
    const first = await validateWith({ XDG_CACHE_HOME: home });
    const folder = join(home, 'audiences');
    expect(await readdir(folder)).toEqual([cacheOf('validate')]);
    const made = await stat(join(folder, cacheOf('validate')));
    expect(made.size).toBeGreaterThan(0);
    expect(made.mode & 0o077).toBe(0);
    const second = await validateWith({ XDG_CACHE_HOME: home });
    expect([first.code, second.code, second.stdout]).toEqual([0, 0, first.stdout]);
    // Used, not made again: V8 took it.
    expect((await stat(join(folder, cacheOf('validate')))).mtimeMs).toBe(made.mtimeMs);
  });

  it("makes again a cache V8 refuses or others may write, and removes other sources' caches after a week", async () => {
    const otherSource = `0123456789abcdef0123456789abcdef.validate.node-${process.version}-${process.arch}.cache`;
    const home = await workspace({
      [`audiences/${cacheOf('validate')}`]: 'not a code cache',
      [`audiences/old-${otherSource}`]: 'stale',
      [`audiences/${otherSource}`]: 'another installed version',
    });
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    await utimes(join(home, 'audiences', `old-${otherSource}`), weekAgo, weekAgo);
    await chmod(join(home, 'audiences'), 0o700);
    const result = await validateWith({ XDG_CACHE_HOME: home });
    expect([result.code, result.stdout]).toEqual([0, 'audiences.yaml: ok (1 audience)\n']);
    expect((await readdir(join(home, 'audiences'))).sort()).toEqual([otherSource, cacheOf('validate')].sort());
    const made = join(home, 'audiences', cacheOf('validate'));
    expect(await readFile(made, 'utf8')).not.toBe('not a code cache');
    // One that others may write is never used (bytecode is code): it is made again, the user's alone. One V8 took would
    // be left as it is.
    await chmod(made, 0o666);
    await validateWith({ XDG_CACHE_HOME: home });
    expect((await stat(made)).mode & 0o777).toBe(0o600);
  });

  it('writes nothing with AUDIENCES_NO_COMPILE_CACHE, and runs uncached where the folder cannot be made', async () => {
    const home = await workspace({ 'a-file': '' });
    const off = await validateWith({ XDG_CACHE_HOME: home, AUDIENCES_NO_COMPILE_CACHE: '1' });
    const blocked = await validateWith({ XDG_CACHE_HOME: join(home, 'a-file') });
    expect([off.code, off.stdout, blocked.code, blocked.stdout]).toEqual([
      0,
      'audiences.yaml: ok (1 audience)\n',
      0,
      'audiences.yaml: ok (1 audience)\n',
    ]);
    expect(await readdir(home)).toEqual(['a-file']);
  });
});

describe('output for pipelines', () => {
  const file = (account: number) =>
    `adAccountId: ${account}\nprune: true\naudiences:\n  - name: seoul\n    type: DISPLAY\n`;

  it('JSON is an array of plans, for one file and for several', async () => {
    const cwd = await workspace({ 'a.yaml': file(1234), 'b.yaml': file(5678) });
    const one = JSON.parse(
      (await runInProcess(['plan', 'a.yaml', '--emulator', '--format', 'json'], { cwd, env: {} })).stdout,
    ) as Array<{ adAccountId: number }>;
    const two = JSON.parse(
      (await runInProcess(['plan', 'a.yaml', 'b.yaml', '--emulator', '--format', 'json'], { cwd, env: {} })).stdout,
    ) as Array<{ adAccountId: number }>;
    expect(one.map((plan) => plan.adAccountId)).toEqual([1234]);
    expect(two.map((plan) => plan.adAccountId)).toEqual([1234, 5678]);
  });

  it('a failed plan still writes its output: a JSON error object, or the comment with the error, and exits 1', async () => {
    const cwd = await workspace({ 'a.yaml': 'adAccountId: 1234\naudiences:\n  - name: seoul\n    type: BANNER\n' });
    const json = await runInProcess(['plan', 'a.yaml', '--emulator', '--format', 'json'], { cwd, env: {} });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: { code: 'CONFIG_INVALID', problems: [{ file: 'a.yaml', line: 4, column: 11 }] },
    });
    expect(json.stderr).toContain('error[CONFIG_INVALID]');
    const markdown = await runInProcess(
      ['plan', 'a.yaml', '--emulator', '--format', 'markdown', '--commit', 'abc1234'],
      { cwd, env: {} },
    );
    expect(markdown.code).toBe(1);
    expect(markdown.stdout.split('\n')[0]).toBe('<!-- audiences-plan files=a.yaml -->');
    expect(markdown.stdout).toContain(':x: **The plan failed: error[CONFIG\\_INVALID]**');
    expect(markdown.stdout).toContain('- **a.yaml:4:11**: ');
    expect(markdown.stdout).toContain('Planned at commit abc1234.');
    const unauthorized = await runInProcess(['plan', 'a.yaml', '--format', 'markdown'], {
      cwd,
      env: { ADS_API_URL: 'http://127.0.0.1:9', ADS_ACCESS_TOKEN: 'bad token' },
    });
    expect(unauthorized.code).toBe(1);
    expect(unauthorized.stdout).toContain('**The plan failed: error[');
    expect(unauthorized.stdout).not.toContain('bad token');
  });

  it('show renders a saved plan again in every format, without reading the account', async () => {
    const cwd = await workspace({ 'a.yaml': file(1234) });
    const saved = await runInProcess(['plan', 'a.yaml', '--emulator', '--out', 'plan.json', '--format', 'markdown'], {
      cwd,
      env: {},
    });
    expect(saved.code).toBe(0);
    // No service is configured: show reads nothing but the file.
    const text = await runInProcess(['show', 'plan.json'], { cwd, env: {} });
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toContain('+ create audience "seoul"');
    const json = await runInProcess(['show', 'plan.json', '--format', 'json'], { cwd, env: {} });
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')));
    const markdown = await runInProcess(['show', 'plan.json', '--format', 'markdown'], { cwd, env: {} });
    expect(markdown.stdout.slice(markdown.stdout.indexOf('<!-- audiences-plan account'))).toBe(
      saved.stdout.slice(saved.stdout.indexOf('<!-- audiences-plan account')),
    );
    const missing = await runInProcess(['show', 'nothing.json', '--format', 'json'], { cwd, env: {} });
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'PLAN_UNREADABLE' } });
  });

  it('show and apply refuse a saved plan whose update shows other values than it writes, saying which', async () => {
    const golden = JSON.parse(await readFile(new URL('../golden/mixed/plan.json', import.meta.url), 'utf8')) as {
      changes: Array<Record<string, unknown>>;
    };
    const update = golden.changes.find((change) => change['action'] === 'update') as {
      display: { fields: Array<{ field: string; after: unknown }> };
    };
    // Edited by hand: the comment would show ages 20 and 25, the apply would write 20, 25 and 30.
    update.display.fields[0]!.after = ['20', '25'];
    const cwd = await workspace({ 'plan.json': JSON.stringify(golden) });
    for (const command of [['show'], ['apply', '--emulator']]) {
      const refused = await runInProcess([...command, 'plan.json'], { cwd, env: {} });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'error[PLAN_INVALID]: plan.json is not a saved plan: in the plan of ad account 1234, the update of audience "seoul-women" (id 291): the change of ages it shows (after ["20","25"]) is not the one it makes (after ["20","25","30"])',
      );
    }
  });
});

describe('usage errors', () => {
  it('names an unknown command, an option without its value and a bad choice, without a stack trace', async () => {
    for (const [args, expected] of [
      [['bogus'], 'unknown command bogus'],
      [['plan', '-f'], 'Not enough arguments following: f'],
      [['plan', '--format', 'xml'], '--format takes text, json or markdown, not "xml"'],
      [['plan', '--format'], 'Not enough arguments following: format'],
      [['show', 'plan.json', '--format'], 'Not enough arguments following: format'],
      [['validate', '--format'], 'Not enough arguments following: format'],
      [['emulator', '--latency'], 'Not enough arguments following: latency'],
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
      [
        ['apply', '--auto-aprove'],
        'error[USAGE]: unknown argument --auto-aprove\n  hint: did you mean --auto-approve?',
      ],
      [
        ['plan', '--detailed-exit-code'],
        'error[USAGE]: unknown argument --detailed-exit-code\n  hint: did you mean --detailed-exitcode?',
      ],
      [['validate', '--no-colr'], 'error[USAGE]: unknown argument --no-colr\n  hint: did you mean --no-color?'],
      [['plan', '-x'], 'error[USAGE]: unknown argument -x\n  hint: run `audiences --help`'],
      [['plan', '--bogus-thing'], 'error[USAGE]: unknown argument --bogus-thing\n  hint: run `audiences --help`'],
    ] as const) {
      const result = await audiences(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(expected);
    }
  });

  it('says on one line what was typed and the nearest command or choice, never a line break written out', async () => {
    for (const [args, expected] of [
      [
        ['plna'],
        'error[USAGE]: unknown command plna\n  hint: did you mean `audiences plan`? (run `audiences --help` for the commands)\n',
      ],
      [
        ['--emulator', 'valdate'],
        'error[USAGE]: unknown command valdate\n  hint: did you mean `audiences validate`? (run `audiences --help` for the commands)\n',
      ],
      [['bogus'], 'error[USAGE]: unknown command bogus\n  hint: run `audiences --help` for the commands\n'],
      [
        ['plan', '--format', 'yaml'],
        'error[USAGE]: --format takes text, json or markdown, not "yaml"\n  hint: e.g. --format text\n',
      ],
      [
        ['plan', '--format', 'jsno'],
        'error[USAGE]: --format takes text, json or markdown, not "jsno"\n  hint: did you mean --format json?\n',
      ],
      [
        ['validate', '--format', 'markdown'],
        'error[USAGE]: --format takes text or json, not "markdown"\n  hint: e.g. --format text\n',
      ],
      [
        ['emulator', '--quota-status', '500'],
        'error[USAGE]: --quota-status takes 429 or 400, not 500\n  hint: e.g. --quota-status 429\n',
      ],
    ] as const) {
      expect(await audiences(...args)).toEqual({ code: 1, stdout: '', stderr: expected });
    }
  });

  it('checks option values before anything else, each with a hint', async () => {
    for (const [args, expected] of [
      [
        ['plan', '--concurrency', 'abc'],
        'error[USAGE]: --concurrency takes a whole number of at least 1\n  hint: e.g. --concurrency 8',
      ],
      [['plan', '--concurrency'], 'error[USAGE]: Not enough arguments following: concurrency'],
      [['validate', '-f', ''], 'error[USAGE]: -f needs a file name\n  hint: audiences validate -f audiences.yaml'],
      [
        ['plan', '-f', 'a.yaml', '-f', ' '],
        'error[USAGE]: -f needs a file name\n  hint: audiences plan -f audiences.yaml',
      ],
      [['plan', '--out', ''], 'error[USAGE]: --out needs a file name\n  hint: audiences plan --out plan.json'],
      [['import', '--ad-account', '1234', '-o', ''], 'error[USAGE]: -o needs a file name'],
      [['company', '120-81-47521', '-f', ''], 'error[USAGE]: -f needs a file name'],
      [
        ['plan', '--requests-per-second', '0'],
        'error[USAGE]: --requests-per-second takes a number from 0.1 to 1000, not 0\n  hint: e.g. --requests-per-second 10',
      ],
      [
        ['plan', '--requests-per-second', '1e-9'],
        'error[USAGE]: --requests-per-second takes a number from 0.1 to 1000, not 1e-9\n  hint: ',
      ],
      [
        ['plan', '--requests-per-second', '0.05'],
        'error[USAGE]: --requests-per-second takes a number from 0.1 to 1000, not 0.05\n  hint: ',
      ],
      [
        ['plan', '--requests-per-second', '1e9'],
        'error[USAGE]: --requests-per-second takes a number from 0.1 to 1000, not 1000000000\n  hint: ',
      ],
      [
        ['plan', '--requests-per-second', 'fast'],
        'error[USAGE]: --requests-per-second takes a number from 0.1 to 1000\n  hint: ',
      ],
      [
        ['import', '--ad-account', 'abc'],
        'error[USAGE]: --ad-account takes one positive whole number\n  hint: e.g. --ad-account 1234',
      ],
      [['emulator', '--port', '99999'], 'error[USAGE]: --port must be an integer from 0 to 65535\n  hint: '],
    ] as const) {
      const result = await audiences(...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(expected);
    }
  });
});

describe('an option of one value given twice', () => {
  it('is refused, naming both values, before anything is read or written (none of them is dropped in silence)', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - name: seoul\n    type: DISPLAY\n',
    });
    for (const [args, expected] of [
      [
        ['plan', '--emulator', '--out', 'a.json', '--out', 'b.json'],
        'error[USAGE]: --out is given more than once (a.json, b.json)\n  hint: give --out once\n',
      ],
      [
        ['import', '--emulator', '--ad-account', '1234', '-o', 'a.yaml', '-o', 'b.yaml'],
        'error[USAGE]: --out is given more than once (a.yaml, b.yaml)\n  hint: give --out once\n',
      ],
      [
        ['plan', '--emulator', '--format', 'json', '--format', 'markdown'],
        'error[USAGE]: --format is given more than once (json, markdown)\n  hint: give --format once\n',
      ],
      [
        ['plan', '--emulator', '--concurrency', '8', '--concurrency', '8'],
        'error[USAGE]: --concurrency is given more than once (8, 8)\n  hint: give --concurrency once\n',
      ],
      [
        ['plan', '--emulator', '--out', 'a\u001b[2J.json', '--out', 'b\r.json'],
        'error[USAGE]: --out is given more than once (a\\u001b[2J.json, b\\r.json)\n  hint: give --out once\n',
      ],
    ] as const) {
      expect(await audiencesIn(cwd, ...args)).toEqual({ code: 1, stdout: '', stderr: expected });
    }
    expect((await readdir(cwd)).sort()).toEqual(['audiences.yaml']);
  });

  it('is refused for a flag too, in either form (`--no-color --color`), naming each as typed', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - name: seoul\n    type: DISPLAY\n',
    });
    for (const [args, expected] of [
      [
        ['--no-color', '--color', 'plan', '--emulator'],
        'error[USAGE]: --color is given more than once (--no-color, --color)\n  hint: give --color or --no-color once\n',
      ],
      [
        ['plan', '--emulator', '--color=false', '--color'],
        'error[USAGE]: --color is given more than once (--color=false, --color)\n  hint: give --color or --no-color once\n',
      ],
      [
        ['plan', '--emulator', '--emulator'],
        'error[USAGE]: --emulator is given more than once (--emulator, --emulator)\n  hint: give --emulator once\n',
      ],
      [
        ['plan', '--emulator', '--cache', '--no-cache'],
        'error[USAGE]: --cache is given more than once (--cache, --no-cache)\n  hint: give --cache or --no-cache once\n',
      ],
    ] as const) {
      expect(await audiencesIn(cwd, ...args)).toEqual({ code: 1, stdout: '', stderr: expected });
    }
    expect((await readdir(cwd)).sort()).toEqual(['audiences.yaml']);
    // After `--`, nothing is an option.
    expect(await audiencesIn(cwd, 'validate', '--color', '--', '--color')).toMatchObject({ code: 0, stderr: '' });
  });

  it('leaves the options that take a list alone', async () => {
    const cwd = await workspace({
      'a.yaml': 'adAccountId: 1234\naudiences: []\n',
      'b.yaml': 'adAccountId: 5678\naudiences: []\n',
    });
    expect(await audiencesIn(cwd, 'validate', '-f', 'a.yaml', '-f', 'b.yaml')).toMatchObject({
      code: 0,
      stdout: 'a.yaml: ok (0 audiences)\nb.yaml: ok (0 audiences)\n',
    });
  });
});

describe("the process's streams", () => {
  const processIo = fileURLToPath(new URL('../../dist/cli/process-io.js', import.meta.url));
  /**
   * Runs a few writes through processIo in a node of its own, stdout and stderr into one pipe, as a terminal shows
   * them.
   */
  async function writesThroughProcessIo(then: string): Promise<{ code: number; output: string }> {
    const script = `import { processIo } from ${JSON.stringify(processIo)}; const io = processIo(); io.stderr('ok one\\n'); io.stderr('ok two\\n'); io.stdout('summary\\n'); io.stderr('ok three\\n'); ${then}`;
    try {
      const { stdout } = await run('sh', ['-c', `"${process.execPath}" --input-type=module -e "$0" 2>&1`, script]);
      return { code: 0, output: stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string };
      return { code: failed.code, output: failed.stdout };
    }
  }

  it('keep the order of what was written to each, and lose no line on an exit at once (a second Ctrl-C)', async () => {
    expect(await writesThroughProcessIo('')).toEqual({ code: 0, output: 'ok one\nok two\nsummary\nok three\n' });
    expect(await writesThroughProcessIo('process.exit(130);')).toEqual({
      code: 130,
      output: 'ok one\nok two\nsummary\nok three\n',
    });
  });

  /**
   * The command with its stdout read until the first bytes, then closed (`audiences … | head -c 1`); stderr read to the
   * end.
   */
  function withStdoutClosedEarly(cwd: string, ...args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], {
        cwd,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stdout.once('data', () => child.stdout.destroy());
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it('print the help to a reader that has gone with no stack trace (`audiences --help | true`)', async () => {
    const child = spawn(process.execPath, [bin, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stderr).toBe('');
  });

  it('go on without a reader of stdout: the plan and the apply run to their end, with no stack trace', async () => {
    // 400 creates: a plan of about 85 KB, more than a pipe holds. The apply writes its summary
    // after the reader has left, which fails (EPIPE).
    const audiences = Array.from(
      { length: 400 },
      (_, index) =>
        `  - { name: piped-${String(index).padStart(3, '0')}, type: DISPLAY, ages: ['20', '25'], locations: [I, B] }`,
    );
    const dir = await workspace({ 'audiences.yaml': `adAccountId: 1234\naudiences:\n${audiences.join('\n')}\n` });
    expect(await withStdoutClosedEarly(dir, 'plan', '--emulator')).toEqual({ code: 0, stderr: '' });
    const apply = await withStdoutClosedEarly(dir, 'apply', '--emulator', '--auto-approve');
    expect(apply.stderr).not.toMatch(/EPIPE|node:| {4}at /);
    expect(apply.stderr.match(/^ok {6}create audience/gm)).toHaveLength(400);
    expect(apply.code).toBe(0);
    const after = await audiencesIn(dir, 'plan', '--emulator');
    expect(after.stdout).toContain('No changes');
  });
});
