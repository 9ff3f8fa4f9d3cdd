import {
  canonicalizeDefinition,
  REGION_FIELDS,
  type AdGroupLink,
  type AudienceDefinition,
  type AudienceType,
  type DesiredAudience,
  type DesiredState,
  type LiveAudience,
  type LiveState,
  type Long,
} from '../../src/model/index.js';
import type { StoredAudience } from '../../src/emulator/store.js';
import type { Change, Plan } from '../../src/plan/index.js';

/** An audience that targets everyone: all ages, genders and regions, and no criteria. */
function emptyDefinition(name: string, type: AudienceType): AudienceDefinition {
  return {
    name,
    type,
    ageType: 'ALL',
    ages: [],
    genderType: 'ALL',
    genders: [],
    locationType: 'ALL',
    locations: [],
    depth2Locations: [],
    depth3Locations: [],
    ufoInterests: [],
    ufoBusinessTypes: [],
    customerFileTargetings: [],
    trackerTargetings: [],
    cohortTargetings: [],
    talkChannelTargetings: [],
    syncAppTargetings: [],
    talkChannelGroupTargetings: [],
    lookalikeTargetings: [],
  };
}

/**
 * A full audience definition: all ages, genders and regions unless overridden. A *Type not
 * given follows from its list, as in a file (ages given: NOT_ALL; a region given: AREA).
 */
export function definition(overrides: Partial<AudienceDefinition> = {}): AudienceDefinition {
  const inferred: Partial<AudienceDefinition> = {
    ...((overrides.ages?.length ?? 0) > 0 ? { ageType: 'NOT_ALL' } : {}),
    ...((overrides.genders?.length ?? 0) > 0 ? { genderType: 'NOT_ALL' } : {}),
    ...(REGION_FIELDS.some((field) => (overrides[field]?.length ?? 0) > 0) ? { locationType: 'AREA' } : {}),
  };
  return canonicalizeDefinition({ ...emptyDefinition('audience', 'DISPLAY'), ...inferred, ...overrides });
}

/** A live audience, fully read (its id given as a number for short, kept as the model's text). */
export function liveAudience(
  id: number | Long,
  overrides: Partial<AudienceDefinition> = {},
  status: LiveAudience['audienceStatus'] = 'AVAILABLE',
): LiveAudience {
  const full = definition(overrides);
  return {
    id: String(id),
    name: full.name,
    audienceStatus: status,
    type: full.type,
    createdDate: '2026-01-01T00:00:00',
    lastModifiedDate: `2026-01-02T00:00:${String(Number(BigInt(id) % 60n)).padStart(2, '0')}`,
    populationScore: 1000,
    definition: full,
    unmodelled: {},
  };
}

/** A declared audience: its whole definition, the fields not given empty (as a file that leaves them out). */
export function desiredAudience(
  fields: Partial<AudienceDefinition> & { name: string },
  extra: Partial<Omit<DesiredAudience, 'definition'>> = {},
): DesiredAudience {
  return { key: fields.name, protect: false, omitted: [], renamedFrom: [], ...extra, definition: definition(fields) };
}

export function desiredState(
  audiences: DesiredAudience[],
  overrides: Partial<Omit<DesiredState, 'audiences'>> = {},
): DesiredState {
  return {
    adAccountId: 1234,
    prune: false,
    pruneImages: false,
    ignore: [],
    protect: [],
    source: { files: ['audiences.yaml'], hash: 'hash' },
    ...overrides,
    audiences,
  };
}

/** The live state of an account, every audience read in full and with the links given (none by default). */
export function liveState(audiences: LiveAudience[], links: Record<string, AdGroupLink[]> = {}): LiveState {
  return {
    adAccountId: 1234,
    audiences: audiences.map(({ id, name, audienceStatus, type, createdDate, lastModifiedDate }) => ({
      id,
      name,
      audienceStatus,
      type,
      createdDate,
      lastModifiedDate,
    })),
    details: Object.fromEntries(audiences.map((audience) => [String(audience.id), audience])),
    links: Object.fromEntries(audiences.map((audience) => [String(audience.id), links[audience.id] ?? []])),
  };
}

export function adGroupLink(adGroupId: number | Long, overrides: Partial<AdGroupLink> = {}): AdGroupLink {
  return {
    adGroupId: String(adGroupId),
    adGroupName: `ad group ${adGroupId}`,
    adGroupType: 'DISPLAY',
    adGroupStatus: ['LIVE'],
    campaignId: '10',
    campaignName: 'campaign 10',
    campaignType: 'DISPLAY',
    campaignGoal: 'VISITING',
    ...overrides,
  };
}

/** A plan of these changes for account 1234, with nothing else in it (the counts are not the changes'). */
export function planOf(changes: Change[]): Plan {
  return {
    formatVersion: 2,
    adAccountId: 1234,
    changes,
    warnings: [],
    errors: [],
    summary: { create: 0, update: 0, delete: 0, unlink: 0, generate: 0, remove: 0 },
    fingerprint: { desiredHash: 'hash', audiences: [], accountAudienceIds: null },
  };
}

/** An audience as the emulator stores it: everyone, no criteria. */
export function storedAudience(id: string, name: string): StoredAudience {
  return {
    id,
    adAccountId: 1234,
    name,
    type: 'DISPLAY',
    ageType: 'ALL',
    ages: [],
    genderType: 'ALL',
    genders: [],
    locationType: 'ALL',
    locations: [],
    depth2Locations: [],
    depth3Locations: [],
    ufoInterests: [],
    ufoBusinessTypes: [],
    customerFileTargetings: [],
    trackerTargetings: [],
    cohortTargetings: [],
    talkChannelTargetings: [],
    syncAppTargetings: [],
    talkChannelGroupTargetings: [],
    createdAt: 0,
    lastModifiedAt: 0,
    statusOverride: null,
  };
}
