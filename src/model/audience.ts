import type { JsonObject } from './json.js';

export type AudienceType = 'DISPLAY' | 'MESSAGE';
export type AudienceStatus = 'STANDBY' | 'AVAILABLE' | 'SEED_NOT_ENOUGH' | 'ERROR';
export type AllOrNotAll = 'ALL' | 'NOT_ALL';
export type LocationType = 'ALL' | 'AREA';
export type InclusionType = 'INCLUDE' | 'EXCLUDE';
export type Gender = 'F' | 'M';

export const AUDIENCE_STATUSES: readonly AudienceStatus[] = ['STANDBY', 'AVAILABLE', 'SEED_NOT_ENOUGH', 'ERROR'];
/** Each band is the start of five years: "15" is 15 to 19, up to "65" for 65 to 69. */
export const AGE_BANDS = ['15', '20', '25', '30', '35', '40', '45', '50', '55', '60', '65'] as const;
export type AgeBand = (typeof AGE_BANDS)[number];
export const GENDERS: readonly Gender[] = ['F', 'M'];
/** The bands an audience must have exactly when adult targeting is allowed (rule 3). */
export const ADULT_AGE_BANDS: readonly AgeBand[] = ['20', '25', '30', '35', '40', '45', '50', '55', '60', '65'];

/** Province codes and their names, from the spec. */
export const PROVINCES: Readonly<Record<string, string>> = {
  A: 'Gangwon',
  B: 'Gyeonggi',
  C: 'South Gyeongsang',
  D: 'North Gyeongsang',
  E: 'Gwangju',
  F: 'Daegu',
  G: 'Daejeon',
  H: 'Busan',
  I: 'Seoul',
  J: 'Ulsan',
  K: 'Incheon',
  L: 'South Jeolla',
  M: 'North Jeolla',
  N: 'Jeju',
  O: 'South Chungcheong',
  P: 'North Chungcheong',
  Q: 'Sejong',
  U: 'Unknown',
  Z: 'Overseas',
};
export const OVERSEAS_PROVINCE = 'Z';

/** A region: compared by its `value` code only; the names are sent as written and shown, never compared. */
export interface Region {
  value: string;
  description?: string;
  depth1Name?: string;
  depth2Name?: string;
  depth3Name?: string;
}

/**
 * A member of a targeting set, with the service's field names (e.g. `{cohortId, inclusionType}`).
 * Its id is opaque: the spec does not show its type, so a number and a text are both taken and
 * compared as text (see `memberMatches`).
 */
export type TargetingMember = JsonObject;

export const REGION_FIELDS = ['locations', 'depth2Locations', 'depth3Locations'] as const;
export type RegionField = (typeof REGION_FIELDS)[number];

export const CODE_SET_FIELDS = ['ages', 'genders', 'ufoInterests', 'ufoBusinessTypes'] as const;
export type CodeSetField = (typeof CODE_SET_FIELDS)[number];

export const TARGETING_FIELDS = [
  'customerFileTargetings',
  'trackerTargetings',
  'cohortTargetings',
  'talkChannelTargetings',
  'syncAppTargetings',
  'talkChannelGroupTargetings',
  'lookalikeTargetings',
] as const;
export type TargetingField = (typeof TARGETING_FIELDS)[number];

export const SCALAR_FIELDS = ['name', 'type', 'ageType', 'genderType', 'locationType'] as const;
export type ScalarField = (typeof SCALAR_FIELDS)[number];

/** Every field of an audience definition, in the order plans show them. */
export const DEFINITION_FIELDS = [
  'name',
  'type',
  'ageType',
  'ages',
  'genderType',
  'genders',
  'locationType',
  'locations',
  'depth2Locations',
  'depth3Locations',
  'ufoInterests',
  'ufoBusinessTypes',
  ...TARGETING_FIELDS,
] as const;
export type DefinitionField = (typeof DEFINITION_FIELDS)[number];

/**
 * What an audience targets, in the API's field names: what a user declares, what a plan
 * compares and what create and update send. Sets are arrays kept in canonical order.
 */
export interface AudienceDefinition {
  name: string;
  type: AudienceType;
  ageType: AllOrNotAll;
  ages: AgeBand[];
  genderType: AllOrNotAll;
  genders: Gender[];
  locationType: LocationType;
  locations: Region[];
  depth2Locations: Region[];
  depth3Locations: Region[];
  ufoInterests: string[];
  ufoBusinessTypes: string[];
  customerFileTargetings: TargetingMember[];
  trackerTargetings: TargetingMember[];
  cohortTargetings: TargetingMember[];
  talkChannelTargetings: TargetingMember[];
  syncAppTargetings: TargetingMember[];
  talkChannelGroupTargetings: TargetingMember[];
  lookalikeTargetings: TargetingMember[];
}

/** The fields of an audience answer that only the service sets: shown, never compared or sent. */
export const SERVICE_ONLY_FIELDS = [
  'id',
  'audienceStatus',
  'createdDate',
  'lastModifiedDate',
  'populationScore',
  'adAccountId',
] as const;

/**
 * The fields of a tracker member of which it holds one: its retention, as `retentionDays` or
 * as the real service's `trackerTargetingTerms`. A member holding one and an answer holding the
 * other differ: the service keeps the one it answered.
 */
export const RETENTION_FIELDS = ['retentionDays', 'trackerTargetingTerms'] as const;

/**
 * Which criteria each audience type may use (the spec's per-type table, rule 8). Lookalikes are
 * a field of the service the spec's table leaves out: either type may use them, and the service judges.
 */
export const CRITERIA_BY_TYPE: Readonly<Record<AudienceType, readonly DefinitionField[]>> = {
  DISPLAY: [
    'ufoInterests',
    'ufoBusinessTypes',
    ...REGION_FIELDS,
    'customerFileTargetings',
    'trackerTargetings',
    'cohortTargetings',
    'talkChannelTargetings',
    'syncAppTargetings',
    'lookalikeTargetings',
  ],
  MESSAGE: [
    'ufoInterests',
    'ufoBusinessTypes',
    ...REGION_FIELDS,
    'talkChannelGroupTargetings',
    'cohortTargetings',
    'talkChannelTargetings',
    'syncAppTargetings',
    'lookalikeTargetings',
  ],
};

/** The fields that identify a member of each targeting set (used to show, order and match members). */
export const TARGETING_MEMBER_KEYS: Readonly<Record<TargetingField, readonly string[]>> = {
  customerFileTargetings: ['customerFileId'],
  trackerTargetings: ['trackId', 'eventCode'],
  cohortTargetings: ['cohortId'],
  talkChannelTargetings: ['profileId'],
  syncAppTargetings: ['profileId'],
  talkChannelGroupTargetings: ['groupId'],
  lookalikeTargetings: ['lookalikeId'],
};

/**
 * The fields a file may declare of each targeting member: those a plan compares, and those
 * `import` writes. The service adds others in answers (display names such as `cohortName`, a
 * member's own `id`, a tracker's `trackRuleId` and `trackRuleName`): never compared, and sent
 * back as read when an update keeps the member. A tracker's retention is either `retentionDays`
 * or the service's `trackerTargetingTerms` (e.g. ["ONE_MONTH"]), whichever the member holds.
 */
export const TARGETING_DECLARED_FIELDS: Readonly<Record<TargetingField, readonly string[]>> = {
  customerFileTargetings: ['customerFileId', 'inclusionType'],
  trackerTargetings: ['trackId', 'eventCode', 'retentionDays', 'trackerTargetingTerms', 'inclusionType'],
  cohortTargetings: ['cohortId', 'inclusionType'],
  talkChannelTargetings: ['profileId', 'inclusionType'],
  syncAppTargetings: ['profileId', 'inclusionType'],
  talkChannelGroupTargetings: ['groupId', 'inclusionType'],
  lookalikeTargetings: ['lookalikeId', 'inclusionType'],
};
