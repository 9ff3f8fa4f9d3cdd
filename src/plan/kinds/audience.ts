import {
  BUSINESS_BOARD_CAMPAIGN_TYPE,
  isMessagingChannelReach,
  OVERSEAS_PROVINCE,
  type AdGroupLink,
  type AudienceDefinition,
  type DefinitionField,
  type DesiredAudience,
  type LiveAudience,
  type LiveAudienceSummary,
  type LiveState,
  type Long,
  type UnmodelledFields,
  DEFINITION_FIELDS,
  jsonEqual,
  SERVICE_ONLY_FIELDS,
  type JsonValue,
  compareLongs,
  compareText,
  sortLongs,
} from '../../model/index.js';
import { diffDefinition } from '../diff.js';
import type { ChangeOf, CurrentState, FingerprintParts, PlanKind, PlanInput } from '../kind.js';
import { sameEnds } from '../drift.js';
import { notRead, requireRead } from '../reads.js';
import { renameWarnings } from '../renames.js';
import { reviewAudienceChange } from '../review.js';
import { checkMassDelete, massDeleteGuard } from '../safety.js';
import { changeNames, scopeKindOf, scopeTest } from '../scope.js';
import type { AudienceUpdate, FieldChange, Plan, PlanProblem } from '../types.js';
import { adGroupRef, plural, readableLinks } from './ad-group-link.js';
import { quoted } from '../../model/index.js';

/**
 * Audiences: a declared audience the account lacks is created, one whose definition differs
 * is updated to the whole declared definition, and with prune an undeclared one is deleted
 * (shown whole). An update or delete touches the ad groups that keep using the audience after
 * the unlinks planned before it.
 */
export const audienceKind: PlanKind<'audience'> = {
  kind: 'audience',
  plan: (input) => {
    const { desired, live, identities, options } = input;
    const changes: Array<ChangeOf<'audience'>> = [];
    const errors: PlanProblem[] = [];
    const warnings: PlanProblem[] = [];
    for (const audience of identities.missing) {
      changes.push({
        action: 'create',
        kind: 'audience',
        name: audience.key,
        id: null,
        before: null,
        after: audience.definition,
      });
    }
    for (const { desired: audience, live: summary } of identities.matched) {
      warnings.push(...statusWarnings(summary));
      const detail = readDetail(live, summary);
      if ('unreadable' in detail) {
        errors.push(detail.unreadable);
        continue;
      }
      const fields = diffDefinition(audience.definition, detail.definition);
      if (fields.length === 0) continue;
      const remaining = linksAfterUnlinks(input, summary.id);
      errors.push(...campaignRuleErrors(audience.key, audience.definition, remaining));
      warnings.push(...omittedFieldWarnings(audience, fields));
      changes.push(update(audience, summary.id, detail, fields, remaining));
    }
    if (desired.prune) {
      for (const summary of identities.undeclared) {
        const glob = identities.protectedBy.get(summary.id);
        if (glob !== undefined) {
          errors.push(protectedDelete(summary, glob));
          continue;
        }
        const detail = readDetail(live, summary);
        if ('unreadable' in detail) {
          errors.push(detail.unreadable);
          continue;
        }
        const links = requireRead(readableLinks(live, summary.id), `the ad groups of audience ${summary.id}`);
        changes.push({
          action: 'delete',
          kind: 'audience',
          name: summary.name,
          id: summary.id,
          before: detail.definition,
          after: null,
          kept: detail.unmodelled,
          display: { impact: links.map(adGroupRef) },
        });
        warnings.push(...statusWarnings(summary));
      }
    }
    warnings.push(...goneWarnings(input));
    const { deletes, managed } = guardCounts(input, changes);
    const guard = massDeleteGuard(desired, options.base);
    const massDelete = checkMassDelete(deletes, managed, guard);
    if (massDelete && !options.allowMassDelete) errors.push(massDelete);
    if (guard.loosened) warnings.push(guard.loosened);
    warnings.push(...renameWarnings(changes));
    return { changes, errors, warnings, fingerprint: fingerprint(input) };
  },
  staleReasons: (plan, current) => [...changedSinceRead(plan, current), ...updatedSinceRead(plan, current)],
  // By audience name, after the audience's unlinks (see the ad-group link kind), a delete last.
  orderKey: (change) => [change.name, BigInt(change.id ?? 0), change.action === 'delete' ? 2 : 1],
  // The same read, so the same `before`; the same `after`: the same request. (The ad groups an update
  // touches may differ, when the file's adGroups changed: that is shown, the revert is the same.)
  drift: (change, base) => (change.kind === 'audience' && sameEnds(change, base) ? { ...change, drift: true } : change),
  review: reviewAudienceChange,
  inconsistencies: (change, read) => {
    const about = `the ${change.action} of audience ${quoted(change.name)}${change.id === null ? '' : ` (id ${change.id})`}`;
    return audienceInconsistencies(change, read).map((problem) => `${about}: ${problem}`);
  },
};

function audienceInconsistencies(change: ChangeOf<'audience'>, read: ReadonlySet<Long>): string[] {
  switch (change.action) {
    case 'create':
      return change.name === change.after.name
        ? []
        : [`its name is not the one it creates (${quoted(change.after.name)})`];
    case 'update': {
      const found =
        change.name === change.after.name ? [] : [`its name is not the one it writes (${quoted(change.after.name)})`];
      found.push(...notRead(change.id, read), ...keptProblems(change.kept));
      found.push(...shownFieldProblems(change.display.fields, diffDefinition(change.after, change.before)));
      return found;
    }
    case 'delete':
      return [
        ...(change.name === change.before.name
          ? []
          : [`its name is not the one it deletes (${quoted(change.before.name)})`]),
        ...notRead(change.id, read),
        ...keptProblems(change.kept),
      ];
  }
}

/**
 * Where the fields an update shows differ from those it changes: their names, when those
 * differ; otherwise, field by field, the parts of the change shown otherwise than made.
 */
function shownFieldProblems(shown: FieldChange[], changed: FieldChange[]): string[] {
  const names = (fields: FieldChange[]): string => fields.map((field) => field.field).join(', ') || 'none';
  if (names(shown) !== names(changed))
    return [`the fields it shows (${names(shown)}) are not what it changes (${names(changed)})`];
  return shown.flatMap((field, index) => {
    const made = changed[index] as FieldChange;
    const parts = FIELD_CHANGE_PARTS.filter(
      (part) => !jsonEqual((field[part] ?? null) as JsonValue, (made[part] ?? null) as JsonValue),
    );
    if (parts.length === 0) return [];
    const said = (change: FieldChange): string =>
      parts.map((part) => `${part} ${JSON.stringify(change[part] ?? null)}`).join(', ');
    return [`the change of ${field.field} it shows (${said(field)}) is not the one it makes (${said(made)})`];
  });
}

const FIELD_CHANGE_PARTS = ['before', 'after', 'added', 'removed'] as const;

/**
 * The fields the tool models (or the service alone sets) are never among those kept as read: an update would send them
 * otherwise than it shows.
 */
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

/**
 * The audiences the plan updates whose modification date is what the plan read: the service
 * dates changes to the second, so a change made in the same second keeps the date. An update
 * sends the whole definition and would silently undo such a change, so these are read again
 * (CurrentState.reread) and compared with what the plan was made from.
 */
export function rereadIds(plan: Plan, audiences: LiveAudienceSummary[]): Long[] {
  const readAt = new Map(plan.fingerprint.audiences.map((entry) => [entry.id, entry.lastModifiedDate]));
  const sameDate = new Set(
    audiences.filter((summary) => readAt.get(summary.id) === summary.lastModifiedDate).map((summary) => summary.id),
  );
  return plan.changes
    .filter((change): change is AudienceUpdate => change.action === 'update' && sameDate.has(change.id))
    .map((change) => change.id);
}

/**
 * The audiences the plan knew of when it was made: those it read or touches, and with prune
 * every one of the account. None of them is the audience a create made.
 */
export function knownAudienceIds(plan: Plan): Set<Long> {
  return new Set([
    ...plan.fingerprint.audiences.map((entry) => entry.id),
    ...(plan.fingerprint.accountAudienceIds ?? []),
  ]);
}

/** An audience the plan read was modified or deleted; a name it creates was taken; with prune, an audience appeared. */
function changedSinceRead(plan: Plan, current: CurrentState): string[] {
  const reasons: string[] = [];
  const byId = new Map(current.audiences.map((summary) => [summary.id, summary]));
  for (const entry of plan.fingerprint.audiences) {
    const now = byId.get(entry.id);
    if (!now) reasons.push(`audience ${entry.id} no longer exists`);
    else if (now.lastModifiedDate !== entry.lastModifiedDate) {
      reasons.push(
        `audience ${quoted(now.name)} (id ${entry.id}) was modified at ${now.lastModifiedDate}, after the plan read it (${entry.lastModifiedDate})`,
      );
    }
  }
  // A name the plan creates may still be held by an audience it renames away from that name,
  // never by any other: not even one it read, renamed since within the second its date shows.
  const renamedAway = new Set(
    plan.changes.flatMap((change) => (change.action === 'update' ? [`${change.id} ${change.before.name}`] : [])),
  );
  for (const change of plan.changes) {
    if (change.action !== 'create') continue;
    const taken = current.audiences.find(
      (summary) => summary.name === change.name && !renamedAway.has(`${summary.id} ${change.name}`),
    );
    if (taken)
      reasons.push(
        `an audience named ${quoted(change.name)} now exists (id ${taken.id}), which the plan would create again`,
      );
  }
  if (plan.fingerprint.accountAudienceIds) {
    const known = new Set(plan.fingerprint.accountAudienceIds);
    // A scoped plan prunes only within its scope: an audience appearing outside it is none of its business.
    const inScope = plan.scope ? scopeTest(plan.scope) : () => true;
    const added = current.audiences.filter((summary) => !known.has(summary.id) && inScope('audience', [summary.name]));
    if (added.length > 0)
      reasons.push(
        `audience${plural(added)} ${added.map((summary) => `${quoted(summary.name)} (id ${summary.id})`).join(', ')} appeared since the plan, which prunes`,
      );
  }
  return reasons;
}

/**
 * Each audience read again (see rereadIds) that is no longer the one the update was planned
 * from: its definition, or a field the file cannot hold (the update would send back the old one).
 */
function updatedSinceRead(plan: Plan, current: CurrentState): string[] {
  const reread = current.reread ?? {};
  return plan.changes.flatMap((change) => {
    const now = change.action === 'update' ? reread[String(change.id)] : undefined;
    if (change.action !== 'update' || !now) return [];
    const kept = new Set([...Object.keys(change.kept), ...Object.keys(now.unmodelled)]);
    const fields = [
      ...diffDefinition(change.before, now.definition).map((field) => field.field),
      ...[...kept].filter((field) => change.kept[field] !== now.unmodelled[field]).sort(compareText),
    ];
    return fields.length === 0
      ? []
      : [
          `audience ${quoted(change.name)} (id ${change.id}) was modified since the plan read it (${fields.join(', ')} changed)`,
        ];
  });
}

/** An undeclared audience that prune would delete, but a `protect` glob names. */
function protectedDelete(summary: LiveAudienceSummary, glob: string): PlanProblem {
  return {
    code: 'PROTECTED',
    name: summary.name,
    message: `audience ${quoted(summary.name)} (id ${summary.id}) is protected by the protect glob ${quoted(glob)}, but the file does not declare it and prune would delete it`,
    hint: `declare it in the file (\`audiences import\` writes it) or cover it with \`ignore\`; to delete it, narrow the protect glob ${quoted(glob)} so it leaves the audience out`,
  };
}

function update(
  audience: DesiredAudience,
  id: Long,
  detail: LiveAudience,
  fields: FieldChange[],
  remaining: AdGroupLink[],
): AudienceUpdate {
  return {
    action: 'update',
    kind: 'audience',
    name: audience.key,
    id,
    before: detail.definition,
    after: audience.definition,
    kept: detail.unmodelled,
    display: { fields, impact: remaining.map(adGroupRef) },
  };
}

/** The ad groups that use an audience once the unlinks planned for it are done. */
function linksAfterUnlinks({ live, planned }: PlanInput, id: Long): AdGroupLink[] {
  const links = requireRead(readableLinks(live, id), `the ad groups of audience ${id}, which changes`);
  const unlinked = new Set(
    planned.flatMap((change) => (change.action === 'unlink' && change.id === id ? [change.adGroupId] : [])),
  );
  return links.filter((link) => !unlinked.has(link.adGroupId));
}

/**
 * The full read of a live audience the plan needs, or the plan error when the service's
 * answer had a field the plan needs in a shape it cannot use (the other audiences are planned).
 */
function readDetail(live: LiveState, summary: LiveAudienceSummary): LiveAudience | { unreadable: PlanProblem } {
  const reason = live.unreadable?.[String(summary.id)];
  if (reason !== undefined) {
    return {
      unreadable: {
        code: 'LIVE_UNREADABLE',
        name: summary.name,
        message: `audience ${quoted(summary.name)} (id ${summary.id}) cannot be planned: ${reason}`,
        hint: 'nothing is planned for this audience; check that ADS_API_URL is the audience API itself, and if it is, report the answer: the service uses a shape the tool does not know yet',
      },
    };
  }
  return requireRead(live.details[String(summary.id)], `the full read of audience ${summary.id}`);
}

/**
 * The audiences deleted while the plan read the account (listed, then answered 404: see
 * LiveState.gone) are planned as not there, and said: one the file declares by name is created
 * anew, an undeclared one is no longer there to delete.
 */
function goneWarnings({ desired, live, identities }: PlanInput): PlanProblem[] {
  const created = new Set(identities.missing.map((audience) => audience.key));
  return (live.gone ?? []).map((summary) => {
    const declared = desired.audiences.find((audience) =>
      audience.id === undefined ? audience.key === summary.name : audience.id === summary.id,
    );
    const gone = `audience ${quoted(summary.name)} (id ${summary.id}) was deleted while the plan read the account (listed, then not found when read)`;
    if (declared && created.has(declared.key)) {
      return {
        code: 'AUDIENCE_GONE',
        name: declared.key,
        message: `${gone}: the plan creates ${quoted(declared.key)} anew`,
        hint: 'if it was deleted on purpose, remove it from the file; otherwise applying the plan makes it again',
      };
    }
    return {
      code: 'AUDIENCE_GONE',
      name: summary.name,
      message: `${gone}: ${declared ? 'nothing is planned for it' : 'there is nothing left to delete'}`,
    };
  });
}

/**
 * An update that empties a criterion the file says nothing of: the reviewer may not have
 * meant it (the account gained it in the ad manager, or the file never named it), so the
 * warning says how to keep it. A criterion the file names and changes is an edit, said by the plan alone.
 */
function omittedFieldWarnings(audience: DesiredAudience, fields: FieldChange[]): PlanProblem[] {
  const emptied = fields
    .filter((change) => audience.omitted.includes(change.field as DefinitionField))
    .map((change) => change.field);
  if (emptied.length === 0) return [];
  const them = emptied.length === 1 ? 'it' : 'them';
  return [
    {
      code: 'OMITTED_FIELDS',
      name: audience.key,
      message: `audience ${quoted(audience.key)} says nothing of ${emptied.join(', ')}, which the account has, so the update empties ${them}: a field the file leaves out is empty`,
      hint: `if that is not meant, write ${emptied.join(' and ')} in the audience as the account has ${them} (\`audiences import --name\` prints the audience as it is)`,
    },
  ];
}

/** Rules 6 and 7 of the spec depend on the campaigns of the ad groups that use the audience. */
function campaignRuleErrors(name: string, definition: AudienceDefinition, links: AdGroupLink[]): PlanProblem[] {
  const problems: PlanProblem[] = [];
  if (definition.locations.some((region) => region.value === OVERSEAS_PROVINCE)) {
    for (const link of links.filter((candidate) => candidate.campaignType === BUSINESS_BOARD_CAMPAIGN_TYPE)) {
      problems.push({
        code: 'CAMPAIGN_RULE',
        name,
        message: `audience ${quoted(name)} targets the overseas region Z, which business-board campaign ${link.campaignId} (${quoted(link.campaignName)}) of ad group ${link.adGroupId} does not allow`,
        hint: 'remove Z from `locations`, or stop using the audience in that ad group',
      });
    }
  }
  if (definition.talkChannelGroupTargetings.length > 0) {
    for (const link of links.filter((candidate) => !isMessagingChannelReach(candidate))) {
      problems.push({
        code: 'CAMPAIGN_RULE',
        name,
        message: `audience ${quoted(name)} uses friend-group targeting, which needs a messaging-channel reach campaign; ad group ${link.adGroupId} belongs to campaign ${link.campaignId} (${quoted(link.campaignName)}, ${link.campaignType}/${link.campaignGoal})`,
        hint: 'remove `talkChannelGroupTargetings`, or use the audience only in messaging-channel reach campaigns',
      });
    }
  }
  return problems;
}

function statusWarnings(summary: LiveAudienceSummary): PlanProblem[] {
  if (summary.audienceStatus !== 'ERROR' && summary.audienceStatus !== 'SEED_NOT_ENOUGH') return [];
  const meaning = summary.audienceStatus === 'ERROR' ? 'is unusable' : 'has too few members to be used';
  return [
    {
      code: 'AUDIENCE_STATUS',
      name: summary.name,
      message: `audience ${quoted(summary.name)} (id ${summary.id}) is ${summary.audienceStatus}: it ${meaning}`,
    },
  ];
}

/**
 * What the mass-delete guard counts: the deletes and the managed audiences, within the scope of a
 * scoped plan (`--target 'old-*'` deleting 12 of the 12 managed `old-*` audiences is a mass
 * delete, however many others the account has), so a scope can only make the guard stricter for
 * what it plans, never let a delete through unguarded.
 */
function guardCounts({ identities, options }: PlanInput, changes: Array<ChangeOf<'audience'>>) {
  const inScope = options.scope ? scopeTest(options.scope) : () => true;
  const managed = options.scope
    ? [
        ...identities.matched.map((pair) => [pair.desired.key, pair.live.name]),
        ...identities.undeclared.map((summary) => [summary.name]),
      ].filter((names) => inScope('audience', names)).length
    : identities.managedCount;
  const deletes = changes.filter(
    (change) => change.action === 'delete' && inScope(scopeKindOf(change), changeNames(change)),
  ).length;
  return { deletes, managed };
}

/**
 * Every live audience the plan read, with its date and links as read; with prune, every id of the account. A scoped
 * plan records only the audiences within its scope (of the audience or ad-group link kind): one edited outside it does
 * not make the plan stale.
 */
function fingerprint({ desired, live, identities, options }: PlanInput): FingerprintParts['audience'] {
  const inScope = options.scope ? scopeTest(options.scope) : () => true;
  const within = (names: string[]) => inScope('audience', names) || inScope('adGroupLink', names);
  const read = [
    ...identities.matched.filter((pair) => within([pair.desired.key, pair.live.name])).map((pair) => pair.live),
    ...(desired.prune ? identities.undeclared.filter((summary) => within([summary.name])) : []),
  ];
  return {
    audiences: read
      .map((summary) => ({
        id: summary.id,
        lastModifiedDate: summary.lastModifiedDate,
        adGroupIds: sortedOrNull(live.links[String(summary.id)]?.map((link) => link.adGroupId)),
      }))
      .sort((a, b) => compareLongs(a.id, b.id)),
    accountAudienceIds: desired.prune ? sortLongs(live.audiences.map((summary) => summary.id)) : null,
  };
}

function sortedOrNull(ids: Long[] | undefined): Long[] | null {
  return ids === undefined ? null : sortLongs(ids);
}
