/**
 * Ids past 2^53 (the spec types them Long): an account whose audience and ad-group ids a
 * JavaScript number cannot hold is imported, planned, saved, shown and applied with every
 * digit, so a read or a write never reaches a neighbour of the audience meant.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { definition } from '../helpers/builders.js';
import { emulatorEnv, emulatorRoute, runInProcess, workspace } from '../helpers/cli.js';
import { connectClient, linkAdGroup, outside, storedAudiences, type LiveClient } from '../helpers/live-account.js';

const BASE = 2n ** 53n;
const id = (n: number): string => String(BASE + BigInt(n));

let emulator: RunningEmulator;
let env: Record<string, string>;
let live: LiveClient;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
  await emulatorRoute(emulator, 'POST', '/_emulator/reset', { idBase: String(BASE) });
  live = connectClient(emulator);
});
afterEach(async () => {
  await live.close();
  await emulator.close();
});

describe('ids past 2^53', () => {
  it('are imported in quotes, planned, saved, shown and applied with every digit', async () => {
    const first = await live.client.create(definition({ name: 'first' }));
    const second = await live.client.create(definition({ name: 'second' }));
    expect([first.id, second.id]).toEqual([id(100001), id(100002)]);
    await linkAdGroup(emulator, second.id, id(101));
    await linkAdGroup(emulator, second.id, id(102));

    const cwd = await workspace({});
    expect((await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env })).code).toBe(0);
    const imported = await readFile(join(cwd, 'audiences.yaml'), 'utf8');
    expect(imported).toContain(`id: "${id(100001)}"`);
    expect(imported).toContain(`id: "${id(100002)}"`);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);

    // The file narrows "first" and keeps one ad group of "second".
    const edited = imported
      .replace(/(name: first\n\s+id: "\d+"\n\s+type: DISPLAY)/, '$1\n    ages: [20]')
      .replace(/(name: second\n\s+id: "\d+"\n\s+type: DISPLAY)/, `$1\n    adGroups: ["${id(101)}"]`);
    expect(edited).not.toBe(imported);
    await writeFile(join(cwd, 'audiences.yaml'), edited);
    const planned = await runInProcess(['plan', '--out', 'plan.json', '--format', 'json'], { cwd, env });
    expect(planned.code).toBe(0);
    const saved = await readFile(join(cwd, 'plan.json'), 'utf8');
    const [plan] = JSON.parse(saved) as Array<{ changes: Array<{ action: string; id: string; adGroupId?: string }> }>;
    expect(plan?.changes.map((change) => [change.action, change.id, change.adGroupId ?? null])).toEqual([
      ['update', id(100001), null],
      ['unlink', id(100002), id(102)],
    ]);
    const shown = await runInProcess(['show', 'plan.json'], { cwd, env });
    expect(shown.stdout).toContain(`(id ${id(100001)})`);
    expect(shown.stdout).toContain(`unlink ad group ${id(102)} from audience "second"`);

    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);
    const stored = await storedAudiences(emulator);
    expect(stored.map((audience) => [audience.id, audience.name, audience.ages])).toEqual([
      [id(100001), 'first', ['20']],
      [id(100002), 'second', []],
    ]);
    expect((await live.client.adGroups(second.id)).map((link) => link.adGroupId)).toEqual([id(101)]);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('are written in quotes in the hints of a pinned audience deleted in the ad manager, so the line they give is valid', async () => {
    const first = await live.client.create(definition({ name: 'first' }));
    const cwd = await workspace({});
    expect((await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env })).code).toBe(0);
    await outside.delete(emulator, first.id);

    const drift = await runInProcess(['plan'], { cwd, env });
    expect(drift.stdout).toContain(`write its new id in place of \`id: "${first.id}"\``);
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const again = (await storedAudiences(emulator)).find((audience) => audience.name === 'first')?.id ?? '';
    expect(again).toBe(id(100002));

    const settled = await runInProcess(['plan'], { cwd, env });
    const hint = /hint: write `(id: [^`]+)` in place of `(id: [^`]+)`/.exec(settled.stdout);
    expect(hint?.slice(1)).toEqual([`id: "${again}"`, `id: "${first.id}"`]);
    const file = join(cwd, 'audiences.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(hint?.[2] ?? '', hint?.[1] ?? ''));
    expect((await runInProcess(['validate'], { cwd, env })).code).toBe(0);
    const followed = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(followed.code).toBe(0);
    expect(followed.stdout).not.toContain('PINNED_ID_DELETED');
  });

  it('are written in quotes in the hint of a name two audiences of the account share, so the line it gives is valid', async () => {
    await live.client.create(definition({ name: 'twin' }));
    const cwd = await workspace({});
    expect((await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env })).code).toBe(0);
    const file = join(cwd, 'audiences.yaml');
    const unpinned = (await readFile(file, 'utf8')).replace(/\n\s+id: "\d+"/, '');
    await writeFile(file, unpinned);
    await live.client.create(definition({ name: 'twin' }));

    const refused = await runInProcess(['plan'], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`add one of \`id: "${id(100001)}"\`, \`id: "${id(100002)}"\` to the entry`);
    const pinned = unpinned.replace('name: twin\n', `name: twin\n    id: "${id(100002)}"\n`);
    expect(pinned).not.toBe(unpinned);
    await writeFile(file, pinned);
    expect((await runInProcess(['validate'], { cwd, env })).code).toBe(0);
    const followed = await runInProcess(['plan'], { cwd, env });
    expect(followed.code, followed.stdout).toBe(0);
    expect(followed.stdout).not.toContain('DUPLICATE_LIVE_NAME');
  });

  it('are refused unquoted in the file, naming the line and how to write them', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n  - name: a\n    id: ${id(100001)}\n    type: DISPLAY\n`,
    });
    const result = await runInProcess(['validate'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain(
      'audiences.yaml:4:9: audiences[0].id: is a number past 9007199254740991, which cannot be read exactly',
    );
    expect(result.stdout + result.stderr).toContain('write the id in quotes, e.g. "9007199254740993"');
  });
});
