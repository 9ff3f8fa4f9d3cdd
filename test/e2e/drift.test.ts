/**
 * `plan --base REF`, through the real CLI against the emulator, in a real git repository: a
 * change the files at the base would make too reverts a change made outside the tool and is
 * labelled so (text, Markdown, JSON, a saved plan's `show`); the base's mass-delete guard holds
 * against a file that loosens it in the same change. Without a base, nothing changes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, workspace } from '../helpers/cli.js';
import { outside, storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
    { cwd, encoding: 'utf8' },
  );
}

/** A repository whose branch main holds `files`, committed; the working tree on a branch `change`. */
async function repository(files: Record<string, string>): Promise<string> {
  const cwd = await workspace(files);
  git(cwd, 'init', '--quiet', '--initial-branch=main');
  git(cwd, 'add', '--all');
  git(cwd, 'commit', '--quiet', '--allow-empty', '-m', 'base');
  git(cwd, 'checkout', '--quiet', '-b', 'change');
  return cwd;
}

/** Edits a file on the branch `change` and commits it, as a pull request does. */
async function commitChange(cwd: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(cwd, name)), { recursive: true });
    await writeFile(join(cwd, name), content);
  }
  git(cwd, 'add', '--all');
  git(cwd, 'commit', '--quiet', '-m', 'change');
}

/** Edits made in the ad manager, not by the tool, of the audience of each name. */
const edit = {
  update: async (name: string, definition: Record<string, unknown>) =>
    outside.update(emulator, await idOf(name), name, definition),
  create: async (name: string) => void (await outside.create(emulator, name)),
  delete: async (name: string) => outside.delete(emulator, await idOf(name)),
};

async function idOf(name: string): Promise<string> {
  const found = (await storedAudiences(emulator)).find((audience) => audience.name === name);
  if (!found) throw new Error(`no audience named ${name}`);
  return found.id;
}

interface JsonChange {
  action: string;
  name: string;
  drift?: true;
}

const base = `adAccountId: 1234
prune: true
audiences:
  - name: seoul-20s
    type: DISPLAY
    ages: [20, 25]
  - name: weekend
    type: DISPLAY
  - name: evening
    type: DISPLAY
    ages: [30]
  - name: banner
    type: DISPLAY
    ufoInterests: [GAME]
`;

// The pull request's own edits: banner's interests, and evening's ages (also changed outside:
// the update is not the one the base would make, so it is the change's own).
const head = base.replace('ufoInterests: [GAME]', 'ufoInterests: [GAME, TRAVEL]').replace('ages: [30]', 'ages: [35]');

/**
 * The account of `base` applied from the branch main; then, in the ad manager: seoul-20s and
 * evening edited, weekend deleted, made-outside created; then the pull request's commit.
 */
async function driftedAccount(file = 'accounts/shop.yaml'): Promise<string> {
  const cwd = await repository({ [file]: base });
  expect((await runCli(['apply', '-f', file, '--auto-approve'], { cwd, env })).code).toBe(0);
  await edit.update('seoul-20s', { ageType: 'NOT_ALL', ages: ['20', '25', '30'] });
  await edit.update('evening', { ageType: 'NOT_ALL', ages: ['40'] });
  await edit.delete('weekend');
  await edit.create('made-outside');
  await commitChange(cwd, { [file]: head });
  return cwd;
}

const DRIFTED = ['delete made-outside', 'update seoul-20s', 'create weekend'];
const OWN = ['update banner', 'update evening'];

describe('plan --base: changes made outside the tool are labelled', () => {
  it('marks each change the base would make too, in its own section of the text and the comment and as "drift": true in JSON', async () => {
    const cwd = await driftedAccount();
    const file = ['-f', 'accounts/shop.yaml'];

    const json = await runCli(['plan', ...file, '--base', 'main', '--format', 'json'], { cwd, env });
    expect(json.code, json.stderr).toBe(0);
    const changes = (JSON.parse(json.stdout) as Array<{ changes: JsonChange[]; origin: unknown }>)[0]?.changes ?? [];
    const titled = (change: JsonChange) => `${change.action} ${change.name}`;
    expect(changes.filter((change) => change.drift === true).map(titled)).toEqual(DRIFTED);
    expect(changes.filter((change) => !('drift' in change)).map(titled)).toEqual(OWN);

    const text = await runCli(['plan', ...file, '--base', 'main'], { cwd, env });
    expect(text.code).toBe(0);
    const [ownPart, driftPart = ''] = text.stdout.split('Changed outside the tool:\n');
    expect(driftPart.split('\n')[0]).toBe(
      'The files at main would make these 3 changes too: each undoes a change made outside the tool (in the ad manager), not one under review.',
    );
    const titles = (part: string | undefined) =>
      (part ?? '')
        .split('\n')
        .flatMap((line) => /^ {2}[-+~] (\w+) audience "([^"]+)"/.exec(line)?.slice(1, 3).join(' ') ?? []);
    expect(titles(ownPart)).toEqual(OWN);
    expect(titles(driftPart)).toEqual(DRIFTED);

    const markdown = await runCli(['plan', ...file, '--base', 'main', '--format', 'markdown'], { cwd, env });
    const [ownRows, driftRows] = markdown.stdout
      .split('#### Changed outside the tool\n')
      .map((part) => part.split('\n').filter((line) => line.startsWith('| `')));
    expect(ownRows?.map((row) => /audience "([^"]+)"/.exec(row)?.[1])).toEqual(['banner', 'evening']);
    expect(driftRows?.map((row) => /audience "([^"]+)"/.exec(row)?.[1])).toEqual([
      'made-outside',
      'seoul-20s',
      'weekend',
    ]);
  });

  it('without a base plans exactly as before: no section, no mark, the same changes', async () => {
    const cwd = await driftedAccount();
    const withBase = JSON.parse(
      (await runCli(['plan', '-f', 'accounts/shop.yaml', '--base', 'main', '--format', 'json'], { cwd, env })).stdout,
    ) as Array<{ changes: JsonChange[] }>;
    const plain = await runCli(['plan', '-f', 'accounts/shop.yaml', '--format', 'json'], { cwd, env });
    const withoutBase = JSON.parse(plain.stdout) as Array<{ changes: JsonChange[] }>;
    expect(withoutBase[0]?.changes).toEqual(withBase[0]?.changes.map(({ drift: _drift, ...change }) => change));
    const text = await runCli(['plan', '-f', 'accounts/shop.yaml'], { cwd, env });
    expect(text.stdout).not.toContain('Changed outside the tool');
  });

  it('a saved plan keeps the marks: show prints the comment and the JSON the plan printed', async () => {
    const cwd = await driftedAccount();
    const planned = await runCli(
      [
        'plan',
        '-f',
        'accounts/shop.yaml',
        '--base',
        'main',
        '--format',
        'markdown',
        '--commit',
        '0123abc',
        '--out',
        'plan.json',
      ],
      { cwd, env },
    );
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('#### Changed outside the tool');
    const shown = await runCli(['show', 'plan.json', '--format', 'markdown'], { cwd, env: {} });
    expect(shown).toEqual({ code: 0, stdout: planned.stdout, stderr: '' });
    const json = JSON.parse(
      (await runCli(['show', 'plan.json', '--format', 'json'], { cwd, env: {} })).stdout,
    ) as Array<{ changes: JsonChange[]; origin: unknown }>;
    expect(
      json[0]?.changes.filter((change) => change.drift).map((change) => `${change.action} ${change.name}`),
    ).toEqual(DRIFTED);
    expect(json[0]?.origin).toEqual({ files: ['accounts/shop.yaml'], commit: '0123abc', base: 'main' });
    // What the saved plan says is what it does: it applies, reverting the outside edits too.
    expect((await runCli(['apply', 'plan.json'], { cwd, env })).code).toBe(0);
    expect((await runCli(['plan', '-f', 'accounts/shop.yaml', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('reads the account once for the file and its base', async () => {
    const cwd = await driftedAccount();
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    expect((await runCli(['plan', '-f', 'accounts/shop.yaml', '--base', 'main'], { cwd, env })).code).toBe(0);
    const { requests } = (await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as {
      requests: Array<{ method: string; path: string }>;
    };
    const reads = requests.map((request) => `${request.method} ${request.path}`);
    expect(reads.filter((read) => read.endsWith('/targetings/audiences'))).toHaveLength(1);
    expect(new Set(reads).size).toBe(reads.length);
  });
});

describe('plan --base: a base that cannot be compared', () => {
  const file = 'adAccountId: 1234\naudiences:\n  - { name: fresh, type: DISPLAY }\n';

  it('a file the base does not hold: everything it plans is the change’s own, planned as without a base', async () => {
    const cwd = await repository({ 'README.md': 'x\n' });
    await commitChange(cwd, { 'accounts/new.yaml': file });
    const withBase = await runCli(['plan', '-f', 'accounts/new.yaml', '--base', 'main'], { cwd, env });
    expect(withBase.code, withBase.stderr).toBe(0);
    expect(withBase.stdout).toBe((await runCli(['plan', '-f', 'accounts/new.yaml'], { cwd, env })).stdout);
  });

  it('a file not valid at the base: nothing marked, and the plan says why', async () => {
    const cwd = await repository({
      'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - { name: fresh, type: DISPLAYS }\n',
    });
    await commitChange(cwd, { 'audiences.yaml': file });
    const result = await runCli(['plan', '--base', 'main', '--format', 'json'], { cwd, env });
    expect(result.code, result.stderr).toBe(0);
    const [plan] = JSON.parse(result.stdout) as Array<{
      changes: JsonChange[];
      warnings: Array<{ code: string; message: string }>;
    }>;
    expect(plan?.changes.map((change) => [change.name, change.drift])).toEqual([['fresh', undefined]]);
    expect(plan?.warnings).toEqual([
      expect.objectContaining({
        code: 'BASE_NOT_PLANNED',
        message: expect.stringMatching(
          /^the file at main cannot be compared with: it is not valid there \(line 3, column/,
        ),
      }),
    ]);
  });

  it('a ref the repository lacks, or a file in no repository: a user error with code and hint, nothing planned', async () => {
    const cwd = await repository({ 'audiences.yaml': file });
    const missing = await runCli(['plan', '--base', 'no-such-branch'], { cwd, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'error[BASE_REF_NOT_FOUND]: the base no-such-branch is not a commit of the repository that holds audiences.yaml',
    );
    expect(missing.stderr).toContain('hint: name a branch, tag or commit the clone holds; a shallow clone');
    expect(missing.stdout).toBe('');

    // A ref spelt as an option is a ref: git writes no file.
    const option = await runCli(['plan', '--base=--output=leak.txt'], { cwd, env });
    expect(option.stderr).toContain('error[BASE_REF_NOT_FOUND]');
    expect(existsSync(join(cwd, 'leak.txt'))).toBe(false);

    const outsideGit = await workspace({ 'audiences.yaml': file });
    const notGit = await runCli(['plan', '--base', 'main', '--format', 'markdown'], { cwd: outsideGit, env });
    expect(notGit.code).toBe(1);
    expect(notGit.stderr).toContain(
      'error[BASE_NOT_IN_GIT]: --base reads each file at a git ref, but audiences.yaml is in no git repository',
    );
    expect(notGit.stdout).toContain(
      ':x: **The plan failed: error[BASE\\_NOT\\_IN\\_GIT]**: --base reads each file at a git ref',
    );
  });
});

describe('plan --base: a change cannot loosen the guard it is checked by', () => {
  const names = Array.from({ length: 10 }, (_, index) => `audience-${index}`);
  const fileOf = (kept: string[], guard = '') =>
    `adAccountId: 1234\nprune: true\n${guard}audiences:\n${kept.map((name) => `  - { name: ${name}, type: DISPLAY }\n`).join('')}`;

  it('holds a file that raises massDelete while deleting 7 of 10 to the base’s 30%, says so, and lets one run allow it', async () => {
    const cwd = await repository({ 'audiences.yaml': fileOf(names) });
    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    await commitChange(cwd, { 'audiences.yaml': fileOf(names.slice(0, 3), 'massDelete: { percent: 100 }\n') });

    // The file alone lets itself through: what the base guards against.
    expect((await runCli(['plan'], { cwd, env })).code).toBe(0);

    const refused = await runCli(['plan', '--base', 'main'], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'error[MASS_DELETE]: the plan deletes 7 of the 10 managed audiences (70%), more than the 30% allowed (held to the stricter guard of the base until the change is merged: see MASS_DELETE_LOOSENED)',
    );
    expect(refused.stdout).toContain("set the account's guard in the file (`massDelete: { percent, minimum }`)");
    expect(refused.stdout).toContain(
      'warning[MASS_DELETE_LOOSENED]: the file loosens the mass-delete guard (massDelete percent 100, minimum 10; at main, percent 30, minimum 10): until the change is merged, the stricter of the two holds, percent 30, minimum 10',
    );

    const allowed = await runCli(['plan', '--base', 'main', '--allow-mass-delete', '--format', 'markdown'], {
      cwd,
      env,
    });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain(
      '- :warning: warning\\[MASS\\_DELETE\\_LOOSENED\\]: the file loosens the mass-delete guard',
    );
  });

  it('holds a file renamed in the change, or not valid at the base, to the default guard: moving the file cannot loosen it', async () => {
    const cwd = await repository({ 'audiences.yaml': fileOf(names) });
    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    git(cwd, 'mv', 'audiences.yaml', 'team.yaml');
    await commitChange(cwd, { 'team.yaml': fileOf(names.slice(0, 3), 'massDelete: { percent: 100 }\n') });

    const renamed = await runCli(['plan', '-f', 'team.yaml', '--base', 'main'], { cwd, env });
    expect(renamed.code).toBe(1);
    expect(renamed.stdout).toContain(
      'error[MASS_DELETE]: the plan deletes 7 of the 10 managed audiences (70%), more than the 30% allowed',
    );
    expect(renamed.stdout).toContain(
      'warning[MASS_DELETE_LOOSENED]: the file loosens the mass-delete guard (massDelete percent 100, minimum 10; at main, no file of this name, so the default, percent 30, minimum 10)',
    );

    // The file at main broken, and repaired in the change that loosens the guard.
    git(cwd, 'checkout', '--quiet', 'main');
    await writeFile(join(cwd, 'audiences.yaml'), 'adAccountId: 1234\naudiences:\n  - { name: x, type: DISPLAYS }\n');
    git(cwd, 'commit', '--quiet', '-am', 'a file not valid');
    git(cwd, 'checkout', '--quiet', '-b', 'repair');
    await writeFile(join(cwd, 'audiences.yaml'), fileOf(names.slice(0, 3), 'massDelete: { percent: 100 }\n'));
    const repaired = await runCli(['plan', '--base', 'main'], { cwd, env });
    expect(repaired.code).toBe(1);
    expect(repaired.stdout).toContain('at main, no file it can plan, so the default, percent 30, minimum 10');
    expect(repaired.stdout).toContain('the mass-delete guard is the stricter of the file');
  });

  it('takes the stricter of each part, and says nothing of a file that tightens the guard', async () => {
    const cwd = await repository({ 'audiences.yaml': fileOf(names, 'massDelete: { percent: 50, minimum: 10 }\n') });
    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    // A lower minimum is stricter (the guard applies to smaller accounts); a higher share is looser.
    await commitChange(cwd, {
      'audiences.yaml': fileOf(names.slice(0, 6), 'massDelete: { percent: 60, minimum: 0 }\n'),
    });
    const loosened = await runCli(['plan', '--base', 'main'], { cwd, env });
    expect(loosened.code).toBe(0);
    expect(loosened.stdout).toContain(
      'until the change is merged, the stricter of the two holds, percent 50, minimum 0',
    );

    await commitChange(cwd, {
      'audiences.yaml': fileOf(names.slice(0, 6), 'massDelete: { percent: 10, minimum: 0 }\n'),
    });
    const tightened = await runCli(['plan', '--base', 'main'], { cwd, env });
    expect(tightened.code).toBe(1);
    expect(tightened.stdout).toContain('more than the 10% allowed');
    expect(tightened.stdout).not.toContain('MASS_DELETE_LOOSENED');
  });
});
