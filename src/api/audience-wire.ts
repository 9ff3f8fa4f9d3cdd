import {
  AGE_BANDS,
  canonicalizeDefinition,
  inferLocationType,
  REGION_FIELDS,
  TARGETING_FIELDS,
  TARGETING_REQUEST_FIELDS,
  type AdGroupLink,
  type AgeBand,
  type AllOrNotAll,
  type AudienceDefinition,
  type AudienceType,
  type Gender,
  type JsonObject,
  type LiveAudience,
  type LiveAudienceSummary,
  type Region,
  type TargetingField,
  type TargetingMember,
} from '../model/index.js';

/**
 * The one place where the audience service's wire shapes become the model and back.
 * Reading is tolerant (the quirks of the spec's examples, null or missing sets, extra
 * fields, any value in a field the tool only shows; the wire schemas check the fields it
 * needs); writing is exact: the definition as the file writes it, only the fields a request
 * accepts.
 */
type Wire = Record<string, unknown>;

export function audienceSummaryFromWire(wire: Wire): LiveAudienceSummary {
  return {
    id: wire.id as number,
    name: wire.name as string,
    audienceStatus: textOf(wire.audienceStatus),
    type: wire.type as AudienceType,
    createdDate: textOf(wire.createdDate),
    lastModifiedDate: textOf(wire.lastModifiedDate),
  };
}

/** A value the tool only shows or compares for equality, as text ('' when absent). */
function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The service's estimate of the audience's size; anything that is not a number is unknown. */
function populationOf(value: unknown): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : null;
}

/** A single read (or a create/update response) as a live audience. */
export function audienceFromWire(wire: Wire): LiveAudience {
  const regions = {
    locations: regionsFromWire(wire.locations),
    depth2Locations: regionsFromWire(wire.depth2Locations ?? wire.depth2locations),
    depth3Locations: regionsFromWire(wire.depth3Locations ?? wire.depth3locations),
  };
  const ages = setFromWire(wire.ages).map(String) as AgeBand[];
  const genders = setFromWire(wire.genders) as Gender[];
  const definition: AudienceDefinition = {
    name: wire.name as string,
    type: wire.type as AudienceType,
    ageType: (wire.ageType as AllOrNotAll | undefined) ?? (ages.length > 0 ? 'NOT_ALL' : 'ALL'),
    ages: ages.filter((band) => AGE_BANDS.includes(band)),
    genderType: (wire.genderType as AllOrNotAll | undefined) ?? (genders.length > 0 ? 'NOT_ALL' : 'ALL'),
    genders,
    locationType: inferLocationType(regions),
    ...regions,
    ufoInterests: setFromWire(wire.ufoInterests).map(String),
    ufoBusinessTypes: setFromWire(wire.ufoBusinessTypes).map(String),
    ...membersFromWire(wire),
  };
  return {
    ...audienceSummaryFromWire(wire),
    populationScore: populationOf(wire.populationScore),
    definition: canonicalizeDefinition(definition),
  };
}

export function adGroupLinkFromWire(wire: Wire): AdGroupLink {
  const goal = (wire.campaignTypeGoal ?? {}) as Wire;
  return {
    adGroupId: wire.adGroupId as number,
    adGroupName: textOf(wire.adGroupName),
    adGroupType: textOf(wire.adGroupType),
    adGroupStatus: Array.isArray(wire.adGroupStatus) ? wire.adGroupStatus.map(String) : [],
    campaignId: wire.campaignId as number,
    campaignName: textOf(wire.campaignName),
    campaignType: (goal.campaignType as string | undefined) ?? '',
    campaignGoal: (goal.goal as string | undefined) ?? '',
  };
}

/** The create body (or, with an id, the update body) for a definition. */
export function audienceToWire(adAccountId: number, definition: AudienceDefinition, id?: number): Wire {
  const body: Wire = {
    ...(id === undefined ? {} : { id }),
    adAccountId,
    name: definition.name,
    type: definition.type,
    ageType: definition.ageType,
    ...(definition.ageType === 'NOT_ALL' ? { ages: definition.ages } : {}),
    genderType: definition.genderType,
    ...(definition.genderType === 'NOT_ALL' ? { genders: definition.genders } : {}),
    locationType: definition.locationType,
  };
  if (definition.locationType === 'AREA') {
    for (const field of REGION_FIELDS) {
      if (definition[field].length > 0) body[field] = definition[field].map(regionToWire);
    }
  }
  if (definition.ufoInterests.length > 0) body.ufoInterests = definition.ufoInterests;
  if (definition.ufoBusinessTypes.length > 0) body.ufoBusinessTypes = definition.ufoBusinessTypes;
  for (const field of TARGETING_FIELDS) {
    if (definition[field].length > 0) body[field] = definition[field].map((member) => memberToWire(field, member));
  }
  return body;
}

/** A region as the file writes it: a code alone, or with the names the file gives. */
function regionToWire(region: Region): Wire {
  return { ...region };
}

/** A member as the file writes it (an id stays a number or a text), only the fields a request takes. */
function memberToWire(field: TargetingField, member: TargetingMember): JsonObject {
  return Object.fromEntries(TARGETING_REQUEST_FIELDS[field].filter((key) => key in member).map((key) => [key, member[key] ?? null]));
}

function setFromWire(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function regionsFromWire(value: unknown): Region[] {
  return setFromWire(value).map((item) => {
    const wire = item as Wire;
    // The spec's examples misspell the key: take the first text under any key starting with `desc`
    // (a null `description` beside a misspelled one must not hide it).
    const description = typeof wire.description === 'string' ? wire.description : Object.entries(wire).find(([key, text]) => /^desc/i.test(key) && typeof text === 'string')?.[1];
    const region: Region = { value: String(wire.value) };
    if (typeof description === 'string') region.description = description;
    for (const name of ['depth1Name', 'depth2Name', 'depth3Name'] as const) {
      if (typeof wire[name] === 'string') region[name] = wire[name];
    }
    return region;
  });
}

function membersFromWire(wire: Wire): Pick<AudienceDefinition, TargetingField> {
  const entries = TARGETING_FIELDS.map((field) => [field, setFromWire(wire[field]).map((member) => member as TargetingMember)]);
  return Object.fromEntries(entries) as Pick<AudienceDefinition, TargetingField>;
}
