import {
  canonicalizeDefinition,
  CODE_SET_FIELDS,
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
 * Compares only what the user declared. Sets compare without order, regions by code,
 * targeting members on the fields the user declared; whatever matches keeps its live form,
 * so server-side names and server-added fields never show up as a change.
 */
export function diffDefinition(declared: DesiredAudience['declared'], live: AudienceDefinition): DefinitionDiff {
  const fields: FieldChange[] = [];
  const after: Record<string, JsonValue> = { ...(live as unknown as Record<string, JsonValue>) };
  for (const field of DEFINITION_FIELDS) {
    const want = declared[field];
    if (want === undefined) continue;
    const outcome = diffField(field, want as JsonValue, live[field] as unknown as JsonValue);
    after[field] = outcome.after;
    if (outcome.change) fields.push(outcome.change);
  }
  return { fields, after: canonicalizeDefinition(after as unknown as AudienceDefinition) };
}

function diffField(field: DefinitionField, want: JsonValue, have: JsonValue): FieldOutcome {
  if ((REGION_FIELDS as readonly string[]).includes(field)) return diffRegions(field, want as unknown as Region[], have as unknown as Region[]);
  if ((TARGETING_FIELDS as readonly string[]).includes(field)) return diffMembers(field, want as TargetingMember[], have as TargetingMember[]);
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

function diffMembers(field: string, want: TargetingMember[], have: TargetingMember[]): FieldOutcome {
  const unmatched = [...have];
  const kept: TargetingMember[] = [];
  const added: TargetingMember[] = [];
  for (const member of want) {
    const index = unmatched.findIndex((candidate) => memberMatches(member, candidate));
    const [match] = index >= 0 ? unmatched.splice(index, 1) : [];
    if (match) kept.push(match);
    else added.push(member);
  }
  const after = [...kept, ...added];
  const change = added.length + unmatched.length === 0 ? null : { field, before: have, after, added, removed: unmatched };
  return { change, after };
}
