import { diffArrays } from 'diff';
import {
  compareText,
  DEFINITION_FIELDS,
  PROVINCES,
  quoted,
  REGION_FIELDS,
  TARGETING_FIELDS,
  TARGETING_MEMBER_KEYS,
  type AudienceDefinition,
  type JsonValue,
  type TargetingField,
  type UnmodelledFields,
} from '../../model/index.js';
import type { AdGroupRef, FieldChange } from '../../plan/index.js';
import type { Line } from '../block.js';
import type { KindRenderer } from '../kind.js';
import { adGroupText } from './ad-group-link.js';

/** Audiences: a create shows the whole definition, an update each field that changes, a delete each field removed. */
export const audienceRenderer: KindRenderer<'audience'> = {
  actions: {
    create: { summary: 'to create', always: true },
    update: { summary: 'to update', always: true },
    delete: { summary: 'to delete', always: true, destroys: 'deletes' },
  },
  noun: 'audience',
  block: (change) => {
    switch (change.action) {
      case 'create':
        return { symbol: '+', title: `create audience ${quoted(change.name)}`, lines: definitionLines(change.after) };
      case 'update':
        return {
          symbol: '~',
          title: `update audience ${quoted(change.name)} (id ${change.id})`,
          lines: [
            ...change.display.fields.flatMap(fieldLines),
            ...keptLines(change.kept),
            ...impactLines(change.display.impact),
          ],
        };
      case 'delete': {
        // The whole definition goes, each field shown removed: what a reviewer sees destroyed,
        // and what restores it. The unlinks are their own blocks just above: repeating them as
        // "used by" would read as if the audience were deleted from under live ad groups.
        const ids = change.display.impact.map((ref) => ref.adGroupId);
        const removed = [...definitionLines(change.before), ...unmodelledLines(change.kept)].map((line) => ({
          ...line,
          removed: true as const,
        }));
        const unlinked: Line[] =
          ids.length === 0
            ? []
            : [
                {
                  kind: 'field',
                  label: 'after unlinking',
                  text: `ad group${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`,
                },
              ];
        return {
          symbol: '-',
          title: `delete audience ${quoted(change.name)} (id ${change.id})`,
          lines: [...removed, ...unlinked],
        };
      }
    }
  },
  describe: (result, name) => `${result.action} audience ${name}${result.id === null ? '' : ` (id ${result.id})`}`,
};

function fieldLines(change: FieldChange): Line[] {
  const label = change.field;
  if (!change.added && !change.removed) {
    return [
      {
        kind: 'field',
        label,
        text: `${formatValue(change.field, change.before)} → ${formatValue(change.field, change.after)}`,
      },
    ];
  }
  const before = (change.before as JsonValue[]).map((member) => formatMember(change.field, member));
  const after = (change.after as JsonValue[]).map((member) => formatMember(change.field, member));
  // Sets are shown as their members in canonical order, each added or removed, with short
  // runs of kept members as context and long runs folded into a count.
  return diffArrays(before, after).flatMap((part): Line[] => {
    if (part.added || part.removed)
      return part.value.map((text) => ({ kind: part.added ? 'added' : 'removed', label, text }));
    if (part.value.length <= MAX_KEPT_RUN) return part.value.map((text) => ({ kind: 'kept', label, text }));
    return [{ kind: 'kept', label, text: `… ${part.value.length} unchanged` }];
  });
}

const MAX_KEPT_RUN = 3;

/** A whole definition, a line per field that is not an empty set (the name is in the title). */
function definitionLines(definition: AudienceDefinition): Array<Line & { kind: 'field' }> {
  return DEFINITION_FIELDS.filter((field) => field !== 'name' && !isEmpty(definition[field] as JsonValue)).map(
    (field) => ({
      kind: 'field' as const,
      label: field,
      text: formatValue(field, definition[field] as JsonValue),
    }),
  );
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

function isEmpty(value: JsonValue): boolean {
  return Array.isArray(value) && value.length === 0;
}

export function formatValue(field: string, value: JsonValue): string {
  if (Array.isArray(value))
    return value.length === 0 ? '(none)' : value.map((member) => formatMember(field, member)).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A region as `I (Seoul)`, a targeting member as its identifying fields first, a code as itself. */
export function formatMember(field: string, member: JsonValue): string {
  if (member === null || typeof member !== 'object' || Array.isArray(member)) return String(member);
  if ((REGION_FIELDS as readonly string[]).includes(field)) {
    const code = String(member.value);
    // A province written as its bare code still reads as a place; deeper codes have no table here.
    const name =
      typeof member.description === 'string' ? member.description : field === 'locations' ? PROVINCES[code] : undefined;
    return name === undefined ? code : `${code} (${name})`;
  }
  const keys = (TARGETING_FIELDS as readonly string[]).includes(field)
    ? TARGETING_MEMBER_KEYS[field as TargetingField]
    : [];
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
