import {
  CRITERIA_BY_TYPE,
  DEFINITION_FIELDS,
  emptyDefinition,
  REGION_FIELDS,
  TARGETING_FIELDS,
  canonicalizeDefinition,
  type AgeBand,
  type AudienceDefinition,
  type DefinitionField,
  type DesiredAudience,
  type DesiredState,
  type Region,
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
    prune: file.prune ?? false,
    pruneImages: file.pruneImages ?? file.prune ?? false,
    ...(file.massDelete ? { massDelete: massDeleteOf(file.massDelete) } : {}),
    ignore: file.ignore ?? [],
    audiences: file.audiences.map(toDesiredAudience),
    ...(file.business ? { business: toDesiredBusiness(file.business) } : {}),
    ...(file.images ? { images: file.images.map(toDesiredImage) } : {}),
    source,
  };
}

/** The mass-delete guard as far as the file sets it. */
function massDeleteOf(guard: NonNullable<AudiencesFile['massDelete']>): NonNullable<DesiredState['massDelete']> {
  return { ...(guard.percent === undefined ? {} : { ratio: guard.percent / 100 }), ...(guard.minimum === undefined ? {} : { minManaged: guard.minimum }) };
}

/** The criteria each audience type may use, its regions aside. */
const CRITERIA_BESIDE_REGIONS: Readonly<Record<AudienceDefinition['type'], readonly DefinitionField[]>> = {
  DISPLAY: CRITERIA_BY_TYPE.DISPLAY.filter((field) => !(REGION_FIELDS as readonly string[]).includes(field)),
  MESSAGE: CRITERIA_BY_TYPE.MESSAGE.filter((field) => !(REGION_FIELDS as readonly string[]).includes(field)),
};

/**
 * The sets the audience could hold but the file leaves out, so they are empty: the ones a
 * plan names when it empties them. A set whose *Type the file spells out (`ageType: ALL`,
 * `locationType: ALL`) is not left out but declared empty; a criterion counts only where the
 * audience's type allows it.
 */
function omittedSets(audience: Audience, definition: AudienceDefinition): DefinitionField[] {
  const selections: DefinitionField[] = [
    ...(audience.ageType === undefined ? (['ages'] as const) : []),
    ...(audience.genderType === undefined ? (['genders'] as const) : []),
    ...(audience.locationType === 'ALL' ? [] : REGION_FIELDS),
  ];
  const omittable = new Set([...selections, ...CRITERIA_BESIDE_REGIONS[definition.type]]);
  return DEFINITION_FIELDS.filter((field) => omittable.has(field) && audience[field as keyof Audience] === undefined);
}

function toDesiredAudience(audience: Audience): DesiredAudience {
  const definition: AudienceDefinition = emptyDefinition(audience.name, audience.type);

  definition.ageType = audience.ageType ?? (audience.ages ? 'NOT_ALL' : 'ALL');
  if (definition.ageType === 'NOT_ALL') definition.ages = (audience.ages ?? []).map((band) => String(band) as AgeBand);
  definition.genderType = audience.genderType ?? (audience.genders ? 'NOT_ALL' : 'ALL');
  if (definition.genderType === 'NOT_ALL') definition.genders = [...(audience.genders ?? [])];

  const anyRegion = REGION_FIELDS.some((field) => (audience[field]?.length ?? 0) > 0);
  definition.locationType = audience.locationType ?? (anyRegion ? 'AREA' : 'ALL');
  if (definition.locationType === 'AREA') for (const field of REGION_FIELDS) definition[field] = (audience[field] ?? []).map(toRegion);

  definition.ufoInterests = [...(audience.ufoInterests ?? [])];
  definition.ufoBusinessTypes = [...(audience.ufoBusinessTypes ?? [])];
  for (const field of TARGETING_FIELDS) definition[field] = (audience[field] ?? []).map((member) => ({ ...member }) as TargetingMember);

  const desired: DesiredAudience = {
    key: audience.name,
    definition: canonicalizeDefinition(definition),
    omitted: omittedSets(audience, definition),
    protect: audience.protect ?? false,
  };
  if (audience.id !== undefined) desired.id = audience.id;
  if (audience.adGroups) desired.adGroups = [...new Set(audience.adGroups)].sort((a, b) => a - b);
  return desired;
}

/** A region as written: a code is `{value}`; an object keeps every name it gives, to be sent as written. */
function toRegion(region: string | Region): Region {
  return typeof region === 'string' ? { value: region } : { ...region };
}
