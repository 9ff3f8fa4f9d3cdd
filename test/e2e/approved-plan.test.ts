/**
 * `audiences apply` at a terminal: the plan shown waits at its prompt, and the account may move meanwhile (someone
 * edits an audience in the ad manager). Once approved, the plan is checked as a saved plan is: an account that moved
 * is left as it is, the error says what moved, and the exit code is 1 (one that did not is applied with exactly the
 * requests the plan's estimate said: estimate.test.ts). Through the CLI in this process, with a scripted terminal,
 * against the emulator, its state the judge.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, lastLoggedSeq, loggedRequests, runInProcess, workspace } from '../helpers/cli.js';
import { emulatorState, giveFields, linkAdGroup, outside } from '../helpers/live-account.js';

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

/** An update, a create, and with prune a delete that needs an unlink: every part of the check has something to read. */
const FILE = `adAccountId: 1234
prune: true
massDelete: { percent: 100 }
audiences:
  - name: kept
    type: DISPLAY
    ages: [30]
  - name: added
    type: DISPLAY
`;

async function account(): Promise<{ kept: string; gone: string }> {
  const kept = await outside.create(emulator, 'kept');
  const gone = await outside.create(emulator, 'gone');
  await linkAdGroup(emulator, gone, 101);
  return { kept, gone };
}

/**
 * What the error says of an audience edited in the ad manager: the fields that moved, or, when the edit fell in a later
 * second than the plan's read, the two dates.
 */
const modified = (id: string, fields: string) =>
  new RegExp(
    `audience "kept" \\(id ${id}\\) was modified (since the plan read it \\(${fields} changed\\)|at [\\dT:-]+, after the plan read it)`,
  );

/** The audiences and links as stored: what a refused apply must leave as it found it. */
async function stored(): Promise<string> {
  const { audiences, links } = await emulatorState(emulator);
  return JSON.stringify({ audiences, links });
}

/**
 * Applies FILE at a terminal, `meanwhile` done while the plan waits at its prompt; what the account held right after it,
 * and the requests the apply sent once approved.
 */
async function approveAfter(meanwhile: () => Promise<void>) {
  const cwd = await workspace({ 'audiences.yaml': FILE });
  let atApproval = '';
  let approvedAt = 0;
  const result = await runInProcess(['apply'], {
    cwd,
    env,
    tty: true,
    answers: [
      async () => {
        await meanwhile();
        atApproval = await stored();
        approvedAt = await lastLoggedSeq(emulator);
        return 'yes';
      },
    ],
  });
  return { result, atApproval, requests: await loggedRequests(emulator, approvedAt) };
}

describe('an apply approved at its prompt', () => {
  it('changes nothing when an audience it updates was edited while it waited, says what moved, and exits 1', async () => {
    const { kept } = await account();
    const { result, atApproval, requests } = await approveAfter(() =>
      outside.update(emulator, kept, 'kept', { genderType: 'NOT_ALL', genders: ['F'] }),
    );
    expect(result.stdout).toContain('Plan: 1 to create, 1 to update, 1 to delete, 1 to unlink.');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'error[PLAN_STALE]: the plan is stale: ad account 1234 changed while the plan waited for its approval',
    );
    expect(result.stderr).toMatch(modified(kept, 'genderType, genders'));
    expect(result.stderr).toContain('hint: nothing was changed; run `audiences apply` again and review the new plan');
    expect(result.stdout).not.toContain('Apply complete');
    expect(await stored()).toBe(atApproval);
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('changes nothing when only a field the file cannot hold was edited while it waited (the update would put it back)', async () => {
    const { kept } = await account();
    await giveFields(emulator, kept, '{"note":"before"}');
    const { result, atApproval } = await approveAfter(() => giveFields(emulator, kept, '{"note":"edited"}'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[PLAN_STALE]');
    expect(result.stderr).toContain(`audience "kept" (id ${kept}) was modified since the plan read it (note changed)`);
    expect(await stored()).toBe(atApproval);
    expect((await emulatorState(emulator)).audiences.find((audience) => audience.id === kept)?.extra).toEqual({
      note: '"edited"',
    });
  });

  it('of several accounts changes none of them when one moved while it waited', async () => {
    const { kept } = await account();
    const cwd = await workspace({
      'a.yaml': FILE,
      'b.yaml': 'adAccountId: 5678\naudiences:\n  - name: other\n    type: DISPLAY\n',
    });
    let atApproval = '';
    const result = await runInProcess(['apply', '-f', 'a.yaml', '-f', 'b.yaml'], {
      cwd,
      env,
      tty: true,
      answers: [
        async () => {
          await outside.update(emulator, kept, 'kept', { ageType: 'NOT_ALL', ages: ['20'] });
          atApproval = await stored();
          return 'yes';
        },
      ],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[PLAN_STALE]: the plan is stale: ad account 1234 changed while');
    expect(result.stderr).toMatch(modified(kept, 'ageType, ages'));
    expect(await stored()).toBe(atApproval);
  });
});
