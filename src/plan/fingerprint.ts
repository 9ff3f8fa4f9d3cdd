import type { LiveAudienceSummary } from '../model/index.js';
import type { Plan } from './types.js';

/** What the account looks like now, as far as a saved plan's fingerprint needs: the list and some links. */
export interface CurrentAccount {
  audiences: LiveAudienceSummary[];
  /** Ad-group ids by audience id, for the audiences whose links the plan recorded. */
  adGroupIds: Record<string, number[]>;
}

/**
 * The audiences the plan knew of when it was made: those it read or touches, and with prune
 * every one of the account. None of them is the audience a create made.
 */
export function knownAudienceIds(plan: Plan): Set<number> {
  return new Set([...plan.fingerprint.audiences.map((entry) => entry.id), ...(plan.fingerprint.accountAudienceIds ?? [])]);
}

/** The audiences whose links must be read again to check a saved plan. */
export function linksToRecheck(plan: Plan): number[] {
  return plan.fingerprint.audiences.filter((entry) => entry.adGroupIds !== null).map((entry) => entry.id);
}

/**
 * Why a saved plan no longer fits the account, or nothing when it still does: an audience it
 * read or touches was modified, deleted or re-linked; a name it creates was taken; with
 * prune, an audience appeared.
 */
export function staleReasons(plan: Plan, current: CurrentAccount): string[] {
  const reasons: string[] = [];
  const byId = new Map(current.audiences.map((summary) => [summary.id, summary]));
  for (const entry of plan.fingerprint.audiences) {
    const now = byId.get(entry.id);
    if (!now) {
      reasons.push(`audience ${entry.id} no longer exists`);
      continue;
    }
    if (now.lastModifiedDate !== entry.lastModifiedDate) {
      reasons.push(`audience "${now.name}" (id ${entry.id}) was modified at ${now.lastModifiedDate}, after the plan read it (${entry.lastModifiedDate})`);
    }
    const links = current.adGroupIds[String(entry.id)];
    if (entry.adGroupIds !== null && links && !sameIds(entry.adGroupIds, links)) {
      reasons.push(`the ad groups using audience "${now.name}" (id ${entry.id}) changed: ${entry.adGroupIds.join(', ') || 'none'} then, ${[...links].sort((a, b) => a - b).join(', ') || 'none'} now`);
    }
  }
  // A name the plan creates may still be held by an audience it read (one it renames away
  // from that name: any edit of it since shows in its date), never by any other.
  const read = new Set(plan.fingerprint.audiences.map((entry) => entry.id));
  for (const change of plan.changes) {
    if (change.action !== 'create') continue;
    const taken = current.audiences.find((summary) => summary.name === change.name && !read.has(summary.id));
    if (taken) reasons.push(`an audience named "${change.name}" now exists (id ${taken.id}), which the plan would create again`);
  }
  if (plan.fingerprint.accountAudienceIds) {
    const known = new Set(plan.fingerprint.accountAudienceIds);
    const added = current.audiences.filter((summary) => !known.has(summary.id));
    if (added.length > 0) reasons.push(`audience${added.length === 1 ? '' : 's'} ${added.map((summary) => `"${summary.name}" (id ${summary.id})`).join(', ')} appeared since the plan, which prunes`);
  }
  return reasons;
}

function sameIds(a: number[], b: number[]): boolean {
  const sorted = [...b].sort((x, y) => x - y);
  return a.length === sorted.length && a.every((id, index) => id === sorted[index]);
}
