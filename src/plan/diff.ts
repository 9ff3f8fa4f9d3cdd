import {
  canonicalizeDefinition,
  canonicalizeMembers,
  CODE_SET_FIELDS,
  CRITERIA_BY_TYPE,
  DEFINITION_FIELDS,
  jsonEqual,
  memberMatches,
  REGION_FIELDS,
  TARGETING_FIELDS,
  type AudienceDefinition,
  type DefinitionField,
  type DesiredAudience,
  type JsonValue,
  type Region,
  type TargetingField,
  type TargetingMember,
} from '../model/index.js';
import type { FieldChange } from './types.js';

export interface DefinitionDiff {
  /** The declared fields that differ, in the order plans show them. */
  fields: FieldChange[];
  /** The live definition with the declared fields applied: the full body an update sends. */
  after: AudienceDefinition;
}

type FieldOutcome = { change: FieldChange | null; after: JsonValue };

/**
 * The last diff of each declared definition, with the live one it was made against. A plan
 * diffs most audiences twice with the same two objects (as the read arrives, to know whether
 * the ad groups are needed, then in `planAccount`): the second time is an answer, not a diff.
 * A diff is never changed once made.
 */
const lastDiffs = new WeakMap<DesiredAudience['declared'], { live: AudienceDefinition; diff: DefinitionDiff }>();

/**
 * Compares only what the user declared. Sets compare without order, regions by code,
 * targeting members on the fields the user declared; whatever matches keeps its live form,
 * so server-side names and server-added fields never show up as a change.
 */
export function diffDefinition(declared: DesiredAudience['declared'], live: AudienceDefinition): DefinitionDiff {
  const last = lastDiffs.get(declared);
  if (last?.live === live) return last.diff;
  const diff = computeDiff(declared, live);
  lastDiffs.set(declared, { live, diff });
  return diff;
}

function computeDiff(declared: DesiredAudience['declared'], live: AudienceDefinition): DefinitionDiff {
  const fields: FieldChange[] = [];
  const after: Record<string, JsonValue> = { ...(live as unknown as Record<string, JsonValue>) };
  for (const field of DEFINITION_FIELDS) {
    const want = declared[field];
    if (want === undefined) continue;
    const outcome = diffField(field, want as JsonValue, live[field] as unknown as JsonValue);
    after[field] = outcome.after;
    if (outcome.change) fields.push(outcome.change);
  }
  fields.push(...clearForbiddenCriteria(declared, after));
  // Nothing differs: every declared field kept its live form, so the live definition (already
  // canonical) is the body, and most audiences of a plan skip canonicalising it again.
  if (fields.length === 0) return { fields, after: live };
  return { fields: inFieldOrder(fields), after: canonicalizeDefinition(after as unknown as AudienceDefinition) };
}

/** Every criterion of the spec's per-type table. */
const ALL_CRITERIA: readonly DefinitionField[] = [...new Set([...CRITERIA_BY_TYPE.DISPLAY, ...CRITERIA_BY_TYPE.MESSAGE])];

/**
 * When the declared type changes, the live audience may still hold criteria the new type
 * does not allow (e.g. customer files on an audience that becomes MESSAGE). The file cannot
 * declare them (the config rejects it), and an update that kept them would be refused by the
 * service (rule 8): they are cleared, and shown as removed.
 */
function clearForbiddenCriteria(declared: DesiredAudience['declared'], after: Record<string, JsonValue>): FieldChange[] {
  const allowed = CRITERIA_BY_TYPE[declared.type];
  const changes: FieldChange[] = [];
  for (const field of ALL_CRITERIA) {
    const have = after[field];
    if (allowed.includes(field) || declared[field] !== undefined || !Array.isArray(have) || have.length === 0) continue;
    changes.push({ field, before: have, after: [], added: [], removed: have });
    after[field] = [];
  }
  return changes;
}

function inFieldOrder(fields: FieldChange[]): FieldChange[] {
  const rank = (change: FieldChange): number => (DEFINITION_FIELDS as readonly string[]).indexOf(change.field);
  return [...fields].sort((a, b) => rank(a) - rank(b));
}

function diffField(field: DefinitionField, want: JsonValue, have: JsonValue): FieldOutcome {
  if ((REGION_FIELDS as readonly string[]).includes(field)) return diffRegions(field, want as unknown as Region[], have as unknown as Region[]);
  if ((TARGETING_FIELDS as readonly string[]).includes(field)) return diffMembers(field as TargetingField, want as TargetingMember[], have as TargetingMember[]);
  if ((CODE_SET_FIELDS as readonly string[]).includes(field)) return diffCodes(field, want as string[], have as string[]);
  return { change: jsonEqual(want, have) ? null : { field, before: have, after: want }, after: want };
}

function diffCodes(field: string, want: string[], have: string[]): FieldOutcome {
  const added = want.filter((code) => !have.includes(code));
  const removed = have.filter((code) => !want.includes(code));
  const change = added.length + removed.length === 0 ? null : { field, before: have, after: want, added, removed };
  return { change, after: want };
}

function diffRegions(field: string, want: Region[], have: Region[]): FieldOutcome {
  const liveByCode = new Map(have.map((region) => [region.value, region]));
  const wantCodes = new Set(want.map((region) => region.value));
  const kept = want.map((region) => liveByCode.get(region.value) ?? region);
  const added = want.filter((region) => !liveByCode.has(region.value));
  const removed = have.filter((region) => !wantCodes.has(region.value));
  const asJson = (regions: Region[]): JsonValue[] => regions as unknown as JsonValue[];
  const change =
    added.length + removed.length === 0 ? null : { field, before: asJson(have), after: asJson(kept), added: asJson(added), removed: asJson(removed) };
  return { change, after: asJson(kept) };
}

function diffMembers(field: TargetingField, want: TargetingMember[], have: TargetingMember[]): FieldOutcome {
  const matchOf = matchMembers(want, have);
  const kept = want.flatMap((_, index) => {
    const match = matchOf[index];
    return match === undefined ? [] : [have[match] as TargetingMember];
  });
  const added = want.filter((_, index) => matchOf[index] === undefined);
  const used = new Set(matchOf);
  const removed = have.filter((_, index) => !used.has(index));
  const after = canonicalizeMembers(field, [...kept, ...added]);
  const change = added.length + removed.length === 0 ? null : { field, before: have, after, added, removed };
  return { change, after };
}

/**
 * Pairs each declared member with a distinct live member it matches, as many pairs as
 * possible (augmenting paths). A first-fit pairing is not enough: a member that declares
 * fewer fields can take the live member a more specific one needs, and then the plan would
 * never converge. Returns, for each declared member, the index of its live member.
 */
function matchMembers(want: TargetingMember[], have: TargetingMember[]): Array<number | undefined> {
  const candidates = want.map((member) => have.flatMap((live, index) => (memberMatches(member, live) ? [index] : [])));
  const ownerOf = new Map<number, number>();
  const tryAssign = (declared: number, seen: Set<number>): boolean => {
    for (const live of candidates[declared] ?? []) {
      if (seen.has(live)) continue;
      seen.add(live);
      const owner = ownerOf.get(live);
      if (owner === undefined || tryAssign(owner, seen)) {
        ownerOf.set(live, declared);
        return true;
      }
    }
    return false;
  };
  for (let declared = 0; declared < want.length; declared += 1) tryAssign(declared, new Set());
  const matchOf: Array<number | undefined> = want.map(() => undefined);
  for (const [live, declared] of ownerOf) matchOf[declared] = live;
  return matchOf;
}
