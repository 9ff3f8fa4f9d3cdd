import {
  CRITERIA_BY_TYPE,
  DEFINITION_FIELDS,
  REGION_FIELDS,
  canonicalizeDefinition,
  sortLongs,
  type AgeBand,
  type AudienceDefinition,
  type DefinitionField,
  type DesiredAudience,
  type DesiredState,
  type Region,
  type RegionField,
  type TargetingField,
  type TargetingMember,
} from '../model/index.js';
import { toDesiredBusiness, toDesiredImage } from './desired-images.js';
import type { Audience, AudiencesFile } from './generated/audiences.js';

/**
 * The desired state of a valid file: every audience as its whole definition, shorthands
 * expanded so plans show the same fields the service takes. A field left out is its empty
 * value. A *Type left out follows from its list (a list: NOT_ALL; a region list that is not
 * empty: AREA; otherwise ALL); ages become strings; a region written as a code becomes
 * `{value}`, one written in full is kept as written, and so is every targeting member.
 */
export function toDesiredState(file: AudiencesFile, source: DesiredState['source']): DesiredState {
  return {
    adAccountId: file.adAccountId,
    ...(file.accountFiles ? { accountFiles: file.accountFiles } : {}),
    prune: file.prune ?? false,
    pruneImages: file.pruneImages ?? file.prune ?? false,
    ...(file.requestsPerSecond === undefined ? {} : { requestsPerSecond: file.requestsPerSecond }),
    ...(file.massDelete ? { massDelete: massDeleteOf(file.massDelete) } : {}),
    ignore: file.ignore ?? [],
    protect: file.protect ?? [],
    audiences: file.audiences.map(toDesiredAudience),
    ...(file.business ? { business: toDesiredBusiness(file.business) } : {}),
    ...(file.images ? { images: file.images.map(toDesiredImage) } : {}),
    source,
  };
}

/** The mass-delete guard as far as the file sets it. */
function massDeleteOf(guard: NonNullable<AudiencesFile['massDelete']>): NonNullable<DesiredState['massDelete']> {
  return {
    ...(guard.percent === undefined ? {} : { ratio: guard.percent / 100 }),
    ...(guard.minimum === undefined ? {} : { minManaged: guard.minimum }),
  };
}

/** The criteria each audience type may use, its regions aside. */
const CRITERIA_BESIDE_REGIONS: Readonly<Record<AudienceDefinition['type'], readonly DefinitionField[]>> = {
  DISPLAY: CRITERIA_BY_TYPE.DISPLAY.filter((field) => !isRegionField(field)),
  MESSAGE: CRITERIA_BY_TYPE.MESSAGE.filter((field) => !isRegionField(field)),
};

function isRegionField(field: DefinitionField): field is RegionField {
  return (REGION_FIELDS as readonly DefinitionField[]).includes(field);
}

/**
 * The criteria the audience could hold but the file says nothing of, so they are empty: the
 * ones a plan names when it empties them. A set whose *Type the file spells out (`ageType:
 * ALL`, `locationType: ALL`) is declared empty, not left out. The three region depths are one
 * criterion: a file that names regions at one depth and not at another narrows or moves them
 * (provinces to one district), which is an edit, not something forgotten. A criterion counts
 * only where the audience's type allows it.
 */
function omittedSets(audience: Audience): DefinitionField[] {
  const criteria = CRITERIA_BESIDE_REGIONS[audience.type];
  const regionsNamed =
    audience.locationType !== undefined || REGION_FIELDS.some((field) => audience[field] !== undefined);
  return DEFINITION_FIELDS.filter((field) => {
    if (audience[field as keyof Audience] !== undefined) return false;
    if (field === 'ages') return audience.ageType === undefined;
    if (field === 'genders') return audience.genderType === undefined;
    if (isRegionField(field)) return !regionsNamed;
    return criteria.includes(field);
  });
}

/**
 * The audience's definition, built once in the shape canonicalizeDefinition puts it in: the
 * file's own lists go in as they are, since canonicalizing copies every set. (Copying each list
 * first, into a definition of empty sets made for the purpose, was a third of the objects of
 * reading a file: garbage collection, most of the time it took.)
 */
function toDesiredAudience(audience: Audience): DesiredAudience {
  const ageType = audience.ageType ?? (audience.ages ? 'NOT_ALL' : 'ALL');
  const genderType = audience.genderType ?? (audience.genders ? 'NOT_ALL' : 'ALL');
  const locationType =
    audience.locationType ?? (REGION_FIELDS.some((field) => (audience[field]?.length ?? 0) > 0) ? 'AREA' : 'ALL');
  const regions = (field: RegionField): Region[] =>
    locationType === 'AREA' ? (audience[field] ?? []).map(toRegion) : [];
  // JSON objects, of the generated types that name their keys.
  const members = (field: TargetingField): TargetingMember[] => (audience[field] ?? []) as unknown as TargetingMember[];
  const definition = canonicalizeDefinition<AudienceDefinition>({
    name: audience.name,
    type: audience.type,
    ageType,
    ages: ageType === 'NOT_ALL' ? (audience.ages ?? []).map((band) => String(band) as AgeBand) : [],
    genderType,
    genders: genderType === 'NOT_ALL' ? (audience.genders ?? []) : [],
    locationType,
    locations: regions('locations'),
    depth2Locations: regions('depth2Locations'),
    depth3Locations: regions('depth3Locations'),
    ufoInterests: audience.ufoInterests ?? [],
    ufoBusinessTypes: audience.ufoBusinessTypes ?? [],
    customerFileTargetings: members('customerFileTargetings'),
    trackerTargetings: members('trackerTargetings'),
    cohortTargetings: members('cohortTargetings'),
    talkChannelTargetings: members('talkChannelTargetings'),
    syncAppTargetings: members('syncAppTargetings'),
    talkChannelGroupTargetings: members('talkChannelGroupTargetings'),
    lookalikeTargetings: members('lookalikeTargetings'),
  });
  const renamedFrom =
    audience.renamedFrom === undefined
      ? []
      : typeof audience.renamedFrom === 'string'
        ? [audience.renamedFrom]
        : audience.renamedFrom;
  const desired: DesiredAudience = {
    key: audience.name,
    definition,
    omitted: omittedSets(audience),
    renamedFrom,
    protect: audience.protect ?? false,
  };
  if (audience.id !== undefined) desired.id = String(audience.id);
  if (audience.adGroups) desired.adGroups = sortLongs(audience.adGroups.map(String));
  return desired;
}

/** A region as written: a code is `{value}`; an object keeps every name it gives, to be sent as written. */
function toRegion(region: string | Region): Region {
  return typeof region === 'string' ? { value: region } : { ...region };
}
