import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess, workspace } from '../../test/helpers/cli.js';
import { temporaryDir } from '../../test/helpers/temporary.js';
import { plainStyle, renderPlans } from '../render/index.js';
import { SAVED_PLAN_MAX_BYTES, readSavedPlans } from './saved-plan.js';

const golden = fileURLToPath(new URL('../../test/golden/', import.meta.url));
const saved = (scenario: string) => readFile(join(golden, scenario, 'plan.json'), 'utf8');
const fixtures = fileURLToPath(new URL('../../test/fixtures/plans/', import.meta.url));

describe('readSavedPlans', () => {
  it('reads one saved plan or an array of them', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const plan = JSON.parse(await saved('prune-with-links')) as unknown;
    const other = { ...(plan as object), adAccountId: 5678 };
    await writeFile(join(dir, 'one.json'), JSON.stringify(plan));
    await writeFile(join(dir, 'two.json'), JSON.stringify([plan, other]));
    expect(await readSavedPlans('one.json', dir, 'apply')).toEqual([plan]);
    expect(await readSavedPlans('two.json', dir, 'apply')).toEqual([plan, other]);
  });

  it('reads a plan saved with a byte-order mark, as an editor may save it', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const plan = JSON.parse(await saved('prune-with-links')) as unknown;
    await writeFile(join(dir, 'plan.json'), `\uFEFF${JSON.stringify(plan)}`);
    expect(await readSavedPlans('plan.json', dir, 'apply')).toEqual([plan]);
  });

  it('reads a plan of format version 1, saved by the release before (ids as numbers), as the same plan of version 2', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const v1 = await readFile(join(fixtures, 'prune-with-links.v1.json'), 'utf8');
    expect(JSON.parse(v1)).toMatchObject({
      formatVersion: 1,
      changes: [{ id: 172, adGroupId: 911 }, { id: 172, adGroupId: 912 }, { id: 172 }, { id: 173 }],
    });
    await writeFile(join(dir, 'plan.json'), v1);
    // Version 1 had no estimate (the views then say none): the rest is the same plan.
    const current = JSON.parse(await saved('prune-with-links')) as Record<string, unknown>;
    delete current['estimate'];
    expect(await readSavedPlans('plan.json', dir, 'apply')).toEqual([current]);
  });

  it('refuses a plan of format version 1 that removes an image, which does not say which files it deletes', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const v1 = JSON.parse(await readFile(join(fixtures, 'prune-with-links.v1.json'), 'utf8')) as {
      changes: unknown[];
      summary: { remove: number };
    };
    const outputs = [{ path: 'assets/old.webp', sha256: 'a'.repeat(64) }];
    v1.changes.push({
      action: 'remove',
      kind: 'image',
      name: 'old',
      id: null,
      before: {
        requestHash: 'b'.repeat(64),
        request: { operation: 't2i', params: { prompt: 'old' }, inputs: {} },
        seeds: [1],
        modelVersion: 'v2.0',
        outputs,
      },
      after: null,
    });
    v1.summary.remove = 1;
    await writeFile(join(dir, 'plan.json'), JSON.stringify(v1));
    await expect(readSavedPlans('plan.json', dir, 'apply')).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      summary:
        'plan.json is not a saved plan: it is of format version 1 and removes an image, without saying which files that deletes: make the plan again with this version',
    });
    // Shown as it was saved: the files it meant to delete.
    const [shown] = await readSavedPlans('plan.json', dir, 'show');
    expect(shown?.changes.at(-1)).toMatchObject({ action: 'remove', deletes: ['assets/old.webp'] });
  });

  it('refuses to apply a plan of format version 1 that updates, which did not record what the update keeps; shows it', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const v1 = JSON.parse(await readFile(join(fixtures, 'prune-with-links.v1.json'), 'utf8')) as {
      changes: Array<Record<string, unknown>>;
      summary: { update: number };
    };
    const deleted = v1.changes.find((change) => change.action === 'delete') as Record<string, unknown>;
    const before = deleted['before'] as Record<string, unknown>;
    v1.changes.push({
      action: 'update',
      kind: 'audience',
      name: before['name'],
      id: deleted['id'],
      before,
      after: { ...before, ageType: 'NOT_ALL', ages: ['20'] },
      display: {
        fields: [
          { field: 'ageType', before: 'ALL', after: 'NOT_ALL' },
          { field: 'ages', before: [], after: ['20'], added: ['20'], removed: [] },
        ],
        impact: [],
      },
    });
    v1.summary.update = 1;
    await writeFile(join(dir, 'plan.json'), JSON.stringify(v1));
    await expect(readSavedPlans('plan.json', dir, 'apply')).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      summary:
        'plan.json is not a saved plan: it is of format version 1 and updates an audience without recording the fields the file cannot hold, which the update would lose: make the plan again with this version',
    });
    const [shown] = await readSavedPlans('plan.json', dir, 'show');
    expect(shown?.changes.at(-1)).toMatchObject({ action: 'update', kept: {} });
  });

  it('refuses a file with two plans of one account, which would apply its changes twice', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const plan = JSON.parse(await saved('prune-with-links')) as unknown;
    await writeFile(join(dir, 'plan.json'), JSON.stringify([plan, plan]));
    await expect(readSavedPlans('plan.json', dir, 'apply')).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      summary: 'plan.json is not a saved plan: ad account 1234 has two plans in it',
    });
  });

  it('refuses a plan that says other than it does, naming what, before anything is applied', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    const plan = JSON.parse(await saved('mixed')) as {
      changes: Array<{ action: string; name: string }>;
      summary: { create: number };
    };
    const create = plan.changes.find((change) => change.action === 'create');
    if (create) create.name = 'shown-but-not-made';
    plan.summary.create = 3;
    await writeFile(join(dir, 'plan.json'), JSON.stringify(plan));
    await expect(readSavedPlans('plan.json', dir, 'apply')).rejects.toMatchObject({
      code: 'PLAN_INVALID',
      summary:
        'plan.json is not a saved plan: in the plan of ad account 1234, the create of audience "shown-but-not-made": its name is not the one it creates ("new-parents"); its summary ({"create":3,"update":1,"delete":1,"unlink":2,"generate":0,"remove":0}) does not count its changes ({"create":1,"update":1,"delete":1,"unlink":2,"generate":0,"remove":0})',
      hint: 'save a plan with `audiences plan --out FILE`; do not edit it by hand',
    });
  });

  it('refuses an empty array as not a saved plan: an emptied artifact must not apply nothing and succeed', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    for (const text of ['[]', ' [ ]\n']) {
      await writeFile(join(dir, 'plan.json'), text);
      await expect(readSavedPlans('plan.json', dir, 'apply')).rejects.toMatchObject({
        code: 'PLAN_INVALID',
        source: 'user',
        summary: 'plan.json is not a saved plan: an empty array, without the plan of any account',
        hint: expect.stringContaining('save a plan with `audiences plan --out FILE`'),
      });
    }
  });

  it('reads a saved plan without changes, which shows as no changes', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    await writeFile(join(dir, 'plan.json'), `[${await saved('no-changes')}]`);
    const plans = await readSavedPlans('plan.json', dir, 'apply');
    expect(plans.map((plan) => plan.changes)).toEqual([[]]);
    expect(renderPlans(plans, 'text', plainStyle)).toContain('No changes: ad account 1234 matches the desired state.');
  });

  it('refuses a file past the size limit by its size, before reading it, naming it with its size and the limit', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    // Sparse: 200 MB of nothing, which reading whole would take for a plan and fail to parse.
    await writeFile(join(dir, 'huge.json'), '');
    await truncate(join(dir, 'huge.json'), 200 * 1024 * 1024);
    await expect(readSavedPlans('huge.json', dir, 'apply')).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      source: 'user',
      summary: 'huge.json is 200.0 MB, more than 128 MB, the limit of a saved plan',
      hint: expect.stringContaining('is this the right file?'),
    });
  });

  it('refuses a file one byte past the limit; one at the limit is read', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    await writeFile(join(dir, 'limit.json'), '');
    await truncate(join(dir, 'limit.json'), SAVED_PLAN_MAX_BYTES + 1);
    await expect(readSavedPlans('limit.json', dir, 'apply')).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    await truncate(join(dir, 'limit.json'), SAVED_PLAN_MAX_BYTES);
    await expect(readSavedPlans('limit.json', dir, 'apply')).rejects.toMatchObject({ code: 'PLAN_INVALID' });
  });

  it('reads a file whose size its stat does not tell no further than the limit', async () => {
    await expect(readSavedPlans('/dev/zero', '/', 'apply')).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
      summary: '/dev/zero is larger than 128 MB, the limit of a saved plan',
    });
  });

  it('still says why a file cannot be read', async () => {
    const dir = await temporaryDir('audiences-saved-plan-');
    await expect(readSavedPlans('nothing.json', dir, 'apply')).rejects.toMatchObject({
      code: 'PLAN_UNREADABLE',
      summary: expect.stringContaining('cannot read the saved plan nothing.json: ENOENT'),
    });
    await expect(readSavedPlans('.', dir, 'apply')).rejects.toMatchObject({
      code: 'PLAN_UNREADABLE',
      summary: expect.stringContaining('cannot read the saved plan .: EISDIR'),
    });
  });
});

describe('show and apply of a saved plan', () => {
  it('refuse an empty array, and show a plan without changes as no changes', async () => {
    const cwd = await workspace({ 'empty.json': '[]\n', 'unchanged.json': `[${await saved('no-changes')}]` });
    // No request is made: the service named for apply is never reached.
    const env = { ADS_API_URL: 'http://127.0.0.1:9', ADS_ACCESS_TOKEN: 'token' };
    for (const args of [
      ['show', 'empty.json'],
      ['apply', 'empty.json'],
    ]) {
      const refused = await runInProcess(args, { cwd, env });
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toContain(
        'error[PLAN_INVALID]: empty.json is not a saved plan: an empty array, without the plan of any account',
      );
      expect(refused.stderr).toContain('hint: save a plan with `audiences plan --out FILE`');
    }
    const shown = await runInProcess(['show', 'unchanged.json'], { cwd, env: {} });
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain('No changes: ad account 1234 matches the desired state.');
  });

  it('refuse a file past the size limit with its size and the limit', async () => {
    const cwd = await workspace({ 'huge.json': '' });
    await truncate(join(cwd, 'huge.json'), SAVED_PLAN_MAX_BYTES + 1024 * 1024);
    const refused = await runInProcess(['show', 'huge.json', '--format', 'json'], { cwd, env: {} });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      error: { code: 'FILE_TOO_LARGE', summary: 'huge.json is 129.0 MB, more than 128 MB, the limit of a saved plan' },
    });
  });
});
