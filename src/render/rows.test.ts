import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { planAccount } from '../plan/index.js';
import { renderMarkdown } from './markdown.js';
import { formatMember } from './kinds/audience.js';
import { plainStyle } from './style.js';
import { renderText } from './text.js';

const options = { allowMassDelete: false };

describe('formatMember', () => {
  it('names a province written as a bare code, and keeps a given description', () => {
    expect(formatMember('locations', { value: 'I' })).toBe('I (Seoul)');
    expect(formatMember('locations', { value: 'K', description: 'Incheon Metropolitan City' })).toBe(
      'K (Incheon Metropolitan City)',
    );
    expect(formatMember('depth2Locations', { value: 'I04' })).toBe('I04');
  });
});

describe('renderText and renderMarkdown', () => {
  it('does not claim the account matches when errors kept the plan from comparing it', () => {
    const live = liveState([liveAudience(1, { name: 'dup' }), liveAudience(2, { name: 'dup' })]);
    const plan = planAccount(desiredState([desiredAudience({ name: 'dup' })]), live, options);
    expect(plan.changes).toEqual([]);
    for (const text of [renderText(plan, plainStyle), renderMarkdown(plan)]) {
      expect(text).not.toContain('matches the desired state');
      expect(text).toContain('No changes planned');
    }
    const clean = planAccount(desiredState([]), liveState([]), options);
    expect(renderText(clean, plainStyle)).toContain('No changes: ad account 1234 matches the desired state.');
  });

  it('shows a delete after its unlinks, every field of its definition removed, without listing the ad groups as still using it', () => {
    const gone = liveAudience(1, {
      name: 'gone',
      ages: ['20'],
      locations: [{ value: 'I', description: 'Seoul' }],
      cohortTargetings: [{ cohortId: 7, inclusionType: 'EXCLUDE', cohortName: 'Seven' }],
    });
    const live = liveState([gone], {
      1: [adGroupLink(102, { adGroupName: 'Banner', campaignName: 'Spring' }), adGroupLink(101)],
    });
    const text = renderText(planAccount(desiredState([], { prune: true }), live, options), plainStyle);
    expect(text).toContain(
      [
        '  - unlink ad group 102 from audience "gone" (id 1) [LIVE]',
        '      ad group: "Banner" [LIVE] in campaign 10 "Spring"',
        '      reason: the audience is deleted',
        '',
        '  - delete audience "gone" (id 1) [LIVE; risk: deletes an audience in use]',
        '      - type: DISPLAY',
        '      - ageType: NOT_ALL',
        '      - ages: 20',
        '      - genderType: ALL',
        '      - locationType: AREA',
        '      - locations: I (Seoul)',
        '      - cohortTargetings: cohortId=7 inclusionType=EXCLUDE "Seven"',
        '      after unlinking: ad groups 101, 102',
      ].join('\n'),
    );
    expect(text).not.toContain('used by');
    const markdown = renderMarkdown(planAccount(desiredState([], { prune: true }), live, options));
    expect(markdown).toContain('-     cohortTargetings: cohortId=7 inclusionType=EXCLUDE "Seven"\n');
  });

  it('shows the criteria a type change removes as removed, like any other edit', () => {
    const live = liveState([
      liveAudience(1, {
        name: 'a',
        type: 'DISPLAY',
        customerFileTargetings: [{ customerFileId: 41, inclusionType: 'INCLUDE' }],
      }),
    ]);
    const text = renderText(
      planAccount(desiredState([desiredAudience({ name: 'a', type: 'MESSAGE' })]), live, options),
      plainStyle,
    );
    expect(text).toContain(
      '      type: DISPLAY → MESSAGE\n      customerFileTargetings:\n        - customerFileId=41 inclusionType=INCLUDE\n',
    );
  });
});
