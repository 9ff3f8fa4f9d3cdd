/**
 * The plan's estimate against what really happens: a plan saved with `plan --out` says how many
 * requests `apply PLAN` makes, by what they do, and the emulator's request log of that apply holds
 * exactly that many, of the same methods; with a rate, the apply takes at least the least time it
 * says. Shapes: creates only, updates and deletes with their unlinks, images. `apply -f` says the
 * same of what it sends once approved: the check of a saved plan too, unless --auto-approve.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { Plan } from '../../src/plan/index.js';
import type { LoggedRequest } from '../../src/emulator/request-log.js';
import { emulatorEnv, emulatorRoute, lastLoggedSeq, loggedRequests, runInProcess, workspace } from '../helpers/cli.js';
import { linkAdGroup, outside } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await emulatorRoute(emulator, 'POST', '/_emulator/reset');
});

const run = (cwd: string, ...args: string[]) => runInProcess(args, { cwd, env });

const logged = (after = 0) => loggedRequests(emulator, after);
const lastSeq = () => lastLoggedSeq(emulator);

/** Plans `cwd` to plan.json, applies it, and gives the saved plan and the requests its apply sent. */
async function planAndApply(cwd: string, ...options: string[]) {
  const planned = await run(cwd, 'plan', '--out', 'plan.json', ...options);
  expect(planned.stderr).toContain('Saved the plan');
  const [plan] = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as Plan[];
  const before = await lastSeq();
  const started = performance.now();
  const applied = await run(cwd, 'apply', 'plan.json', ...options);
  const seconds = (performance.now() - started) / 1000;
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const requests = await logged(before);
  // Every change was made as planned: the next plan has nothing to do.
  expect((await run(cwd, 'plan', '--detailed-exitcode', ...options)).code).toBe(0);
  return { plan: plan as Plan, text: planned.stdout, requests, seconds };
}

function methods(requests: LoggedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests) counts[request.method] = (counts[request.method] ?? 0) + 1;
  return counts;
}

describe('the estimate of a saved plan', () => {
  it('creates only: the check, each create, the list after them, exactly as the apply sends them', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234
audiences:
  - name: a
    type: DISPLAY
  - name: b
    type: DISPLAY
    ages: [20]
  - name: c
    type: DISPLAY
`,
    });
    const { plan, text, requests } = await planAndApply(cwd);
    expect(plan.estimate).toEqual({
      requests: { check: 1, unlink: 0, create: 3, update: 0, delete: 0, generate: 0, download: 0, verify: 1 },
      total: 5,
    });
    expect(text).toContain('Apply: 5 requests (1 to check the plan, 3 creates, 1 to verify).');
    expect(requests).toHaveLength(5);
    expect(methods(requests)).toEqual({ GET: 2, POST: 3 });
  });

  it('updates and deletes with their unlinks: rereads, one batch delete, the ad groups of an unlinked audience kept', async () => {
    const ids = {
      kept: await outside.create(emulator, 'kept'),
      narrowed: await outside.create(emulator, 'narrowed'),
      gone1: await outside.create(emulator, 'gone1'),
      gone2: await outside.create(emulator, 'gone2'),
      gone3: await outside.create(emulator, 'gone3'),
    };
    await linkAdGroup(emulator, ids.narrowed, 101);
    await linkAdGroup(emulator, ids.narrowed, 102);
    await linkAdGroup(emulator, ids.gone1, 101);
    await linkAdGroup(emulator, ids.gone2, 102);
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234
prune: true
massDelete: { percent: 100 }
audiences:
  - name: kept
    type: DISPLAY
    ages: [30]
  - name: narrowed
    type: DISPLAY
    adGroups: [101]
`,
    });
    const { plan, requests } = await planAndApply(cwd);
    expect(plan.summary).toMatchObject({ update: 1, delete: 3, unlink: 3 });
    // The check: the list, the update's audience, the ad groups of the five audiences whose links were read (each it
    // changes or deletes).
    expect(plan.estimate?.requests).toEqual({
      check: 1 + 1 + 5,
      unlink: 3,
      create: 0,
      update: 1,
      delete: 1,
      generate: 0,
      download: 0,
      verify: 1 + 1,
    });
    expect(requests).toHaveLength(plan.estimate?.total ?? -1);
    expect(methods(requests)).toEqual({ GET: 9, PUT: 4, DELETE: 1 });
  });

  it('images: one generation each, and a download per file the service answers as a URL', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234
images:
  - name: hero
    prompt: a spring picnic in a park, watercolor
    version: v2.0
    width: 512
    height: 384
    samples: 2
    output: assets/hero.webp
  - name: inline
    prompt: a lighthouse at dusk
    version: v2.0
    width: 512
    height: 512
    return_type: base64_string
    output: assets/inline.webp
audiences:
  - name: a
    type: DISPLAY
`,
    });
    const { plan, requests } = await planAndApply(cwd);
    expect(plan.estimate?.requests).toMatchObject({ check: 1, create: 1, generate: 2, download: 2, verify: 1 });
    expect(requests).toHaveLength(plan.estimate?.total ?? -1);
  });

  it('at a rate, the apply takes at least the least time it says', async () => {
    const audiences = Array.from({ length: 6 }, (_, index) => `  - name: paced-${index}\n    type: DISPLAY\n`);
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\naudiences:\n${audiences.join('')}` });
    const { plan, text, requests, seconds } = await planAndApply(cwd, '--requests-per-second', '10');
    expect(plan.estimate).toMatchObject({ total: 8, requestsPerSecond: 10, leastSeconds: 0.7 });
    expect(text).toContain('; at 10 requests per second, at least 0.7 s.');
    expect(requests).toHaveLength(8);
    expect(seconds).toBeGreaterThanOrEqual(0.7);
  });

  it('apply -f --auto-approve shows the estimate of the apply it makes at once: no check, at the rate apply is given', async () => {
    const narrowed = await outside.create(emulator, 'narrowed');
    await linkAdGroup(emulator, narrowed, 101);
    await linkAdGroup(emulator, narrowed, 102);
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234
audiences:
  - name: narrowed
    type: DISPLAY
    adGroups: [101]
  - name: added
    type: DISPLAY
`,
    });
    const beforePlan = await lastSeq();
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(2);
    const planReads = (await logged(beforePlan)).length;
    const before = await lastSeq();
    const applied = await run(cwd, 'apply', '--auto-approve', '--requests-per-second', '50');
    expect(applied.code, applied.stderr).toBe(0);
    const said = /^Apply: (\d+) requests \(([^)]*)\); at 50 requests per second, at least [\d.]+ s\.$/m.exec(
      applied.stdout,
    );
    expect(said?.[2]).toBe('1 unlink, 1 create, 2 to verify');
    expect(await logged(before)).toHaveLength(planReads + Number(said?.[1]));
  });

  it('apply -f approved at its prompt counts the check it makes then, as a saved plan does, and sends exactly that', async () => {
    await outside.create(emulator, 'kept');
    const gone = await outside.create(emulator, 'gone');
    await linkAdGroup(emulator, gone, 101);
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234
prune: true
massDelete: { percent: 100 }
audiences:
  - name: kept
    type: DISPLAY
    ages: [30]
  - name: added
    type: DISPLAY
`,
    });
    let approvedAt = 0;
    const applied = await runInProcess(['apply'], {
      cwd,
      env,
      tty: true,
      answers: [
        async () => {
          approvedAt = await lastSeq();
          return 'yes';
        },
      ],
    });
    expect(applied.code, applied.stderr).toBe(0);
    const said = /^Apply: (\d+) requests \(([^)]*)\)\.$/m.exec(applied.stdout);
    // The check: the list, the update's audience read again, the ad groups of the two audiences whose links were read.
    expect(said?.[2]).toBe('4 to check the plan, 1 unlink, 1 create, 1 update, 1 batch delete, 2 to verify');
    expect(await logged(approvedAt)).toHaveLength(Number(said?.[1]));
    // Every change was made as planned: the next plan has nothing to do.
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('says nothing of the apply when nothing changes (its apply only checks the plan), but the JSON has it', async () => {
    const cwd = await workspace({ 'audiences.yaml': 'adAccountId: 1234\naudiences: []\n' });
    const text = await run(cwd, 'plan');
    expect(text.stdout).toContain('No changes');
    expect(text.stdout).not.toContain('Apply:');
    const [plan] = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout) as Plan[];
    expect(plan?.estimate).toMatchObject({ total: 1, requests: { check: 1 } });
  });
});
