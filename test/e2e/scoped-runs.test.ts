/**
 * Scoped runs through the real CLI against the emulator: `--target`, `--kind` and `--exclude`
 * plan and apply only what they name (an audience's delete with the unlinks it needs first), a
 * scoped plan never deletes outside its scope however `prune` reads, the mass-delete guard counts
 * within it, every view says the plan is partial, and a saved scoped plan applies only what it
 * holds and goes stale only for what it holds.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, runInProcess, workspace } from '../helpers/cli.js';
import { linkAdGroup, outside, storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

const run = (cwd: string, ...args: string[]) => runInProcess(args, { cwd, env });

const FILE = `adAccountId: 1234
prune: true
audiences:
  - name: spring-sale
    type: DISPLAY
    ages: [20, 25]
  - name: spring-brand
    type: DISPLAY
    adGroups: [102]
  - name: autumn-sale
    type: DISPLAY
`;

interface JsonPlan {
  partial?: true;
  scope?: { targets: string[]; kinds: string[]; excludes: string[] };
  changes: Array<{ action: string; kind: string; name: string; adGroupId?: string }>;
  warnings: Array<{ code: string; message: string }>;
  errors: Array<{ code: string; message: string }>;
}

/**
 * The account the file meets: spring-brand used by ad groups 102 (declared) and 105 (not: an unlink of its own),
 * spring-old used by ad group 101 (undeclared: prune deletes it, unlinked first), old-stray (undeclared).
 */
async function account(): Promise<Record<string, string>> {
  const ids = {
    'spring-brand': await outside.create(emulator, 'spring-brand'),
    'spring-old': await outside.create(emulator, 'spring-old'),
    'old-stray': await outside.create(emulator, 'old-stray'),
  };
  await linkAdGroup(emulator, ids['spring-brand'], 102);
  await linkAdGroup(emulator, ids['spring-brand'], 105);
  await linkAdGroup(emulator, ids['spring-old'], 101);
  return ids;
}

/** Each change as `action name` (an unlink with its ad group), in the plan's order. */
async function changesOf(cwd: string, ...args: string[]): Promise<string[]> {
  const result = await run(cwd, 'plan', '--format', 'json', ...args);
  expect(result.stderr).toBe('');
  const [plan] = JSON.parse(result.stdout) as JsonPlan[];
  return (plan?.changes ?? []).map((change) =>
    change.action === 'unlink' ? `unlink ${change.adGroupId} ${change.name}` : `${change.action} ${change.name}`,
  );
}

async function names(): Promise<string[]> {
  return (await storedAudiences(emulator)).map((audience) => audience.name).sort();
}

async function links(): Promise<Array<{ audienceId: string; adGroupId: string }>> {
  return (
    (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as {
      links: Array<{ audienceId: string; adGroupId: string }>;
    }
  ).links;
}

describe('--target, --kind and --exclude', () => {
  it('--target plans only the names it matches, a targeted delete with its unlinks first; the others are neither planned nor pruned', async () => {
    await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    expect(await changesOf(cwd)).toEqual([
      'create autumn-sale',
      'delete old-stray',
      'unlink 105 spring-brand',
      'unlink 101 spring-old',
      'delete spring-old',
      'create spring-sale',
    ]);
    expect(await changesOf(cwd, '--target', 'spring-*')).toEqual([
      'unlink 105 spring-brand',
      'unlink 101 spring-old',
      'delete spring-old',
      'create spring-sale',
    ]);
    // Repeated, the targets add up.
    expect(await changesOf(cwd, '--target', 'spring-sale', '--target', 'autumn-*')).toEqual([
      'create autumn-sale',
      'create spring-sale',
    ]);

    const apply = await run(cwd, 'apply', '--target', 'spring-*', '--auto-approve');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Partial plan (--target "spring-*")');
    expect(await names()).toEqual(['old-stray', 'spring-brand', 'spring-sale']);
    // What the scope left out is still to do.
    expect(await changesOf(cwd)).toEqual(['create autumn-sale', 'delete old-stray']);
  });

  it('--kind audience brings the unlinks its deletes need, not the unlinks of declared ad groups; --kind adGroupLink only those', async () => {
    await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    expect(await changesOf(cwd, '--kind', 'audience')).toEqual([
      'create autumn-sale',
      'delete old-stray',
      'unlink 101 spring-old',
      'delete spring-old',
      'create spring-sale',
    ]);
    // An unlink made only for a delete that is out of scope would strip the ad group for nothing.
    expect(await changesOf(cwd, '--kind', 'adGroupLink')).toEqual(['unlink 105 spring-brand']);
    expect(await changesOf(cwd, '--kind', 'adGroupLink', '--kind', 'audience')).toHaveLength(6);

    const apply = await run(cwd, 'apply', '--kind', 'adGroupLink', '--auto-approve');
    expect(apply.code).toBe(0);
    expect(await names()).toEqual(['old-stray', 'spring-brand', 'spring-old']);
    expect((await links()).map((link) => link.adGroupId).sort()).toEqual(['101', '102']);
  });

  it('--exclude leaves out what it names: an undeclared audience it names is not deleted, whatever prune says', async () => {
    await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    expect(await changesOf(cwd, '--exclude', 'old-*', '--exclude', 'autumn-*')).toEqual([
      'unlink 105 spring-brand',
      'unlink 101 spring-old',
      'delete spring-old',
      'create spring-sale',
    ]);
    // An excluded audience's unlinks go with it, and a target and an exclude together: the exclude wins.
    expect(await changesOf(cwd, '--target', 'spring-*', '--exclude', 'spring-old')).toEqual([
      'unlink 105 spring-brand',
      'create spring-sale',
    ]);
    expect((await run(cwd, 'apply', '--exclude', 'old-*', '--auto-approve')).code).toBe(0);
    expect(await names()).toEqual(['autumn-sale', 'old-stray', 'spring-brand', 'spring-sale']);
  });

  it('a --target matching nothing declared or live is a TARGET_UNMATCHED warning; a glob that is not one is a usage error naming the flag', async () => {
    await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    const unmatched = await run(cwd, 'plan', '--target', 'sprnig-*', '--detailed-exitcode');
    expect(unmatched.code).toBe(0);
    expect(unmatched.stdout).toContain(
      'warning[TARGET_UNMATCHED]: --target "sprnig-*" matches no audience or image of the file or of ad account 1234, declared or live: nothing is planned for it',
    );
    // It saw only its scope: it does not say that the account matches the file.
    expect(unmatched.stdout).toContain('No changes within the scope: ad account 1234 matches the desired state there.');
    expect(unmatched.stdout).not.toContain('matches the desired state.\n');

    const braces = await run(cwd, 'plan', '--target', '{spring,autumn}-*');
    expect(braces.code).toBe(1);
    expect(braces.stderr).toContain('error[USAGE]: --target "{spring,autumn}-*" is not a name glob');
    const exclude = await run(cwd, 'apply', '--exclude', '[a-', '--auto-approve');
    expect(exclude.code).toBe(1);
    expect(exclude.stderr).toContain('error[USAGE]: --exclude "[a-" is not a name glob');
    const kind = await run(cwd, 'plan', '--kind', 'business');
    expect(kind.code).toBe(1);
    expect(kind.stderr).toContain('--kind');
    expect(await names()).toEqual(['old-stray', 'spring-brand', 'spring-old']);
  });
});

describe('prune and the mass-delete guard in a scope', () => {
  it('never deletes an undeclared audience outside the scope, and counts the guard within it', async () => {
    const file = `adAccountId: 1234
prune: true
massDelete: { percent: 30, minimum: 2 }
audiences:
${['keep-1', 'keep-2', 'keep-3', 'keep-4', 'keep-5'].map((name) => `  - { name: ${name}, type: DISPLAY }\n`).join('')}`;
    const cwd = await workspace({ 'audiences.yaml': file });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await outside.create(emulator, 'old-1');
    await outside.create(emulator, 'old-2');

    // The whole plan deletes 2 of 7 managed audiences (28%): allowed.
    expect(await changesOf(cwd)).toEqual(['delete old-1', 'delete old-2']);
    // Targeted at them, it deletes 2 of the 2 it covers: the guard holds.
    const targeted = await run(cwd, 'plan', '--target', 'old-*', '--format', 'json');
    expect(targeted.code).toBe(1);
    const [plan] = JSON.parse(targeted.stdout) as JsonPlan[];
    expect(plan?.errors).toEqual([
      expect.objectContaining({
        code: 'MASS_DELETE',
        message: expect.stringContaining('the plan deletes 2 of the 2 managed audiences (100%)') as unknown,
      }),
    ]);
    // A scope that leaves them out deletes nothing of them.
    const other = await run(cwd, 'apply', '--target', 'keep-*', '--auto-approve');
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('No changes');
    expect(await names()).toContain('old-1');
    expect(await changesOf(cwd, '--target', 'old-1')).toEqual(['delete old-1']);
  });
});

describe('a saved scoped plan', () => {
  it('is partial in every format, applies only what it holds, and is stale only for what its scope covers', async () => {
    const ids = await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    const saved = await run(cwd, 'plan', '--target', 'spring-*', '--exclude', 'spring-brand', '--out', 'plan.json');
    expect(saved.code).toBe(0);
    const banner =
      'Partial plan (--target "spring-*" --exclude "spring-brand"): only the changes within this scope; the rest of the file and the account is not planned, and nothing outside the scope is deleted.';
    expect(saved.stdout).toContain(`audiences plan for ad account 1234\n\n${banner}\n`);

    const [plan] = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as JsonPlan[];
    expect(plan?.partial).toBe(true);
    expect(plan?.scope).toEqual({ targets: ['spring-*'], kinds: [], excludes: ['spring-brand'] });

    const json = JSON.parse((await run(cwd, 'plan', '--kind', 'image', '--format', 'json')).stdout) as JsonPlan[];
    expect(json[0]).toMatchObject({
      partial: true,
      scope: { targets: [], kinds: ['image'], excludes: [] },
      changes: [],
    });
    const whole = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout) as JsonPlan[];
    expect(whole[0]).not.toHaveProperty('partial');
    expect(whole[0]).not.toHaveProperty('scope');

    const markdown = await run(cwd, 'plan', '--target', 'spring-*', '--format', 'markdown');
    expect(markdown.stdout).toContain(
      '### Ad account 1234\n\n:warning: **Partial plan (--target "spring-\\*"): only the changes within this scope; the rest of the file and the account is not planned, and nothing outside the scope is deleted.**\n',
    );
    expect((await run(cwd, 'show', 'plan.json')).stdout).toContain(`\n${banner}\n`);
    expect((await run(cwd, 'show', 'plan.json', '--format', 'markdown')).stdout).toContain(
      ':warning: **Partial plan (--target "spring-\\*" --exclude "spring-brand")',
    );
    expect(JSON.parse((await run(cwd, 'show', 'plan.json', '--format', 'json')).stdout)).toEqual([
      expect.objectContaining({ partial: true, scope: plan?.scope }),
    ]);

    // A saved plan is scoped when it is made, not when it is applied.
    const rescoped = await run(cwd, 'apply', 'plan.json', '--target', 'autumn-*');
    expect(rescoped.code).toBe(1);
    expect(rescoped.stderr).toContain('error[USAGE]: a saved plan cannot be scoped');

    // Outside the scope, an audience edited or a new one that prune would delete does not make it stale.
    await outside.update(emulator, ids['spring-brand'] as string, 'spring-brand', { ageType: 'NOT_ALL', ages: ['20'] });
    await outside.create(emulator, 'old-new');
    const applied = await runCli(['apply', 'plan.json'], { cwd, env });
    expect(applied.stderr).not.toContain('stale');
    expect(applied.code).toBe(0);
    expect(await names()).toEqual(['old-new', 'old-stray', 'spring-brand', 'spring-sale']);
    expect((await links()).map((link) => link.adGroupId).sort()).toEqual(['102', '105']);
  });

  it('is stale when what it covers changed since: an audience it deletes re-linked, or a new one its prune covers', async () => {
    const ids = await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    expect((await run(cwd, 'plan', '--target', 'spring-*', '--out', 'plan.json')).code).toBe(0);
    await linkAdGroup(emulator, ids['spring-old'] as string, 103);
    const relinked = await run(cwd, 'apply', 'plan.json');
    expect(relinked.code).toBe(1);
    expect(relinked.stderr).toContain('stale');
    expect(relinked.stderr).toContain('the ad groups using audience "spring-old"');

    await writeFile(join(cwd, 'plan.json'), '');
    expect((await run(cwd, 'plan', '--target', 'spring-*', '--out', 'plan.json')).code).toBe(0);
    await outside.create(emulator, 'spring-new');
    const appeared = await run(cwd, 'apply', 'plan.json');
    expect(appeared.code).toBe(1);
    expect(appeared.stderr).toContain('"spring-new"');
    expect(appeared.stderr).toContain('appeared since the plan, which prunes');
    expect(await names()).toEqual(['old-stray', 'spring-brand', 'spring-new', 'spring-old']);
  });

  it('a scoped plan edited to hold a change outside its scope is refused as PLAN_INVALID', async () => {
    await account();
    const cwd = await workspace({ 'audiences.yaml': FILE });
    expect((await run(cwd, 'plan', '--kind', 'audience', '--out', 'plan.json')).code).toBe(0);
    const text = await readFile(join(cwd, 'plan.json'), 'utf8');
    const [plan] = JSON.parse(text) as Array<JsonPlan & Record<string, unknown>>;
    await writeFile(join(cwd, 'plan.json'), JSON.stringify([{ ...plan, scope: { ...plan?.scope, kinds: ['image'] } }]));
    const refused = await run(cwd, 'apply', 'plan.json');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PLAN_INVALID');
    expect(refused.stderr).toContain('is outside its scope (--kind image)');
    expect(await names()).toEqual(['old-stray', 'spring-brand', 'spring-old']);
  });
});

describe('images in a scope', () => {
  const IMAGES = `adAccountId: 1234
images:
  - name: hero-variant
    image: { from: hero }
    version: v2.0
    width: 512
    height: 384
    output: art/hero-variant.png
  - name: hero
    prompt: a spring picnic in a park, watercolor
    version: v2.0
    width: 512
    height: 384
    output: art/hero.png
  - name: banner
    prompt: a autumn sale banner, flat colours
    version: v2.0
    width: 512
    height: 384
    output: art/banner.png
audiences:
  - { name: spring-sale, type: DISPLAY }
`;

  it('--kind image makes only the images; a targeted image brings the image it is made from, and is left out with it', async () => {
    const cwd = await workspace({ 'audiences.yaml': IMAGES });
    expect(await changesOf(cwd, '--kind', 'audience')).toEqual(['create spring-sale']);
    expect(await changesOf(cwd, '--target', 'hero-variant')).toEqual(['generate hero', 'generate hero-variant']);
    expect(await changesOf(cwd, '--target', 'hero-*', '--exclude', 'hero')).toEqual([]);
    expect(await changesOf(cwd, '--exclude', 'hero')).toEqual(['create spring-sale', 'generate banner']);

    const apply = await run(cwd, 'apply', '--kind', 'image', '--auto-approve');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Partial plan (--kind image)');
    expect(await storedAudiences(emulator)).toEqual([]);
    const lock = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as { images: object };
    expect(Object.keys(lock.images).sort()).toEqual(['banner', 'hero', 'hero-variant']);
    expect(await changesOf(cwd)).toEqual(['create spring-sale']);
  });
});
