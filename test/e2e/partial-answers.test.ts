/**
 * Answers that are not whole are never planned as the account (issue 31): lists whose content
 * is null or missing, lists answered in pages (followed when they say how, refused when they
 * do not), lists that name an id twice, of audiences and of ad groups alike; an audience
 * deleted between the list and its read; an unlink whose link is already gone. Each runs the
 * real CLI against the emulator answering that shape (SPEC.md, Lists).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AudienceClient } from '../../src/api/audiences.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { Plan } from '../../src/plan/index.js';
import { startProxy } from '../api/support.js';
import { definition } from '../helpers/builders.js';
import { applyThrough, emulatorEnv, runInProcess, workspace } from '../helpers/cli.js';
import { connectClient, linkAdGroup, setFaults, storedAudiences, type LiveClient } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;
let live: LiveClient;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
  live = connectClient(emulator);
});
afterEach(async () => {
  await live.close();
  await emulator.close();
});

/** Makes audiences of these names (everyone, DISPLAY); their ids by name. */
async function make(...names: string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const name of names) ids[name] = (await live.client.create(definition({ name }))).id;
  return ids;
}

/** A file declaring these audiences (DISPLAY, everyone), with `adGroups` where given. */
function file(
  audiences: Array<string | { name: string; adGroups: number[] }>,
  options: { prune?: boolean } = {},
): string {
  const entries = audiences.map((entry) =>
    typeof entry === 'string'
      ? `  - name: ${entry}\n    type: DISPLAY\n`
      : `  - name: ${entry.name}\n    type: DISPLAY\n    adGroups: [${entry.adGroups.join(', ')}]\n`,
  );
  return `adAccountId: 1234\nprune: ${options.prune === true}\naudiences:\n${entries.join('')}`;
}

async function storedNames(): Promise<string[]> {
  return (await storedAudiences(emulator)).map((audience) => audience.name).sort();
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function planOf(stdout: string): Plan {
  return (JSON.parse(stdout) as Plan[])[0] as Plan;
}

describe('a list that is not whole is never planned as the account', () => {
  it('content null: plan, apply and import stop before any write, and nothing is created again', async () => {
    await make('kept');
    const cwd = await workspace({ 'audiences.yaml': file(['kept', 'new']) });
    await setFaults(emulator, { audienceListShape: 'null-content' });
    for (const args of [
      ['plan'],
      ['apply', '--auto-approve'],
      ['import', '--ad-account', '1234', '-o', 'imported.yaml'],
    ]) {
      const run = await runInProcess(args, { cwd, env });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(
        'error[LIST_INCOMPLETE]: the audience API did not answer the whole list of audiences (GET /openapi/v4/targetings/audiences): its answer has content null, not a list',
      );
      expect(run.stderr).toContain('hint: the command stopped before changing or writing anything');
    }
    expect(await storedNames()).toEqual(['kept']);
    expect(await exists(join(cwd, 'imported.yaml'))).toBe(false);
  });

  it('content missing: the same error, not an unexpected body', async () => {
    await make('kept');
    const cwd = await workspace({ 'audiences.yaml': file(['kept']) });
    await setFaults(emulator, { audienceListShape: 'missing-content' });
    const planned = await runInProcess(['plan', '--format', 'json'], { cwd, env });
    expect(planned.code).toBe(1);
    expect(JSON.parse(planned.stdout)).toMatchObject({
      error: { code: 'LIST_INCOMPLETE', summary: expect.stringContaining('its answer has no content') },
    });
  });

  it('a paged list is followed to its last page: no duplicates, the prune finds the audience on the last page, import writes them all', async () => {
    await make('a', 'b', 'c', 'd', 'e', 'stale');
    await setFaults(emulator, { audienceListShape: 'paged', pageSize: 2 });
    const cwd = await workspace({ 'audiences.yaml': file(['a', 'b', 'c', 'd', 'e'], { prune: true }) });
    const planned = await runInProcess(['plan', '--format', 'json'], { cwd, env });
    expect(planned.code).toBe(0);
    expect(planOf(planned.stdout).changes.map((change) => `${change.action} ${change.name}`)).toEqual(['delete stale']);

    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd, env });
    expect(imported.stderr).toBe('Imported 6 audiences of ad account 1234 into imported.yaml.\n');
    expect((await readFile(join(cwd, 'imported.yaml'), 'utf8')).match(/^ {2}- name: .*$/gm)).toEqual([
      '  - name: a',
      '  - name: b',
      '  - name: c',
      '  - name: d',
      '  - name: e',
      '  - name: stale',
    ]);

    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect(await storedNames()).toEqual(['a', 'b', 'c', 'd', 'e']);
    const after = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(after.stdout).toContain('No changes');
    expect(after.code).toBe(0);
  });

  it("a list in Spring's PagedModel shape (the numbers under page) is followed to its last page too, of audiences and of ad groups", async () => {
    const { a } = await make('a', 'b', 'c', 'd', 'e', 'stale');
    for (const adGroupId of [101, 102, 105]) await linkAdGroup(emulator, a as string, adGroupId);
    await setFaults(emulator, { audienceListShape: 'paged-model', adGroupListShape: 'paged-model', pageSize: 2 });
    const cwd = await workspace({
      'audiences.yaml': file([{ name: 'a', adGroups: [101] }, 'b', 'c', 'd', 'e'], { prune: true }),
    });
    const planned = await runInProcess(['plan', '--format', 'json'], { cwd, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(
      planOf(planned.stdout).changes.map(
        (change) => `${change.action} ${change.name}${change.action === 'unlink' ? ` ${change.adGroupId}` : ''}`,
      ),
    ).toEqual(['unlink a 102', 'unlink a 105', 'delete stale']);
    const imported = await runInProcess(['import', '--ad-account', '1234'], { cwd, env });
    expect(imported.stdout.match(/^ {2}- name: .*$/gm)).toHaveLength(6);
  });

  it('a paged list of ad groups is followed too: every ad group the file leaves out is unlinked', async () => {
    const { a } = await make('a');
    for (const adGroupId of [101, 102, 105]) await linkAdGroup(emulator, a as string, adGroupId);
    await setFaults(emulator, { adGroupListShape: 'paged', pageSize: 2 });
    const cwd = await workspace({ 'audiences.yaml': file([{ name: 'a', adGroups: [101] }]) });
    const planned = await runInProcess(['plan', '--format', 'json'], { cwd, env });
    expect(
      planOf(planned.stdout).changes.map((change) => (change.action === 'unlink' ? change.adGroupId : change.action)),
    ).toEqual(['102', '105']);
  });

  it('one page of several that does not say how to ask for the next: plan, apply and import stop, naming what the page said', async () => {
    await make('a', 'b', 'c');
    await setFaults(emulator, { audienceListShape: 'paged-unfollowable', pageSize: 2 });
    const cwd = await workspace({ 'audiences.yaml': file(['a', 'b', 'c', 'd'], { prune: true }) });
    for (const args of [
      ['plan'],
      ['apply', '--auto-approve'],
      ['import', '--ad-account', '1234', '-o', 'imported.yaml'],
    ]) {
      const run = await runInProcess(args, { cwd, env });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain('error[LIST_INCOMPLETE]');
      expect(run.stderr).toContain(
        'its answer is one page of several (2 pages, 3 in all, not the last) and does not say how to ask for the others',
      );
    }
    expect(await storedNames()).toEqual(['a', 'b', 'c']);
    expect(await exists(join(cwd, 'imported.yaml'))).toBe(false);
  });

  it('an answer that lists an id twice is an error naming it, in import and plan alike', async () => {
    const { first } = await make('first', 'second');
    await setFaults(emulator, { audienceListShape: 'duplicate-ids' });
    const cwd = await workspace({ 'audiences.yaml': file(['second']) });
    for (const args of [['import', '--ad-account', '1234'], ['plan']]) {
      const run = await runInProcess(args, { cwd, env });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(
        `error[LIST_DUPLICATE_IDS]: the audience API listed audience ${first} more than once in one answer (GET /openapi/v4/targetings/audiences)`,
      );
    }
  });

  it('the ad groups of an audience are read under the same rules: null content, or an ad group twice, stops the plan', async () => {
    const { a } = await make('a');
    for (const adGroupId of [101, 102]) await linkAdGroup(emulator, a as string, adGroupId);
    const cwd = await workspace({ 'audiences.yaml': file([{ name: 'a', adGroups: [101] }]) });
    await setFaults(emulator, { adGroupListShape: 'null-content' });
    const nulled = await runInProcess(['plan'], { cwd, env });
    expect(nulled.code).toBe(1);
    expect(nulled.stderr).toContain(
      `error[LIST_INCOMPLETE]: the audience API did not answer the whole list of ad groups of audience ${a} (GET /openapi/v4/targetings/${a}/adGroups)`,
    );
    await setFaults(emulator, { adGroupListShape: 'duplicate-ids' });
    const twice = await runInProcess(['plan'], { cwd, env });
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(
      'error[LIST_DUPLICATE_IDS]: the audience API listed ad group 101 more than once in one answer',
    );
  });
});

describe('an audience deleted between the list and its read is gone, not a failure of the command', () => {
  it('plan and apply: a declared one is created anew, a pruned one is left alone as gone, each with a warning', async () => {
    const ids = await make('declared', 'pruned', 'kept');
    const cwd = await workspace({ 'audiences.yaml': file(['declared', 'kept'], { prune: true }) });
    await setFaults(emulator, { vanishOnRead: [ids['declared'], ids['pruned']] });
    const planned = await runInProcess(['plan', '--format', 'json'], { cwd, env });
    expect(planned.code).toBe(0);
    const plan = planOf(planned.stdout);
    expect(plan.changes.map((change) => `${change.action} ${change.name}`)).toEqual(['create declared']);
    expect(plan.warnings).toEqual([
      {
        code: 'AUDIENCE_GONE',
        name: 'declared',
        message: `audience "declared" (id ${ids['declared']}) was deleted while the plan read the account (listed, then not found when read): the plan creates "declared" anew`,
        hint: 'if it was deleted on purpose, remove it from the file; otherwise applying the plan makes it again',
      },
      {
        code: 'AUDIENCE_GONE',
        name: 'pruned',
        message: `audience "pruned" (id ${ids['pruned']}) was deleted while the plan read the account (listed, then not found when read): there is nothing left to delete`,
      },
    ]);

    // The plan's reads deleted both; made again, they vanish as an apply reads them.
    const again = await make('declared', 'pruned');
    await setFaults(emulator, { vanishOnRead: [again['declared'], again['pruned']] });
    const applied = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(applied.stdout).toContain(
      `warning[AUDIENCE_GONE]: audience "declared" (id ${again['declared']}) was deleted while the plan read the account`,
    );
    expect(applied.code).toBe(0);
    const stored = await storedAudiences(emulator);
    expect(stored.map((audience) => audience.name).sort()).toEqual(['declared', 'kept']);
    expect(stored.find((audience) => audience.name === 'declared')?.id).not.toBe(again['declared']);
  });

  it('import leaves it out with a note in the file and a warning, and exits 0', async () => {
    const { gone } = await make('gone', 'stays');
    await setFaults(emulator, { vanishOnRead: [gone] });
    const cwd = await workspace({});
    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd, env });
    expect(imported.code).toBe(0);
    const reason = 'it was deleted while the account was read (listed, then not found when read)';
    expect(imported.stderr).toContain(`warning: "gone" (id ${gone}) was not imported: ${reason}`);
    const text = await readFile(join(cwd, 'imported.yaml'), 'utf8');
    expect(text).toContain(`# Not imported: "gone" (id ${gone}): ${reason}.`);
    expect(text.match(/^ {2}- name: .*$/gm)).toEqual(['  - name: stays']);
  });

  it('import: an audience whose read answers 404 while a second list still has it is left out as unreadable, never as deleted', async () => {
    const { unreadable } = await make('unreadable', 'stays');
    // A proxy answers the service's 404 to its read only: the account still lists it.
    const proxy = await startProxy(emulator.url, (request) =>
      request === `GET /openapi/v4/targetings/${unreadable}`
        ? {
            status: 404,
            body: { code: -404, msg: 'Not Found', extras: { detailCode: 3001, detailMsg: 'audience not found' } },
          }
        : 'pass',
    );
    try {
      const cwd = await workspace({});
      const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], {
        cwd,
        env: { ...env, ADS_API_URL: proxy.url },
      });
      expect(imported.code, imported.stderr).toBe(0);
      const reason = 'it cannot be read: the service answered 404 (not found) for it, yet the account still lists it';
      expect(imported.stderr).toContain(`warning: "unreadable" (id ${unreadable}) was not imported: ${reason}`);
      expect(imported.stderr).not.toContain('deleted');
      const text = await readFile(join(cwd, 'imported.yaml'), 'utf8');
      expect(text).toContain(`# Not imported: "unreadable" (id ${unreadable}): ${reason}.`);
      expect(text.match(/^ {2}- name: .*$/gm)).toEqual(['  - name: stays']);
      // The second list that tells it apart.
      expect(proxy.seen.filter((request) => request.startsWith('GET /openapi/v4/targetings/audiences'))).toHaveLength(
        2,
      );
    } finally {
      await proxy.close();
    }
    expect(await storedNames()).toEqual(['stays', 'unreadable']);
  });

  it('a saved plan whose audience is deleted while the plan is checked is stale, and nothing is changed', async () => {
    const { a } = await make('a');
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n  - name: a\n    type: DISPLAY\n    genders: [F]\n`,
    });
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    await setFaults(emulator, { vanishOnRead: [a] });
    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('error[PLAN_STALE]');
    expect(applied.stderr).toContain(`audience ${a} no longer exists`);
    expect(await storedNames()).toEqual([]);
  });
});

describe('an unlink whose link is already gone', () => {
  it('is done, saying so; an unlink from an audience that no longer exists stays an error', async () => {
    const { a, b } = await make('a', 'b');
    for (const adGroupId of [101, 102]) await linkAdGroup(emulator, a as string, adGroupId);
    for (const adGroupId of [101, 105]) await linkAdGroup(emulator, b as string, adGroupId);
    const cwd = await workspace({
      'audiences.yaml': file([
        { name: 'a', adGroups: [101] },
        { name: 'b', adGroups: [101] },
      ]),
    });
    // Just as the unlinks are sent, someone unlinks ad group 102 from a, and deletes b. (Done while the plan waited at
    // its prompt, this would make the approved plan stale, and nothing would be unlinked.)
    let meanwhile: Promise<void> | undefined;
    const elsewhere = async (): Promise<void> => {
      await live.client.unlink(a as string, '102');
      for (const adGroupId of ['101', '105']) await live.client.unlink(b as string, adGroupId);
      await live.client.delete(b as string);
    };
    const client: AudienceClient = {
      ...live.client,
      unlink: async (id, adGroupId) => {
        await (meanwhile ??= elsewhere());
        return live.client.unlink(id, adGroupId);
      },
    };
    const applied = await applyThrough(cwd, client);
    expect(applied.stderr).toMatch(
      new RegExp(
        `^ok {6}unlink ad group 102 from audience "a" \\(id ${a}\\): the link was already gone: the unlink answered 404 \\(.*ad group 102 does not use audience ${a}\\), and the audience's ad groups, listed then, do not hold ad group 102$`,
        'm',
      ),
    );
    expect(applied.stderr).toMatch(
      new RegExp(
        `^FAILED {2}unlink ad group 105 from audience "b" \\(id ${b}\\): the audience API answered 404 .*audience ${b} not found`,
        'm',
      ),
    );
    expect(applied.stdout).toContain('Apply incomplete for ad account 1234: 1 done, 1 failed, 0 skipped.');
    expect(applied.code).toBe(1);
  });
});
