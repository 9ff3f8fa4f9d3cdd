import { describe, expect, it } from 'vitest';
import { definition, desiredAudience } from '../../test/helpers/builders.js';
import { diffDefinition } from './diff.js';

describe('diffDefinition', () => {
  it('answers the same two definitions again from the first diff, and diffs anew against another live one', () => {
    const declared = desiredAudience({ name: 'audience', genders: ['F'] }).declared;
    const same = definition({ genderType: 'NOT_ALL', genders: ['F'] });
    const other = definition({ genderType: 'NOT_ALL', genders: ['M'] });
    const first = diffDefinition(declared, other);
    expect(first.fields.map((change) => change.field)).toEqual(['genders']);
    expect(diffDefinition(declared, other)).toBe(first);
    expect(diffDefinition(declared, same).fields).toEqual([]);
    expect(diffDefinition(declared, other)).toEqual(first);
  });

  it('pairs targeting members so that each declared member finds a live one when possible', () => {
    // First-fit would give the live 30-day member to the member that declares only
    // inclusionType, leave the 30-day declaration unmatched and never converge.
    const live = definition({
      trackerTargetings: [
        { trackId: 't1', eventCode: 'e1', retentionDays: 30, inclusionType: 'INCLUDE' },
        { trackId: 't1', eventCode: 'e1', retentionDays: 7, inclusionType: 'INCLUDE' },
      ],
    });
    const declared = desiredAudience({
      name: 'audience',
      trackerTargetings: [
        { trackId: 't1', eventCode: 'e1', retentionDays: 30 },
        { trackId: 't1', eventCode: 'e1', inclusionType: 'INCLUDE' },
      ],
    }).declared;
    expect(diffDefinition(declared, live).fields).toEqual([]);
  });

  it('shows the members after a change in canonical order, kept members in their live form', () => {
    const live = definition({ cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Five' }] });
    const declared = desiredAudience({
      name: 'audience',
      cohortTargetings: [
        { cohortId: 5, inclusionType: 'INCLUDE' },
        { cohortId: 3, inclusionType: 'INCLUDE' },
      ],
    }).declared;
    const [change] = diffDefinition(declared, live).fields;
    expect(change?.after).toEqual([
      { cohortId: 3, inclusionType: 'INCLUDE' },
      { cohortId: 5, cohortName: 'Five', inclusionType: 'INCLUDE' },
    ]);
  });

  it('clears the criteria the new type does not allow when the type changes, and shows them removed', () => {
    const customerFile = { customerFileId: 41, inclusionType: 'INCLUDE', customerFileName: 'Members' };
    const live = definition({ type: 'DISPLAY', ufoInterests: ['MUSIC'], customerFileTargetings: [customerFile] });
    const { fields, after } = diffDefinition(desiredAudience({ name: 'audience', type: 'MESSAGE' }).declared, live);
    expect(fields).toEqual([
      { field: 'type', before: 'DISPLAY', after: 'MESSAGE' },
      { field: 'customerFileTargetings', before: [customerFile], after: [], added: [], removed: [customerFile] },
    ]);
    expect(after).toMatchObject({ type: 'MESSAGE', ufoInterests: ['MUSIC'], customerFileTargetings: [] });
    expect(diffDefinition(desiredAudience({ name: 'audience', type: 'MESSAGE' }).declared, after).fields).toEqual([]);

    const message = definition({ type: 'MESSAGE', talkChannelGroupTargetings: [{ groupId: 7, inclusionType: 'INCLUDE' }] });
    expect(diffDefinition(desiredAudience({ name: 'audience', type: 'DISPLAY' }).declared, message).after.talkChannelGroupTargetings).toEqual([]);
  });
});
