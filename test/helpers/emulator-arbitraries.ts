/**
 * Desired-state files that are valid for the emulator's seeded ad account 1234: only its
 * targetable items, the catalogue's region and interest codes, and the spec's rules. They are
 * written as a user would write them, shorthands and all (ages as numbers or strings, a
 * region as a code or an object, *Type fields spelled out or left to follow from the lists).
 */
import fc from 'fast-check';
import type { Audience, AudiencesFile } from '../../src/config/generated/audiences.js';
import { regions, ufoBusinessTypes, ufoInterests } from '../../src/emulator/catalog.js';
import { seedState } from '../../src/emulator/seed.js';

export const ACCOUNT_ID = 1234;
/** The account's ad groups: 101, 102, 105 display campaigns; 103 business board; 104 messaging-channel reach. */
export const AD_GROUPS = [101, 102, 103, 104, 105] as const;

const seeded = seedState().targetables;
const own = <T extends { adAccountId: number }>(items: T[]): T[] =>
  items.filter((item) => item.adAccountId === ACCOUNT_ID);
const items = {
  customerFiles: own(seeded.customerFiles).map((item) => item.id),
  trackers: own(seeded.trackers).flatMap((item) =>
    item.eventCodes.map((eventCode) => ({ trackId: item.trackId, eventCode })),
  ),
  cohorts: own(seeded.cohorts).map((item) => item.id),
  talkChannels: own(seeded.talkChannels).map((item) => item.profileId),
  syncApps: own(seeded.syncApps).map((item) => item.profileId),
  friendGroups: own(seeded.friendGroups).map((item) => item.id),
  lookalikes: own(seeded.lookalikes ?? []).map((item) => item.id),
};

const codesOfDepth = (depth: 1 | 2 | 3): string[] =>
  [...regions.values()].filter((region) => region.depth === depth).map((region) => region.value);
const provinceCodes = codesOfDepth(1);
const districtCodes = codesOfDepth(2);
const townCodes = codesOfDepth(3);

const inclusion = fc.constantFrom('INCLUDE' as const, 'EXCLUDE' as const);

/** A set as a file writes it: each member once (by its whole content), at least `minLength`. */
function set<T>(member: fc.Arbitrary<T>, maxLength: number, minLength = 0): fc.Arbitrary<T[]> {
  return fc.uniqueArray(member, { selector: (value) => JSON.stringify(value), minLength, maxLength });
}

/** A region as a code or as an object whose description need not be the service's (only the code counts). */
function region(codes: string[]): fc.Arbitrary<string | { value: string; description?: string }> {
  return fc
    .constantFrom(...codes)
    .chain((value) =>
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(value) },
        { weight: 1, arbitrary: fc.constant({ value }) },
        { weight: 1, arbitrary: fc.constant({ value, description: `my name for ${value}` }) },
      ),
    );
}

function regionSet(
  codes: string[],
  maxLength: number,
): fc.Arbitrary<Array<string | { value: string; description?: string }>> {
  return fc.uniqueArray(region(codes), {
    selector: (value) => (typeof value === 'string' ? value : value.value),
    minLength: 1,
    maxLength,
  });
}

/** Absent (`undefined`) or present; present lists may be empty where the schema allows it. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arbitrary, { nil: undefined, freq: 2 });

/** One audience entry of the file under `name`, of either type. */
export function audienceEntry(name: string): fc.Arbitrary<Audience> {
  return fc
    .record({
      type: fc.constantFrom('DISPLAY' as const, 'MESSAGE' as const),
      ages: maybe(fc.subarray(['15', '20', '25', '30', '35', '40', '45', '50', '55', '60', '65'], { minLength: 1 })),
      agesAsNumbers: fc.boolean(),
      genders: maybe(fc.subarray(['F' as const, 'M' as const], { minLength: 1 })),
      spellTypes: fc.boolean(),
      locations: maybe(regionSet(provinceCodes, 3)),
      depth2Locations: maybe(regionSet(districtCodes, 3)),
      depth3Locations: maybe(regionSet(townCodes, 2)),
      ufoInterests: maybe(fc.subarray([...ufoInterests], { maxLength: 4 })),
      ufoBusinessTypes: maybe(fc.subarray([...ufoBusinessTypes], { maxLength: 3 })),
      customerFileTargetings: maybe(
        set(fc.record({ customerFileId: fc.constantFrom(...items.customerFiles), inclusionType: inclusion }), 2),
      ),
      trackerTargetings: maybe(
        set(
          fc
            .record({
              tracker: fc.constantFrom(...items.trackers),
              retentionDays: fc.integer({ min: 1, max: 180 }),
              inclusionType: inclusion,
            })
            .map(({ tracker, ...rest }) => ({ ...tracker, ...rest })),
          2,
        ),
      ),
      cohortTargetings: maybe(
        set(fc.record({ cohortId: fc.constantFrom(...items.cohorts), inclusionType: inclusion }), 2),
      ),
      talkChannelTargetings: maybe(
        set(fc.record({ profileId: fc.constantFrom(...items.talkChannels), inclusionType: inclusion }), 2),
      ),
      syncAppTargetings: maybe(
        set(fc.record({ profileId: fc.constantFrom(...items.syncApps), inclusionType: inclusion }), 1),
      ),
      talkChannelGroupTargetings: maybe(
        set(fc.record({ groupId: fc.constantFrom(...items.friendGroups), inclusionType: inclusion }), 2),
      ),
      lookalikeTargetings: maybe(
        set(fc.record({ lookalikeId: fc.constantFrom(...items.lookalikes), inclusionType: inclusion }), 2),
      ),
    })
    .map(
      ({
        type,
        ages,
        agesAsNumbers,
        genders,
        spellTypes,
        customerFileTargetings,
        trackerTargetings,
        talkChannelGroupTargetings,
        ...rest
      }) => {
        const anyRegion =
          rest.locations !== undefined || rest.depth2Locations !== undefined || rest.depth3Locations !== undefined;
        const entry: Audience = {
          name,
          type,
          ...(spellTypes
            ? {
                ageType: ages ? 'NOT_ALL' : 'ALL',
                genderType: genders ? 'NOT_ALL' : 'ALL',
                locationType: anyRegion ? 'AREA' : 'ALL',
              }
            : {}),
          ...(ages ? { ages: agesAsNumbers ? ages.map(Number) : ages } : {}),
          ...(genders ? { genders } : {}),
          ...withoutUndefined(rest),
          // The per-type table (rule 8): files for one type never use the other type's criteria.
          ...(type === 'DISPLAY'
            ? withoutUndefined({ customerFileTargetings, trackerTargetings })
            : withoutUndefined({ talkChannelGroupTargetings })),
        } as Audience;
        return entry;
      },
    );
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

/**
 * Audience names as people write them: letters, digits, spaces, punctuation and Hangul. All
 * start with `a` so they never meet the names the tests create by hand (`hand-…`, `legacy-…`).
 */
export const audienceName: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...'abcdefz019 -_.:#서울여성'.split('')), { maxLength: 12 })
  .map((characters) => `a${characters.join('')}`);

/** A whole file for account 1234: 1 to `maxAudiences` audiences with distinct names, with or without prune. */
export function desiredFile(maxAudiences: number): fc.Arbitrary<AudiencesFile> {
  return fc
    .record({
      names: fc.uniqueArray(audienceName, { minLength: 1, maxLength: maxAudiences }),
      prune: fc.boolean(),
      ignoreLegacy: fc.boolean(),
    })
    .chain(({ names, prune, ignoreLegacy }) =>
      fc.tuple(...names.map((name) => audienceEntry(name))).map((audiences) => ({
        adAccountId: ACCOUNT_ID,
        prune,
        ...(ignoreLegacy ? { ignore: ['legacy-*'] } : {}),
        audiences,
      })),
    );
}
