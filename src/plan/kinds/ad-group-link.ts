import {
  compareLongs,
  compareText,
  sortLongs,
  type AdGroupLink,
  type DesiredAudience,
  type LiveState,
  type Long,
} from '../../model/index.js';
import { sameEnds } from '../drift.js';
import type { PlanKind } from '../kind.js';
import { notRead } from '../reads.js';
import { anyLive } from '../review.js';
import { scopeTest } from '../scope.js';
import type { AdGroupRef, AdGroupUnlink, PlanProblem } from '../types.js';
import { quoted } from '../../model/index.js';

/**
 * The links between ad groups and audiences. The API can only release an ad group from an
 * audience (unlink), never link one: an audience that declares `adGroups` loses the other ad
 * groups, an audience deleted with prune loses all of them first, and a declared ad group
 * that does not use the audience is a warning.
 */
export const adGroupLinkKind: PlanKind<'adGroupLink'> = {
  kind: 'adGroupLink',
  plan: ({ desired, live, identities, options }) => {
    const changes: AdGroupUnlink[] = [];
    const errors: PlanProblem[] = [];
    const notLinked: Array<{ audience: DesiredAudience; adGroupIds: Long[] }> = [];
    for (const audience of identities.missing) {
      if (audience.adGroups && audience.adGroups.length > 0)
        notLinked.push({ audience, adGroupIds: audience.adGroups });
    }
    for (const { desired: audience, live: summary } of identities.matched) {
      const links = readableLinks(live, summary.id);
      if (!audience.adGroups || !links) continue;
      const declaredIds = new Set(audience.adGroups);
      const extra = links.filter((link) => !declaredIds.has(link.adGroupId));
      const absent = audience.adGroups.filter((id) => !links.some((link) => link.adGroupId === id));
      if (absent.length > 0) notLinked.push({ audience, adGroupIds: absent });
      const glob = identities.protectedBy.get(summary.id);
      const unlinked = `ad group${plural(extra)} ${extra.map((link) => link.adGroupId).join(', ')} would be unlinked from it`;
      if (extra.length > 0 && audience.protect) {
        errors.push({
          code: 'PROTECTED',
          name: audience.key,
          message: `audience ${quoted(audience.key)} is protected, but ${unlinked}`,
          hint: 'add the ad groups to its `adGroups`, or remove `protect: true` to allow the unlink',
        });
      } else if (extra.length > 0 && glob !== undefined) {
        errors.push({
          code: 'PROTECTED',
          name: audience.key,
          message: `audience ${quoted(summary.name)} (id ${summary.id}) is protected by the protect glob ${quoted(glob)}, but ${unlinked}`,
          hint: `add the ad groups to its \`adGroups\`; to allow the unlink, narrow the protect glob ${quoted(glob)} so it leaves the audience out`,
        });
      } else {
        changes.push(...extra.map((link) => unlink(audience.key, summary.id, link, 'not-declared')));
      }
    }
    if (desired.prune) {
      // A protected one is not deleted (the audience kind says why), so its ad groups stay.
      for (const summary of identities.undeclared.filter((candidate) => !identities.protectedBy.has(candidate.id))) {
        changes.push(
          ...(readableLinks(live, summary.id) ?? []).map((link) =>
            unlink(summary.name, summary.id, link, 'audience-deleted'),
          ),
        );
      }
    }
    // One warning for all: a scoped plan names only the audiences in its scope (the planner drops problems by name).
    const inScope = options.scope ? scopeTest(options.scope) : () => true;
    return {
      changes,
      errors,
      warnings: linkMissing(notLinked.filter(({ audience }) => inScope('adGroupLink', [audience.key]))),
    };
  },
  staleReasons: (plan, current) => {
    const byId = new Map(current.audiences.map((summary) => [summary.id, summary]));
    return plan.fingerprint.audiences.flatMap((entry) => {
      const now = byId.get(entry.id);
      const links = current.adGroupIds[String(entry.id)];
      if (!now || entry.adGroupIds === null || links === undefined) return [];
      if (links === null)
        return [
          `audience ${quoted(now.name)} (id ${entry.id}) no longer exists: the service answered 404 (not found) for its ad groups`,
        ];
      if (sameIds(entry.adGroupIds, links)) return [];
      return [
        `the ad groups using audience ${quoted(now.name)} (id ${entry.id}) changed: ${entry.adGroupIds.join(', ') || 'none'} then, ${sortLongs(links).join(', ') || 'none'} now`,
      ];
    });
  },
  // With their audience's changes (see the audience kind), before them, by ad group.
  orderKey: (change) => [
    change.name,
    BigInt(change.id ?? 0),
    0,
    BigInt(change.action === 'unlink' ? change.adGroupId : 0),
  ],
  // For the same reason too: an ad group the change unlinks because it deletes the audience is its own.
  review: (change) => ({ fields: [], live: anyLive([change.before]), effects: [], risks: [] }),
  inconsistencies: (change, read) => {
    const found = [
      ...(change.adGroupId === change.before.adGroupId ? [] : [`it shows ad group ${change.before.adGroupId}`]),
      ...notRead(change.id, read),
    ];
    return found.map(
      (problem) =>
        `the unlink of ad group ${change.adGroupId} from audience ${quoted(change.name)} (id ${change.id}): ${problem}`,
    );
  },
  drift: (change, base) =>
    change.action === 'unlink' &&
    base.action === 'unlink' &&
    change.display.reason === base.display.reason &&
    sameEnds(change, base)
      ? { ...change, drift: true }
      : change,
};

/** The audiences whose links must be read again to check a saved plan. */
export function linksToRecheck(plan: {
  fingerprint: { audiences: Array<{ id: Long; adGroupIds: Long[] | null }> };
}): Long[] {
  return plan.fingerprint.audiences.filter((entry) => entry.adGroupIds !== null).map((entry) => entry.id);
}

/**
 * The ad groups using an audience, by id (the service lists them in no promised order, so
 * plans are stable and read like the unlinks), when they were read and the audience itself
 * could be read (an unreadable audience is an error of the plan, and nothing is planned for it).
 */
export function readableLinks(live: LiveState, id: Long): AdGroupLink[] | undefined {
  const key = String(id);
  const links = live.links[key];
  if (!links || live.unreadable?.[key] !== undefined) return undefined;
  return [...links].sort((a, b) => compareLongs(a.adGroupId, b.adGroupId));
}

export function adGroupRef(link: AdGroupLink): AdGroupRef {
  return {
    adGroupId: link.adGroupId,
    adGroupName: link.adGroupName,
    adGroupStatus: link.adGroupStatus,
    campaignId: link.campaignId,
    campaignName: link.campaignName,
  };
}

function unlink(name: string, id: Long, link: AdGroupLink, reason: AdGroupUnlink['display']['reason']): AdGroupUnlink {
  return {
    action: 'unlink',
    kind: 'adGroupLink',
    name,
    id,
    adGroupId: link.adGroupId,
    before: adGroupRef(link),
    after: null,
    display: { reason },
  };
}

/**
 * One warning for the plan, however many audiences declare ad groups that do not use them: the
 * API cannot link, so the same links would otherwise be a warning per audience on every plan.
 */
function linkMissing(unlinked: Array<{ audience: DesiredAudience; adGroupIds: Long[] }>): PlanProblem[] {
  const hint = 'this API cannot link ad groups: link them in the ad manager, or remove them from `adGroups`';
  const [only, ...others] = unlinked;
  if (!only) return [];
  if (others.length === 0) {
    const { audience, adGroupIds } = only;
    const which = adGroupIds.length === 1 ? 'does' : 'do';
    return [
      {
        code: 'LINK_MISSING',
        name: audience.key,
        message: `audience ${quoted(audience.key)} declares ad group${plural(adGroupIds)} ${adGroupIds.join(', ')}, which ${which} not use it`,
        hint,
      },
    ];
  }
  const list = [...unlinked]
    .sort((a, b) => compareText(a.audience.key, b.audience.key))
    .map(
      ({ audience, adGroupIds }) => `${quoted(audience.key)} (ad group${plural(adGroupIds)} ${adGroupIds.join(', ')})`,
    );
  return [
    {
      code: 'LINK_MISSING',
      message: `${unlinked.length} audiences declare ad groups that do not use them: ${list.join(', ')}`,
      hint,
    },
  ];
}

function sameIds(a: Long[], b: Long[]): boolean {
  const sorted = sortLongs(b);
  return a.length === sorted.length && a.every((id, index) => id === sorted[index]);
}

export function plural(items: readonly unknown[]): string {
  return items.length === 1 ? '' : 's';
}
