import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { knownAudienceIds } from './kinds/audience.js';
import { staleReasons } from './planner.js';
import { planAccount } from './planner.js';

const options = { allowMassDelete: false };

describe('staleReasons: a name the plan creates', () => {
  it('may still be held by the audience the plan renames away from it', () => {
    const live = liveState([liveAudience(5, { name: 'spring' })]);
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'spring-2025' }, { id: '5' }), desiredAudience({ name: 'spring' })]),
      live,
      options,
    );
    expect(plan.changes.map((change) => change.action).sort()).toEqual(['create', 'update']);
    expect(staleReasons(plan, { audiences: live.audiences, adGroupIds: {} })).toEqual([]);
  });

  it('is taken when an audience the plan read but does not rename away from it holds it now, though its date is unchanged', () => {
    const live = liveState([liveAudience(5, { name: 'old' }), liveAudience(6, { name: 'kept' })]);
    const plan = planAccount(
      desiredState([
        desiredAudience({ name: 'new' }, { renamedFrom: ['old'] }),
        desiredAudience({ name: 'kept' }),
        desiredAudience({ name: 'fresh' }),
      ]),
      live,
      options,
    );
    expect(plan.changes.map((change) => [change.action, change.name])).toEqual([
      ['create', 'fresh'],
      ['update', 'new'],
    ]);
    const renamedOutside = live.audiences.map((summary) =>
      summary.id === '6' ? { ...summary, name: 'fresh' } : summary,
    );
    expect(staleReasons(plan, { audiences: renamedOutside, adGroupIds: {} })).toEqual([
      'an audience named "fresh" now exists (id 6), which the plan would create again',
    ]);
  });

  it('is taken when any other audience holds it now, even one the plan knew of as ignored', () => {
    const ignored = liveAudience(3, { name: 'legacy-x' });
    const live = liveState([ignored]);
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'fresh' })], { prune: true, ignore: ['legacy-*'] }),
      live,
      options,
    );
    expect(knownAudienceIds(plan).has('3')).toBe(true);
    const renamed = { ...live.audiences[0]!, name: 'fresh' };
    expect(staleReasons(plan, { audiences: [renamed], adGroupIds: {} })).toEqual([
      'an audience named "fresh" now exists (id 3), which the plan would create again',
    ]);
  });
});

describe('staleReasons: the ad groups of an audience', () => {
  it('answered 404 when read again: the audience is gone since the plan, though the list still had it', () => {
    const live = liveState([liveAudience(7, { name: 'doomed' })], { '7': [adGroupLink(101)] });
    const plan = planAccount(desiredState([], { prune: true }), live, { allowMassDelete: true });
    expect(plan.fingerprint.audiences).toEqual([expect.objectContaining({ id: '7', adGroupIds: ['101'] })]);
    expect(staleReasons(plan, { audiences: live.audiences, adGroupIds: { '7': ['101'] } })).toEqual([]);
    expect(staleReasons(plan, { audiences: live.audiences, adGroupIds: { '7': null } })).toEqual([
      'audience "doomed" (id 7) no longer exists: the service answered 404 (not found) for its ad groups',
    ]);
  });
});
