/**
 * "An apply that never lies", as a property: for a small random account and file, random
 * faults (5xx, 429 and connection resets, before or after the service acted, so answers are
 * lost after the work was done) and an interrupt at a random point, apply through the real
 * client and transport against the emulator, then plan again without faults. Then:
 * - every change reported done (as answered, or verified after a lost answer) is gone from the
 *   next plan; every change failed or not started is in it again, as the same action; the next
 *   plan holds nothing else but changes whose outcome was reported unknown (either way);
 * - no audience is made twice, and what the check after applying found still differing is
 *   nothing;
 * - the counts add up, and an unknown outcome is never counted as done.
 * The runs are few and small, with fast retries; fast-check's seed is fixed (OUTCOMES_SEED
 * overrides it) and each run carries the emulator's fault seed, so a failure prints a
 * counterexample to run again (not shrunk: against a live emulator, the timing of a run may
 * differ, and shrinking would chase it).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Audience } from '../../src/config/generated/audiences.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { applyAndVerify } from '../../src/operations/apply.js';
import { planDesired } from '../../src/operations/plan.js';
import type { Change, ChangeResult } from '../../src/plan/index.js';
import { definition } from '../helpers/builders.js';
import {
  connectClient,
  desiredFromFile,
  linkAdGroup,
  resetEmulator,
  setFaults,
  storedAudiences,
  type LiveClient,
} from '../helpers/live-account.js';

let emulator: RunningEmulator;
let live: LiveClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  live = connectClient(emulator);
});
afterAll(async () => {
  await live.close();
  await emulator.close();
});

/** Two definitions an audience may hold: planning one against the other is an update. */
const VARIANTS: ReadonlyArray<{ genders?: Array<'F'> }> = [{}, { genders: ['F'] }];
const AD_GROUPS = [101, 102] as const;

interface AudienceScenario {
  /** In the account before: its definition and the ad groups using it, or absent. */
  live: { variant: 0 | 1; links: number[] } | null;
  /**
   * In the file: its definition and maybe its ad groups (some of those it has: the others are unlinked), or absent
   * (pruned).
   */
  desired: { variant: 0 | 1; keepLinks: boolean[] | null } | null;
}

interface Scenario {
  audiences: AudienceScenario[];
  faults: { faultRate: number; faultKinds: Array<'5xx' | '429' | 'reset'>; seed: number };
  /**
   * How a request is tried again: few attempts, so that some changes run out of them; a quota
   * answer (429) is retried until the time budget runs out, and then the change has failed (a
   * budget of 0 runs out at almost every wait, one of 6 ms after a wait or two).
   */
  retry: { maxAttempts: number; budgetMs: number; baseDelayMs: number; maxDelayMs: number };
  concurrency: number;
  /** Interrupted once this many changes have finished (0: before any starts), or never. */
  interruptAfter: number | null;
}

const variant = fc.constantFrom(0 as const, 1 as const);
const scenario: fc.Arbitrary<Scenario> = fc.record({
  audiences: fc.array(
    fc.record({
      // Half of them to create, a third of the others to delete.
      live: fc.option(fc.record({ variant, links: fc.subarray([...AD_GROUPS]) }), { nil: null, freq: 2 }),
      desired: fc.option(
        fc.record({
          variant,
          keepLinks: fc.option(fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }), { nil: null }),
        }),
        { nil: null, freq: 3 },
      ),
    }),
    { minLength: 2, maxLength: 4 },
  ),
  faults: fc.record({
    faultRate: fc.constantFrom(0.2, 0.35, 0.5),
    faultKinds: fc.subarray(['5xx', '429', 'reset'] as Array<'5xx' | '429' | 'reset'>, { minLength: 1 }),
    seed: fc.nat({ max: 1_000_000 }),
  }),
  retry: fc
    .tuple(
      fc.integer({ min: 1, max: 3 }),
      fc.constantFrom(
        { budgetMs: 5_000, baseDelayMs: 1, maxDelayMs: 2 },
        { budgetMs: 6, baseDelayMs: 4, maxDelayMs: 8 },
        { budgetMs: 0, baseDelayMs: 8, maxDelayMs: 8 },
      ),
    )
    .map(([maxAttempts, waits]) => ({ maxAttempts, ...waits })),
  concurrency: fc.integer({ min: 1, max: 4 }),
  interruptAfter: fc.option(fc.nat({ max: 8 }), { nil: null, freq: 2 }),
});

/** A change as both plans name it: its action, its audience and, for an unlink, its ad group. */
function keyOf(change: Change | ChangeResult): string {
  return `${change.action} "${change.name}"${change.action === 'unlink' ? ` from ad group ${String(change.adGroupId)}` : ''}`;
}

/** The account before, made without faults: each audience with its definition and links. */
async function makeAccount(audiences: AudienceScenario[]): Promise<void> {
  for (const [index, audience] of audiences.entries()) {
    if (audience.live === null) continue;
    const made = await live.client.create(
      definition({ name: `audience-${index}`, ...VARIANTS[audience.live.variant] }),
    );
    for (const adGroupId of audience.live.links) await linkAdGroup(emulator, made.id, adGroupId);
  }
}

/** The file: every audience declared, with the ad groups it keeps when it says which; the rest pruned. */
function fileOf(audiences: AudienceScenario[]) {
  const entries = audiences.flatMap((audience, index): Audience[] => {
    if (audience.desired === null) return [];
    const { variant: chosen, keepLinks } = audience.desired;
    const links = audience.live?.links ?? [];
    const adGroups = keepLinks === null ? undefined : links.filter((_adGroupId, at) => keepLinks[at] === true);
    return [
      {
        name: `audience-${index}`,
        type: 'DISPLAY',
        ...VARIANTS[chosen],
        ...(adGroups === undefined ? {} : { adGroups }),
      },
    ];
  });
  return desiredFromFile({ adAccountId: 1234, prune: true, audiences: entries });
}

/** What the runs came to, so that the property is seen not to hold vacuously. */
const seen = { changes: 0, done: 0, verified: 0, failed: 0, unknown: 0, skipped: 0, interrupted: 0 };

async function applyUnderFaults(run: Scenario): Promise<void> {
  await resetEmulator(emulator);
  await makeAccount(run.audiences);
  const desired = fileOf(run.audiences);
  const options = { allowMassDelete: true };
  const plan = await planDesired(desired, options, live.client);
  expect(plan.errors).toEqual([]);
  if (plan.changes.length === 0) return;

  await setFaults(emulator, { ...run.faults, retryAfterSeconds: 0 });
  const flaky = connectClient(emulator, { retry: run.retry, concurrency: run.concurrency });
  const interrupt = new AbortController();
  const stop = (): void => {
    interrupt.abort();
    flaky.http.stopStarting();
  };
  if (run.interruptAfter === 0) stop();
  let finished = 0;
  let applied;
  try {
    applied = await applyAndVerify(
      plan,
      { audiences: flaky.client },
      {
        finished: () => {
          finished += 1;
          if (finished === run.interruptAfter) stop();
        },
      },
      interrupt.signal,
    );
  } finally {
    await flaky.close();
    await setFaults(emulator, { faultRate: 0 });
  }

  const { results, summary } = applied.result;
  const keys = (outcome: (result: ChangeResult) => boolean) => new Set(results.filter(outcome).map(keyOf));
  const done = keys((result) => result.status === 'ok');
  const notDone = keys((result) => result.status === 'failed' || result.status === 'skipped');
  const unknown = keys((result) => result.status === 'unknown');

  // The counts add up, and an unknown outcome is never counted as done.
  expect(summary.ok + summary.verified + summary.failed + summary.unknown + summary.skipped).toBe(plan.changes.length);
  expect(summary.ok + summary.verified).toBe(done.size);
  expect(summary.unknown).toBe(unknown.size);
  for (const result of results) if (result.verified !== undefined) expect(result.status).toBe('ok');
  expect(applied.remaining).toEqual([]);

  // Done + the next plan's changes = the applied plan's changes (an unknown one on either side).
  const next = await planDesired(desired, options, live.client);
  expect(next.errors, 'the next plan can be made: no audience twice').toEqual([]);
  const stored = (await storedAudiences(emulator)).map((audience) => audience.name);
  expect(new Set(stored).size, `no audience made twice: ${stored.join(', ')}`).toBe(stored.length);
  const planned = new Set(next.changes.map(keyOf));
  const outcomes = results
    .map(
      (result) =>
        `${keyOf(result)}: ${result.status}${result.verified === undefined ? '' : ' (verified)'} ${result.cause ?? ''}`,
    )
    .join('\n');
  for (const key of done) expect(planned.has(key), `reported done, yet planned again: ${key}\n${outcomes}`).toBe(false);
  for (const key of notDone)
    expect(planned.has(key), `reported not done, yet not planned again: ${key}\n${outcomes}`).toBe(true);
  for (const key of planned)
    expect(
      notDone.has(key) || unknown.has(key),
      `planned again, yet reported as neither not done nor unknown: ${key}\n${outcomes}`,
    ).toBe(true);

  seen.changes += plan.changes.length;
  seen.done += summary.ok;
  seen.verified += summary.verified;
  seen.failed += summary.failed;
  seen.unknown += summary.unknown;
  seen.skipped += summary.skipped;
  if (applied.interrupted) seen.interrupted += 1;
}

describe('an apply under faults and interrupts', () => {
  it('reports as done exactly what the next plan no longer asks for', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, (run) => applyUnderFaults(run)),
      { numRuns: 40, seed: Number(process.env.OUTCOMES_SEED ?? 20_260_101), endOnFailure: true },
    );
    // Every outcome came up in these runs: the property was not met by doing nothing.
    expect(seen.verified, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.unknown, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.failed, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.skipped, JSON.stringify(seen)).toBeGreaterThan(0);
    expect(seen.interrupted, JSON.stringify(seen)).toBeGreaterThan(0);
  }, 60_000);
});
