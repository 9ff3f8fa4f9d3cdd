import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { planAccount } from './planner.js';
import { neededReads } from './reads.js';
import type { AudienceUpdate } from './types.js';

const options = { allowMassDelete: false };

describe('planAccount', () => {
  it('creates a declared audience the account lacks, with the undeclared sets empty', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'new', ageType: 'NOT_ALL', ages: ['25', '20'] })]),
      liveState([]),
      options,
    );
    expect(plan.summary.create).toBe(1);
    expect(plan.changes[0]).toMatchObject({
      action: 'create',
      name: 'new',
      id: null,
      after: { ages: ['20', '25'], genderType: 'ALL', locations: [] },
    });
  });

  it('sees no change when only server-side fields differ', () => {
    const live = liveAudience(1, {
      name: 'a',
      locationType: 'AREA',
      locations: [{ value: 'I', description: 'Seoul' }],
      cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Five' }],
    });
    const desired = desiredAudience({
      name: 'a',
      locationType: 'AREA',
      locations: [{ value: 'I' }],
      cohortTargetings: [{ cohortId: '5', inclusionType: 'INCLUDE' }],
    });
    const plan = planAccount(desiredState([desired]), liveState([live]), options);
    expect(plan.changes).toEqual([]);
    expect(plan.warnings).toEqual([]);
  });

  it('updates to the whole desired definition: a set the file leaves out is removed, and the update sends the file as written', () => {
    const live = liveAudience(7, { name: 'a', ageType: 'NOT_ALL', ages: ['20', '25'], ufoInterests: ['TRAVEL'] });
    const desired = desiredAudience(
      { name: 'a', ageType: 'NOT_ALL', ages: ['25', '30'] },
      { omitted: ['ufoInterests'] },
    );
    const plan = planAccount(desiredState([desired]), liveState([live]), options);
    const update = plan.changes[0] as AudienceUpdate;
    expect(update.action).toBe('update');
    expect(update.display.fields).toEqual([
      { field: 'ages', before: ['20', '25'], after: ['25', '30'], added: ['30'], removed: ['20'] },
      { field: 'ufoInterests', before: ['TRAVEL'], after: [], added: [], removed: ['TRAVEL'] },
    ]);
    expect(update.after).toBe(desired.definition);
    expect(plan.warnings).toMatchObject([
      { code: 'OMITTED_FIELDS', name: 'a', message: expect.stringContaining('says nothing of ufoInterests') },
    ]);
  });

  it('says nothing of left-out sets that are already empty, or that the file gives', () => {
    const live = liveAudience(7, { name: 'a', ufoInterests: ['TRAVEL'] });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'a', genders: ['F'] }, { omitted: ['cohortTargetings'] })]),
      liveState([live]),
      options,
    );
    expect(plan.summary.update).toBe(1);
    expect(plan.warnings).toEqual([]);
  });

  it('plans a read that the service answered in an unusable shape as an error of that audience only', () => {
    const live = liveState([liveAudience(1, { name: 'odd' }), liveAudience(2, { name: 'fine' })]);
    delete live.details['1'];
    live.unreadable = { '1': 'the answer had customerFileTargetings[0].customerFileId as a list' };
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'odd' }), desiredAudience({ name: 'fine', genders: ['M'] })]),
      live,
      options,
    );
    expect(plan.errors).toMatchObject([
      {
        code: 'LIVE_UNREADABLE',
        name: 'odd',
        message:
          'audience "odd" (id 1) cannot be planned: the answer had customerFileTargetings[0].customerFileId as a list',
      },
    ]);
    expect(plan.changes.map((change) => [change.action, change.name])).toEqual([['update', 'fine']]);
  });

  it('deletes with the whole live definition, so the plan shows what goes', () => {
    const gone = liveAudience(4, {
      name: 'gone',
      ages: ['30'],
      cohortTargetings: [{ cohortId: 7, inclusionType: 'EXCLUDE', cohortName: 'Seven' }],
    });
    const plan = planAccount(desiredState([], { prune: true }), liveState([gone]), options);
    expect(plan.changes).toMatchObject([{ action: 'delete', id: '4', before: gone.definition, after: null }]);
  });

  it('matches targeting members on the fields the file declares, never on what the service adds', () => {
    const member = { cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Cart abandoners' };
    const live = liveAudience(3, { name: 'a', cohortTargetings: [member] });
    const same = planAccount(
      desiredState([desiredAudience({ name: 'a', cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE' }] })]),
      liveState([live]),
      options,
    );
    expect(same.changes).toEqual([]);
    const other = planAccount(
      desiredState([desiredAudience({ name: 'a', cohortTargetings: [{ cohortId: 5, inclusionType: 'EXCLUDE' }] })]),
      liveState([live]),
      options,
    );
    expect((other.changes[0] as AudienceUpdate).display.fields[0]).toMatchObject({
      added: [{ cohortId: 5, inclusionType: 'EXCLUDE' }],
      removed: [member],
    });
  });

  it('renames an audience whose id is pinned', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'new-name' }, { id: '9' })]),
      liveState([liveAudience(9, { name: 'old-name' })]),
      options,
    );
    expect(plan.changes).toHaveLength(1);
    expect((plan.changes[0] as AudienceUpdate).display.fields).toEqual([
      { field: 'name', before: 'old-name', after: 'new-name' },
    ]);
  });

  it('creates again, with a warning, an audience whose pinned id the account no longer has', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'a' }, { id: '404' })]), liveState([]), options);
    expect(plan.errors).toEqual([]);
    expect(plan.warnings.map((warning) => warning.code)).toEqual(['PINNED_ID_DELETED']);
    expect(plan.changes).toMatchObject([{ action: 'create', name: 'a' }]);
  });

  it('never reaches an ignored audience through a pinned id, even with prune', () => {
    const live = liveState([liveAudience(7, { name: 'legacy-old' })]);
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'renamed' }, { id: '7' })], { ignore: ['legacy-*'], prune: true }),
      live,
      options,
    );
    expect(plan.errors.map((error) => [error.code, error.name])).toEqual([['PINNED_ID_IGNORED', 'renamed']]);
    expect(plan.errors[0]?.message).toContain('"legacy-old"');
    expect(plan.changes).toEqual([]);
  });

  it('refuses duplicate live names, naming the ids, unless the file pins one', () => {
    const live = liveState([liveAudience(1, { name: 'dup' }), liveAudience(2, { name: 'dup' })]);
    const plan = planAccount(desiredState([desiredAudience({ name: 'dup' })]), live, options);
    expect(plan.errors).toHaveLength(1);
    expect(plan.errors[0]?.message).toContain('ids 1, 2');
    const pinned = planAccount(desiredState([desiredAudience({ name: 'dup' }, { id: '2' })]), live, options);
    expect(pinned.errors).toEqual([]);
  });

  it('leaves undeclared audiences alone without prune', () => {
    const plan = planAccount(desiredState([]), liveState([liveAudience(1, { name: 'x' })]), options);
    expect(plan.changes).toEqual([]);
  });

  it('prunes undeclared audiences, unlinking their ad groups first, but never ignored ones', () => {
    const live = liveState([liveAudience(1, { name: 'stale' }), liveAudience(2, { name: 'legacy-1' })], {
      1: [adGroupLink(102), adGroupLink(101)],
    });
    const plan = planAccount(desiredState([], { prune: true, ignore: ['legacy-*'] }), live, options);
    expect(
      plan.changes.map((change) => [change.action, change.id, change.action === 'unlink' ? change.adGroupId : null]),
    ).toEqual([
      ['unlink', '1', '101'],
      ['unlink', '1', '102'],
      ['delete', '1', null],
    ]);
    expect(plan.fingerprint.accountAudienceIds).toEqual(['1', '2']);
  });

  it('unlinks ad groups outside the declared adGroups and warns about declared links that are missing', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101), adGroupLink(102)] });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'a' }, { adGroups: ['101', '103'] })]),
      live,
      options,
    );
    expect(plan.changes).toMatchObject([{ action: 'unlink', adGroupId: '102', display: { reason: 'not-declared' } }]);
    expect(plan.warnings).toMatchObject([{ code: 'LINK_MISSING', message: expect.stringContaining('103') }]);
  });

  it('blocks unlinking from a protected audience', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101), adGroupLink(102)] });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'a' }, { adGroups: ['101'], protect: true })]),
      live,
      options,
    );
    expect(plan.changes).toEqual([]);
    expect(plan.errors).toMatchObject([{ code: 'PROTECTED', name: 'a' }]);
  });

  it('refuses a mass delete unless allowed', () => {
    const audiences = Array.from({ length: 10 }, (_, index) => liveAudience(index + 1, { name: `a${index}` }));
    const keep = audiences.slice(0, 6).map((audience) => desiredAudience({ name: audience.name }));
    const plan = planAccount(desiredState(keep, { prune: true }), liveState(audiences), options);
    expect(plan.summary.delete).toBe(4);
    expect(plan.errors.map((error) => error.code)).toEqual(['MASS_DELETE']);
    expect(
      planAccount(desiredState(keep, { prune: true }), liveState(audiences), { allowMassDelete: true }).errors,
    ).toEqual([]);
    const fewer = planAccount(
      desiredState(keep.slice(0, 3), { prune: true }),
      liveState(audiences.slice(0, 6)),
      options,
    );
    expect(fewer.errors).toEqual([]);
  });

  it('checks the campaign rules against the linked ad groups', () => {
    const live = liveState([liveAudience(1, { name: 'a', type: 'MESSAGE' })], {
      1: [adGroupLink(101, { campaignType: 'TALK_BIZ_BOARD', campaignGoal: 'REACH' })],
    });
    const plan = planAccount(
      desiredState([
        desiredAudience({
          name: 'a',
          type: 'MESSAGE',
          locationType: 'AREA',
          locations: [{ value: 'Z' }],
          talkChannelGroupTargetings: [{ groupId: 1, inclusionType: 'INCLUDE' }],
        }),
      ]),
      live,
      options,
    );
    expect(plan.errors.map((error) => error.code)).toEqual(['CAMPAIGN_RULE', 'CAMPAIGN_RULE']);
    expect(plan.errors.map((error) => error.message).join('\n')).toMatch(/overseas region Z[\s\S]*friend-group/);
  });

  it('names the ad groups an update touches', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101, { campaignName: 'Spring' })] });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'a', genderType: 'NOT_ALL', genders: ['F'] })]),
      live,
      options,
    );
    expect((plan.changes[0] as AudienceUpdate).display.impact).toMatchObject([
      { adGroupId: '101', campaignName: 'Spring' },
    ]);
  });

  it('warns about live audiences in ERROR or SEED_NOT_ENOUGH status', () => {
    const live = liveState([
      liveAudience(1, { name: 'a' }, 'ERROR'),
      liveAudience(2, { name: 'b' }, 'SEED_NOT_ENOUGH'),
      liveAudience(3, { name: 'c' }, 'STANDBY'),
    ]);
    const plan = planAccount(desiredState(['a', 'b', 'c'].map((name) => desiredAudience({ name }))), live, options);
    expect(plan.warnings.map((warning) => warning.name)).toEqual(['a', 'b']);
  });
});

describe('what the plan needs to read', () => {
  it('reads the detail of managed and deleted audiences only, and links only where they matter', () => {
    const audiences = [
      liveAudience(1, { name: 'same' }),
      liveAudience(2, { name: 'changed' }),
      liveAudience(3, { name: 'linked' }),
      liveAudience(4, { name: 'gone' }),
    ];
    const live = liveState(audiences);
    const desired = desiredState(
      [
        desiredAudience({ name: 'same' }),
        desiredAudience({ name: 'changed', ageType: 'NOT_ALL', ages: ['20'] }),
        desiredAudience({ name: 'linked' }, { adGroups: ['1'] }),
      ],
      {
        prune: true,
      },
    );
    const needed = neededReads(desired, live.audiences);
    // With prune, the audience deleted is read too: the plan shows its whole definition.
    expect(needed.detailIds.sort()).toEqual(['1', '2', '3', '4']);
    // Known from the list: declared ad groups, and the audience prune deletes.
    expect(needed.linkIds.sort()).toEqual(['3', '4']);
    // Known from each read: the audience about to change.
    const withLinksAfterRead = needed.detailIds.filter(
      (id) => !needed.linkIds.includes(id) && needed.needsLinks(id, live.details[String(id)]!),
    );
    expect(withLinksAfterRead).toEqual(['2']);
    expect(neededReads({ ...desired, prune: false }, live.audiences).detailIds.sort()).toEqual(['1', '2', '3']);
  });
});

describe('plan data order', () => {
  it('lists the ad groups a change touches by id, whatever order the service answers in', () => {
    const live = liveState([liveAudience(1, { name: 'a' }), liveAudience(2, { name: 'gone' })], {
      1: [adGroupLink(105), adGroupLink(101)],
      2: [adGroupLink(204), adGroupLink(202)],
    });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'a', genderType: 'NOT_ALL', genders: ['F'] })], { prune: true }),
      live,
      options,
    );
    const impact = (action: string) =>
      plan.changes.flatMap((change) =>
        change.action === action && 'display' in change && 'impact' in change.display
          ? change.display.impact.map((ref) => ref.adGroupId)
          : [],
      );
    expect(impact('update')).toEqual(['101', '105']);
    expect(impact('delete')).toEqual(['202', '204']);
  });

  it('writes a created definition with its fields in definition order, name and type first', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'new', type: 'MESSAGE' })]), liveState([]), options);
    const created = plan.changes[0];
    expect(created?.action === 'create' && Object.keys(created.after).slice(0, 3)).toEqual(['name', 'type', 'ageType']);
  });
});

describe('planAccount: drift, against a base', () => {
  it('marks an unlink only when the base makes it for the same reason: one the change makes by deleting the audience is its own', () => {
    const live = liveState([liveAudience(1, { name: 'a' })], { 1: [adGroupLink(101), adGroupLink(102)] });
    const base = desiredState([desiredAudience({ name: 'a' }, { adGroups: ['101'] })], { prune: true });
    const plan = planAccount(desiredState([], { prune: true }), live, {
      ...options,
      base: { ref: 'main', desired: base },
    });
    expect(
      plan.changes.map((change) => [
        change.action,
        change.action === 'unlink' ? change.adGroupId : change.name,
        'drift' in change,
      ]),
    ).toEqual([
      ['unlink', '101', false],
      ['unlink', '102', false],
      ['delete', 'a', false],
    ]);
    const kept = planAccount(
      desiredState([desiredAudience({ name: 'a' }, { adGroups: ['101'] })], { prune: true }),
      live,
      { ...options, base: { ref: 'main', desired: base } },
    );
    expect(kept.changes.map((change) => [change.action, 'drift' in change && change.drift])).toEqual([
      ['unlink', true],
    ]);
  });

  it('says why a base could not be compared, and marks nothing', () => {
    const live = liveState([liveAudience(1, { name: 'a', ages: ['20'] })]);
    const plan = planAccount(desiredState([desiredAudience({ name: 'a' })]), live, {
      ...options,
      base: { ref: 'v1', problem: 'it describes ad account 99 there, not 1234' },
    });
    expect(plan.changes.map((change) => 'drift' in change)).toEqual([false]);
    expect(plan.warnings.map((warning) => warning.message)).toEqual([
      "the file at v1 cannot be compared with: it describes ad account 99 there, not 1234; no change is marked as made outside the tool, and the mass-delete guard is the stricter of the file's and the default",
    ]);
  });
});

describe('planAccount: the mass-delete guard of the file', () => {
  const live = liveState([
    liveAudience(1, { name: 'a' }),
    liveAudience(2, { name: 'b' }),
    liveAudience(3, { name: 'c' }),
  ]);
  const codes = (massDelete?: { ratio?: number; minManaged?: number }) =>
    planAccount(
      desiredState([desiredAudience({ name: 'a' })], { prune: true, ...(massDelete ? { massDelete } : {}) }),
      live,
      options,
    ).errors.map((error) => error.code);

  it('applies below the default minimum of 10 when the file lowers it, at the share the file sets', () => {
    expect(codes()).toEqual([]);
    expect(codes({ minManaged: 0 })).toEqual(['MASS_DELETE']);
    expect(codes({ minManaged: 0, ratio: 0.7 })).toEqual([]);
  });
});

describe('a scoped plan', () => {
  it('says of the declared ad groups that do not use their audience only those of the audiences in its scope', () => {
    const desired = desiredState([
      desiredAudience({ name: 'spring-a' }, { adGroups: ['101'] }),
      desiredAudience({ name: 'spring-b' }, { adGroups: ['102'] }),
      desiredAudience({ name: 'autumn' }, { adGroups: ['103'] }),
    ]);
    const live = liveState([
      liveAudience(1, { name: 'spring-a' }),
      liveAudience(2, { name: 'spring-b' }),
      liveAudience(3, { name: 'autumn' }),
    ]);
    const plan = planAccount(desired, live, { ...options, scope: { targets: ['spring-*'], kinds: [], excludes: [] } });
    expect(plan.warnings).toEqual([
      expect.objectContaining({
        code: 'LINK_MISSING',
        message:
          '2 audiences declare ad groups that do not use them: "spring-a" (ad group 101), "spring-b" (ad group 102)',
      }),
    ]);
  });
});
