import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, workspace } from '../helpers/cli.js';

const desired = `adAccountId: 1234
audiences:
  - { name: a, type: DISPLAY, ages: [20] }
  - { name: b, type: DISPLAY, genders: [F] }
  - { name: c, type: DISPLAY, locations: [I], adGroups: [101] }
`;

let emulator: RunningEmulator;
let env: Record<string, string>;
beforeEach(async () => ({ emulator, env } = await emulatorEnv()));
afterEach(async () => emulator.close());

async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
  await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
  await run();
  const log = (await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: Array<{ method: string; path: string }> };
  return log.requests.map((request) => `${request.method} ${request.path}`);
}

describe('plan --cache', () => {
  it('reads unchanged audiences once, then only the list and the link lists; a modified audience is read again', async () => {
    const cwd = await workspace({ 'audiences.yaml': desired });
    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);

    const first = await requestsOf(() => runCli(['plan', '--cache'], { cwd, env }));
    expect(first.filter((line) => /^GET \/openapi\/v4\/targetings\/\d+$/.test(line))).toHaveLength(3);

    const second = await requestsOf(() => runCli(['plan', '--cache', '--detailed-exitcode'], { cwd, env }));
    expect(second).toHaveLength(2);
    expect(second).toContain('GET /openapi/v4/targetings/audiences');
    expect(second.filter((line) => /^GET \/openapi\/v4\/targetings\/\d+\/adGroups$/.test(line))).toHaveLength(1);

    const { content } = (await (await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, { headers: { authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234' } })).json()) as {
      content: Array<{ id: number; name: string }>;
    };
    const a = content.find((audience) => audience.name === 'a');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the service's dates have whole seconds
    await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234', 'content-type': 'application/json' },
      body: JSON.stringify({ id: a?.id, adAccountId: 1234, name: 'a', type: 'DISPLAY', ageType: 'NOT_ALL', ages: ['25'], genderType: 'ALL', locationType: 'ALL' }),
    });
    const third = await runCli(['plan', '--cache'], { cwd, env });
    expect(third.stdout).toContain('~ update audience "a"');
  });
});
