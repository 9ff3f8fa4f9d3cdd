import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { planAccount, neededReads } from './planner.js';
import type { AudienceUpdate } from './types.js';

const options = { allowMassDelete: false };

describe('planAccount', () => {
  it('creates a declared audience the account lacks, with the undeclared sets empty', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'new', ageType: 'NOT_ALL', ages: ['25', '20'] })]), liveState([]), options);
    expect(plan.summary.create).toBe(1);
    expect(plan.changes[0]).toMatchObject({ action: 'create', name: 'new', id: null, after: { ages: ['20', '25'], genderType: 'ALL', locations: [] } });
  });

  it('sees no change when only undeclared or server-side fields differ', () => {
    const live = liveAudience(1, { name: 'a', ufoInterests: ['TRAVEL'], locationType: 'AREA', locations: [{ value: 'I', description: 'Seoul' }] });
    const plan = planAccount(desiredState([desiredAudience({ name: 'a', locationType: 'AREA', locations: [{ value: 'I' }] })]), liveState([live]), options);
    expect(plan.changes).toEqual([]);
  });

  it('updates only the declared fields that differ and keeps the rest of the live definition', () => {
    const live = liveAudience(7, { name: 'a', ageType: 'NOT_ALL', ages: ['20', '25'], ufoInterests: ['TRAVEL'] });
    const plan = planAccount(desiredState([desiredAudience({ name: 'a', ageType: 'NOT_ALL', ages: ['25', '30'] })]), liveState([live]), options);
    const update = plan.changes[0] as AudienceUpdate;
    expect(update.action).toBe('update');
    expect(update.display.fields).toEqual([{ field: 'ages', before: ['20', '25'], after: ['25', '30'], added: ['30'], removed: ['20'] }]);
    expect(update.after.ufoInterests).toEqual(['TRAVEL']);
  });

  it('matches targeting members on the declared fields and keeps server-added fields', () => {
    const member = { cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Cart abandoners' };
    const live = liveAudience(3, { name: 'a', cohortTargetings: [member] });
    const same = planAccount(desiredState([desiredAudience({ name: 'a', cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE' }] })]), liveState([live]), options);
    expect(same.changes).toEqual([]);
    const other = planAccount(desiredState([desiredAudience({ name: 'a', cohortTargetings: [{ cohortId: 5, inclusionType: 'EXCLUDE' }] })]), liveState([live]), options);
    expect((other.changes[0] as AudienceUpdate).display.fields[0]).toMatchObject({ added: [{ cohortId: 5, inclusionType: 'EXCLUDE' }], removed: [member] });
  });

  it('renames an audience whose id is pinned', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'new-name' }, { id: 9 })]), liveState([liveAudience(9, { name: 'old-name' })]), options);
    expect(plan.changes).toHaveLength(1);
    expect((plan.changes[0] as AudienceUpdate).display.fields).toEqual([{ field: 'name', before: 'old-name', after: 'new-name' }]);
  });

  it('reports a pinned id the account does not have', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'a' }, { id: 404 })]), liveState([]), options);
    expect(plan.errors.map((error) => error.code)).toEqual(['PINNED_ID_NOT_FOUND']);
    expect(plan.changes).toEqual([]);
  });

  it('never reaches an ignored audience through a pinned id, even with prune', () => {
    const live = liveState([liveAudience(7, { name: 'legacy-old' })]);
    const plan = planAccount(desiredState([desiredAudience({ name: 'renamed' }, { id: 7 })], { ignore: ['legacy-*'], prune: true }), live, options);
    expect(plan.errors.map((error) => [error.code, error.name])).toEqual([['PINNED_ID_IGNORED', 'renamed']]);
    expect(plan.errors[0]?.message).toContain('"legacy-old"');
    expect(plan.changes).toEqual([]);
  });

  it('refuses duplicate live names, naming the ids, unless the file pins one', () => {
    const live = liveState([liveAudience(1, { name: 'dup' }), liveAudience(2, { name: 'dup' })]);
    const plan = planAccount(desiredState([desiredAudience({ name: 'dup' })]), live, options);
    expect(plan.errors).toHaveLength(1);
    expect(plan.errors[0]?.message).toContain('ids 1, 2');
    const pinned = planAccount(desiredState([desiredAudience({ name: 'dup' }, { id: 2 })]), live, options);
    expect(pinned.errors).toEqual([]);
  });

  it('leaves undeclared audiences alone without prune', () => {
    const plan = planAccount(desiredState([]), liveState([liveAudience(1, { name: 'x' })]), options);
    expect(plan.changes).toEqual([]);
  });

  it('prunes undeclared audiences, unlinking their ad groups first, but never ignored ones', () => {
    const live = liveState([liveAudience(1, { name: 'stale' }), liveAudience(2, { name: 'legacy-1' })], { 1: [adGroupLink(102), adGroupLink(101)] });
    const plan = planAccount(desiredState([], { prune: true, ignore: ['legacy-*'] }), live, options);
    expect(plan.changes.map((change) => [change.action, change.id, change.action === 'unlink' ? change.adGroupId : null])).toEqual([
      ['unlink', 1, 101],
      ['unlink', 1, 102],
      ['delete', 1, null],
    ]);
    expect(plan.fingerprint.accountAudienceIds).toEqual([1, 2]);
  });

  it('unlinks ad groups outside the declared adGroups and warns about declared links that are missing', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101), adGroupLink(102)] });
    const plan = planAccount(desiredState([desiredAudience({ name: 'a' }, { adGroups: [101, 103] })]), live, options);
    expect(plan.changes).toMatchObject([{ action: 'unlink', adGroupId: 102, display: { reason: 'not-declared' } }]);
    expect(plan.warnings).toMatchObject([{ code: 'LINK_MISSING', message: expect.stringContaining('103') }]);
  });

  it('blocks unlinking from a protected audience', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101), adGroupLink(102)] });
    const plan = planAccount(desiredState([desiredAudience({ name: 'a' }, { adGroups: [101], protect: true })]), live, options);
    expect(plan.changes).toEqual([]);
    expect(plan.errors).toMatchObject([{ code: 'PROTECTED', name: 'a' }]);
  });

  it('refuses a mass delete unless allowed', () => {
    const audiences = Array.from({ length: 10 }, (_, index) => liveAudience(index + 1, { name: `a${index}` }));
    const keep = audiences.slice(0, 6).map((audience) => desiredAudience({ name: audience.name }));
    const plan = planAccount(desiredState(keep, { prune: true }), liveState(audiences), options);
    expect(plan.summary.delete).toBe(4);
    expect(plan.errors.map((error) => error.code)).toEqual(['MASS_DELETE']);
    expect(planAccount(desiredState(keep, { prune: true }), liveState(audiences), { allowMassDelete: true }).errors).toEqual([]);
    const fewer = planAccount(desiredState(keep.slice(0, 3), { prune: true }), liveState(audiences.slice(0, 6)), options);
    expect(fewer.errors).toEqual([]);
  });

  it('checks the campaign rules against the linked ad groups', () => {
    const live = liveState([liveAudience(1, { name: 'a', type: 'MESSAGE' })], {
      1: [adGroupLink(101, { campaignType: 'TALK_BIZ_BOARD', campaignGoal: 'REACH' })],
    });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'a', type: 'MESSAGE', locationType: 'AREA', locations: [{ value: 'Z' }], talkChannelGroupTargetings: [{ groupId: 1, inclusionType: 'INCLUDE' }] })]),
      live,
      options,
    );
    expect(plan.errors.map((error) => error.code)).toEqual(['CAMPAIGN_RULE', 'CAMPAIGN_RULE']);
    expect(plan.errors.map((error) => error.message).join('\n')).toMatch(/overseas region Z[\s\S]*friend-group/);
  });

  it('names the ad groups an update touches', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101, { campaignName: 'Spring' })] });
    const plan = planAccount(desiredState([desiredAudience({ name: 'a', genderType: 'NOT_ALL', genders: ['F'] })]), live, options);
    expect((plan.changes[0] as AudienceUpdate).display.impact).toMatchObject([{ adGroupId: 101, campaignName: 'Spring' }]);
  });

  it('warns about live audiences in ERROR or SEED_NOT_ENOUGH status', () => {
    const live = liveState([liveAudience(1, { name: 'a' }, 'ERROR'), liveAudience(2, { name: 'b' }, 'SEED_NOT_ENOUGH'), liveAudience(3, { name: 'c' }, 'STANDBY')]);
    const plan = planAccount(desiredState(['a', 'b', 'c'].map((name) => desiredAudience({ name }))), live, options);
    expect(plan.warnings.map((warning) => warning.name)).toEqual(['a', 'b']);
  });
});

describe('what the plan needs to read', () => {
  it('reads the detail of managed audiences only, and links only where they matter', () => {
    const audiences = [liveAudience(1, { name: 'same' }), liveAudience(2, { name: 'changed' }), liveAudience(3, { name: 'linked' }), liveAudience(4, { name: 'gone' })];
    const live = liveState(audiences);
    const desired = desiredState(
      [desiredAudience({ name: 'same' }), desiredAudience({ name: 'changed', ageType: 'NOT_ALL', ages: ['20'] }), desiredAudience({ name: 'linked' }, { adGroups: [1] })],
      { prune: true },
    );
    const needed = neededReads(desired, live.audiences);
    expect(needed.detailIds.sort()).toEqual([1, 2, 3]);
    // Known from the list: declared ad groups, and the audience prune deletes.
    expect(needed.linkIds.sort()).toEqual([3, 4]);
    // Known from each read: the audience about to change.
    const withLinksAfterRead = needed.detailIds.filter((id) => !needed.linkIds.includes(id) && needed.needsLinks(id, live.details[String(id)]!));
    expect(withLinksAfterRead).toEqual([2]);
  });
});

describe('plan data order', () => {
  it('lists the ad groups a change touches by id, whatever order the service answers in', () => {
    const live = liveState([liveAudience(1, { name: 'a' }), liveAudience(2, { name: 'gone' })], {
      1: [adGroupLink(105), adGroupLink(101)],
      2: [adGroupLink(204), adGroupLink(202)],
    });
    const plan = planAccount(desiredState([desiredAudience({ name: 'a', genderType: 'NOT_ALL', genders: ['F'] })], { prune: true }), live, options);
    const impact = (action: string) => plan.changes.flatMap((change) => (change.action === action && 'display' in change && 'impact' in change.display ? change.display.impact.map((ref) => ref.adGroupId) : []));
    expect(impact('update')).toEqual([101, 105]);
    expect(impact('delete')).toEqual([202, 204]);
  });

  it('writes a created definition with its fields in definition order, name and type first', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'new', type: 'MESSAGE' })]), liveState([]), options);
    const created = plan.changes[0];
    expect(created?.action === 'create' && Object.keys(created.after).slice(0, 3)).toEqual(['name', 'type', 'ageType']);
  });
});

describe('members the plan must send', () => {
  it('refuses to add a member without the fields the service needs, but matches existing ones on fewer fields', () => {
    const created = planAccount(desiredState([desiredAudience({ name: 'new', cohortTargetings: [{ cohortId: 5 }] })]), liveState([]), options);
    expect(created.errors).toMatchObject([{ code: 'INCOMPLETE_MEMBER', name: 'new', message: expect.stringContaining('inclusionType') }]);

    const live = liveAudience(1, { name: 'a', cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'x' }] });
    const matched = planAccount(desiredState([desiredAudience({ name: 'a', ages: ['20'], ageType: 'NOT_ALL', cohortTargetings: [{ cohortId: 5 }] })]), liveState([live]), options);
    expect(matched.errors).toEqual([]);
    expect(matched.summary.update).toBe(1);
  });
});
