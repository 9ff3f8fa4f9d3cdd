import { DEFINITION_FIELDS, jsonEqual, quoted, SERVICE_ONLY_FIELDS, type JsonValue, type Long, type UnmodelledFields } from '../model/index.js';
import { diffDefinition } from './diff.js';
import { summarize } from './planner.js';
import type { Change, FieldChange, Plan } from './types.js';

/**
 * What a plan says of itself that its changes do not bear out, as a plan edited by hand or
 * damaged would: `planAccount` never makes one. The summary and what each change shows people
 * (its name, an update's fields) are derived from what the applier reads (the action, the ids,
 * `before` and `after`) again, and an audience a change names by id must be one the plan read.
 * `show` and the apply's lines would otherwise say one thing while the apply does another.
 */
export function inconsistencies(plan: Plan): string[] {
  const read = new Set(plan.fingerprint.audiences.map((entry) => entry.id));
  const found = plan.changes.flatMap((change) => changeInconsistencies(change, read).map((problem) => `${describe(change)}: ${problem}`));
  const summary = summarize(plan.changes);
  if (!jsonEqual(summary as unknown as JsonValue, plan.summary as unknown as JsonValue)) {
    found.push(`its summary (${JSON.stringify(plan.summary)}) does not count its changes (${JSON.stringify(summary)})`);
  }
  return found;
}

function changeInconsistencies(change: Change, read: Set<Long>): string[] {
  const found: string[] = [];
  const notRead = (id: Long): void => {
    if (!read.has(id)) found.push(`the plan did not read audience ${id}`);
  };
  switch (change.action) {
    case 'create':
      if (change.name !== change.after.name) found.push(`its name is not the one it creates (${quoted(change.after.name)})`);
      break;
    case 'update': {
      if (change.name !== change.after.name) found.push(`its name is not the one it writes (${quoted(change.after.name)})`);
      notRead(change.id);
      found.push(...keptProblems(change.kept));
      found.push(...shownFieldProblems(change.display.fields, diffDefinition(change.after, change.before)));
      break;
    }
    case 'delete':
      if (change.name !== change.before.name) found.push(`its name is not the one it deletes (${quoted(change.before.name)})`);
      notRead(change.id);
      found.push(...keptProblems(change.kept));
      break;
    case 'unlink':
      if (change.adGroupId !== change.before.adGroupId) found.push(`it shows ad group ${change.before.adGroupId}`);
      notRead(change.id);
      break;
    case 'remove': {
      const recorded = new Set(change.before.outputs.map((output) => output.path));
      const unrecorded = change.deletes.filter((path) => !recorded.has(path));
      if (unrecorded.length > 0) found.push(`it deletes ${unrecorded.map((path) => JSON.stringify(path)).join(', ')}, which its lock entry does not record`);
      break;
    }
    case 'move': {
      // A move copies and deletes only the files its lock entry records, each to the path at its place.
      const { before, after } = change;
      if (after.outputs.length !== before.outputs.length) found.push(`it moves ${before.outputs.length} files to ${after.outputs.length} paths`);
      for (const { from, to } of change.copies) {
        const index = before.outputs.findIndex((output) => output.path === from);
        if (index < 0 || after.outputs[index] !== to) found.push(`it copies ${JSON.stringify(from)} to ${JSON.stringify(to)}, which its lock entry does not move there`);
      }
      const recorded = new Set(before.outputs.map((output) => output.path));
      const unrecorded = change.deletes.filter((path) => !recorded.has(path) || after.outputs.includes(path));
      if (unrecorded.length > 0) found.push(`it deletes ${unrecorded.map((path) => JSON.stringify(path)).join(', ')}, which is not an old file of its lock entry`);
      break;
    }
    case 'generate':
      break;
  }
  return found;
}

/**
 * Where the fields an update shows differ from those it changes: their names, when those
 * differ; otherwise, field by field, the parts of the change shown otherwise than made.
 */
function shownFieldProblems(shown: FieldChange[], changed: FieldChange[]): string[] {
  const names = (fields: FieldChange[]): string => fields.map((field) => field.field).join(', ') || 'none';
  if (names(shown) !== names(changed)) return [`the fields it shows (${names(shown)}) are not what it changes (${names(changed)})`];
  return shown.flatMap((field, index) => {
    const made = changed[index] as FieldChange;
    const parts = FIELD_CHANGE_PARTS.filter((part) => !jsonEqual((field[part] ?? null) as JsonValue, (made[part] ?? null) as JsonValue));
    if (parts.length === 0) return [];
    const said = (change: FieldChange): string => parts.map((part) => `${part} ${JSON.stringify(change[part] ?? null)}`).join(', ');
    return [`the change of ${field.field} it shows (${said(field)}) is not the one it makes (${said(made)})`];
  });
}

const FIELD_CHANGE_PARTS = ['before', 'after', 'added', 'removed'] as const;

/** The fields the tool models (or the service alone sets) are never among those kept as read: an update would send them otherwise than it shows. */
const MODELLED: ReadonlySet<string> = new Set([...DEFINITION_FIELDS, ...SERVICE_ONLY_FIELDS]);

/** What a change keeps as read that is no field the file cannot hold, or no JSON text. */
function keptProblems(kept: UnmodelledFields): string[] {
  return Object.entries(kept).flatMap(([field, text]) => {
    if (MODELLED.has(field)) return [`it keeps ${field} as read, a field the plan shows and sends itself`];
    try {
      JSON.parse(text);
      return [];
    } catch {
      return [`what it keeps of ${field} is not JSON text`];
    }
  });
}

function describe(change: Change): string {
  if (change.action === 'unlink') return `the unlink of ad group ${change.adGroupId} from audience ${quoted(change.name)} (id ${change.id})`;
  return `the ${change.action} of ${change.kind === 'image' ? 'image' : 'audience'} ${quoted(change.name)}${change.id === null ? '' : ` (id ${change.id})`}`;
}
