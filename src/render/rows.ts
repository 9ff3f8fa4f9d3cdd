import { quoted, visible } from '../model/index.js';
import {
  reviewChange,
  type Change,
  type ChangeReview,
  type CriterionEffect,
  type Plan,
  type Risk,
  type ServiceCheckWhat,
} from '../plan/index.js';
import type { Block, Line, Mark } from './block.js';
import { DESTRUCTIVE, rendererOf } from './kinds/index.js';

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

/**
 * A section's title, and its line: the files at `ref` (or the base, unnamed) and what `text` says of them (see
 * leadLine).
 */
export interface Lead {
  title: string;
  ref?: string;
  text: string;
}

export function buildSections(plan: Plan): Section[] {
  const own = plan.changes.filter((change) => !isDrift(change));
  const drift = plan.changes.filter(isDrift);
  return [
    ...(own.length > 0 ? [{ blocks: buildBlocks(own) }] : []),
    ...(drift.length > 0 ? [{ lead: driftLead(plan, drift.length), blocks: buildBlocks(drift) }] : []),
  ];
}

function isDrift(change: Change): boolean {
  return 'drift' in change && change.drift === true;
}

/** What the drift section says: its changes are not edits under review but undo edits made elsewhere. */
function driftLead(plan: Plan, count: number): Lead {
  const these = count === 1 ? 'this change too: it undoes' : `these ${count} changes too: each undoes`;
  const ref = plan.origin?.base;
  return {
    title: 'Changed outside the tool',
    ...(ref === undefined ? {} : { ref }),
    text: `would make ${these} a change made outside the tool (in the ad manager), not one under review.`,
  };
}

/**
 * A lead as its line: `show` renders the tool's words, `showRef` the ref (in Markdown, a commit stays a link to it).
 */
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
    const block = rendererOf(change).block(change);
    const review = reviewChange(change);
    return {
      ...block,
      title: visible(block.title),
      fields: review.fields,
      marks: marksOf(review),
      lines: block.lines.map(visibleLine),
      ...(change.file === undefined ? {} : { file: visible(change.file) }),
    };
  });
}

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

/**
 * LIVE first, then the risks as one mark, then the effects grouped by kind (`broadens ages, regions`); an emptied
 * criterion is a risk.
 */
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
 * are: no copy). The seam of a performance choice: a large plan renders faster without the
 * copies (bench/NOTES.md).
 */
function visibleLine(line: Line): Line {
  const label = visible(line.label);
  const text = visible(line.text);
  return label === line.label && text === line.text ? line : { ...line, label, text };
}

/** The lead of the note on the values only the service checks, which follow it as a list. */
export const SERVICE_CHECKS_NOTE =
  'only the service can check these values (when the plan is applied), so this plan does not promise them:';

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
    return [
      visible(
        `${label}: ${values} (audience${names.length === 1 ? '' : 's'} ${shortList(names.map(quoted), SHOWN_NAMES)})`,
      ),
    ];
  });
}

function shortList(items: string[], shown: number): string {
  return items.length <= shown
    ? items.join(', ')
    : `${items.slice(0, shown).join(', ')} and ${items.length - shown} more`;
}
