/**
 * A team's everyday edits, through the real CLI against the emulator: the `protect` globs keep
 * an audience from delete and unlink whether or not the file declares it; a pinned audience
 * deleted in the ad manager is drift, planned again, not an error that stops every plan.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, runInProcess, workspace } from '../helpers/cli.js';
import { linkAdGroup, storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

const headers = () => ({ authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234', 'content-type': 'application/json' });

/** An audience made in the ad manager, not by the tool. */
async function createOutside(name: string): Promise<string> {
  const body = { adAccountId: 1234, name, type: 'DISPLAY', ageType: 'ALL', genderType: 'ALL', locationType: 'ALL' };
  const response = await fetch(`${emulator.url}/openapi/v4/targetings`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return String(((await response.json()) as { id: number }).id);
}

async function deleteOutside(id: string): Promise<void> {
  const response = await fetch(`${emulator.url}/openapi/v4/targetings/${id}`, { method: 'DELETE', headers: headers() });
  expect(response.status).toBe(200);
}

async function idOf(name: string): Promise<string> {
  const found = (await storedAudiences(emulator)).find((audience) => audience.name === name);
  if (!found) throw new Error(`no audience named ${name}`);
  return found.id;
}

async function links(): Promise<Array<{ audienceId: string; adGroupId: string }>> {
  return ((await emulatorRoute(emulator, 'GET', '/_emulator/state')) as { links: Array<{ audienceId: string; adGroupId: string }> }).links;
}

const spring = (name: string, extra = '') => `adAccountId: 1234
prune: true
audiences:
  - name: ${name}
${extra}    type: DISPLAY
    ages: [20, 25]
    locations: [I]
  - name: evergreen
    type: DISPLAY
`;

describe('the protect globs', () => {
  it('refuse a plan that deletes or unlinks an audience they name, declared or not, naming the glob; per-entry protect still holds', async () => {
    const legacy = await createOutside('brand-legacy');
    const core = await createOutside('brand-core');
    const safe = await createOutside('safe');
    await linkAdGroup(emulator, legacy, 101);
    await linkAdGroup(emulator, core, 101);
    await linkAdGroup(emulator, core, 102);
    await linkAdGroup(emulator, safe, 103);
    const file = `adAccountId: 1234
prune: true
protect: ["brand-*"]
audiences:
  - { name: brand-core, type: DISPLAY, adGroups: [101] }
  - { name: safe, type: DISPLAY, adGroups: [], protect: true }
`;
    const cwd = await workspace({ 'audiences.yaml': file });
    expect((await runCli(['validate'], { cwd, env })).code).toBe(0);
    const plan = await runCli(['plan'], { cwd, env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(`error[PROTECTED]: audience "brand-core" (id ${core}) is protected by the protect glob "brand-*", but ad group 102 would be unlinked from it`);
    expect(plan.stdout).toContain(`error[PROTECTED]: audience "brand-legacy" (id ${legacy}) is protected by the protect glob "brand-*", but the file does not declare it and prune would delete it`);
    expect(plan.stdout).toContain('error[PROTECTED]: audience "safe" is protected, but ad group 103 would be unlinked from it');
    expect(plan.stdout).toContain('The plan has 3 errors and cannot be applied.');

    const apply = await runCli(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(1);
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(['brand-core', 'brand-legacy', 'safe']);
    expect(await links()).toHaveLength(4);
  });
});

describe('a pinned audience deleted in the ad manager', () => {
  it('is drift: planned again as a create with a warning, the rest as usual; after the apply, the live audience of its name is taken, with the id to write', async () => {
    const cwd = await workspace({ 'audiences.yaml': spring('spring-2025') });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect((await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd, env })).code).toBe(0);
    const imported = await readFile(join(cwd, 'imported.yaml'), 'utf8');
    const gone = await idOf('spring-2025');
    expect(imported).toContain(`id: ${gone}`);
    await writeFile(join(cwd, 'audiences.yaml'), imported.replace('prune: false', 'prune: true').replace('name: evergreen', 'name: evergreen\n    ages: [30]'));
    await deleteOutside(gone);

    const drift = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(drift.stderr).toBe('');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('+ create audience "spring-2025"');
    expect(drift.stdout).toContain('~ update audience "evergreen"');
    expect(drift.stdout).toContain(
      `warning[PINNED_ID_DELETED]: audience "spring-2025" pins id ${gone}, which the ad account 1234 no longer has: it was deleted outside the tool, so the plan creates it again (under a new id)`,
    );
    expect(drift.stdout).not.toContain('error[');

    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const again = await idOf('spring-2025');
    const settled = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(settled.code).toBe(0);
    expect(settled.stdout).toContain('No changes');
    expect(settled.stdout).toContain(`the account's audience "spring-2025" (id ${again}) is taken as it, by its name`);
    expect(settled.stdout).toContain(`hint: write \`id: ${again}\` in place of \`id: ${gone}\``);
  });
});
