import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, workspace } from '../helpers/cli.js';
import { standIn } from '../helpers/stand-in.js';

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
  const log = (await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as {
    requests: Array<{ method: string; path: string }>;
  };
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

    const { content } = (await (
      await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, {
        headers: { authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234' },
      })
    ).json()) as {
      content: Array<{ id: number; name: string }>;
    };
    const a = content.find((audience) => audience.name === 'a');
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the service's dates have whole seconds
    await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${emulator.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        id: a?.id,
        adAccountId: 1234,
        name: 'a',
        type: 'DISPLAY',
        ageType: 'NOT_ALL',
        ages: ['25'],
        genderType: 'ALL',
        locationType: 'ALL',
      }),
    });
    const third = await runCli(['plan', '--cache'], { cwd, env });
    expect(third.stdout).toContain('~ update audience "a"');
  });
});

describe('plan --cache trusts only what it can tell apart', () => {
  const frozen = () => new Date('2026-03-01T09:00:00Z');
  const create = (target: RunningEmulator, ages: string[]) =>
    fetch(`${target.url}/openapi/v4/targetings`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${target.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        adAccountId: 1234,
        name: 'a',
        type: 'DISPLAY',
        ageType: 'NOT_ALL',
        ages,
        genderType: 'ALL',
        locationType: 'ALL',
      }),
    });

  it("never takes another service's reads for this one's, though the ids and dates are the same; no password of its address is written", async () => {
    // Two services whose audience 'a' has one id and one modification date, and other ages.
    const other = await emulatorEnv({ now: frozen });
    const frozenToo = await emulatorEnv({ now: frozen });
    try {
      expect((await create(other.emulator, ['20'])).status).toBe(200);
      expect((await create(frozenToo.emulator, ['25'])).status).toBe(200);
      const cwd = await workspace({
        'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - { name: a, type: DISPLAY, ages: [20] }\n',
      });
      const withPassword = { ...other.env, ADS_API_URL: other.emulator.url.replace('//', '//someone:hunter2@') };

      expect((await runCli(['plan', '--cache', '--detailed-exitcode'], { cwd, env: withPassword })).code).toBe(0);
      const plan = await runCli(['plan', '--cache', '--detailed-exitcode'], { cwd, env: frozenToo.env });
      expect(plan.stdout).toContain('~ update audience "a"');
      expect(plan.code).toBe(2);

      const folder = join(cwd, '.audiences', 'cache');
      const texts = await Promise.all((await readdir(folder)).map((name) => readFile(join(folder, name), 'utf8')));
      expect(texts).toHaveLength(2);
      for (const text of texts) expect(text).not.toContain('hunter2');
    } finally {
      await other.emulator.close();
      await frozenToo.emulator.close();
    }
  });

  it('reads again every audience whose list entry and read have no modification date', async () => {
    // A service that answers without dates: the emulator behind a stand-in that drops them.
    const undated = await standIn(async (request) => {
      const headers = Object.fromEntries(
        ['authorization', 'adaccountid', 'content-type'].flatMap((name) =>
          typeof request.headers[name] === 'string' ? [[name, request.headers[name]]] : [],
        ),
      );
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const answer = await fetch(`${emulator.url}${request.path}`, { method: request.method, headers, body });
      const text = await answer.text();
      const json =
        text === ''
          ? undefined
          : (JSON.parse(text) as { content?: Array<Record<string, unknown>>; lastModifiedDate?: unknown });
      for (const entry of [json, ...(json?.content ?? [])]) delete entry?.lastModifiedDate;
      return { status: answer.status, json };
    });
    try {
      const cwd = await workspace({ 'audiences.yaml': desired });
      expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
      const viaStandIn = { ...env, ADS_API_URL: undated.url };
      const reads = () =>
        undated.requests.filter((request) => /^\/openapi\/v4\/targetings\/\d+$/.test(request.path)).length;

      expect((await runCli(['plan', '--cache', '--detailed-exitcode'], { cwd, env: viaStandIn })).code).toBe(0);
      expect(reads()).toBe(3);
      expect((await runCli(['plan', '--cache', '--detailed-exitcode'], { cwd, env: viaStandIn })).code).toBe(0);
      expect(reads()).toBe(6);
    } finally {
      await undated.close();
    }
  });
});
