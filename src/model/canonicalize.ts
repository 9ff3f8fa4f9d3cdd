import {
  AGE_BANDS,
  REGION_FIELDS,
  RETENTION_FIELDS,
  TARGETING_FIELDS,
  TARGETING_DECLARED_FIELDS,
  TARGETING_MEMBER_KEYS,
  type AgeBand,
  type AudienceDefinition,
  type LocationType,
  type Region,
  type TargetingField,
  type TargetingMember,
} from './audience.js';
import { stableStringify, type JsonValue } from './json.js';

/**
 * The one shape both sides reduce to before they are compared: sets sorted and without
 * duplicates (the service stores sets), regions ordered and deduplicated by code, members
 * ordered by their identifying fields and deduplicated as text. Canonicalising twice changes
 * nothing; the values keep the types they were written in (what is sent is what was written).
 */
export function canonicalizeDefinition<T extends Partial<AudienceDefinition>>(definition: T): T {
  const out: Partial<AudienceDefinition> = { ...definition };
  if (out.ages) out.ages = uniqueSorted(out.ages, ageRank);
  if (out.genders) out.genders = uniqueSorted(out.genders, itself);
  if (out.ufoInterests) out.ufoInterests = uniqueSorted(out.ufoInterests, itself);
  if (out.ufoBusinessTypes) out.ufoBusinessTypes = uniqueSorted(out.ufoBusinessTypes, itself);
  for (const field of REGION_FIELDS) {
    const regions = out[field];
    if (regions) out[field] = canonicalizeRegions(regions);
  }
  for (const field of TARGETING_FIELDS) {
    const members = out[field];
    if (members) out[field] = canonicalizeMembers(field, members);
  }
  return out as T;
}

/**
 * canonicalizeDefinition of a definition just made, whose object and sets nothing else holds (a live audience built
 * from an answer): put in order where it is, a set of none or one value left as it is rather than copied. Equal to
 * canonicalizeDefinition's, keys in the same order; one object and a dozen sets fewer for each audience read.
 */
export function canonicalizeOwnDefinition(definition: AudienceDefinition): AudienceDefinition {
  if (definition.ages.length > 1) definition.ages = uniqueSorted(definition.ages, ageRank);
  if (definition.genders.length > 1) definition.genders = uniqueSorted(definition.genders, itself);
  if (definition.ufoInterests.length > 1) definition.ufoInterests = uniqueSorted(definition.ufoInterests, itself);
  if (definition.ufoBusinessTypes.length > 1)
    definition.ufoBusinessTypes = uniqueSorted(definition.ufoBusinessTypes, itself);
  for (const field of REGION_FIELDS) {
    if (definition[field].length > 1) definition[field] = canonicalizeRegions(definition[field]);
  }
  for (const field of TARGETING_FIELDS) {
    if (definition[field].length > 0) definition[field] = canonicalizeMembers(field, definition[field]);
  }
  return definition;
}

const ageRank = (band: AgeBand): number => AGE_BANDS.indexOf(band);
const itself = <T extends string>(value: T): T => value;

export function canonicalizeRegions(regions: Region[]): Region[] {
  if (regions.length < 2) return [...regions];
  if (regions.length <= INSERTED_UP_TO) return insertedInOrder(regions, regionCode, holdsRegion);
  const byCode = new Map<string, Region>();
  for (const region of regions) if (!byCode.has(region.value)) byCode.set(region.value, region);
  return [...byCode.values()].sort((a, b) => compareText(a.value, b.value));
}

const regionCode = (region: Region): string => region.value;
/** Whether `kept` holds a region of the code of `region`. */
function holdsRegion(kept: readonly Region[], region: Region): boolean {
  for (const other of kept) if (other.value === region.value) return true;
  return false;
}

export function canonicalizeMembers(field: TargetingField, members: TargetingMember[]): TargetingMember[] {
  if (members.length === 0) return [];
  // One member: its keys in order, and nothing to deduplicate or sort.
  if (members.length === 1) return [canonicalMember(members[0] as TargetingMember)];
  const keys = TARGETING_MEMBER_KEYS[field];
  const unique = new Map<string, TargetingMember>();
  for (const member of members) {
    const sorted = canonicalMember(member);
    unique.set(memberText(sorted), sorted);
  }
  const sortKey = (member: TargetingMember): string =>
    JSON.stringify(keys.map((key) => fieldText(member[key]) ?? '')) + memberText(member);
  return [...unique.values()].sort((a, b) => compareText(sortKey(a), sortKey(b)));
}

/**
 * A desired member is a live one when their identifying fields are equal as text (ids are
 * opaque: 5001 and "5001" are one id), and so is every other field the file declares that the
 * answer shows: the spec does not show the members' fields, and one the service leaves out of
 * its answers cannot be compared. What the service adds (display names, a member's own id, a
 * tracker's rule) is never compared: only the file's fields are. A tracker's retention differs
 * when the answer holds it in the other of its two fields (RETENTION_FIELDS).
 */
export function memberMatches(field: TargetingField, desired: TargetingMember, live: TargetingMember): boolean {
  const keys = TARGETING_MEMBER_KEYS[field];
  if (
    field === 'trackerTargetings' &&
    retentionField(desired) !== retentionField(live) &&
    retentionField(live) !== undefined
  )
    return false;
  return TARGETING_DECLARED_FIELDS[field].every((name) => {
    const want = fieldText(desired[name]);
    if (want === undefined) return true;
    const have = fieldText(live[name]);
    return have === undefined ? !keys.includes(name) : want === have;
  });
}

/** The field a tracker member holds its retention in (the first, should it hold both), or undefined. */
function retentionField(member: TargetingMember): string | undefined {
  return RETENTION_FIELDS.find((name) => fieldText(member[name]) !== undefined);
}

/** A member's field as text, the form it compares in; undefined when absent or null. */
function fieldText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'object' ? stableStringify(value) : String(value);
}

/** A member as text, each field compared as text: two spellings of one member are one. */
function memberText(member: TargetingMember): string {
  return stableStringify(
    Object.fromEntries(Object.entries(member).map(([key, value]) => [key, fieldText(value) ?? null])),
  );
}

/** The service does not return locationType: a live audience with any region is AREA. */
export function inferLocationType(
  definition: Pick<AudienceDefinition, 'locations' | 'depth2Locations' | 'depth3Locations'>,
): LocationType {
  return REGION_FIELDS.some((field) => definition[field].length > 0) ? 'AREA' : 'ALL';
}

export function uniqueSorted<T>(values: T[], rank: (value: T) => number | string): T[] {
  // Most sets hold none or one value: nothing to sort (the common case, a thousand times per file).
  if (values.length < 2) return [...values];
  if (values.length <= INSERTED_UP_TO) return insertedInOrder(values, rank, holdsValue);
  return [...new Set(values)].sort((a, b) => compareRanks(rank(a), rank(b)));
}

function compareRanks(left: number | string, right: number | string): number {
  return typeof left === 'number' && typeof right === 'number'
    ? left - right
    : compareText(String(left), String(right));
}

/**
 * Up to this many values, a set is put in order by insertion: the sets of an audience hold a few values, and a Set and
 * a sort allocate more than the values themselves, for each set of thousands of audiences.
 */
const INSERTED_UP_TO = 16;

/** Whether `kept` holds `value`, as a Set would (SameValueZero). */
const holdsValue = <T>(kept: readonly T[], value: T): boolean => kept.includes(value);

/**
 * The values without repeats (`holds`: whether those kept hold one like it; the first one is kept), in the order of
 * their ranks, equal ranks in the order they came: what a Set of them sorted by rank gives (a sort is stable).
 */
function insertedInOrder<T>(
  values: readonly T[],
  rank: (value: T) => number | string,
  holds: (kept: readonly T[], value: T) => boolean,
): T[] {
  const out: T[] = [];
  for (const value of values) {
    if (holds(out, value)) continue;
    const own = rank(value);
    let at = out.length;
    out.push(value);
    for (; at > 0 && compareRanks(rank(out[at - 1] as T), own) > 0; at -= 1) out[at] = out[at - 1] as T;
    out[at] = value;
  }
  return out;
}

/**
 * A copy of the member with its keys in order (a spread when they already are: most members),
 * and any list of texts in it as a set, sorted without repeats (a tracker's terms).
 */
function canonicalMember(member: TargetingMember): TargetingMember {
  const keys = Object.keys(member);
  const ordered = keys.every((key, index) => index === 0 || (keys[index - 1] as string) < key)
    ? { ...member }
    : Object.fromEntries(keys.sort().map((key) => [key, member[key] as JsonValue]));
  for (const key of keys) {
    const value = ordered[key];
    if (Array.isArray(value) && value.length > 1 && value.every((item) => typeof item === 'string'))
      ordered[key] = uniqueSorted(value as string[], itself);
  }
  return ordered;
}

/** Locale-independent ordering, so plans read the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
