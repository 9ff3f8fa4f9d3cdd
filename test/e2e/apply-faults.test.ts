/**
 * Apply when things go wrong: a flaky service (5xx, 429, connection resets), saved plans that
 * went stale, answers at the prompt, a batch delete that partly fails, protected audiences.
 * Everything runs against the real emulator on port 0, through the real client and transport;
 * the CLI runs in this process (`runInProcess`) where its output and exit code matter.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AudienceClient } from '../../src/api/audiences.js';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Audience, AudiencesFile } from '../../src/config/generated/audiences.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import type { StoredAudience } from '../../src/emulator/store.js';
import {
  REGION_FIELDS,
  stableStringify,
  TARGETING_FIELDS,
  type AudienceDefinition,
  type JsonValue,
  type LiveAudience,
} from '../../src/model/index.js';
import { applyLockPath, takeApplyLocks } from '../../src/operations/apply-lock.js';
import { applyAndVerify } from '../../src/operations/apply.js';
import { planDesired } from '../../src/operations/plan.js';
import type { ChangeResult } from '../../src/plan/index.js';
import { definition } from '../helpers/builders.js';
import { applyThrough, emulatorEnv, runInProcess, workspace, type CliResult } from '../helpers/cli.js';
import { audienceEntry } from '../helpers/emulator-arbitraries.js';
import {
  connectClient,
  desiredFromFile,
  FAST_RETRY,
  linkAdGroup,
  setFaults,
  storedAudiences,
  type LiveClient,
} from '../helpers/live-account.js';

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

/** A definition for each name, the same on every run (fast-check's sampler with a fixed seed). */
function entries(names: string[], seed: number): Audience[] {
  return names.map((name, index) => fc.sample(audienceEntry(name), { seed: seed + index, numRuns: 1 })[0] as Audience);
}

/**
 * What the emulator stores for a declared audience must be its whole definition, field by field (member ids as text).
 */
function storedDiffers(desired: AudienceDefinition, stored: StoredAudience): string[] {
  const problems: string[] = [];
  const asText = (value: unknown) =>
    stableStringify(
      (value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([key, field]) => [key, String(field)]))
        : String(value)) as JsonValue,
    );
  const same = (field: string, want: unknown[], have: unknown[]) => {
    const key = (values: unknown[]) => values.map(asText).sort();
    if (JSON.stringify(key(want)) !== JSON.stringify(key(have)))
      problems.push(`${stored.name}: ${field} is ${JSON.stringify(have)}, declared ${JSON.stringify(want)}`);
  };
  for (const field of ['type', 'ageType', 'genderType', 'locationType'] as const) {
    if (desired[field] !== stored[field])
      problems.push(`${stored.name}: ${field} is ${stored[field]}, declared ${desired[field]}`);
  }
  for (const field of ['ages', 'genders', 'ufoInterests', 'ufoBusinessTypes'] as const)
    same(field, desired[field], stored[field]);
  for (const field of REGION_FIELDS)
    same(
      field,
      desired[field].map((region) => region.value),
      stored[field],
    );
  for (const field of TARGETING_FIELDS) same(field, desired[field], stored[field] ?? []);
  return problems;
}

describe('apply through a flaky service', () => {
  it.each([
    { quotaStatus: 429, quotaRetryAfter: true },
    { quotaStatus: 429, quotaRetryAfter: false },
    { quotaStatus: 400, quotaRetryAfter: false },
  ])(
    'finishes under a per-account rate limit answered as $quotaStatus (Retry-After: $quotaRetryAfter), and no change is given up',
    async (quota) => {
      await setFaults(emulator, { rateLimitPerSecond: 10, ...quota });
      const names = Array.from({ length: 25 }, (_, index) => `rate-${String(index).padStart(2, '0')}`);
      const cwd = await workspace({
        'audiences.yaml': `adAccountId: 1234\naudiences:\n${names.map((name) => `  - name: ${name}\n    type: DISPLAY\n`).join('')}`,
      });
      const applied = await runInProcess(['apply', '--auto-approve'], { cwd, env });
      expect(applied.stderr).not.toContain('FAILED');
      expect(applied.stdout).toContain('Apply complete for ad account 1234: 25 done, 0 failed, 0 skipped.');
      expect(applied.code).toBe(0);
      expect((await storedAudiences(emulator, 1234)).map((audience) => audience.name).sort()).toEqual(names);
    },
  );

  it('plans to the end with half of the requests failing: a read is tried again for as long as its time budget lasts, not a number of times', async () => {
    const names = Array.from({ length: 60 }, (_, index) => `flaky-${String(index).padStart(2, '0')}`);
    const made = await Promise.all(names.map((name) => live.client.create(definition({ name }))));
    for (const audience of made.slice(0, 6)) await linkAdGroup(emulator, audience.id, 101);
    const desired = desiredFromFile({
      adAccountId: 1234,
      audiences: names.map((name, index): Audience => ({
        name,
        type: 'DISPLAY',
        ...(index % 10 === 0 ? { genders: ['F'] } : {}),
      })),
    });
    await setFaults(emulator, { faultRate: 0.5, faultKinds: ['5xx', 'reset', '429'], retryAfterSeconds: 0, seed: 5 });
    const flaky = connectClient(emulator, { retry: { ...FAST_RETRY, maxAttempts: 5 } });
    const plan = await planDesired(desired, { allowMassDelete: false }, flaky.client);
    await flaky.close();
    await setFaults(emulator, { faultRate: 0 });
    expect(plan.errors).toEqual([]);
    expect(plan.summary).toMatchObject({ create: 0, update: 6, delete: 0 });
    const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as {
      requests: Array<{ method: string; path: string; fault: string | null }>;
    };
    const faultsByRead = new Map<string, number>();
    for (const request of log.requests.filter((entry) => entry.method === 'GET' && entry.fault !== null))
      faultsByRead.set(request.path, (faultsByRead.get(request.path) ?? 0) + 1);
    // At least one read failed more often than the attempt count allows: it would have stopped the plan before.
    expect(Math.max(...faultsByRead.values())).toBeGreaterThanOrEqual(5);
  });

  it('converges on 200 changes with 30% of requests failing: every audience once, as declared, nothing left over', async () => {
    // The account before: 100 audiences, 20 of them in use by an ad group.
    const existing = Array.from({ length: 100 }, (_, index) => `existing-${String(index).padStart(3, '0')}`);
    const made = await Promise.all(existing.map((name) => live.client.create(definition({ name }))));
    const doomed = made.slice(60);
    for (const [index, audience] of doomed.slice(0, 20).entries())
      await linkAdGroup(emulator, audience.id, [101, 102, 105][index % 3] as number);

    // The file: 100 new audiences, 40 existing ones changed, 20 kept as they are; the last 40 pruned.
    const created = entries(
      Array.from({ length: 100 }, (_, index) => `new-${String(index).padStart(3, '0')}`),
      1000,
    );
    const updated = entries(existing.slice(0, 40), 2000).map((entry) => ({
      ...entry,
      type: 'DISPLAY' as const,
      ufoBusinessTypes: ['IT'],
      talkChannelGroupTargetings: undefined,
    }));
    const kept = existing.slice(40, 60).map((name): Audience => ({ name, type: 'DISPLAY' }));
    const file: AudiencesFile = {
      adAccountId: 1234,
      prune: true,
      audiences: [...created, ...updated.map((entry) => JSON.parse(JSON.stringify(entry)) as Audience), ...kept],
    };
    const desired = desiredFromFile(file);
    const options = { allowMassDelete: true };

    const first = await planDesired(desired, options, live.client);
    expect(first.errors).toEqual([]);
    expect(first.summary).toMatchObject({ create: 100, update: 40, delete: 40, unlink: 20 });
    expect(first.changes).toHaveLength(200);

    // The default number of attempts, without the waits: a create whose answer is lost settles by listing, so rounds
    // matter.
    const flaky = connectClient(emulator, { retry: { ...FAST_RETRY, maxAttempts: 5 } });
    await setFaults(emulator, { faultRate: 0.3, faultKinds: ['5xx', '429', 'reset'], retryAfterSeconds: 0, seed: 3 });
    const rounds: string[] = [];
    for (let round = 1; round <= 12; round += 1) {
      try {
        const plan = await planDesired(desired, options, flaky.client);
        expect(plan.errors).toEqual([]);
        if (plan.changes.length === 0) break;
        const applied = await applyAndVerify(plan, { audiences: flaky.client });
        rounds.push(
          `round ${round}: ${plan.changes.length} changes, ${applied.result.summary.failed} failed, ${applied.remaining.length} still differ`,
        );
      } catch (error) {
        rounds.push(`round ${round}: ${(error as Error).message}`);
      }
    }
    await flaky.close();
    await setFaults(emulator, { faultRate: 0 });
    const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as {
      requests: Array<{ method: string; path: string; fault: string | null }>;
    };
    expect(log.requests.filter((request) => request.fault !== null).length).toBeGreaterThan(100);
    // Creates the service made but whose answer was lost: the ones a blind retry would duplicate.
    expect(log.requests.some((request) => request.method === 'POST' && /-after$/.test(request.fault ?? ''))).toBe(true);

    expect((await planDesired(desired, options, live.client)).changes, rounds.join('\n')).toEqual([]);
    const stored = await storedAudiences(emulator);
    const names = stored.map((audience) => audience.name);
    expect(new Set(names).size, 'no audience twice').toBe(names.length);
    expect([...names].sort()).toEqual(file.audiences.map((audience) => audience.name).sort());
    const byName = new Map(stored.map((audience) => [audience.name, audience]));
    expect(
      desired.audiences.flatMap((audience) =>
        storedDiffers(audience.definition, byName.get(audience.key) as StoredAudience),
      ),
    ).toEqual([]);
    const state = (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as {
      links: Array<{ audienceId: number }>;
    };
    expect(state.links).toEqual([]);
  }, 60_000);
});

/**
 * The CLI in this process on a terminal whose user answers the prompt with `answer()`, called when the prompt shows.
 */
async function runAtTerminal(
  args: string[],
  options: { cwd: string; env: Record<string, string>; answer: () => Promise<string | null> },
) {
  let stdout = '';
  let stderr = '';
  let prompts = 0;
  const io: Io = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    isTTY: false,
    stdinIsTTY: true,
    readLine: async () => {
      prompts += 1;
      return options.answer();
    },
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
  };
  const code = await main(args, io);
  return { code, stdout, stderr, prompts };
}

/** Names and definitions as stored, to show that a refused apply changed nothing. */
async function snapshot(target: RunningEmulator = emulator): Promise<string> {
  const state = (await (await fetch(`${target.url}/_emulator/state`)).json()) as {
    audiences: unknown[];
    links: unknown[];
  };
  return JSON.stringify({ audiences: state.audiences, links: state.links });
}

const twoAudiences = `adAccountId: 1234
prune: true
audiences:
  - name: seoul-women
    type: DISPLAY
    genders: [F]
    locations: [I]
  - name: busan-travel
    type: DISPLAY
    locations: [H]
    ufoInterests: [TRAVEL]
`;

describe('a saved plan that went stale is refused, and nothing is changed', () => {
  /** Applies the file, edits it so the next plan updates seoul-women and creates jeju-food, and saves that plan. */
  async function savedUpdatePlan(target: { env: Record<string, string> }): Promise<string> {
    const cwd = await workspace({ 'audiences.yaml': twoAudiences });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env: target.env })).code).toBe(0);
    await writeFile(
      join(cwd, 'audiences.yaml'),
      `${twoAudiences.replace('genders: [F]', 'genders: [F]\n    ages: [20, 25]')}  - name: jeju-food\n    type: MESSAGE\n    locations: [N]\n`,
    );
    const saved = await runInProcess(['plan', '--out', 'plan.json'], { cwd, env: target.env });
    expect(saved.code).toBe(0);
    const [plan] = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as Array<{
      summary: Record<string, number>;
    }>;
    expect(plan?.summary).toMatchObject({ create: 1, update: 1, delete: 0 });
    return cwd;
  }

  async function expectRefused(cwd: string, reason: RegExp, target: RunningEmulator = emulator): Promise<void> {
    const before = await snapshot(target);
    const result = await runInProcess(['apply', 'plan.json'], {
      cwd,
      env: target === emulator ? env : { ...env, ADS_API_URL: target.url },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[PLAN_STALE]');
    expect(result.stderr).toContain('stale');
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toContain('nothing was changed');
    expect(await snapshot(target)).toBe(before);
  }

  it('when an audience it updates was modified since, even within the same second (the service dates to the second)', async () => {
    // A stopped clock: every change carries the same lastModifiedDate, the worst case of a busy second.
    const frozen = await emulatorEnv({ now: () => new Date('2026-03-01T09:00:00Z') });
    try {
      const cwd = await savedUpdatePlan(frozen);
      const other = connectClient(frozen.emulator);
      const [summary] = (await other.client.list()).filter((audience) => audience.name === 'seoul-women');
      const current = await other.client.read(summary?.id ?? '0');
      // Someone adds an interest the file does not declare: applying the saved update would silently remove it.
      await other.client.update(current.id, { ...current.definition, ufoInterests: ['FOOD'] });
      await other.close();
      await expectRefused(cwd, /audience "seoul-women" \(id \d+\) was modified/, frozen.emulator);
    } finally {
      await frozen.emulator.close();
    }
  });

  it('when an audience it updates was modified since (a later second)', async () => {
    let clock = Date.parse('2026-03-01T09:00:00Z');
    const ticking = await emulatorEnv({ now: () => new Date(clock) });
    try {
      const cwd = await savedUpdatePlan(ticking);
      clock += 5_000;
      const other = connectClient(ticking.emulator);
      const [summary] = (await other.client.list()).filter((audience) => audience.name === 'seoul-women');
      const current = await other.client.read(summary?.id ?? '0');
      await other.client.update(current.id, { ...current.definition, genders: ['M'] });
      await other.close();
      await expectRefused(
        cwd,
        /audience "seoul-women" \(id \d+\) was modified at 2026-03-01T09:00:05/,
        ticking.emulator,
      );
    } finally {
      await ticking.emulator.close();
    }
  });

  it('when an audience it updates was deleted since', async () => {
    const cwd = await savedUpdatePlan({ env });
    const [summary] = (await live.client.list()).filter((audience) => audience.name === 'seoul-women');
    await live.client.delete(summary?.id ?? '0');
    await expectRefused(cwd, new RegExp(`audience ${summary?.id} no longer exists`));
  });

  it('when an audience it deletes was linked to an ad group since', async () => {
    const cwd = await workspace({ 'audiences.yaml': twoAudiences });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const stray = await live.client.create(definition({ name: 'stray' }));
    const saved = await runInProcess(['plan', '--out', 'plan.json'], { cwd, env });
    expect(saved.stdout).toContain('- delete audience "stray"');
    expect(saved.stdout).not.toMatch(/- unlink/);
    await linkAdGroup(emulator, stray.id, 102);
    await expectRefused(cwd, /the ad groups using audience "stray" \(id \d+\) changed: none then, 102 now/);
  });

  it('when an audience appeared since and the plan prunes', async () => {
    const cwd = await savedUpdatePlan({ env });
    const newcomer = await live.client.create(definition({ name: 'newcomer' }));
    await expectRefused(cwd, new RegExp(`"newcomer" \\(id ${newcomer.id}\\) appeared since the plan, which prunes`));
  });

  it('applies a fresh saved plan without asking, even with no terminal; the same plan is stale once applied', async () => {
    const cwd = await savedUpdatePlan({ env });
    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env, tty: false });
    expect(applied.code).toBe(0);
    expect(applied.stdout).not.toContain('Do you want to apply');
    expect(applied.stdout).toContain('Apply complete for ad account 1234: 2 done, 0 failed, 0 skipped.');
    expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
    await expectRefused(cwd, /"jeju-food" now exists/);
  });
});

describe('a saved plan with nothing to do', () => {
  it('says there are no changes, changes nothing and exits 0', async () => {
    const cwd = await workspace({ 'audiences.yaml': 'adAccountId: 1234\naudiences: []\n' });
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(0);
    const applied = await runInProcess(['apply', 'plan.json'], { cwd, env, tty: false });
    expect(applied.stdout).toBe('No changes: ad account 1234 matches the desired state.\n');
    expect(applied.code).toBe(0);
  });
});

describe('the confirmation prompt', () => {
  it.each([
    ['no', 'no'],
    ['an upper-case YES', 'YES'],
    ['an empty line', ''],
    ['the end of input', null],
  ])('cancels on %s and changes nothing', async (_label, answer) => {
    const cwd = await workspace({ 'audiences.yaml': twoAudiences });
    const before = await snapshot();
    const result = await runAtTerminal(['apply'], { cwd, env, answer: async () => answer });
    expect(result.prompts).toBe(1);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Only `yes` is accepted');
    expect(result.stdout).toContain('Apply cancelled: nothing was changed.');
    expect(await snapshot()).toBe(before);
  });

  it('accepts `yes` with surrounding blanks', async () => {
    const cwd = await workspace({ 'audiences.yaml': twoAudiences });
    const result = await runAtTerminal(['apply'], { cwd, env, answer: async () => '  yes ' });
    expect(result.code).toBe(0);
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual([
      'busan-travel',
      'seoul-women',
    ]);
  });

  it('does not ask when there is nothing to do, or with --auto-approve', async () => {
    const cwd = await workspace({ 'audiences.yaml': twoAudiences });
    const approved = await runAtTerminal(['apply', '--auto-approve'], { cwd, env, answer: async () => 'no' });
    expect(approved).toMatchObject({ code: 0, prompts: 0 });
    const nothing = await runAtTerminal(['apply'], { cwd, env, answer: async () => 'no' });
    expect(nothing).toMatchObject({ code: 0, prompts: 0 });
    expect(nothing.stdout).toContain('No changes');
  });
});

describe('a batch delete that partly fails', () => {
  it('reports the audience still in use, deletes the others, exits 1, and a rerun finishes once the link is released', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\nprune: true\naudiences:\n  - name: keep\n    type: DISPLAY\n',
    });
    await live.client.create(definition({ name: 'keep' }));
    const [first, busy, third] = await Promise.all(
      ['gone-1', 'gone-2', 'gone-3'].map((name) => live.client.create(definition({ name }))),
    );
    if (!first || !busy || !third) throw new Error('unreachable');

    // Just as the deletes are sent, someone starts using gone-2 in an ad group: the plan did not know that link. (Made
    // while the plan waited at its prompt, the link would make the approved plan stale, and nothing would be deleted.)
    const client: AudienceClient = {
      ...live.client,
      deleteMany: async (ids) => {
        await linkAdGroup(emulator, busy.id, 101);
        return live.client.deleteMany(ids);
      },
    };
    const result = await applyThrough(cwd, client);
    expect(result.stdout).toContain('Plan: 0 to create, 0 to update, 3 to delete, 0 to unlink.');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`ok +delete audience "gone-1" \\(id ${first.id}\\)`));
    expect(result.stderr).toMatch(new RegExp(`ok +delete audience "gone-3" \\(id ${third.id}\\)`));
    expect(result.stderr).toMatch(
      new RegExp(`FAILED +delete audience "gone-2" \\(id ${busy.id}\\): audience ${busy.id}: in use by ad groups 101`),
    );
    expect(result.stdout).toContain('Apply incomplete for ad account 1234: 2 done, 1 failed, 0 skipped.');
    expect(result.stdout).toMatch(
      new RegExp(
        `Not done:\\n  delete audience "gone-2" \\(id ${busy.id}\\): failed, audience ${busy.id}: in use by ad groups 101`,
      ),
    );
    expect(result.stdout).toContain('run `audiences apply` again');
    expect(result.stdout).not.toContain('still differ');
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(['gone-2', 'keep']);

    await live.client.unlink(busy.id, '101');
    const rerun = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(rerun.stdout).toContain('Plan: 0 to create, 0 to update, 1 to delete, 0 to unlink.');
    expect(rerun.code).toBe(0);
    expect((await storedAudiences(emulator)).map((audience) => audience.name)).toEqual(['keep']);
  });
});

describe('protect', () => {
  it('refuses a plan that would unlink a protected audience, and applies none of its changes', async () => {
    const file = `adAccountId: 1234
prune: true
audiences:
  - name: flagship
    type: DISPLAY
    adGroups: [101]
    protect: true
  - name: newcomer
    type: DISPLAY
`;
    const cwd = await workspace({ 'audiences.yaml': file });
    const flagship = await live.client.create(definition({ name: 'flagship' }));
    await linkAdGroup(emulator, flagship.id, 101);
    await linkAdGroup(emulator, flagship.id, 102);
    const before = await snapshot();

    const result = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/audience "flagship" is protected, but ad group 102 would be unlinked from it/);
    expect(await snapshot()).toBe(before);
    expect((await runInProcess(['plan', '--out', 'plan.json'], { cwd, env })).code).toBe(1);

    // Without protect the same file unlinks 102 and keeps 101.
    await writeFile(join(cwd, 'audiences.yaml'), file.replace('    protect: true\n', ''));
    const unprotected = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(unprotected.code).toBe(0);
    expect((await live.client.adGroups(flagship.id)).map((link) => link.adGroupId)).toEqual(['101']);
  });
});

describe('checking the account after applying', () => {
  /** Applies twoAudiences to the empty account through `client`; what the command printed, and its exit code. */
  async function applyTwoThrough(client: AudienceClient): Promise<CliResult> {
    return applyThrough(await workspace({ 'audiences.yaml': twoAudiences }), client);
  }

  it('fails: the summary still says what was done, names the cause, and the exit code is 1', async () => {
    // The service stops answering lists after the one the plan is made from: the check lists the account again.
    let lists = 0;
    const client: AudienceClient = {
      ...live.client,
      list: () => (++lists === 1 ? live.client.list() : Promise.reject(new Error('the service went away'))),
    };
    const { code, stdout, stderr } = await applyTwoThrough(client);
    expect(stderr).toMatch(/ok +create audience "busan-travel"/);
    expect(stdout).toContain('Apply complete for ad account 1234: 2 done, 0 failed, 0 skipped.');
    expect(stdout).toContain('could not be read back to check the result: the service went away');
    expect(stdout).not.toContain('please report this');
    expect(code).toBe(1);
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual([
      'busan-travel',
      'seoul-women',
    ]);
  });

  it('reports an audience the service stored otherwise than it was sent, from its answer, without reading it again', async () => {
    let reads = 0;
    const client: AudienceClient = {
      ...live.client,
      read: (id) => {
        reads += 1;
        return live.client.read(id);
      },
      // The service answers busan-travel's create with another region than the one sent.
      create: async (sent) => {
        const created = await live.client.create(sent);
        const stored = created.audience as LiveAudience;
        return sent.name === 'busan-travel'
          ? { ...created, audience: { ...stored, definition: { ...stored.definition, locations: [{ value: 'B' }] } } }
          : created;
      },
    };
    const { code, stdout } = await applyTwoThrough(client);
    expect(stdout).toContain('Apply complete for ad account 1234: 2 done, 0 failed, 0 skipped.');
    expect(stdout).toMatch(
      /After applying, these still differ \(please report this\):\n {2}audience "busan-travel" \(id \d+\): locations still differs/,
    );
    expect(stdout).not.toContain('seoul-women" (id');
    expect(code).toBe(1);
    // The plan of an empty account reads nothing, and the check reads nothing either.
    expect(reads).toBe(0);
  });
});

/**
 * The built CLI in a process of its own, as a person or a pipeline runs it, so that it can be
 * sent real signals. `onStderr` sees the text written so far, each time more comes.
 */
function spawnCli(
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    onStderr?: (stderr: string, child: ChildProcess) => void;
    node?: string[];
  },
) {
  const child = spawn(
    process.execPath,
    [...(options.node ?? []), fileURLToPath(new URL('../../bin/audiences.js', import.meta.url)), ...args],
    {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onStderr?.(stderr, child);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited };
}

const numbered = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(2, '0')}`);
const displayAudiences = (names: string[]) =>
  `adAccountId: 1234\naudiences:\n${names.map((name) => `  - name: ${name}\n    type: DISPLAY\n`).join('')}`;

/**
 * The CLI sending itself each signal at a moment of its own output (see test/helpers/signal-at.mjs): no timing
 * involved.
 */
function spawnSignalled(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
  moments: Array<{ signal: NodeJS.Signals; stderr?: string; stdout?: string; exiting?: true }>,
) {
  const preload = new URL('../helpers/signal-at.mjs', import.meta.url).href;
  return spawnCli(args, {
    ...options,
    env: { ...options.env, AUDIENCES_TEST_SIGNALS: JSON.stringify(moments) },
    node: ['--import', preload],
  });
}

/**
 * A loopback proxy in front of the emulator that holds the first request `hold` picks (given
 * the requests before it) on its way: the apply waits there, at a moment the test can act in,
 * with that request in flight. `release` sends it on and resolves once the service answered.
 */
async function holdingProxy(
  target: string,
  hold: (request: string, before: readonly string[]) => boolean,
): Promise<{ url: string; held: Promise<void>; release(): Promise<void>; close(): Promise<void> }> {
  const before: string[] = [];
  let reached = (): void => undefined;
  const held = new Promise<void>((resolve) => (reached = resolve));
  let sendHeld: (() => Promise<void>) | undefined;
  let released: Promise<void> | undefined;
  // The body is read first, so that a held request can still be sent on once its client has gone.
  const forward = (incoming: IncomingMessage, body: Buffer, answer: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      const upstream = httpRequest(
        new URL(incoming.url ?? '/', target),
        { method: incoming.method, headers: incoming.headers },
        (response) => {
          answer.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(answer);
          response.on('end', resolve);
        },
      );
      upstream.on('error', () => {
        answer.destroy();
        resolve();
      });
      upstream.end(body);
    });
  const server = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const line = `${incoming.method ?? 'GET'} ${incoming.url ?? '/'}`;
      const holdThis = sendHeld === undefined && hold(line, before);
      before.push(line);
      if (!holdThis) return void forward(incoming, body, answer);
      sendHeld = () => forward(incoming, body, answer);
      reached();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    release: () => (released ??= held.then(() => sendHeld?.())),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Holds the second create: with one request at a time, the first is done and the others wait their turn. */
const secondCreate = (request: string, before: readonly string[]) =>
  request.startsWith('POST /openapi/v4/targetings') && before.some((line) => line.startsWith('POST '));

describe('an apply interrupted with Ctrl-C', () => {
  it('finishes the changes in flight, starts no other, says so in its summary, exits 130, and a rerun finishes the job', async () => {
    const names = numbered('interrupted', 12);
    const cwd = await workspace({ 'audiences.yaml': displayAudiences(names) });
    const proxy = await holdingProxy(emulator.url, secondCreate);
    try {
      const { child, exited } = spawnCli(['apply', '--auto-approve', '--concurrency', '1'], {
        cwd,
        env: { ...env, ADS_API_URL: proxy.url },
        onStderr: (text) => {
          // Once the interrupt is taken, the create held on its way goes on, and is answered.
          if (text.includes('Interrupted: the changes in flight are finishing')) void proxy.release();
        },
      });
      await proxy.held;
      child.kill('SIGINT');
      const { code, stdout, stderr } = await exited;

      expect(code, stdout + stderr).toBe(130);
      expect(stderr).toContain('Interrupted: the changes in flight are finishing and no other starts.');
      expect(stderr.match(/^ok {6}create audience "interrupted-0[01]" \(id \d+\)$/gm) ?? []).toHaveLength(2);
      expect(stdout).toContain('Apply interrupted for ad account 1234: 2 done, 0 failed, 10 skipped.');
      expect(stdout.match(/: skipped, not started: the apply was interrupted/g) ?? []).toHaveLength(10);
    } finally {
      await proxy.close();
    }

    // What the summary says was done is what the account holds: the next plan creates exactly the rest.
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(names.slice(0, 2));
    const rerun = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(rerun.stdout).toContain('Plan: 10 to create, 0 to update, 0 to delete, 0 to unlink.');
    expect(rerun.code).toBe(0);
  });

  it('stops at once on a second signal, still printing what is known: done, in flight (unknown) and not started; a rerun in the same folder finishes the job', async () => {
    const names = numbered('stopped', 12);
    const cwd = await workspace({ 'audiences.yaml': displayAudiences(names) });
    const proxy = await holdingProxy(emulator.url, secondCreate);
    try {
      let second = false;
      const { child, exited } = spawnCli(['apply', '--auto-approve', '--concurrency', '1'], {
        cwd,
        env: { ...env, ADS_API_URL: proxy.url },
        onStderr: (text, running) => {
          // SIGTERM first (a pipeline cancelled), then Ctrl-C while the create held on its way still waits for its
          // answer.
          if (second || !text.includes('Interrupted: the changes in flight are finishing')) return;
          second = true;
          running.kill('SIGINT');
        },
      });
      await proxy.held;
      child.kill('SIGTERM');
      const { code, signal, stdout, stderr } = await exited;

      expect({ code, signal }, stdout + stderr).toEqual({ code: 130, signal: null });
      expect(stderr).toContain('Stopped at once: what was in flight is unknown.');
      expect(stdout).toContain('Apply interrupted for ad account 1234: 1 done, 0 failed, 1 unknown, 10 skipped.');
      expect(stdout).toContain(
        'create audience "stopped-01": unknown, in flight when the apply was stopped at once: it may or may not have been made',
      );
      expect(stdout.match(/: skipped, not started: the apply was interrupted/g) ?? []).toHaveLength(10);
      expect(stdout).toContain('Whether the changes marked unknown were made, `audiences plan` shows');

      // The request in flight reaches the service all the same, after the process is gone.
      await proxy.release();
    } finally {
      await proxy.close();
    }
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(names.slice(0, 2));
    // The apply lock went with the process: the rerun is not refused, and it creates exactly the rest.
    const rerun = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(rerun.stdout, rerun.stderr).toContain('Plan: 10 to create, 0 to update, 0 to delete, 0 to unlink.');
    expect(rerun.code).toBe(0);
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(names);
  });

  it('before any change (while planning), a signal stops at once: "nothing was changed", exit 130 for SIGTERM too, and no lock left behind', async () => {
    // A service that takes the list and never answers: the apply is planning when the signal comes.
    let listed = (): void => undefined;
    const silent = createServer(() => listed());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const cwd = await workspace({ 'audiences.yaml': displayAudiences(['early']) });
      const { child, exited } = spawnCli(['apply', '--auto-approve'], {
        cwd,
        env: { ...env, ADS_API_URL: `http://127.0.0.1:${port}` },
      });
      listed = () => void child.kill('SIGTERM');
      const { code, signal, stdout, stderr } = await exited;
      expect({ code, signal }, stdout + stderr).toEqual({ code: 130, signal: null });
      expect(stderr).toContain('Interrupted: nothing was changed.');
      expect(stdout).toBe('');
      await expect(stat(join(cwd, applyLockPath(1234)))).rejects.toThrow(/ENOENT/);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('an apply interrupted twice: a change shown ok is done in every summary, one summary, exit 130', () => {
  it('counts the creates shown ok as done when the second signal comes while their race with another apply is being checked', async () => {
    const names = numbered('settling', 3);
    const cwd = await workspace({ 'audiences.yaml': displayAudiences(names) });
    // After its creates, an apply lists the account to settle races: the list is held, the creates all answered.
    const proxy = await holdingProxy(
      emulator.url,
      (request, before) =>
        request.startsWith('GET /openapi/v4/targetings/audiences') && before.some((line) => line.startsWith('POST ')),
    );
    try {
      let interrupted = (): void => undefined;
      const saidInterrupted = new Promise<void>((resolve) => (interrupted = resolve));
      const { child, exited } = spawnCli(['apply', '--auto-approve'], {
        cwd,
        env: { ...env, ADS_API_URL: proxy.url },
        onStderr: (text) => {
          if (text.includes('Interrupted: the changes in flight are finishing')) interrupted();
        },
      });
      await proxy.held;
      child.kill('SIGTERM');
      await saidInterrupted;
      child.kill('SIGINT');
      const { code, signal, stdout, stderr } = await exited;

      expect({ code, signal }, stdout + stderr).toEqual({ code: 130, signal: null });
      expect(stderr.match(/^ok {6}create audience "settling-\d+" \(id \d+\)$/gm) ?? []).toHaveLength(3);
      expect(stderr).toContain('Stopped at once: what was in flight is unknown.');
      expect(stdout.match(/Apply interrupted for ad account 1234/g) ?? []).toHaveLength(1);
      expect(stdout).toContain('Apply interrupted for ad account 1234: 3 done, 0 failed, 0 skipped.');
      expect(stdout).toContain('Done, with a note:');
      expect(
        stdout.match(
          /: the apply was stopped at once while it checked for a duplicate made by another apply at the same time: if the next plan stops at DUPLICATE_LIVE_NAME/g,
        ) ?? [],
      ).toHaveLength(3);
      expect(stdout).not.toContain('unknown');
    } finally {
      await proxy.close();
    }
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(names);
  });

  it.each([
    {
      moment: 'as its summary is written',
      second: { signal: 'SIGINT' as const, stdout: 'Apply interrupted for ad account 1234' },
    },
    {
      moment: 'once the command has returned, about to exit',
      second: { signal: 'SIGTERM' as const, exiting: true as const },
    },
  ])('a second signal $moment: one summary, exit 130', async ({ second }) => {
    // Each create takes a while: the first signal, sent as the first is shown done, leaves most not started.
    await setFaults(emulator, { latencyMs: 50 });
    const names = numbered('ending', 6);
    const cwd = await workspace({ 'audiences.yaml': displayAudiences(names) });
    const { code, signal, stdout, stderr } = await spawnSignalled(
      ['apply', '--auto-approve', '--concurrency', '1'],
      { cwd, env },
      [{ signal: 'SIGTERM', stderr: 'ok      create' }, second],
    ).exited;

    expect({ code, signal }, stdout + stderr).toEqual({ code: 130, signal: null });
    expect(stderr).toContain('Interrupted: the changes in flight are finishing and no other starts.');
    expect(
      stdout.match(/Apply interrupted for ad account 1234: \d+ done, 0 failed, \d+ skipped\./g) ?? [],
      stdout,
    ).toHaveLength(1);
    expect(stderr).not.toContain('Stopped at once');
  });
});

describe('an apply interrupted before it could start', () => {
  it('while it waits for the emulator state another command holds: "nothing was changed" and exit 130 for SIGTERM, not the signal\'s own', async () => {
    const cwd = await workspace({ 'audiences.yaml': displayAudiences(['waiting']) });
    const holder = await startEmulator({ statePath: join(cwd, '.audiences', 'emulator-state.json') });
    try {
      const { code, signal, stdout, stderr } = await spawnCli(['apply', '--emulator', '--auto-approve'], {
        cwd,
        env: {},
        onStderr: (text, child) => {
          if (text.includes('Waiting for another command') && !child.killed) child.kill('SIGTERM');
        },
      }).exited;
      expect({ code, signal }, stdout + stderr).toEqual({ code: 130, signal: null });
      expect(stderr).toContain('Interrupted: nothing was changed.');
    } finally {
      await holder.close();
    }
    await expect(stat(join(cwd, applyLockPath(1234)))).rejects.toThrow(/ENOENT/);
  });
});

describe('two applies in one folder', () => {
  it('refuses the second with a clear message while the first holds the lock, and changes nothing', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - name: locked-out\n    type: DISPLAY\n',
    });
    const release = await takeApplyLocks(cwd, [1234]);
    try {
      const second = await runInProcess(['apply', '--auto-approve'], { cwd, env });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(
        'error[APPLY_LOCKED]: another apply of ad account 1234 is running in this folder (it holds .audiences/apply-1234.lock)',
      );
      expect(second.stderr).toContain('hint: wait for it to finish');
      expect((await storedAudiences(emulator)).map((audience) => audience.name)).not.toContain('locked-out');
    } finally {
      await release();
    }
    const after = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(after.code, after.stderr).toBe(0);
    expect((await storedAudiences(emulator)).map((audience) => audience.name)).toContain('locked-out');
  });
});

describe('applies racing from two folders against one account', () => {
  it('converge: no audience twice, every plan afterwards empty, and the apply that lost a race says it adopted the other', async () => {
    await emulator.close();
    ({ emulator, env } = await emulatorEnv({ latencyMs: 25 }));
    const adoptions: string[] = [];
    for (let round = 1; round <= 3; round += 1) {
      const names = Array.from({ length: 10 }, (_, index) => `race-${round}-${String(index).padStart(2, '0')}`);
      const file = `adAccountId: 1234\naudiences:\n${names.map((name) => `  - name: ${name}\n    type: DISPLAY\n`).join('')}`;
      const folders = await Promise.all([workspace({ 'audiences.yaml': file }), workspace({ 'audiences.yaml': file })]);
      const runs = await Promise.all(folders.map((cwd) => runInProcess(['apply', '--auto-approve'], { cwd, env })));
      for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
      adoptions.push(
        ...runs.flatMap((run) =>
          run.stderr.split('\n').filter((line) => line.includes('adopted: another apply created')),
        ),
      );

      const stored = (await storedAudiences(emulator))
        .map((audience) => audience.name)
        .filter((name) => name.startsWith(`race-${round}-`));
      expect([...stored].sort()).toEqual(names);
      for (const cwd of folders)
        expect((await runInProcess(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(0);
    }
    // Both applies created every audience at once, so each name was raced: one of them adopted it.
    expect(adoptions.length).toBeGreaterThanOrEqual(10);
  });
});

describe('applies racing through a flaky service', () => {
  it.each([11, 12, 13])(
    'converge when answers are lost too (seed %i): no audience twice, every plan afterwards empty, and no create left unknown',
    async (seed) => {
      const names = Array.from({ length: 60 }, (_, index) => `lost-race-${String(index).padStart(2, '0')}`);
      const desired = desiredFromFile({
        adAccountId: 1234,
        audiences: names.map((name): Audience => ({ name, type: 'DISPLAY' })),
      });
      const clients = [connectClient(emulator), connectClient(emulator), connectClient(emulator)];
      await setFaults(emulator, { faultRate: 0.4, faultKinds: ['5xx', 'reset'], seed });
      const outcomes: string[] = [];
      const results: ChangeResult[] = [];
      for (let round = 1; round <= 4; round += 1) {
        const rounds = await Promise.all(
          clients.map(async ({ client }, index) => {
            const plan = await planDesired(desired, { allowMassDelete: false }, client);
            if (plan.errors.length > 0)
              return `apply ${index}, round ${round}: ${plan.errors.map((error) => error.code).join(', ')}`;
            const applied = await applyAndVerify(plan, { audiences: client });
            results.push(...applied.result.results);
            return `apply ${index}, round ${round}: ${plan.changes.length} changes, ${JSON.stringify(applied.result.summary)}`;
          }),
        );
        outcomes.push(...rounds);
      }
      await Promise.all(clients.map((client) => client.close()));
      await setFaults(emulator, { faultRate: 0 });
      const stored = (await storedAudiences(emulator)).map((audience) => audience.name);
      expect([...stored].sort(), outcomes.join('\n')).toEqual(names);
      expect((await planDesired(desired, { allowMassDelete: false }, live.client)).changes).toEqual([]);
      expect(
        results
          .filter((result) => result.status !== 'ok')
          .map((result) => `${result.name}: ${result.status}, ${result.cause ?? ''}`),
      ).toEqual([]);
      // Raced, and with answers lost: creates that could not tell which audience they made settled it by the lowest id.
      expect(
        results.some((result) =>
          result.cause?.includes('which one this create made is unknown: the lowest id with its definition stays'),
        ),
      ).toBe(true);
      expect(results.some((result) => result.cause?.startsWith('adopted: another apply created'))).toBe(true);
    },
    60_000,
  );
});
