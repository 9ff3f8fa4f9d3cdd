import { describe, expect, it } from 'vitest';
import { countOutcomes } from '../apply/applier.js';
import { planAccount, type AppliedAccount, type ChangeResult } from '../plan/index.js';
import { desiredState, liveState } from '../../test/helpers/builders.js';
import { applySummary, progressLine } from './apply.js';
import { ansiStyle, plainStyle } from './style.js';

const FOUND =
  'the answer was lost (the service answered 503); the account was listed and the audience was found (id 101)';
const UNKNOWN =
  'the outcome is unknown: the create of audience "b" may have been carried out, but its answer was lost (…); listing the account to find out failed too: …';

const results: ChangeResult[] = [
  { action: 'create', name: 'a', id: '101', status: 'ok', verified: FOUND },
  { action: 'create', name: 'b', id: null, status: 'unknown', cause: UNKNOWN },
  { action: 'update', name: 'c', id: '102', status: 'ok' },
  { action: 'delete', name: 'd', id: '103', status: 'failed', cause: 'audience 103: in use by ad groups 101' },
  { action: 'delete', name: 'e', id: '104', status: 'skipped', cause: 'not started: the apply was interrupted' },
];

function account(changes: ChangeResult[], interrupted = false): AppliedAccount {
  const plan = planAccount(desiredState([]), liveState([]), { allowMassDelete: false });
  return {
    plan,
    result: { adAccountId: 1234, results: changes, summary: countOutcomes(changes) },
    remaining: [],
    unverified: null,
    interrupted,
  };
}

describe('the outcome of each change', () => {
  it('one line each, the tags one width: a change done after a lost answer says how it is known, an unknown one says what is known', () => {
    expect(results.map((result) => progressLine(result, plainStyle))).toEqual([
      `ok      create audience "a" (id 101): verified: ${FOUND}`,
      `UNKNOWN create audience "b": ${UNKNOWN}`,
      'ok      update audience "c" (id 102)',
      'FAILED  delete audience "d" (id 103): audience 103: in use by ad groups 101',
      'skipped delete audience "e" (id 104): not started: the apply was interrupted',
    ]);
    // Colours do not move the columns.
    expect(progressLine(results[1] as ChangeResult, ansiStyle)).toBe(
      `\u001b[31mUNKNOWN\u001b[39m create audience "b": ${UNKNOWN}`,
    );
  });

  it('the summary counts each outcome apart (they add up to the changes), names the verified ones and the unknown ones', () => {
    const text = applySummary([account(results)], false);
    expect(text).toContain(
      'Apply incomplete for ad account 1234: 1 done, 1 verified after a lost answer, 1 failed, 1 unknown, 1 skipped.',
    );
    expect(text).toContain(`Verified after a lost answer (done):\n  create audience "a" (id 101): ${FOUND}\n`);
    expect(text).toContain(
      `Not done:\n  create audience "b": unknown, ${UNKNOWN}\n  delete audience "d" (id 103): failed, audience 103: in use by ad groups 101\n`,
    );
    expect(text).toContain('Whether the changes marked unknown were made, `audiences plan` shows');
  });

  it('a change verified after a lost answer is done: with nothing else, the apply is complete', () => {
    const text = applySummary([account([results[0] as ChangeResult, results[2] as ChangeResult])], false);
    expect(text).toContain(
      'Apply complete for ad account 1234: 1 done, 1 verified after a lost answer, 0 failed, 0 skipped.',
    );
    expect(text).not.toContain('Not done');
  });

  it('without lost answers the counts read as before: done, failed, skipped', () => {
    expect(applySummary([account([results[2] as ChangeResult])], false)).toContain(
      'Apply complete for ad account 1234: 1 done, 0 failed, 0 skipped.',
    );
  });
});
