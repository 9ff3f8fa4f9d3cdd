import {
  canonicalizeOwnDefinition,
  DEFINITION_FIELDS,
  inferLocationType,
  memberMatches,
  REGION_FIELDS,
  isLong,
  RETENTION_FIELDS,
  SERVICE_ONLY_FIELDS,
  TARGETING_FIELDS,
  type AdGroupLink,
  type AudienceDefinition,
  type JsonValue,
  type LiveAudience,
  type LiveAudienceSummary,
  type Long,
  type Region,
  type TargetingField,
  type TargetingMember,
  type UnmodelledFields,
} from '../model/index.js';
import type {
  AudienceAdGroup,
  AudienceDetail,
  AudienceListItem,
  AudienceWriteResponse,
  Depth3Location,
  Long as WireLong,
} from './generated/wire.js';
import { exactOf, fromJsonText, jsonText, longToWire } from './long-json.js';

/**
 * The one place where the audience service's wire shapes become the model and back.
 * Reading is tolerant (the quirks of the spec's examples, null or missing sets, extra
 * fields, any value in a field the tool only shows; the wire schemas check the fields it
 * needs); writing is exact: the definition as the file writes it, only the fields a request
 * accepts. The answers come in as the types generated from those schemas, so a field the
 * schema leaves open (`unknown`) is narrowed here by a check of its value, never asserted.
 */

/** An audience as a single read, a create or an update answers it. */
type WireAudience = AudienceDetail | AudienceWriteResponse;

/** The widest of the region shapes answered (Location, Depth2Location, Depth3Location): each of them is one. */
type WireRegion = Depth3Location;

/** A request body: written by the tool, checked by the service. */
type RequestBody = Record<string, unknown>;

/** A listed audience. audienceFromWire writes these fields too, in this order (see there): a change here is one there. */
export function audienceSummaryFromWire(wire: AudienceListItem): LiveAudienceSummary {
  return {
    id: longFromWire(wire.id),
    name: wire.name,
    audienceStatus: textOf(wire.audienceStatus),
    type: textOf(wire.type),
    createdDate: textOf(wire.createdDate),
    lastModifiedDate: textOf(wire.lastModifiedDate),
  };
}

/** A Long as answered (a number within 2^53, or its digits: the schema checks which) as the model's text. */
export function longFromWire(wire: WireLong): Long {
  return String(wire);
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
export function audienceFromWire(wire: WireAudience): LiveAudience {
  const locations = regionsFromWire(wire.locations);
  const depth2Locations = regionsFromWire(wire.depth2Locations ?? wire.depth2locations);
  const depth3Locations = regionsFromWire(wire.depth3Locations ?? lowerCaseDepth3(wire));
  // The answer is read once and dropped: its sets become the definition's, put in canonical order where it is.
  const ages = wire.ages ?? [];
  const genders = wire.genders ?? [];
  const definition: AudienceDefinition = {
    name: wire.name,
    type: wire.type,
    ageType: wire.ageType ?? (ages.length > 0 ? 'NOT_ALL' : 'ALL'),
    ages,
    genderType: wire.genderType ?? (genders.length > 0 ? 'NOT_ALL' : 'ALL'),
    genders,
    locationType: inferLocationType({ locations, depth2Locations, depth3Locations }),
    locations,
    depth2Locations,
    depth3Locations,
    ufoInterests: wire.ufoInterests ?? [],
    ufoBusinessTypes: wire.ufoBusinessTypes ?? [],
    customerFileTargetings: setOfMembers(wire.customerFileTargetings),
    trackerTargetings: setOfMembers(wire.trackerTargetings),
    cohortTargetings: setOfMembers(wire.cohortTargetings),
    talkChannelTargetings: setOfMembers(wire.talkChannelTargetings),
    syncAppTargetings: setOfMembers(wire.syncAppTargetings),
    talkChannelGroupTargetings: setOfMembers(wire.talkChannelGroupTargetings),
    lookalikeTargetings: setOfMembers(wire.lookalikeTargetings),
  };
  // One object of every field, not the summary spread and added to: an object that grows after a spread is slower to
  // make, once for each audience read.
  return {
    id: longFromWire(wire.id),
    name: wire.name,
    audienceStatus: textOf(wire.audienceStatus),
    type: textOf(wire.type),
    createdDate: textOf(wire.createdDate),
    lastModifiedDate: textOf(wire.lastModifiedDate),
    populationScore: populationOf(wire.populationScore),
    definition: canonicalizeOwnDefinition(definition),
    unmodelled: unmodelledOf(wire),
  };
}

/**
 * The fields of an audience answer the tool reads: the list's, the single read's and the
 * write answers' (with the spec examples' misspellings), every definition field, and
 * `locationType`, which the definition holds though the service does not answer it.
 */
const READ_FIELDS: ReadonlySet<string> = new Set([
  ...SERVICE_ONLY_FIELDS,
  'depth2locations',
  'depth3locations',
  ...DEFINITION_FIELDS,
]);

/** The answer's other fields, each as its JSON text as answered (every digit kept): what an update sends back. */
function unmodelledOf(wire: WireAudience): Record<string, string> {
  const exact = exactOf(wire) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  // By its keys, not its entries: an answer has some 25 fields, and most are read ones.
  for (const key of Object.keys(exact)) {
    if (READ_FIELDS.has(key)) continue;
    const text = jsonText(exact[key]);
    // A field named __proto__ is a field like any other (an assignment would set the prototype instead).
    if (key === '__proto__')
      Object.defineProperty(fields, key, { value: text, enumerable: true, writable: true, configurable: true });
    else fields[key] = text;
  }
  return fields;
}

export function adGroupLinkFromWire(wire: AudienceAdGroup): AdGroupLink {
  const goal = wire.campaignTypeGoal ?? {};
  return {
    adGroupId: longFromWire(wire.adGroupId),
    adGroupName: textOf(wire.adGroupName),
    adGroupType: textOf(wire.adGroupType),
    adGroupStatus: Array.isArray(wire.adGroupStatus) ? wire.adGroupStatus.map(String) : [],
    // The schema does not require it; no campaign has the id 0.
    campaignId: longFromWire(wire.campaignId ?? 0),
    campaignName: textOf(wire.campaignName),
    campaignType: goal.campaignType ?? '',
    campaignGoal: goal.goal ?? '',
  };
}

/**
 * What an update keeps of the audience as read: its members' fields the service added, and the fields the tool does not
 * model.
 */
export interface Keep {
  /** The definition as read (its members with the fields the service added). */
  before: AudienceDefinition;
  unmodelled: UnmodelledFields;
}

/**
 * The create body for a definition, or with `update` the update body: the definition as the file
 * writes it, each member it keeps with the fields the service added, and the fields the tool
 * does not model as read (the service replaces the whole definition: one left out is lost).
 */
export function audienceToWire(
  adAccountId: number,
  definition: AudienceDefinition,
  update?: { id: Long } & Partial<Keep>,
): RequestBody {
  const unmodelled = Object.entries(update?.unmodelled ?? {}).map(([key, text]) => [key, fromJsonText(text)]);
  const body: RequestBody = {
    ...(update === undefined ? {} : { ...Object.fromEntries(unmodelled), id: longToWire(update.id) }),
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
    if (definition[field].length > 0)
      body[field] = membersToWire(field, definition[field], update?.before?.[field] ?? []);
  }
  return body;
}

/** A region as the file writes it: a code alone, or with the names the file gives. */
function regionToWire(region: Region): RequestBody {
  return { ...region };
}

/**
 * The members as the file writes them (an id stays a number or a text); one the audience as read
 * has (`before`) goes with the fields the service added to it (its own id, a display name), as
 * read, without a retention of the other form than the file's (a null one, say, as Jackson
 * answers an unset field). A Long the service adds (ADDED_LONGS) goes back as the number it was.
 */
function membersToWire(field: TargetingField, members: TargetingMember[], before: TargetingMember[]): RequestBody[] {
  const unused = new Set(before);
  return members.map((member) => {
    const read = [...unused].find((candidate) => memberMatches(field, member, candidate));
    if (read === undefined) return { ...member };
    unused.delete(read);
    const added: RequestBody = Object.fromEntries(
      Object.entries(read).filter(
        ([name]) => !(name in member) && !(RETENTION_FIELDS as readonly string[]).includes(name),
      ),
    );
    for (const name of ADDED_LONGS[field] ?? []) {
      const value = added[name];
      if (typeof value === 'string' && isLong(value)) added[name] = longToWire(value);
    }
    return { ...added, ...member };
  });
}

/**
 * The fields the service adds to a member that are Longs (the real tracker member's own id and
 * its rule's), held as text in the model past 2^53: sent back as numbers, as answered.
 */
const ADDED_LONGS: Partial<Record<TargetingField, readonly string[]>> = { trackerTargetings: ['id', 'trackRuleId'] };

function regionsFromWire(regions: readonly WireRegion[] | null | undefined): Region[] {
  return (regions ?? []).map((wire) => {
    // The spec's examples misspell the key: take the first text under any key starting with `desc`
    // (a null `description` beside a misspelled one must not hide it).
    const description = typeof wire.description === 'string' ? wire.description : misspeltDescription(wire);
    const region: Region = { value: wire.value };
    if (description !== undefined) region.description = description;
    for (const name of ['depth1Name', 'depth2Name', 'depth3Name'] as const) {
      const text = wire[name];
      if (typeof text === 'string') region[name] = text;
    }
    return region;
  });
}

/**
 * The depth-3 list under the lower-case spelling its depth-2 sibling has in the spec's
 * examples. No schema names it, so it is read only as far as it is a list of regions.
 */
function lowerCaseDepth3(wire: WireAudience): WireRegion[] | undefined {
  if (!('depth3locations' in wire) || !Array.isArray(wire.depth3locations)) return undefined;
  return wire.depth3locations.filter(isWireRegion);
}

/** True for an object whose `value` is text: any such object is a region as answered. */
function isWireRegion(value: unknown): value is WireRegion {
  return typeof value === 'object' && value !== null && 'value' in value && typeof value.value === 'string';
}

/** The first text of a region under a key starting with `desc`, in the order the answer gives its keys. */
function misspeltDescription(wire: WireRegion): string | undefined {
  const fields: [string, unknown][] = Object.entries(wire);
  for (const [key, text] of fields) if (/^desc/i.test(key) && typeof text === 'string') return text;
  return undefined;
}

/**
 * The members of a targeting set as answered, every field kept: the ids and compared fields
 * the schema checks, and the display names and fields it leaves open, as the JSON they are.
 */
function setOfMembers(members: readonly object[] | null | undefined): TargetingMember[] {
  return (members ?? []).map((member) => {
    const fields: [string, unknown][] = Object.entries(member);
    return Object.fromEntries(fields.filter((field): field is [string, JsonValue] => isJsonValue(field[1])));
  });
}

/** True for what JSON.parse gives, which every answer is: it narrows a field the schema leaves open. */
function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return true;
  if (Array.isArray(value)) return value.every(isJsonValue);
  return typeof value === 'object' && Object.values(value).every(isJsonValue);
}
