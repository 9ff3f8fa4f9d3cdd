import { execFileSync } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoggedRequest, RunningEmulator } from '../../src/emulator/server.js';
import { takeApplyLocks } from '../../src/operations/apply-lock.js';
import { emulatorEnv, emulatorRoute, loggedRequests, runCli, runInProcess, workspace } from '../helpers/cli.js';

const desired = `adAccountId: 1234
prune: true
ignore: ["legacy-*"]
audiences:
  - name: seoul-women-20s
    type: DISPLAY
    ages: [20, 25]
    genders: [F]
    locations: [I]
  - name: busan-travellers
    type: DISPLAY
    locations: [H]
    ufoInterests: [TRAVEL]
`;

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

async function createDirectly(name: string): Promise<number> {
  const response = await fetch(`${emulator.url}/openapi/v4/targetings`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${emulator.accessToken}`,
      adAccountId: '1234',
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      adAccountId: 1234,
      name,
      type: 'DISPLAY',
      ageType: 'ALL',
      genderType: 'ALL',
      locationType: 'ALL',
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: number }).id;
}

describe('validate, plan and apply through the real CLI', () => {
  it('plans, applies and then plans no changes; a drift is planned and repaired', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    expect((await runCli(['validate'], { cwd, env })).code).toBe(0);

    const first = await runCli(['plan', '--detailed-exitcode'], { cwd, env });
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('+ create audience "seoul-women-20s"');
    expect(first.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete, 0 to unlink.');

    const apply = await runCli(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(0);
    expect(apply.stderr).toMatch(/ok +create audience "busan-travellers" \(id \d+\)/);
    expect(apply.stdout).toContain('Apply complete for ad account 1234: 2 done, 0 failed, 0 skipped.');

    const again = await runCli(['plan', '--detailed-exitcode'], { cwd, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');

    const stray = await createDirectly('stray');
    await createDirectly('legacy-kept');
    const drift = await runCli(['plan', '--format', 'json'], { cwd, env });
    const [plan] = JSON.parse(drift.stdout) as Array<{ changes: Array<{ action: string; id: string }> }>;
    expect(plan?.changes).toEqual([expect.objectContaining({ action: 'delete', id: String(stray) })]);
    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect((await runCli(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('unlinks the ad groups of an audience before deleting it', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\nprune: true\nallowMassDelete: false\naudiences: []\n'.replace(
        'allowMassDelete: false\n',
        '',
      ),
    });
    const id = await createDirectly('linked');
    await emulatorRoute(emulator, 'POST', '/_emulator/links', { adAccountId: 1234, audienceId: id, adGroupId: 101 });
    const plan = await runCli(['plan'], { cwd, env });
    expect(plan.stdout).toMatch(/- unlink ad group 101 from audience "linked"[\s\S]*- delete audience "linked"/);
    const apply = await runCli(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(0);
    expect(apply.stderr.indexOf('unlink ad group 101')).toBeLessThan(apply.stderr.indexOf('delete audience "linked"'));
  });

  it('applies a saved plan once, and refuses it as stale when the account changed', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    expect((await runCli(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    const saved = await readFile(join(cwd, 'plan.json'), 'utf8');
    expect(saved).not.toContain(emulator.accessToken);

    await createDirectly('seoul-women-20s');
    const stale = await runCli(['apply', 'plan.json'], { cwd, env });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale');
    expect(stale.stderr).toContain('"seoul-women-20s" now exists');
    const list = (await (await fetch(`${emulator.url}/_emulator/state`)).text()).match(/"name":"busan-travellers"/g);
    expect(list).toBeNull();
  });

  it('applies a saved plan that renames an audience and creates another under its old name', async () => {
    const id = await createDirectly('spring');
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n  - name: spring-2025\n    id: ${id}\n    type: DISPLAY\n  - name: spring\n    type: DISPLAY\n`,
    });
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env });
    expect(applied.stderr).toContain(`ok      update audience "spring-2025" (id ${id})`);
    expect(applied.stderr).toMatch(/ok {6}create audience "spring" \(id \d+\)/);
    expect(applied.code).toBe(0);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('asks before applying on a terminal: only `yes` proceeds', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    const refused = await runInProcess(['apply'], { cwd, env, tty: true, answers: ['y'] });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('Apply cancelled: nothing was changed.');
    expect((await runCli(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(2);

    const accepted = await runInProcess(['apply'], { cwd, env, tty: true, answers: ['yes'] });
    expect(accepted.code).toBe(0);
    expect((await runCli(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('refuses to apply unattended without --auto-approve', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    const result = await runCli(['apply'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[NOT_APPROVED]');
    expect((await runCli(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(2);
  });

  it('explains an unreachable service, a bad token and a missing service in one paragraph, without a stack trace', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    const none = await runCli(['plan'], { cwd });
    expect(none.stderr).toContain('--emulator');
    expect(none.stderr).toContain('ADS_API_URL');
    const badToken = await runCli(['plan'], { cwd, env: { ...env, ADS_ACCESS_TOKEN: 'canary-token-5f3a9' } });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toMatch(/401/);
    expect(badToken.stderr).not.toContain('canary-token-5f3a9');
    const unreachable = await runCli(['plan'], { cwd, env: { ...env, ADS_API_URL: 'http://127.0.0.1:9' } });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/hint:/);
    for (const result of [none, badToken, unreachable]) expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('lists early the account of a file that starts with a byte-order mark or has CRLF line ends, as it reads them', async () => {
    // Invalid, so that a list comes only from the head's line, read before the file is checked.
    const invalid = 'adAccountId: 1234\naudiences:\n  - name: last\n    type: DISPLY\n';
    const crlf = invalid.replaceAll('\n', '\r\n');
    const list = { method: 'GET', path: '/openapi/v4/targetings/audiences', adAccountId: '1234' };
    for (const text of [`\ufeff${invalid}`, crlf, `\ufeff${crlf}`]) {
      const cwd = await workspace({ 'audiences.yaml': text });
      await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
      const result = await runCli(['plan'], { cwd, env });
      expect(result.stderr).toMatch(/^error\[CONFIG_INVALID\]: audiences\.yaml is not valid \(1 problem\)$/m);
      // The list of a command that has ended may arrive just after its exit.
      const deadline = Date.now() + 3000;
      while ((await loggedRequests(emulator)).length === 0 && Date.now() < deadline) await sleep(20);
      const requests = (await loggedRequests(emulator)).map(({ method, path, adAccountId }) => ({
        method,
        path,
        adAccountId,
      }));
      expect(requests, JSON.stringify(text)).toEqual([list]);
    }
  });

  it("rejects an invalid file before writing anything: the account's list, sent while the file was checked, is dropped quietly", async () => {
    // Enough audiences that checking the file takes a while, the list meanwhile on its way.
    const many = Array.from(
      { length: 400 },
      (_, index) => `  - name: audience-${index}\n    type: DISPLAY\n    locations: [I]\n`,
    ).join('');
    const invalid = `${desired}${many}  - name: last\n    type: DISPLY\n`;
    const requests = async () =>
      ((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: LoggedRequest[] }).requests;
    /** The log once `count` requests came (the list of a command that has ended may arrive just after its exit). */
    const logged = async (count: number) => {
      const deadline = Date.now() + 3000;
      while ((await requests()).length < count && Date.now() < deadline) await sleep(20);
      return (await requests()).map(({ method, path, adAccountId }) => ({ method, path, adAccountId }));
    };
    const list = { method: 'GET', path: '/openapi/v4/targetings/audiences', adAccountId: '1234' };
    // An apply lists the account its file's head names under that account's lock, taken before the file is checked;
    // when another apply holds the lock, the file's problems are said, not the lock, and nothing is read.
    for (const [command, requests, held] of [
      [['plan'], [list], false],
      [['apply', '--auto-approve'], [list], false],
      [['apply', '--auto-approve'], [], true],
    ] as const) {
      const cwd = await workspace({ 'audiences.yaml': invalid });
      const other = held ? await takeApplyLocks(cwd, [1234]) : undefined;
      await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
      const result = await runCli([...command], { cwd, env }).finally(other);
      expect(result.code, command[0]).toBe(1);
      expect(result.stderr).toMatch(/^error\[CONFIG_INVALID\]: audiences\.yaml is not valid \(1 problem\)$/m);
      expect(result.stderr).toMatch(/audiences\.yaml:\d+:\d+: /);
      expect(result.stderr).not.toContain('APPLY_LOCKED');
      expect(result.stdout).toBe('');
      expect(await logged(1), command[0]).toEqual(requests);
      // The lock it took is let go: another apply takes it.
      if (!held) await (await takeApplyLocks(cwd, [1234]))();
    }

    // An account the token may not use: its list's refusal is said for a valid file only, as before.
    const locked = invalid.replace('adAccountId: 1234', 'adAccountId: 9999');
    const cwd = await workspace({ 'audiences.yaml': locked, 'valid.yaml': desired.replace('1234', '9999') });
    const refused = await runCli(['plan'], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[CONFIG_INVALID]');
    expect(refused.stderr).not.toMatch(/403|2005|\n\s+at /);
    const valid = await runCli(['plan', '-f', 'valid.yaml'], { cwd, env });
    expect(valid.code).toBe(1);
    expect(valid.stderr).toMatch(/403/);
    expect(valid.stderr).not.toMatch(/\n\s+at /);

    // A valid file: the list sent early is the plan's one list.
    const good = await workspace({ 'audiences.yaml': desired });
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    expect((await runCli(['plan'], { cwd: good, env })).code).toBe(0);
    expect(await logged(1)).toEqual([list]);
  });
});

describe('--emulator', () => {
  it('keeps its state under .audiences/ so plan, apply and plan work across runs', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    expect((await runCli(['apply', '--emulator', '--auto-approve'], { cwd })).code).toBe(0);
    expect((await runCli(['plan', '--emulator', '--detailed-exitcode'], { cwd })).code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), desired.replace('[20, 25]', '[20, 25, 30]'));
    const changed = await runCli(['plan', '--emulator'], { cwd });
    expect(changed.stdout).toContain('~ update audience "seoul-women-20s"');
  });
});

describe('files the commands write and keep', () => {
  it('say which file cannot be written and why, leave no temporary file, and are no bug', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired, 'plans/.keep': '' });
    for (const [args, message] of [
      [
        ['plan', '--out', 'missing/p.json'],
        'error[FILE_WRITE]: cannot write missing/p.json: its folder does not exist',
      ],
      [['plan', '--out', 'plans'], 'error[FILE_WRITE]: cannot write plans: it is a folder'],
      [
        ['import', '--ad-account', '1234', '-o', 'missing/x.yaml'],
        'error[FILE_WRITE]: cannot write missing/x.yaml: its folder does not exist',
      ],
    ] as const) {
      const result = await runInProcess([...args], { cwd, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('  hint: ');
      expect(result.stderr).not.toContain('this is a bug');
    }
    expect((await readdir(cwd)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(await readdir(join(cwd, 'plans'))).toEqual(['.keep']);
  });

  it('plan --out replaces a plan saved before, and refuses any other file before reading the account', async () => {
    const cwd = await workspace({
      'audiences.yaml': desired,
      'notes.json': '{"mine": true}',
      'made-by-mktemp': '',
      'plans/.keep': '',
    });
    expect((await runInProcess(['plan', '--out', 'made-by-mktemp'], { cwd, env })).code).toBe(0);
    expect(JSON.parse(await readFile(join(cwd, 'made-by-mktemp'), 'utf8'))).toMatchObject([{ formatVersion: 2 }]);
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    for (const target of ['audiences.yaml', 'notes.json']) {
      const before = await readFile(join(cwd, target), 'utf8');
      const refused = await runInProcess(['plan', '--out', target], { cwd, env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`error[FILE_EXISTS]: ${target} already exists and is not a saved plan`);
      expect(await readFile(join(cwd, target), 'utf8')).toBe(before);
    }
    const folder = await runInProcess(['plan', '--out', 'plans'], { cwd, env });
    expect(folder.stderr).toContain('error[FILE_WRITE]: cannot write plans: it is a folder');
    expect(((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: unknown[] }).requests).toEqual(
      [],
    );
  });

  it('plan --out never replaces or opens a device or a FIFO', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    execFileSync('mkfifo', [join(cwd, 'pipe')]);
    for (const target of ['/dev/null', 'pipe']) {
      const refused = await runInProcess(['plan', '--out', target], { cwd, env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `error[FILE_EXISTS]: ${target} already exists and is not a regular file (a device, a FIFO or a socket)`,
      );
    }
    expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
    expect((await stat(join(cwd, 'pipe'))).isFIFO()).toBe(true);
  });

  it('name the state the emulator cannot use, and a file where its folder should be', async () => {
    const corrupt = await workspace({
      'audiences.yaml': desired,
      '.audiences/emulator-state.json': '{"version": 1, "accou',
    });
    const fromCorrupt = await runInProcess(['plan', '--emulator'], { cwd: corrupt, env: {} });
    expect(fromCorrupt.code).toBe(1);
    expect(fromCorrupt.stderr).toMatch(
      /^error\[EMULATOR_STATE\]: the emulator state file .*emulator-state\.json is corrupt/,
    );
    expect(fromCorrupt.stderr).toContain('hint: repair the file, or delete it');
    expect(await readFile(join(corrupt, '.audiences/emulator-state.json'), 'utf8')).toBe('{"version": 1, "accou');

    const blocked = await workspace({ 'audiences.yaml': desired, '.audiences': 'not a folder' });
    const fromBlocked = await runInProcess(['plan', '--emulator'], { cwd: blocked, env: {} });
    expect(fromBlocked.code).toBe(1);
    expect(fromBlocked.stderr).toMatch(
      /^error\[FILE_SYSTEM\]: cannot create the folder .*\.audiences: a file is in the way/,
    );
    for (const result of [fromCorrupt, fromBlocked]) expect(result.stderr).not.toContain('this is a bug');
  });
});

describe('ignore globs match names as plain text', () => {
  it('with prune, keeps every audience `legacy-*` names, `.` and `..` segments and slashes included, and deletes the rest', async () => {
    const kept = ['legacy-x/.', 'legacy-a/./b', 'legacy-../..', 'legacy-/', 'legacy-.'];
    for (const name of [...kept, 'other/./legacy-x', 'stale']) await createDirectly(name);
    const cwd = await workspace({ 'audiences.yaml': desired });

    const planned = await runInProcess(['plan', '--format', 'json'], { cwd, env });
    expect(planned.code).toBe(0);
    const [plan] = JSON.parse(planned.stdout) as Array<{ changes: Array<{ action: string; name: string }> }>;
    expect(plan?.changes.filter((change) => change.action === 'delete').map((change) => change.name)).toEqual([
      'other/./legacy-x',
      'stale',
    ]);

    const applied = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const state = (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as { audiences: Array<{ name: string }> };
    expect(state.audiences.map((audience) => audience.name).sort()).toEqual(
      [...kept, 'busan-travellers', 'seoul-women-20s'].sort(),
    );
  });
});

describe('names that print alike but are spelt otherwise (NFC and NFD)', () => {
  it('are the same audiences: a saved plan renames them to the file’s spelling, keeping ids and ad groups, where a delete and a create of each was refused as a mass delete', async () => {
    const looks = Array.from({ length: 12 }, (_, index) => `caf\u00e9-${index}`);
    const ids = new Map<string, number>();
    for (const look of looks) ids.set(look, await createDirectly(look.normalize('NFD')));
    await emulatorRoute(emulator, 'POST', '/_emulator/links', {
      adAccountId: 1234,
      audienceId: ids.get(looks[0] ?? ''),
      adGroupId: 101,
    });
    const file = `adAccountId: 1234\nprune: true\naudiences:\n${looks.map((look) => `  - { name: "${look}", type: DISPLAY }\n`).join('')}`;
    const cwd = await workspace({ 'audiences.yaml': file });

    const planned = await runInProcess(['plan', '--out', 'plan.json'], { cwd, env });
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('Plan: 0 to create, 12 to update, 0 to delete, 0 to unlink.');
    expect(planned.stdout).toContain(
      `warning[NAME_SPELLING]: audience "caf\u00e9-0" is the account's "cafe\u0301-0" (id ${ids.get(looks[0] ?? '')}): the names print alike but are spelt with other characters, the file's U+0063 U+0061 U+0066 U+00E9 U+002D U+0030 and the account's U+0063 U+0061 U+0066 U+0065 U+0301 U+002D U+0030`,
    );
    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('12 done, 0 failed');

    const state = (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as {
      audiences: Array<{ id: string; name: string }>;
      links: Array<{ audienceId: string; adGroupId: string }>;
    };
    expect(state.audiences.map((audience) => [audience.name, Number(audience.id)])).toEqual(
      looks.map((look) => [look, ids.get(look)]),
    );
    expect(state.links).toContainEqual({ audienceId: String(ids.get(looks[0] ?? '')), adGroupId: '101' });
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });
});

describe('a name someone else gave an audience cannot make the output lie', () => {
  it('shows a right-to-left override in a live name written out, in the text plan, the Markdown comment and the apply', async () => {
    const id = await createDirectly('refund\u202egnp.exe');
    const cwd = await workspace({ 'audiences.yaml': 'adAccountId: 1234\nprune: true\naudiences: []\n' });
    for (const format of ['text', 'markdown']) {
      const plan = await runInProcess(['plan', '--format', format], { cwd, env });
      expect(plan.stdout).toContain(`delete audience "refund\\u202egnp.exe" (id ${id})`);
      expect(plan.stdout).not.toContain('\u202e');
    }
    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(0);
    expect(apply.stderr).toContain(`ok      delete audience "refund\\u202egnp.exe" (id ${id})`);
    expect(apply.stdout + apply.stderr).not.toContain('\u202e');
  });
});
