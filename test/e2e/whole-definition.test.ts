/**
 * A declared audience is its whole definition, through the real CLI against the emulator: the
 * edits people make most (narrowing provinces to a district, deleting a targeting block) plan
 * exactly what apply does; and accounts whose answers spell member ids as numbers or as text
 * plan, apply and import with no error and no change left over.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runInProcess, workspace } from '../helpers/cli.js';
import { storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(memberIds: 'catalog' | 'number' | 'text' = 'catalog'): Promise<Record<string, string>> {
  const started = await emulatorEnv({ memberIds });
  emulator = started.emulator;
  return started.env;
}

const before = `adAccountId: 1234
audiences:
  - name: busan-area
    type: DISPLAY
    locations: [H, C]
    customerFileTargetings:
      - { customerFileId: 5001, inclusionType: EXCLUDE }
`;

describe('whole definitions through the CLI', () => {
  it('narrows provinces to one district and drops a targeting block in one update, and plans nothing after it', async () => {
    const env = await start();
    const cwd = await workspace({ 'audiences.yaml': before });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);

    await writeFile(
      join(cwd, 'audiences.yaml'),
      'adAccountId: 1234\naudiences:\n  - name: busan-area\n    type: DISPLAY\n    depth2Locations: [H01]\n',
    );
    const plan = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      [
        '  ~ update audience "busan-area" (id 100001) [risk: empties customerFileTargetings; narrows regions]',
        '      locations:',
        '        - C (South Gyeongsang)',
        '        - H (Busan)',
        '      depth2Locations:',
        '        + H01',
        '      customerFileTargetings:',
        '        - customerFileId=5001 inclusionType=EXCLUDE "VIP customers"',
      ].join('\n'),
    );
    // The provinces narrowed to a district are an edit; the block the file no longer names is what a reviewer may not
    // have meant.
    expect(plan.stdout).toContain(
      [
        'warning[OMITTED_FIELDS]: audience "busan-area" says nothing of customerFileTargetings, which the account has, so the update empties it: a field the file leaves out is empty',
        '  hint: if that is not meant, write customerFileTargetings in the audience as the account has it (`audiences import --name` prints the audience as it is)',
        '',
      ].join('\n'),
    );
    expect(plan.stdout.match(/warning\[/g)).toHaveLength(1);
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 0 to unlink.');

    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const [stored] = await storedAudiences(emulator as RunningEmulator);
    expect(stored).toMatchObject({
      locationType: 'AREA',
      locations: [],
      depth2Locations: ['H01'],
      customerFileTargetings: [],
    });
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('narrows provinces to a district, and a province to nothing, with no OMITTED_FIELDS warning: the file names the regions', async () => {
    const env = await start();
    const cwd = await workspace({
      'audiences.yaml':
        'adAccountId: 1234\naudiences:\n  - name: busan-area\n    type: DISPLAY\n    locations: [H, C]\n',
    });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);

    await writeFile(
      join(cwd, 'audiences.yaml'),
      'adAccountId: 1234\naudiences:\n  - name: busan-area\n    type: DISPLAY\n    depth2Locations: [H01]\n',
    );
    const narrowed = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(narrowed.code).toBe(2);
    expect(narrowed.stdout).toContain('      depth2Locations:\n        + H01\n');
    expect(narrowed.stdout).not.toContain('warning[');

    await writeFile(
      join(cwd, 'audiences.yaml'),
      'adAccountId: 1234\naudiences:\n  - name: busan-area\n    type: DISPLAY\n',
    );
    const everywhere = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(everywhere.stdout).toContain(
      'warning[OMITTED_FIELDS]: audience "busan-area" says nothing of locations, which the account has, so the update empties it',
    );
  });

  it('sends a region written in full with its names, and one written as a code as its code', async () => {
    const env = await start();
    const cwd = await workspace({
      'audiences.yaml':
        'adAccountId: 1234\naudiences:\n  - name: seoul\n    type: DISPLAY\n    locations: [{ value: I, description: 서울특별시, depth1Name: 서울특별시 }, K]\n',
    });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const log = (await (await fetch(`${(emulator as RunningEmulator).url}/_emulator/requests`)).json()) as {
      requests: Array<{ method: string; body?: { locations?: unknown } }>;
    };
    const create = log.requests.find((request) => request.method === 'POST');
    expect(create?.body?.locations).toEqual([
      { value: 'I', description: '서울특별시', depth1Name: '서울특별시' },
      { value: 'K' },
    ]);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it.each(['number', 'text'] as const)(
    'plans, applies and imports an account whose answers spell member ids as %s',
    async (memberIds) => {
      const env = await start(memberIds);
      const file = `adAccountId: 1234
audiences:
  - name: ids-as-written
    type: DISPLAY
    customerFileTargetings: [{ customerFileId: "5001", inclusionType: INCLUDE }]
    talkChannelTargetings: [{ profileId: 501, inclusionType: INCLUDE }]
    syncAppTargetings: [{ profileId: "502", inclusionType: EXCLUDE }]
    cohortTargetings: [{ cohortId: 7001, inclusionType: INCLUDE }]
  - name: groups
    type: MESSAGE
    talkChannelGroupTargetings: [{ groupId: "9001", inclusionType: INCLUDE }]
`;
      const cwd = await workspace({ 'audiences.yaml': file });
      const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env });
      expect(apply.stderr).not.toContain('differs');
      expect(apply.code).toBe(0);
      const again = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
      expect(again.stdout).toContain('No changes');
      expect(again.code).toBe(0);

      const running = emulator as RunningEmulator;
      const { id } = (await storedAudiences(running)).find((audience) => audience.name === 'ids-as-written') ?? {
        id: 0,
      };
      const headers = { authorization: `Bearer ${running.accessToken}`, adAccountId: '1234' };
      const read = (await (await fetch(`${running.url}/openapi/v4/targetings/${id}`, { headers })).json()) as {
        talkChannelTargetings: Array<{ profileId: unknown }>;
      };
      expect(typeof read.talkChannelTargetings[0]?.profileId).toBe(memberIds === 'number' ? 'number' : 'string');

      const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd, env });
      expect(imported.code).toBe(0);
      const text = await readFile(join(cwd, 'imported.yaml'), 'utf8');
      expect(text).toContain(
        memberIds === 'number'
          ? '{profileId: 501, inclusionType: INCLUDE}'
          : '{profileId: "501", inclusionType: INCLUDE}',
      );
      const planned = await runInProcess(['plan', '-f', 'imported.yaml', '--detailed-exitcode'], { cwd, env });
      expect(planned.stdout).toContain('No changes');
      expect(planned.code).toBe(0);
    },
  );
});
