/**
 * A team's everyday edits, through the real CLI against the emulator: the `protect` globs keep
 * an audience from delete and unlink whether or not the file declares it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, workspace } from '../helpers/cli.js';
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

async function links(): Promise<Array<{ audienceId: string; adGroupId: string }>> {
  return ((await emulatorRoute(emulator, 'GET', '/_emulator/state')) as { links: Array<{ audienceId: string; adGroupId: string }> }).links;
}

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
