import {
  DEFINITION_FIELDS,
  REGION_FIELDS,
  TARGETING_FIELDS,
  canonicalizeDefinition,
  type AgeBand,
  type AudienceDefinition,
  type DesiredAudience,
  type DesiredState,
  type Region,
  type TargetingMember,
} from '../model/index.js';
import { toDesiredBusiness, toDesiredImage } from './desired-images.js';
import type { Audience, AudiencesFile } from './generated/audiences.js';

/**
 * The desired state of a valid file: every shorthand expanded, so plans show the same
 * fields the service takes. A *Type left out follows from its list (present: NOT_ALL or
 * AREA; absent: ALL); ALL means empty lists; ages become strings; a region becomes
 * `{value}` (with its description, if the file gives one).
 */
export function toDesiredState(file: AudiencesFile, source: DesiredState['source']): DesiredState {
  return {
    adAccountId: file.adAccountId,
    prune: file.prune ?? false,
    ignore: file.ignore ?? [],
    audiences: file.audiences.map(toDesiredAudience),
    ...(file.business ? { business: toDesiredBusiness(file.business) } : {}),
    ...(file.images ? { images: file.images.map(toDesiredImage) } : {}),
    source,
  };
}

function toDesiredAudience(audience: Audience): DesiredAudience {
  const declared: DesiredAudience['declared'] = { name: audience.name, type: audience.type };

  declared.ageType = audience.ageType ?? (audience.ages ? 'NOT_ALL' : 'ALL');
  declared.ages = declared.ageType === 'ALL' ? [] : (audience.ages ?? []).map((band) => String(band) as AgeBand);
  declared.genderType = audience.genderType ?? (audience.genders ? 'NOT_ALL' : 'ALL');
  declared.genders = declared.genderType === 'ALL' ? [] : [...(audience.genders ?? [])];

  const anyRegion = REGION_FIELDS.some((field) => audience[field] !== undefined);
  declared.locationType = audience.locationType ?? (anyRegion ? 'AREA' : 'ALL');
  for (const field of REGION_FIELDS) {
    const regions = audience[field];
    if (declared.locationType === 'ALL') declared[field] = [];
    else if (regions) declared[field] = regions.map(toRegion);
  }

  if (audience.ufoInterests) declared.ufoInterests = [...audience.ufoInterests];
  if (audience.ufoBusinessTypes) declared.ufoBusinessTypes = [...audience.ufoBusinessTypes];
  for (const field of TARGETING_FIELDS) {
    const members = audience[field];
    if (members) declared[field] = members.map((member) => ({ ...member }) as TargetingMember);
  }

  const desired: DesiredAudience = {
    key: audience.name,
    declared: inDefinitionOrder(canonicalizeDefinition(declared)),
    protect: audience.protect ?? false,
  };
  if (audience.id !== undefined) desired.id = audience.id;
  if (audience.adGroups) desired.adGroups = [...new Set(audience.adGroups)].sort((a, b) => a - b);
  return desired;
}

function toRegion(region: string | { value: string; description?: string }): Region {
  if (typeof region === 'string') return { value: region };
  return region.description === undefined ? { value: region.value } : { value: region.value, description: region.description };
}

/** The same key order for every audience, so JSON output and hashes of it are stable. */
function inDefinitionOrder(declared: DesiredAudience['declared']): DesiredAudience['declared'] {
  const ordered: Partial<AudienceDefinition> = {};
  for (const field of DEFINITION_FIELDS) {
    if (declared[field] !== undefined) (ordered as Record<string, unknown>)[field] = declared[field];
  }
  return ordered as DesiredAudience['declared'];
}
