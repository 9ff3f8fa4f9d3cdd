import {
  BUSINESS_BOARD_CAMPAIGN_TYPE,
  compareText,
  isMessagingChannelReach,
  OVERSEAS_PROVINCE,
  type AdGroupLink,
  type AudienceDefinition,
  type DefinitionField,
  type DesiredAudience,
  type DesiredState,
  type LiveAudience,
  type LiveAudienceSummary,
  type LiveState,
} from '../model/index.js';
import { planBusiness } from './business.js';
import { diffDefinition } from './diff.js';
import { planImages } from './images.js';
import { matchIdentities, type Identities } from './identity.js';
import { checkMassDelete, DEFAULT_MASS_DELETE, type MassDeleteThreshold } from './safety.js';
import type { AdGroupRef, AdGroupUnlink, AudienceCreate, AudienceDelete, AudienceUpdate, Change, FieldChange, Fingerprint, Plan, PlanProblem, PlanSummary } from './types.js';

export interface PlanOptions {
  allowMassDelete: boolean;
  massDelete?: MassDeleteThreshold;
}

/**
 * desired + live → plan, as a pure function. `live` holds the account's list, the full
 * reads of the audiences the file manages and the links of those whose links matter
 * (see `neededReads`, which tells the caller what to fetch).
 */
export function planAccount(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const identities = matchIdentities(desired, live.audiences);
  const errors: PlanProblem[] = [...identities.errors];
  const warnings: PlanProblem[] = [];
  const changes: AudienceChange[] = [];

  for (const audience of identities.missing) {
    changes.push({ action: 'create', kind: 'audience', name: audience.key, id: null, before: null, after: audience.definition });
    if (audience.adGroups && audience.adGroups.length > 0) warnings.push(linkMissing(audience, audience.adGroups));
  }

  for (const { desired: audience, live: summary } of identities.matched) {
    warnings.push(...statusWarnings(summary));
    const detail = readDetail(live, summary);
    if ('unreadable' in detail) {
      errors.push(detail.unreadable);
      continue;
    }
    const links = sortedLinks(live.links[String(summary.id)]);
    const fields = diffDefinition(audience.definition, detail.definition);
    const after = audience.definition;
    const remaining = links ? [...links] : [];

    if (audience.adGroups && links) {
      const declaredIds = new Set(audience.adGroups);
      const extra = links.filter((link) => !declaredIds.has(link.adGroupId));
      const absent = audience.adGroups.filter((id) => !links.some((link) => link.adGroupId === id));
      if (absent.length > 0) warnings.push(linkMissing(audience, absent));
      if (extra.length > 0 && audience.protect) {
        errors.push({
          code: 'PROTECTED',
          name: audience.key,
          message: `audience "${audience.key}" is protected, but ad group${plural(extra)} ${extra.map((link) => link.adGroupId).join(', ')} would be unlinked from it`,
          hint: 'add the ad groups to its `adGroups`, or remove `protect: true` to allow the unlink',
        });
      } else {
        for (const link of extra) {
          changes.push(unlink(audience.key, summary.id, link, 'not-declared'));
          remaining.splice(remaining.indexOf(link), 1);
        }
      }
    }

    if (fields.length > 0) {
      if (!links) throw new Error(`planAccount: the links of audience ${summary.id}, which changes, are missing`);
      errors.push(...campaignRuleErrors(audience.key, after, remaining));
      warnings.push(...omittedFieldWarnings(audience, fields));
      changes.push({
        action: 'update',
        kind: 'audience',
        name: audience.key,
        id: summary.id,
        before: detail.definition,
        after,
        display: { fields, impact: remaining.map(adGroupRef) },
      });
    }
  }

  if (desired.prune) {
    for (const summary of identities.undeclared) {
      const detail = readDetail(live, summary);
      if ('unreadable' in detail) {
        errors.push(detail.unreadable);
        continue;
      }
      const links = sortedLinks(live.links[String(summary.id)]);
      if (!links) throw new Error(`planAccount: the links of audience ${summary.id} are missing`);
      for (const link of links) changes.push(unlink(summary.name, summary.id, link, 'audience-deleted'));
      changes.push({
        action: 'delete',
        kind: 'audience',
        name: summary.name,
        id: summary.id,
        before: detail.definition,
        after: null,
        display: { impact: links.map(adGroupRef) },
      });
      warnings.push(...statusWarnings(summary));
    }
  }

  const deletes = changes.filter((change) => change.action === 'delete').length;
  const massDelete = checkMassDelete(deletes, identities.managedCount, options.massDelete ?? DEFAULT_MASS_DELETE);
  if (massDelete && !options.allowMassDelete) errors.push(massDelete);

  const business = desired.business ? planBusiness(desired.business, requireLookup(live.business)) : undefined;
  const images = live.images ? planImages(desired.images ?? [], live.images, desired.prune) : undefined;
  errors.push(...(business?.errors ?? []), ...(images?.errors ?? []));

  // Images keep their dependency order after the audiences: the two never depend on each other.
  const ordered = [...orderChanges(changes), ...(images?.changes ?? [])];
  return {
    formatVersion: 1,
    adAccountId: desired.adAccountId,
    ...(business ? { business: business.header } : {}),
    changes: ordered,
    warnings: sortProblems(warnings),
    errors: sortProblems(errors),
    summary: summarize(ordered),
    fingerprint: { ...fingerprint(desired, live, identities), ...(images ? { images: images.fingerprint } : {}) },
    ...(live.images ? { imageDir: live.images.dir } : {}),
  };
}

function requireLookup<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('planAccount: the file declares a business, but it was not looked up');
  return value;
}

/** What planning reads of an account beyond its list (see neededReads). */
export interface NeededReads {
  /** The audiences the file manages, and with prune those it deletes (a plan shows what it destroys), each to read in full. */
  detailIds: number[];
  /** The audiences whose ad groups are needed whatever their reads say: those with declared `adGroups`, those about to be deleted. */
  linkIds: number[];
  /**
   * Whether the ad groups of `id`, one of `detailIds` and not of `linkIds`, are needed given its
   * full read: they are when the audience is about to change.
   */
  needsLinks(id: number, detail: LiveAudience): boolean;
}

/**
 * What a plan needs read beyond the account's list. Whether an audience's ad groups are
 * needed can depend on its full read, so it is asked of each read as it arrives: the link
 * reads start while the other reads are still in flight, and the diffs that decide it are
 * made meanwhile (the plan reuses them).
 */
export function neededReads(desired: DesiredState, list: LiveAudienceSummary[]): NeededReads {
  const identities = matchIdentities(desired, list);
  const declared = new Map(identities.matched.map((pair) => [pair.live.id, pair.desired]));
  const linkIds = identities.matched.filter((pair) => pair.desired.adGroups).map((pair) => pair.live.id);
  if (desired.prune) linkIds.push(...identities.undeclared.map((summary) => summary.id));
  return {
    detailIds: [...identities.matched.map((pair) => pair.live.id), ...(desired.prune ? identities.undeclared.map((summary) => summary.id) : [])],
    linkIds,
    needsLinks: (id, detail) => {
      const audience = declared.get(id);
      return audience !== undefined && !audience.adGroups && diffDefinition(audience.definition, detail.definition).length > 0;
    },
  };
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
        message: `audience "${summary.name}" (id ${summary.id}) cannot be planned: ${reason}`,
        hint: 'nothing is planned for this audience; check that ADS_API_URL is the audience API itself, and if it is, report the answer: the service uses a shape the tool does not know yet',
      },
    };
  }
  const detail = live.details[String(summary.id)];
  if (!detail) throw new Error(`planAccount: the full read of audience ${summary.id} is missing`);
  return detail;
}

/**
 * A file written before whole definitions managed only the sets it named. When an update
 * empties a set the file leaves out, say so: the reviewer may have meant to keep it.
 */
function omittedFieldWarnings(audience: DesiredAudience, fields: FieldChange[]): PlanProblem[] {
  const emptied = fields.filter((change) => audience.omitted.includes(change.field as DefinitionField)).map((change) => change.field);
  if (emptied.length === 0) return [];
  return [
    {
      code: 'OMITTED_FIELDS',
      name: audience.key,
      message: `audience "${audience.key}" leaves out ${emptied.join(', ')}, so the update removes ${emptied.length === 1 ? 'it' : 'them'}: a declared audience is its whole definition`,
      hint: `to keep ${emptied.length === 1 ? 'it' : 'them'}, add ${emptied.join(' and ')} to the audience in the file (a file written before whole definitions managed only the fields it named)`,
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
        message: `audience "${name}" targets the overseas region Z, which business-board campaign ${link.campaignId} ("${link.campaignName}") of ad group ${link.adGroupId} does not allow`,
        hint: 'remove Z from `locations`, or stop using the audience in that ad group',
      });
    }
  }
  if (definition.talkChannelGroupTargetings.length > 0) {
    for (const link of links.filter((candidate) => !isMessagingChannelReach(candidate))) {
      problems.push({
        code: 'CAMPAIGN_RULE',
        name,
        message: `audience "${name}" uses friend-group targeting, which needs a messaging-channel reach campaign; ad group ${link.adGroupId} belongs to campaign ${link.campaignId} ("${link.campaignName}", ${link.campaignType}/${link.campaignGoal})`,
        hint: 'remove `talkChannelGroupTargetings`, or use the audience only in messaging-channel reach campaigns',
      });
    }
  }
  return problems;
}

function linkMissing(audience: DesiredAudience, adGroupIds: number[]): PlanProblem {
  return {
    code: 'LINK_MISSING',
    name: audience.key,
    message: `audience "${audience.key}" declares ad group${plural(adGroupIds)} ${adGroupIds.join(', ')}, which ${adGroupIds.length === 1 ? 'does' : 'do'} not use it`,
    hint: 'this API cannot link ad groups: link them in the ad manager, or remove them from `adGroups`',
  };
}

function statusWarnings(summary: LiveAudienceSummary): PlanProblem[] {
  if (summary.audienceStatus !== 'ERROR' && summary.audienceStatus !== 'SEED_NOT_ENOUGH') return [];
  const meaning = summary.audienceStatus === 'ERROR' ? 'is unusable' : 'has too few members to be used';
  return [{ code: 'AUDIENCE_STATUS', name: summary.name, message: `audience "${summary.name}" (id ${summary.id}) is ${summary.audienceStatus}: it ${meaning}` }];
}

function unlink(name: string, id: number, link: AdGroupLink, reason: AdGroupUnlink['display']['reason']): AdGroupUnlink {
  return { action: 'unlink', kind: 'adGroupLink', name, id, adGroupId: link.adGroupId, before: adGroupRef(link), after: null, display: { reason } };
}

/** The service lists ad groups in no promised order: by id, so plans are stable and read like the unlinks. */
function sortedLinks(links: AdGroupLink[] | undefined): AdGroupLink[] | undefined {
  return links && [...links].sort((a, b) => a.adGroupId - b.adGroupId);
}

function adGroupRef(link: AdGroupLink): AdGroupRef {
  return {
    adGroupId: link.adGroupId,
    adGroupName: link.adGroupName,
    adGroupStatus: link.adGroupStatus,
    campaignId: link.campaignId,
    campaignName: link.campaignName,
  };
}

const ACTION_RANK: Record<AudienceChange['action'], number> = { unlink: 0, create: 1, update: 1, delete: 2 };

type AudienceChange = AudienceCreate | AudienceUpdate | AudienceDelete | AdGroupUnlink;

/** By audience name; for one audience, its unlinks (by ad group) before the change they enable. */
function orderChanges(changes: AudienceChange[]): AudienceChange[] {
  return [...changes].sort(
    (a, b) =>
      compareText(a.name, b.name) ||
      (a.id ?? 0) - (b.id ?? 0) ||
      ACTION_RANK[a.action] - ACTION_RANK[b.action] ||
      (a.action === 'unlink' && b.action === 'unlink' ? a.adGroupId - b.adGroupId : 0),
  );
}

function sortProblems(problems: PlanProblem[]): PlanProblem[] {
  return [...problems].sort((a, b) => compareText(a.code, b.code) || compareText(a.name ?? '', b.name ?? '') || compareText(a.message, b.message));
}

function summarize(changes: Change[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, unlink: 0, generate: 0, remove: 0 };
  for (const change of changes) summary[change.action] += 1;
  return summary;
}

function fingerprint(desired: DesiredState, live: LiveState, identities: Identities): Fingerprint {
  const read = [...identities.matched.map((pair) => pair.live), ...(desired.prune ? identities.undeclared : [])];
  return {
    desiredHash: desired.source.hash,
    audiences: read
      .map((summary) => ({
        id: summary.id,
        lastModifiedDate: summary.lastModifiedDate,
        adGroupIds: live.links[String(summary.id)]?.map((link) => link.adGroupId).sort((a, b) => a - b) ?? null,
      }))
      .sort((a, b) => a.id - b.id),
    accountAudienceIds: desired.prune ? live.audiences.map((summary) => summary.id).sort((a, b) => a - b) : null,
  };
}

function plural(items: readonly unknown[]): string {
  return items.length === 1 ? '' : 's';
}
