import {
  DEFINITION_FIELDS,
  REGION_FIELDS,
  TARGETING_FIELDS,
  type DefinitionField,
  type JsonValue,
  type TargetingField,
} from '../model/index.js';
import type { AdGroupRef, AudienceCreate, AudienceDelete, AudienceUpdate } from './types.js';

/**
 * What a reviewer must see of a change at a glance, derived from the change alone (so a saved
 * plan shows the same): the fields it writes, whether its audience serves a LIVE ad group, what
 * an update does to each criterion, and the edits that deserve a second look.
 */
export interface ChangeReview {
  /**
   * The fields an update (or an image's new request) changes, or the sets a create fills, in the order plans show them.
   */
  fields: string[];
  /** An update's audience after its unlinks, a delete's before them, an unlink's ad group: one of them is LIVE. */
  live: boolean;
  effects: CriterionEffect[];
  risks: Risk[];
}

/**
 * A criterion of an audience: a set whose members widen who it reaches (an EXCLUDE member
 * narrows it), and which limits nothing when empty. The three region lists are one criterion:
 * provinces replaced by one district narrow the regions, they do not empty them.
 */
export type Criterion = 'ages' | 'genders' | 'regions' | 'ufoInterests' | 'ufoBusinessTypes' | TargetingField;

/**
 * `narrows`: a member goes, an EXCLUDE member comes, or a criterion that limited nothing gets members. `broadens`: the
 * reverse.
 */
export interface CriterionEffect {
  criterion: Criterion;
  effect: 'narrows' | 'broadens' | 'narrows-and-broadens' | 'empties';
}

/** An audience in use is one an ad group uses (after the plan's unlinks, for an update). */
export type Risk =
  | { risk: 'type-change' }
  | { risk: 'emptied'; criterion: Criterion }
  | { risk: 'narrows-in-use' }
  | { risk: 'deletes-in-use' };

const CRITERIA: ReadonlyArray<{ criterion: Criterion; fields: readonly DefinitionField[] }> = [
  { criterion: 'ages', fields: ['ages'] },
  { criterion: 'genders', fields: ['genders'] },
  { criterion: 'regions', fields: REGION_FIELDS },
  { criterion: 'ufoInterests', fields: ['ufoInterests'] },
  { criterion: 'ufoBusinessTypes', fields: ['ufoBusinessTypes'] },
  ...TARGETING_FIELDS.map((field) => ({ criterion: field, fields: [field] })),
];

/** The status of an ad group that is serving ads. */
const LIVE = 'LIVE';

/** What a change of no concern shows: no fields, nothing live, no effect or risk (an image's move or removal). */
export const NOTHING_TO_REVIEW: ChangeReview = { fields: [], live: false, effects: [], risks: [] };

/** An audience's change, reviewed: an update's fields, effects and risks; a delete in use; a create's filled sets. */
export function reviewAudienceChange(change: AudienceCreate | AudienceUpdate | AudienceDelete): ChangeReview {
  switch (change.action) {
    case 'update': {
      const effects = criterionEffects(change);
      const inUse = change.display.impact.length > 0;
      const risks: Risk[] = [
        ...(change.display.fields.some((field) => field.field === 'type') ? [{ risk: 'type-change' as const }] : []),
        ...effects
          .filter((entry) => entry.effect === 'empties')
          .map((entry) => ({ risk: 'emptied' as const, criterion: entry.criterion })),
        ...(inUse && effects.some((entry) => entry.effect.startsWith('narrows'))
          ? [{ risk: 'narrows-in-use' as const }]
          : []),
      ];
      return {
        fields: change.display.fields.map((field) => field.field),
        live: anyLive(change.display.impact),
        effects,
        risks,
      };
    }
    case 'delete':
      return {
        fields: [],
        live: anyLive(change.display.impact),
        effects: [],
        risks: change.display.impact.length > 0 ? [{ risk: 'deletes-in-use' }] : [],
      };
    case 'create':
      return {
        fields: DEFINITION_FIELDS.filter((field) => isFilledSet(change.after[field] as JsonValue)),
        live: false,
        effects: [],
        risks: [],
      };
  }
}

function isFilledSet(value: JsonValue): boolean {
  return Array.isArray(value) && value.length > 0;
}

/** Whether one of the ad groups is serving ads. */
export function anyLive(refs: AdGroupRef[]): boolean {
  return refs.some((ref) => ref.adGroupStatus.includes(LIVE));
}

function criterionEffects(change: AudienceUpdate): CriterionEffect[] {
  return CRITERIA.flatMap(({ criterion, fields }): CriterionEffect[] => {
    const changed = change.display.fields.filter((field) => (fields as readonly string[]).includes(field.field));
    if (changed.length === 0) return [];
    const members = (side: 'before' | 'after'): JsonValue[] =>
      fields.flatMap((field) => change[side][field] as JsonValue[]);
    const before = members('before');
    if (before.length > 0 && members('after').length === 0) return [{ criterion, effect: 'empties' }];
    const after = members('after');
    const added = changed.flatMap((field) => field.added ?? []);
    const removed = changed.flatMap((field) => field.removed ?? []);
    // A member within one the other side holds (a district of a province) neither narrows nor broadens by itself.
    const within = (member: JsonValue, side: JsonValue[]): boolean =>
      criterion === 'regions' && side.some((outer) => inProvince(member, outer));
    const limitedBefore = before.some((member) => !excludes(member));
    const narrows =
      removed.some((member) => !excludes(member) && !within(member, after)) ||
      added.some(excludes) ||
      (!limitedBefore && added.length > 0);
    const broadens =
      (limitedBefore && added.some((member) => !excludes(member) && !within(member, before))) || removed.some(excludes);
    if (narrows && broadens) return [{ criterion, effect: 'narrows-and-broadens' }];
    if (narrows) return [{ criterion, effect: 'narrows' }];
    return broadens ? [{ criterion, effect: 'broadens' }] : [];
  });
}

/** A district or town of the province `outer` is: the spec's codes of both start with its letter. */
function inProvince(member: JsonValue, outer: JsonValue): boolean {
  const code = regionCode(member);
  const province = regionCode(outer);
  return province.length === 1 && code.length > 1 && code.startsWith(province);
}

function regionCode(region: JsonValue): string {
  return typeof region === 'object' && region !== null && !Array.isArray(region) && typeof region['value'] === 'string'
    ? region['value']
    : '';
}

function excludes(member: JsonValue): boolean {
  return (
    typeof member === 'object' && member !== null && !Array.isArray(member) && member['inclusionType'] === 'EXCLUDE'
  );
}
