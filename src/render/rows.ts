import { diffArrays } from 'diff';
import {
  compareText,
  DEFINITION_FIELDS,
  PROVINCES,
  REGION_FIELDS,
  TARGETING_FIELDS,
  TARGETING_MEMBER_KEYS,
  type AudienceDefinition,
  type JsonValue,
  type TargetingField,
  type UnmodelledFields,
} from '../model/index.js';
import { reviewChange, type AdGroupRef, type Change, type ChangeReview, type CriterionEffect, type FieldChange, type Plan, type Risk, type ServiceCheckWhat } from '../plan/index.js';
import type { Block, Line, Mark } from './block.js';
import { imageBlock } from './image-rows.js';
import { quoted, visible } from '../model/index.js';

/**
 * The blocks of a plan in sections: the change's own, then (with a base: `plan --base`) those
 * that revert a change made outside the tool, under a lead of their own. Text and Markdown show
 * the same sections in the same order.
 */
export interface Section {
  /** The lead of the section, shown above its blocks; none for the change's own. */
  lead?: Lead;
  blocks: Block[];
}

/** A section's title, and its line: the files at `ref` (or the base, unnamed) and what `text` says of them (see leadLine). */
export interface Lead {
  title: string;
  ref?: string;
  text: string;
}

export function buildSections(plan: Plan): Section[] {
  const own = plan.changes.filter((change) => !isDrift(change));
  const drift = plan.changes.filter(isDrift);
  return [...(own.length > 0 ? [{ blocks: buildBlocks(own) }] : []), ...(drift.length > 0 ? [{ lead: driftLead(plan, drift.length), blocks: buildBlocks(drift) }] : [])];
}

function isDrift(change: Change): boolean {
  return 'drift' in change && change.drift === true;
}

/** What the drift section says: its changes are not edits under review but undo edits made elsewhere. */
function driftLead(plan: Plan, count: number): Lead {
  const these = count === 1 ? 'this change too: it undoes' : `these ${count} changes too: each undoes`;
  const ref = plan.origin?.base;
  return { title: 'Changed outside the tool', ...(ref === undefined ? {} : { ref }), text: `would make ${these} a change made outside the tool (in the ad manager), not one under review.` };
}

/** A lead as its line: `show` renders the tool's words, `showRef` the ref (in Markdown, a commit stays a link to it). */
export function leadLine(lead: Lead, show: (text: string) => string, showRef: (ref: string) => string): string {
  return `${show('The files at')} ${lead.ref === undefined ? show('the base') : showRef(lead.ref)} ${show(lead.text)}`;
}

/**
 * Every change as a block, each value in it made visible (see visible.ts): names and values come
 * from the file and the account. Deletes, unlinks and removes come first, each group in the
 * plan's order (which keeps an audience's unlinks before its delete): what a reviewer must see.
 */
function buildBlocks(changes: Change[]): Block[] {
  const destructive = changes.filter((change) => DESTRUCTIVE.has(change.action));
  return [...destructive, ...changes.filter((change) => !DESTRUCTIVE.has(change.action))].map((change) => {
    const block = blockOf(change);
    const review = reviewChange(change);
    return { ...block, title: visible(block.title), fields: review.fields, marks: marksOf(review), lines: block.lines.map(visibleLine) };
  });
}

/** What makes a change destructive for a reviewer: it deletes, unlinks or removes something. */
export const DESTRUCTIVE: ReadonlySet<Change['action']> = new Set(['delete', 'unlink', 'remove']);

const RISKS: { [R in Risk['risk']]: (risk: Extract<Risk, { risk: R }>) => string } = {
  'type-change': () => 'type change',
  emptied: (risk) => `empties ${risk.criterion}`,
  'narrows-in-use': () => 'narrows an audience in use',
  'deletes-in-use': () => 'deletes an audience in use',
};

const EFFECTS: ReadonlyArray<[CriterionEffect['effect'], string]> = [
  ['narrows', 'narrows'],
  ['narrows-and-broadens', 'narrows and broadens'],
  ['broadens', 'broadens'],
];

/** LIVE first, then the risks as one mark, then the effects grouped by kind (`broadens ages, regions`); an emptied criterion is a risk. */
function marksOf(review: ChangeReview): Mark[] {
  const risks = review.risks.map((entry) => (RISKS[entry.risk] as (risk: Risk) => string)(entry));
  return [
    ...(review.live ? [{ kind: 'live' as const, text: 'LIVE' }] : []),
    ...(risks.length === 0 ? [] : [{ kind: 'risk' as const, text: risks.join(', ') }]),
    ...EFFECTS.flatMap(([effect, verb]) => {
      const criteria = review.effects.filter((entry) => entry.effect === effect).map((entry) => entry.criterion);
      return criteria.length === 0 ? [] : [{ kind: 'effect' as const, text: `${verb} ${criteria.join(', ')}` }];
    }),
  ];
}

/**
 * The line with its label and text made visible; the line itself when they already are (most
 * are: no copy). The seam of a performance choice: a plan of 1000 creates renders in 18 ms
 * instead of 23 (medians of 12 cold runs).
 */
function visibleLine(line: Line): Line {
  const label = visible(line.label);
  const text = visible(line.text);
  return label === line.label && text === line.text ? line : { ...line, label, text };
}

/** The lead of the note on the values only the service checks, which follow it as a list. */
export const SERVICE_CHECKS_NOTE = 'only the service can check these values (when the plan is applied), so this plan does not promise them:';

const CHECKED: ReadonlyArray<[ServiceCheckWhat, string]> = [
  ['districtCode', 'district codes'],
  ['townCode', 'town codes'],
  ['interestCode', 'interest codes'],
  ['businessTypeCode', 'business-type codes'],
  ['memberId', 'member ids'],
  ['eventCode', 'event codes'],
];

/** The most values, and audiences, a line of the note names: it says how many more, and the JSON holds them all. */
const SHOWN_VALUES = 10;
const SHOWN_NAMES = 3;

/** A line per kind of value only the service checks: `district codes: I99 (audience "x")`, made visible. */
export function serviceCheckItems(plan: Plan): string[] {
  const checks = plan.serviceChecks ?? [];
  return CHECKED.flatMap(([what, label]) => {
    const of = checks.filter((check) => check.what === what);
    if (of.length === 0) return [];
    const values = shortList([...new Set(of.flatMap((check) => check.values))], SHOWN_VALUES);
    const names = [...new Set(of.map((check) => check.name))];
    return [visible(`${label}: ${values} (audience${names.length === 1 ? '' : 's'} ${shortList(names.map(quoted), SHOWN_NAMES)})`)];
  });
}

function shortList(items: string[], shown: number): string {
  return items.length <= shown ? items.join(', ') : `${items.slice(0, shown).join(', ')} and ${items.length - shown} more`;
}

function blockOf(change: Change): Omit<Block, 'fields' | 'marks'> {
  switch (change.action) {
    case 'create':
      return { symbol: '+', title: `create audience ${quoted(change.name)}`, lines: definitionLines(change.after) };
    case 'update':
      return {
        symbol: '~',
        title: `update audience ${quoted(change.name)} (id ${change.id})`,
        lines: [...change.display.fields.flatMap(fieldLines), ...keptLines(change.kept), ...impactLines(change.display.impact)],
      };
    case 'delete': {
      // The whole definition goes, each field shown removed: what a reviewer sees destroyed,
      // and what restores it. The unlinks are their own blocks just above: repeating them as
      // "used by" would read as if the audience were deleted from under live ad groups.
      const ids = change.display.impact.map((ref) => ref.adGroupId);
      const removed = [...definitionLines(change.before), ...unmodelledLines(change.kept)].map((line) => ({ ...line, removed: true as const }));
      const unlinked: Line[] = ids.length === 0 ? [] : [{ kind: 'field', label: 'after unlinking', text: `ad group${ids.length === 1 ? '' : 's'} ${ids.join(', ')}` }];
      return { symbol: '-', title: `delete audience ${quoted(change.name)} (id ${change.id})`, lines: [...removed, ...unlinked] };
    }
    case 'generate':
    case 'move':
    case 'remove':
      return imageBlock(change);
    case 'unlink':
      return {
        symbol: '-',
        title: `unlink ad group ${change.adGroupId} from audience ${quoted(change.name)} (id ${change.id})`,
        lines: [
          { kind: 'field', label: 'ad group', text: adGroupDetail(change.before) },
          { kind: 'field', label: 'reason', text: change.display.reason === 'audience-deleted' ? 'the audience is deleted' : 'not in the declared adGroups' },
        ],
      };
  }
}

function fieldLines(change: FieldChange): Line[] {
  const label = change.field;
  if (!change.added && !change.removed) {
    return [{ kind: 'field', label, text: `${formatValue(change.field, change.before)} → ${formatValue(change.field, change.after)}` }];
  }
  const before = (change.before as JsonValue[]).map((member) => formatMember(change.field, member));
  const after = (change.after as JsonValue[]).map((member) => formatMember(change.field, member));
  // Sets are shown as their members in canonical order, each added or removed, with short
  // runs of kept members as context and long runs folded into a count.
  return diffArrays(before, after).flatMap((part): Line[] => {
    if (part.added || part.removed) return part.value.map((text) => ({ kind: part.added ? 'added' : 'removed', label, text }));
    if (part.value.length <= MAX_KEPT_RUN) return part.value.map((text) => ({ kind: 'kept', label, text }));
    return [{ kind: 'kept', label, text: `… ${part.value.length} unchanged` }];
  });
}

const MAX_KEPT_RUN = 3;

/** A whole definition, a line per field that is not an empty set (the name is in the title). */
function definitionLines(definition: AudienceDefinition): Array<Line & { kind: 'field' }> {
  return DEFINITION_FIELDS.filter((field) => field !== 'name' && !isEmpty(definition[field] as JsonValue)).map((field) => ({
    kind: 'field' as const,
    label: field,
    text: formatValue(field, definition[field] as JsonValue),
  }));
}

/** What the file cannot hold, which the update sends back as read: named, so a reviewer knows it stays. */
function keptLines(kept: UnmodelledFields): Line[] {
  const names = Object.keys(kept).sort(compareText);
  return names.length === 0 ? [] : [{ kind: 'field', label: 'kept as the service has it', text: names.join(', ') }];
}

/** What the file cannot hold, each field with its value as the service answered it. */
function unmodelledLines(kept: UnmodelledFields): Array<Line & { kind: 'field' }> {
  return Object.keys(kept)
    .sort(compareText)
    .map((name) => ({ kind: 'field' as const, label: name, text: kept[name] ?? '' }));
}

function impactLines(impact: AdGroupRef[]): Line[] {
  return impact.map((ref) => ({ kind: 'field', label: 'used by', text: adGroupText(ref) }));
}

function adGroupText(ref: AdGroupRef): string {
  return `ad group ${ref.adGroupId} ${adGroupDetail(ref)}`;
}

/** An ad group's name, status and campaign (its id is in the title when this stands alone). */
function adGroupDetail(ref: AdGroupRef): string {
  const status = ref.adGroupStatus.length > 0 ? ` [${ref.adGroupStatus.join(', ')}]` : '';
  return `${quoted(ref.adGroupName)}${status} in campaign ${ref.campaignId} ${quoted(ref.campaignName)}`;
}

function isEmpty(value: JsonValue): boolean {
  return Array.isArray(value) && value.length === 0;
}

export function formatValue(field: string, value: JsonValue): string {
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map((member) => formatMember(field, member)).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A region as `I (Seoul)`, a targeting member as its identifying fields first, a code as itself. */
export function formatMember(field: string, member: JsonValue): string {
  if (member === null || typeof member !== 'object' || Array.isArray(member)) return String(member);
  if ((REGION_FIELDS as readonly string[]).includes(field)) {
    const code = String(member.value);
    // A province written as its bare code still reads as a place; deeper codes have no table here.
    const name = typeof member.description === 'string' ? member.description : field === 'locations' ? PROVINCES[code] : undefined;
    return name === undefined ? code : `${code} (${name})`;
  }
  const keys = (TARGETING_FIELDS as readonly string[]).includes(field) ? TARGETING_MEMBER_KEYS[field as TargetingField] : [];
  const names = Object.keys(member).filter((key) => key.endsWith('Name'));
  const ordered = [
    ...keys.filter((key) => key in member),
    ...Object.keys(member)
      .filter((key) => !keys.includes(key) && !names.includes(key))
      .sort(),
  ];
  const label = names.map((key) => ` "${String(member[key])}"`).join('');
  return `${ordered.map((key) => `${key}=${typeof member[key] === 'string' ? member[key] : JSON.stringify(member[key])}`).join(' ')}${label}`;
}
