import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { definition } from '../../test/helpers/builders.js';
import { diffDefinition } from './diff.js';

const fieldsOf = (desired: ReturnType<typeof definition>, live: ReturnType<typeof definition>) =>
  diffDefinition(desired, live).map((change) => change.field);

describe('diffDefinition', () => {
  it('answers the same two definitions again from the first diff, and diffs anew against another live one', () => {
    const desired = definition({ genders: ['F'] });
    const same = definition({ genders: ['F'] });
    const other = definition({ genders: ['M'] });
    const first = diffDefinition(desired, other);
    expect(first.map((change) => change.field)).toEqual(['genders']);
    expect(diffDefinition(desired, other)).toBe(first);
    expect(diffDefinition(desired, same)).toEqual([]);
    expect(diffDefinition(desired, other)).toEqual(first);
  });

  it('compares every field: a set the desired definition leaves empty is removed from the live audience', () => {
    const customerFile = { customerFileId: 41, inclusionType: 'INCLUDE', customerFileName: 'Members' };
    const live = definition({ ages: ['20'], ufoInterests: ['MUSIC'], customerFileTargetings: [customerFile] });
    expect(diffDefinition(definition({ ages: ['20'] }), live)).toEqual([
      { field: 'ufoInterests', before: ['MUSIC'], after: [], added: [], removed: ['MUSIC'] },
      { field: 'customerFileTargetings', before: [customerFile], after: [], added: [], removed: [customerFile] },
    ]);
  });

  it('narrows from provinces to a district in one diff: the location lists of every depth count', () => {
    const live = definition({
      locations: [
        { value: 'C', description: 'South Gyeongsang' },
        { value: 'H', description: 'Busan' },
      ],
    });
    const changes = diffDefinition(definition({ depth2Locations: [{ value: 'H01' }] }), live);
    expect(changes.map((change) => [change.field, change.added, change.removed])).toEqual([
      [
        'locations',
        [],
        [
          { value: 'C', description: 'South Gyeongsang' },
          { value: 'H', description: 'Busan' },
        ],
      ],
      ['depth2Locations', [{ value: 'H01' }], []],
    ]);
  });

  it('compares regions by code: the names the service answers never differ', () => {
    const live = definition({ locations: [{ value: 'I', description: 'Seoul', depth1Name: 'Seoul' }] });
    expect(diffDefinition(definition({ locations: [{ value: 'I', description: '서울특별시' }] }), live)).toEqual([]);
  });

  it('compares member ids as text and ignores the display names the service adds', () => {
    const live = definition({
      talkChannelTargetings: [{ profileId: 501, inclusionType: 'INCLUDE', profileName: 'Shop' }],
    });
    expect(
      diffDefinition(definition({ talkChannelTargetings: [{ profileId: '501', inclusionType: 'INCLUDE' }] }), live),
    ).toEqual([]);
    expect(
      fieldsOf(definition({ talkChannelTargetings: [{ profileId: '501', inclusionType: 'EXCLUDE' }] }), live),
    ).toEqual(['talkChannelTargetings']);
    expect(
      fieldsOf(definition({ talkChannelTargetings: [{ profileId: '502', inclusionType: 'INCLUDE' }] }), live),
    ).toEqual(['talkChannelTargetings']);
  });

  it('does not compare a member field the answer leaves out, but needs the id', () => {
    const live = definition({ trackerTargetings: [{ trackId: 't1', eventCode: 'e1', inclusionType: 'INCLUDE' }] });
    expect(
      diffDefinition(
        definition({
          trackerTargetings: [{ trackId: 't1', eventCode: 'e1', retentionDays: 30, inclusionType: 'INCLUDE' }],
        }),
        live,
      ),
    ).toEqual([]);
    const noId = definition({ cohortTargetings: [{ inclusionType: 'INCLUDE' }] });
    expect(fieldsOf(definition({ cohortTargetings: [{ cohortId: 7, inclusionType: 'INCLUDE' }] }), noId)).toEqual([
      'cohortTargetings',
    ]);
  });

  it('pairs targeting members so that each desired member finds a live one when possible', () => {
    // The first live member leaves retentionDays out of its answer, so it matches both desired
    // members: first-fit would give it to the 30-day one, leave the 7-day one unmatched and
    // never converge.
    const live = definition({
      trackerTargetings: [
        { trackId: 't1', eventCode: 'e1', inclusionType: 'INCLUDE' },
        { trackId: 't1', eventCode: 'e1', retentionDays: 30, inclusionType: 'INCLUDE' },
      ],
    });
    const desired = definition({
      trackerTargetings: [
        { trackId: 't1', eventCode: 'e1', retentionDays: 30, inclusionType: 'INCLUDE' },
        { trackId: 't1', eventCode: 'e1', retentionDays: 7, inclusionType: 'INCLUDE' },
      ],
    });
    expect(diffDefinition(desired, live)).toEqual([]);
  });

  it('shows the members after a change in canonical order, kept members in their live form', () => {
    const live = definition({ cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Five' }] });
    const desired = definition({
      cohortTargetings: [
        { cohortId: 5, inclusionType: 'INCLUDE' },
        { cohortId: 3, inclusionType: 'INCLUDE' },
      ],
    });
    const [change] = diffDefinition(desired, live);
    expect(change?.after).toEqual([
      { cohortId: 3, inclusionType: 'INCLUDE' },
      { cohortId: 5, cohortName: 'Five', inclusionType: 'INCLUDE' },
    ]);
  });

  it('changes the type and removes the criteria the file leaves out with it', () => {
    const customerFile = { customerFileId: 41, inclusionType: 'INCLUDE', customerFileName: 'Members' };
    const live = definition({ type: 'DISPLAY', customerFileTargetings: [customerFile] });
    expect(diffDefinition(definition({ type: 'MESSAGE' }), live)).toEqual([
      { field: 'type', before: 'DISPLAY', after: 'MESSAGE' },
      { field: 'customerFileTargetings', before: [customerFile], after: [], added: [], removed: [customerFile] },
    ]);
  });

  it('finds a set changed exactly when its values differ as a set, whether or not both sides hold them in one order', () => {
    // Small alphabets, so that the two sides often hold the same set, the same values in another order, or one more.
    const codes = fc.uniqueArray(fc.constantFrom('A', 'B', 'C', 'D'), { maxLength: 4 });
    const ids = fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { maxLength: 4 });
    const shuffled = <T>(values: T[], order: number[]) =>
      values
        .map((value, index) => ({ value, rank: order[index] ?? 0 }))
        .sort((a, b) => a.rank - b.rank)
        .map(({ value }) => value);
    fc.assert(
      fc.property(
        codes,
        codes,
        ids,
        ids,
        fc.array(fc.integer(), { minLength: 4, maxLength: 4 }),
        (want, have, wantIds, haveIds, order) => {
          const cohorts = (values: number[]) =>
            values.map((cohortId) => ({ cohortId, inclusionType: 'INCLUDE', cohortName: `cohort ${cohortId}` }));
          const desired = definition({
            ufoInterests: want,
            locations: want.map((value) => ({ value })),
            cohortTargetings: cohorts(wantIds).map(({ cohortId, inclusionType }) => ({ cohortId, inclusionType })),
          });
          // The live side as read: its sets in any order (an answer is canonicalized, a definition built by hand may not be).
          const live = {
            ...definition(),
            locationType: have.length > 0 ? 'AREA' : 'ALL',
            ufoInterests: shuffled(have, order),
            locations: shuffled(have, order).map((value) => ({ value, description: `region ${value}` })),
            cohortTargetings: shuffled(cohorts(haveIds), order),
          } as ReturnType<typeof definition>;
          const byField = new Map(diffDefinition(desired, live).map((change) => [change.field, change]));
          const missingFrom = <T>(values: T[], others: T[]) => values.filter((value) => !others.includes(value));
          for (const [field, wanted, held] of [
            ['ufoInterests', want, have],
            ['locations', want, have],
            ['cohortTargetings', wantIds, haveIds],
          ] as const) {
            const change = byField.get(field);
            const added = missingFrom<string | number>(wanted, held);
            const removed = missingFrom<string | number>(held, wanted);
            expect(change !== undefined).toBe(added.length + removed.length > 0);
            if (change === undefined) continue;
            const valueOf = (item: unknown) =>
              typeof item === 'object' && item !== null
                ? ((item as { value?: string; cohortId?: number }).value ?? (item as { cohortId: number }).cohortId)
                : item;
            expect(change.added?.map(valueOf).sort()).toEqual([...added].sort());
            expect(change.removed?.map(valueOf).sort()).toEqual([...removed].sort());
          }
        },
      ),
    );
  });
});
