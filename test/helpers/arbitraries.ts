import fc from 'fast-check';
import {
  AGE_BANDS,
  canonicalizeDefinition,
  PROVINCES,
  type AudienceDefinition,
  type Region,
} from '../../src/model/index.js';

const provinceCodes = Object.keys(PROVINCES);

const region: fc.Arbitrary<Region> = fc
  .constantFrom(...provinceCodes)
  .map((value) => ({ value, description: PROVINCES[value] ?? value }));
const depth2: fc.Arbitrary<Region> = fc
  .tuple(fc.constantFrom(...provinceCodes), fc.integer({ min: 1, max: 30 }))
  .map(([province, n]) => ({ value: `${province}${String(n).padStart(2, '0')}` }));
const inclusion = fc.constantFrom('INCLUDE', 'EXCLUDE');

const members = {
  cohortTargetings: fc.uniqueArray(fc.record({ cohortId: fc.integer({ min: 1, max: 50 }), inclusionType: inclusion }), {
    selector: (m) => m.cohortId,
    maxLength: 3,
  }),
  customerFileTargetings: fc.uniqueArray(
    fc.record({ customerFileId: fc.integer({ min: 1, max: 50 }), inclusionType: inclusion }),
    { selector: (m) => m.customerFileId, maxLength: 3 },
  ),
  trackerTargetings: fc.uniqueArray(
    fc.record({
      trackId: fc.constantFrom('t1', 't2', 't3'),
      eventCode: fc.constantFrom('PURCHASE', 'VISIT'),
      retentionDays: fc.integer({ min: 1, max: 180 }),
      inclusionType: inclusion,
    }),
    { selector: (m) => `${m.trackId}/${m.eventCode}`, maxLength: 3 },
  ),
  talkChannelTargetings: fc.uniqueArray(
    fc.record({ profileId: fc.constantFrom('p1', 'p2', 'p3'), inclusionType: inclusion }),
    { selector: (m) => m.profileId, maxLength: 2 },
  ),
  syncAppTargetings: fc.uniqueArray(fc.record({ profileId: fc.constantFrom('s1', 's2'), inclusionType: inclusion }), {
    selector: (m) => m.profileId,
    maxLength: 2,
  }),
  lookalikeTargetings: fc.uniqueArray(
    fc.record({ lookalikeId: fc.constantFrom(8001, '8002'), inclusionType: inclusion }),
    { selector: (m) => String(m.lookalikeId), maxLength: 2 },
  ),
};

/** A valid audience definition of either type, canonical. */
export const audienceDefinition = (name: fc.Arbitrary<string>): fc.Arbitrary<AudienceDefinition> =>
  fc
    .record({
      name,
      type: fc.constantFrom('DISPLAY' as const, 'MESSAGE' as const),
      ages: fc.subarray([...AGE_BANDS]),
      genders: fc.subarray(['F' as const, 'M' as const]),
      locations: fc.uniqueArray(region, { selector: (r) => r.value, maxLength: 3 }),
      depth2Locations: fc.uniqueArray(depth2, { selector: (r) => r.value, maxLength: 2 }),
      ufoInterests: fc.subarray(['TRAVEL', 'FOOD', 'FASHION', 'GAME']),
      ufoBusinessTypes: fc.subarray(['RETAIL', 'FINANCE']),
      ...members,
      groups: fc.uniqueArray(fc.record({ groupId: fc.integer({ min: 1, max: 9 }), inclusionType: inclusion }), {
        selector: (m) => m.groupId,
        maxLength: 2,
      }),
    })
    .map(({ groups, ...picked }) => {
      const isMessage = picked.type === 'MESSAGE';
      return canonicalizeDefinition({
        ...picked,
        ageType: picked.ages.length > 0 ? 'NOT_ALL' : 'ALL',
        genderType: picked.genders.length > 0 ? 'NOT_ALL' : 'ALL',
        locationType: picked.locations.length + picked.depth2Locations.length > 0 ? 'AREA' : 'ALL',
        depth3Locations: [],
        customerFileTargetings: isMessage ? [] : picked.customerFileTargetings,
        trackerTargetings: isMessage ? [] : picked.trackerTargetings,
        talkChannelGroupTargetings: isMessage ? groups : [],
      } satisfies AudienceDefinition);
    });

export const audienceName = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);

/** Several definitions with distinct names. */
export const audienceDefinitions = (maxLength: number): fc.Arbitrary<AudienceDefinition[]> =>
  fc
    .uniqueArray(audienceName, { maxLength, minLength: 1 })
    .chain((names) => fc.tuple(...names.map((name) => audienceDefinition(fc.constant(name)))));

/** The same array in another order. */
export function shuffled<T>(values: T[]): fc.Arbitrary<T[]> {
  return fc.shuffledSubarray(values, { minLength: values.length, maxLength: values.length });
}
