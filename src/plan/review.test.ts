import { describe, expect, it } from 'vitest';
import type { AudienceDefinition, AdGroupLink } from '../model/index.js';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { planAccount } from './planner.js';
import { reviewChange } from './kinds/index.js';
import { serviceChecks } from './service-checks.js';

/** The review of the one update that turns `from` into `to`, with the audience used by `links`. */
function reviewOf(from: Partial<AudienceDefinition>, to: Partial<AudienceDefinition>, links: AdGroupLink[] = []) {
  const plan = planAccount(
    desiredState([desiredAudience({ name: 'a', ...to })]),
    liveState([liveAudience(1, { name: 'a', ...from })], { 1: links }),
    { allowMassDelete: false },
  );
  const [change] = plan.changes;
  if (!change) throw new Error('no change planned');
  return reviewChange(change);
}

describe('reviewChange', () => {
  it('reads the regions as one criterion: provinces replaced by one of their districts narrow it', () => {
    expect(
      reviewOf({ locations: [{ value: 'H' }, { value: 'C' }] }, { depth2Locations: [{ value: 'H01' }] }).effects,
    ).toEqual([{ criterion: 'regions', effect: 'narrows' }]);
    expect(
      reviewOf({ locations: [{ value: 'I' }] }, { locations: [{ value: 'I' }], depth2Locations: [{ value: 'I01' }] })
        .effects,
    ).toEqual([]);
    expect(reviewOf({ locations: [{ value: 'I' }] }, { locations: [{ value: 'I' }, { value: 'K' }] }).effects).toEqual([
      { criterion: 'regions', effect: 'broadens' },
    ]);
    expect(reviewOf({ locations: [{ value: 'I' }] }, {}).risks).toEqual([{ risk: 'emptied', criterion: 'regions' }]);
  });

  it('counts a first member and an EXCLUDE member as narrowing, and a removed EXCLUDE member as broadening', () => {
    expect(reviewOf({}, { ages: ['20'] }).effects).toEqual([{ criterion: 'ages', effect: 'narrows' }]);
    const cohort = (cohortId: number, inclusionType: string) => ({ cohortId, inclusionType });
    expect(
      reviewOf(
        { cohortTargetings: [cohort(1, 'INCLUDE')] },
        { cohortTargetings: [cohort(1, 'INCLUDE'), cohort(2, 'EXCLUDE')] },
      ).effects,
    ).toEqual([{ criterion: 'cohortTargetings', effect: 'narrows' }]);
    expect(
      reviewOf(
        { cohortTargetings: [cohort(1, 'INCLUDE'), cohort(2, 'EXCLUDE')] },
        { cohortTargetings: [cohort(1, 'INCLUDE')] },
      ).effects,
    ).toEqual([{ criterion: 'cohortTargetings', effect: 'broadens' }]);
  });

  it('marks a type change, an emptied criterion, and a narrowing only of an audience in use', () => {
    expect(reviewOf({ type: 'DISPLAY', ufoInterests: ['GAME'] }, { type: 'MESSAGE' }).risks).toEqual([
      { risk: 'type-change' },
      { risk: 'emptied', criterion: 'ufoInterests' },
    ]);
    expect(reviewOf({ ages: ['20', '25'] }, { ages: ['20'] }).risks).toEqual([]);
    const used = reviewOf({ ages: ['20', '25'] }, { ages: ['20'] }, [adGroupLink(101, { adGroupStatus: ['PAUSED'] })]);
    expect(used).toMatchObject({ fields: ['ages'], live: false, risks: [{ risk: 'narrows-in-use' }] });
    expect(reviewOf({ ages: ['20'] }, { ages: ['20', '25'] }, [adGroupLink(101)])).toMatchObject({
      live: true,
      risks: [],
    });
  });
});

describe('serviceChecks', () => {
  it('lists what a create sends and what an update adds, never what the audience already had', () => {
    const desired = desiredState([
      desiredAudience({ name: 'new', depth3Locations: [{ value: 'I0401' }], ufoBusinessTypes: ['RETAIL'] }),
      desiredAudience({
        name: 'kept',
        trackerTargetings: [{ trackId: 't', eventCode: 'buy', retentionDays: 7, inclusionType: 'INCLUDE' }],
        cohortTargetings: [{ cohortId: 9, inclusionType: 'INCLUDE' }],
      }),
    ]);
    const live = liveState(
      [
        liveAudience(1, {
          name: 'kept',
          trackerTargetings: [{ trackId: 't', eventCode: 'buy', retentionDays: 30, inclusionType: 'INCLUDE' }],
        }),
      ],
      { 1: [] },
    );
    const plan = planAccount(desired, live, { allowMassDelete: false });
    expect(serviceChecks(plan.changes)).toEqual([
      { name: 'kept', field: 'cohortTargetings', what: 'memberId', values: ['cohortId=9'] },
      { name: 'new', field: 'depth3Locations', what: 'townCode', values: ['I0401'] },
      { name: 'new', field: 'ufoBusinessTypes', what: 'businessTypeCode', values: ['RETAIL'] },
    ]);
    expect(plan.serviceChecks).toEqual(serviceChecks(plan.changes));
  });
});
