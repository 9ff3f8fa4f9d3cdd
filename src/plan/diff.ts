import {
  CODE_SET_FIELDS,
  DEFINITION_FIELDS,
  jsonEqual,
  memberMatches,
  REGION_FIELDS,
  TARGETING_FIELDS,
  type AudienceDefinition,
  type DefinitionField,
  type JsonValue,
  type Region,
  type TargetingField,
  type TargetingMember,
} from '../model/index.js';
import type { FieldChange } from './types.js';

/**
 * The seam of one performance choice: the last diff of each desired definition, with the live
 * one it was made against. A plan diffs an audience several times with the same two objects
 * (as its read arrives, to know whether its ad groups are needed, when the read contract is
 * checked, then when it is planned): after the first, it is an answer, not a diff, and the
 * plan's time after the last answer halves (bench/NOTES.md). A diff is never changed once made.
 */
const lastDiffs = new WeakMap<AudienceDefinition, { live: AudienceDefinition; fields: FieldChange[] }>();

/**
 * The fields of a whole desired definition that the live one does not have, in the order
 * plans show them: every field counts, a set the file left out is empty. Sets compare without
 * order, regions by code, targeting members on the fields the file declares (as text); the
 * names the service adds never cause a change. A set's change lists each member added and
 * removed, and shows the members both sides have in their live form, with the service's names.
 */
export function diffDefinition(desired: AudienceDefinition, live: AudienceDefinition): FieldChange[] {
  const last = lastDiffs.get(desired);
  if (last?.live === live) return last.fields;
  const fields: FieldChange[] = [];
  for (const field of DEFINITION_FIELDS) {
    const change = diffField(field, desired[field] as JsonValue, live[field] as JsonValue);
    if (change) fields.push(change);
  }
  lastDiffs.set(desired, { live, fields });
  return fields;
}

/** How each field of a definition compares: a set of codes, of regions, of targeting members, or a value. */
const FIELD_KINDS: ReadonlyMap<DefinitionField, 'codes' | 'regions' | 'members' | 'value'> = new Map([
  ...DEFINITION_FIELDS.map((field) => [field, 'value'] as const),
  ...CODE_SET_FIELDS.map((field) => [field, 'codes'] as const),
  ...REGION_FIELDS.map((field) => [field, 'regions'] as const),
  ...TARGETING_FIELDS.map((field) => [field, 'members'] as const),
]);

function diffField(field: DefinitionField, want: JsonValue, have: JsonValue): FieldChange | null {
  // Most fields are the same text on both sides or two empty sets: no change, nothing to build.
  if (want === have || (isEmptyList(want) && isEmptyList(have))) return null;
  switch (FIELD_KINDS.get(field)) {
    case 'regions':
      return diffRegions(field, want as unknown as Region[], have as unknown as Region[]);
    case 'members':
      return diffMembers(field as TargetingField, want as TargetingMember[], have as TargetingMember[]);
    case 'codes':
      return diffCodes(field, want as string[], have as string[]);
    default:
      return jsonEqual(want, have) ? null : { field, before: have, after: want };
  }
}

function isEmptyList(value: JsonValue): boolean {
  return Array.isArray(value) && value.length === 0;
}

/**
 * Whether two sets hold the same values in the same order, `same` comparing two of them: then neither adds or removes
 * any (both sides are in canonical order, so equal sets mostly are). Sets that are not are compared as sets.
 */
function pairwiseEqual<T>(want: readonly T[], have: readonly T[], same: (a: T, b: T) => boolean): boolean {
  if (want.length !== have.length) return false;
  for (let index = 0; index < want.length; index += 1) if (!same(want[index] as T, have[index] as T)) return false;
  return true;
}

function diffCodes(field: string, want: string[], have: string[]): FieldChange | null {
  if (pairwiseEqual(want, have, (a, b) => a === b)) return null;
  const added = want.filter((code) => !have.includes(code));
  const removed = have.filter((code) => !want.includes(code));
  return added.length + removed.length === 0 ? null : { field, before: have, after: want, added, removed };
}

function diffRegions(field: string, want: Region[], have: Region[]): FieldChange | null {
  if (pairwiseEqual(want, have, (a, b) => a.value === b.value)) return null;
  const liveByCode = new Map(have.map((region) => [region.value, region]));
  const wantCodes = new Set(want.map((region) => region.value));
  const added = want.filter((region) => !liveByCode.has(region.value));
  const removed = have.filter((region) => !wantCodes.has(region.value));
  if (added.length + removed.length === 0) return null;
  const shown = want.map((region) => liveByCode.get(region.value) ?? region);
  const asJson = (regions: Region[]): JsonValue[] => regions as unknown as JsonValue[];
  return { field, before: asJson(have), after: asJson(shown), added: asJson(added), removed: asJson(removed) };
}

function diffMembers(field: TargetingField, want: TargetingMember[], have: TargetingMember[]): FieldChange | null {
  // Each member matching the one in its place is a pairing of them all: nothing added or removed.
  if (pairwiseEqual(want, have, (a, b) => memberMatches(field, a, b))) return null;
  const matchOf = matchMembers(field, want, have);
  const added = want.filter((_, index) => matchOf[index] === undefined);
  const used = new Set(matchOf);
  const removed = have.filter((_, index) => !used.has(index));
  if (added.length + removed.length === 0) return null;
  const shown = want.map((member, index) => {
    const match = matchOf[index];
    return match === undefined ? member : (have[match] as TargetingMember);
  });
  return { field, before: have, after: shown, added, removed };
}

/**
 * Pairs each desired member with a distinct live member it matches, as many pairs as
 * possible (augmenting paths): a live member that leaves a field out of its answer can match
 * more than one desired member, and a first-fit pairing could give it to the wrong one and
 * never converge. Returns, for each desired member, the index of its live member.
 */
function matchMembers(
  field: TargetingField,
  want: TargetingMember[],
  have: TargetingMember[],
): Array<number | undefined> {
  const candidates = want.map((member) =>
    have.flatMap((live, index) => (memberMatches(field, member, live) ? [index] : [])),
  );
  const ownerOf = new Map<number, number>();
  const tryAssign = (desired: number, seen: Set<number>): boolean => {
    for (const live of candidates[desired] ?? []) {
      if (seen.has(live)) continue;
      seen.add(live);
      const owner = ownerOf.get(live);
      if (owner === undefined || tryAssign(owner, seen)) {
        ownerOf.set(live, desired);
        return true;
      }
    }
    return false;
  };
  for (let desired = 0; desired < want.length; desired += 1) tryAssign(desired, new Set());
  const matchOf: Array<number | undefined> = want.map(() => undefined);
  for (const [live, desired] of ownerOf) matchOf[desired] = live;
  return matchOf;
}
