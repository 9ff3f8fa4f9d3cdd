/**
 * What the tool does not model is never destroyed: fields of the service beyond the file, the
 * real tracker member (terms, and the ids and rule the service adds), and lookalikes, a set the
 * file now manages. Through the real command line against the emulator, its state the judge.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { definition } from '../helpers/builders.js';
import { emulatorEnv, emulatorRoute, runInProcess, workspace } from '../helpers/cli.js';
import { connectClient, giveFields, setFaults, storedAudiences, type LiveClient } from '../helpers/live-account.js';

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

const ZZZ = '[{"zzzId":9007199254740993,"weight":0.5}]';

describe('fields of a live audience the file cannot hold', () => {
  it('are imported without them (said), never compared, named by the plan, sent back as read by an update, and shown going with a delete', async () => {
    const kept = await live.client.create(definition({ name: 'kept' }));
    const gone = await live.client.create(definition({ name: 'gone' }));
    await giveFields(emulator, kept.id, `{"zzzTargetings":${ZZZ},"note":"from the ad manager"}`);
    await giveFields(emulator, gone.id, '{"zzzTargetings":[]}');

    const cwd = await workspace({});
    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(
      `warning: "kept" (id ${kept.id}) has fields a file cannot hold (zzzTargetings, note): imported without them, and every update keeps them as the service has them`,
    );
    const text = await readFile(join(cwd, 'audiences.yaml'), 'utf8');
    expect(text).toContain('not in this file, kept as the service has them: zzzTargetings, note');
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);

    // An unrelated edit of "kept"; "gone" leaves the file, and prune deletes it.
    const edited = text
      .replace('prune: false', 'prune: true')
      .replace(/(name: kept\n\s+id: \d+\n\s+type: DISPLAY)/, '$1\n    ages: [20]')
      .replace(/\n {2}# [^\n]*\n {2}- name: gone\n\s+id: \d+\n\s+type: DISPLAY\n/, '\n');
    expect(edited).not.toContain('name: gone');
    await writeFile(join(cwd, 'audiences.yaml'), edited);
    const planned = await runInProcess(['plan'], { cwd, env });
    expect(planned.stdout).toMatch(/~ update audience "kept"[\s\S]*kept as the service has it: note, zzzTargetings/);
    expect(planned.stdout).toMatch(/- delete audience "gone"[\s\S]*- zzzTargetings: \[\]/);

    const applied = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);
    const [stored] = await storedAudiences(emulator);
    expect(stored).toMatchObject({
      name: 'kept',
      ages: ['20'],
      extra: { zzzTargetings: ZZZ, note: '"from the ad manager"' },
    });
    expect((await storedAudiences(emulator)).map((audience) => audience.name)).toEqual(['kept']);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('make a saved plan stale when they change in the same second as the plan read them', async () => {
    const made = await live.client.create(definition({ name: 'same-second' }));
    await giveFields(emulator, made.id, '{"note":"first"}');
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n  - name: same-second\n    type: DISPLAY\n    ages: [30]\n`,
    });
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    // As a change made within the same second as the plan's read (see giveFields).
    await giveFields(emulator, made.id, '{"note":"second"}');
    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      `audience "same-second" (id ${made.id}) was modified since the plan read it (note changed)`,
    );
    expect((await storedAudiences(emulator))[0]?.extra).toEqual({ note: '"second"' });
  });
});

describe('lookalikes, a set the file manages', () => {
  it('are imported, compared and removed like any targeting set', async () => {
    await live.client.create(
      definition({ name: 'like', lookalikeTargetings: [{ lookalikeId: 8001, inclusionType: 'INCLUDE' }] }),
    );
    const cwd = await workspace({});
    expect((await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env })).code).toBe(0);
    const text = await readFile(join(cwd, 'audiences.yaml'), 'utf8');
    expect(text).toContain('lookalikeTargetings:\n      - {lookalikeId: 8001, inclusionType: INCLUDE}');
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);

    await writeFile(join(cwd, 'audiences.yaml'), text.replace(/\n\s+lookalikeTargetings:\n\s+- [^\n]+/, ''));
    const planned = await runInProcess(['plan'], { cwd, env });
    expect(planned.stdout).toMatch(
      /~ update audience "like" \(id \d+\) \[risk: empties lookalikeTargetings\]\n\s+lookalikeTargetings:\n\s+- lookalikeId=8001 inclusionType=INCLUDE "Like VIP customers"\n/,
    );
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect((await storedAudiences(emulator))[0]?.lookalikeTargetings).toEqual([]);
  });
});

describe('the real tracker member', () => {
  beforeEach(async () => {
    await setFaults(emulator, { trackerShape: 'terms' });
  });

  it('is imported in the shape the service answers, never changes for what the service adds, and its terms are compared and sent', async () => {
    const member = {
      trackId: 'trk-web',
      eventCode: 'purchase',
      trackerTargetingTerms: ['ONE_MONTH'],
      inclusionType: 'INCLUDE',
    };
    const made = await live.client.create(definition({ name: 'pixel', trackerTargetings: [member] }));
    const cwd = await workspace({});
    const imported = await runInProcess(['import', '--ad-account', '1234', '-o', 'audiences.yaml'], { cwd, env });
    expect(imported.code).toBe(0);
    expect(imported.stderr).not.toContain('warning');
    const text = await readFile(join(cwd, 'audiences.yaml'), 'utf8');
    expect(text).toContain(
      'trackerTargetings:\n      - {trackId: trk-web, eventCode: purchase, trackerTargetingTerms: [ONE_MONTH], inclusionType: INCLUDE}',
    );
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);

    // An unrelated edit keeps the member as the service has it: its own id and rule are sent back.
    const before = (await storedAudiences(emulator))[0]?.trackerTargetings;
    const women = text.replace(/(name: pixel\n\s+id: \d+\n\s+type: DISPLAY)/, '$1\n    genders: [F]');
    await writeFile(join(cwd, 'audiences.yaml'), women);
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect((await storedAudiences(emulator))[0]?.trackerTargetings).toEqual(before);
    const log = (await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as {
      requests: Array<{ method: string; body?: { trackerTargetings?: unknown[] } }>;
    };
    const sent = log.requests.find((entry) => entry.method === 'PUT')?.body?.trackerTargetings;
    expect(sent).toEqual([
      {
        ...member,
        id: expect.any(Number),
        trackRuleId: expect.any(Number),
        trackRuleName: 'Website pixel: purchase, ONE_MONTH',
        trackName: 'Website pixel',
      },
    ]);

    await writeFile(
      join(cwd, 'audiences.yaml'),
      women.replace('trackerTargetingTerms: [ONE_MONTH]', 'trackerTargetingTerms: [ONE_WEEK]'),
    );
    const planned = await runInProcess(['plan'], { cwd, env });
    expect(planned.stdout).toMatch(
      /~ update audience "pixel" \(id \d+\) \[narrows and broadens trackerTargetings\]\n\s+trackerTargetings:\n\s+- trackId=trk-web [^\n]*trackerTargetingTerms=\["ONE_MONTH"\][^\n]*\n\s+\+ trackId=trk-web eventCode=purchase inclusionType=INCLUDE trackerTargetingTerms=\["ONE_WEEK"\]\n\n/,
    );
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect((await live.client.read(made.id)).definition.trackerTargetings).toMatchObject([
      { trackerTargetingTerms: ['ONE_WEEK'] },
    ]);
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
  });

  it('is another member when the file writes its retention in the other form: the plan says so, and the service judges the update', async () => {
    await live.client.create(
      definition({
        name: 'pixel',
        trackerTargetings: [
          { trackId: 'trk-web', eventCode: 'purchase', trackerTargetingTerms: ['ONE_MONTH'], inclusionType: 'INCLUDE' },
        ],
      }),
    );
    const cwd = await workspace({
      'audiences.yaml':
        'adAccountId: 1234\naudiences:\n  - name: pixel\n    type: DISPLAY\n    trackerTargetings: [{ trackId: trk-web, eventCode: purchase, retentionDays: 30, inclusionType: INCLUDE }]\n',
    });
    const planned = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(
      /- trackId=trk-web [^\n]*trackerTargetingTerms=\["ONE_MONTH"\][^\n]*\n\s+\+ trackId=trk-web eventCode=purchase inclusionType=INCLUDE retentionDays=30\n/,
    );
    const applied = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("unknown field 'trackerTargetings[0].retentionDays'");
  });
});
