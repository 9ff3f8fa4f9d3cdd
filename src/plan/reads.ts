import { AppError } from '../errors.js';
import type { DesiredState, LiveAudience, LiveAudienceSummary, LiveState, Long } from '../model/index.js';
import { diffDefinition } from './diff.js';
import { matchIdentities, type Identities } from './identity.js';

/**
 * The read contract between the operations that read the account and the planner: what a
 * plan needs read beyond the account's list. The reader asks it what to fetch; the planner
 * checks with `missingReads` that it was fetched, before it plans anything.
 */
export interface NeededReads {
  /**
   * The audiences the file manages, and with prune those it deletes (a plan shows what it destroys), each to read in
   * full.
   */
  detailIds: Long[];
  /**
   * The audiences whose ad groups are needed whatever their reads say: those with declared `adGroups`, those about to
   * be deleted.
   */
  linkIds: Long[];
  /**
   * Whether the ad groups of `id`, one of `detailIds` and not of `linkIds`, are needed given its
   * full read: they are when the audience is about to change.
   */
  needsLinks(id: Long, detail: LiveAudience): boolean;
}

/**
 * What a plan needs read beyond the account's list. Whether an audience's ad groups are
 * needed can depend on its full read, so it is asked of each read as it arrives (see
 * src/operations/kinds/audience.ts, which starts the link reads while other reads are in flight).
 */
export function neededReads(
  desired: DesiredState,
  list: LiveAudienceSummary[],
  identities: Identities = matchIdentities(desired, list),
): NeededReads {
  const declared = new Map(identities.matched.map((pair) => [pair.live.id, pair.desired]));
  const linkIds = identities.matched.filter((pair) => pair.desired.adGroups).map((pair) => pair.live.id);
  if (desired.prune) linkIds.push(...identities.undeclared.map((summary) => summary.id));
  return {
    detailIds: [
      ...identities.matched.map((pair) => pair.live.id),
      ...(desired.prune ? identities.undeclared.map((summary) => summary.id) : []),
    ],
    linkIds,
    needsLinks: (id, detail) => {
      const audience = declared.get(id);
      return (
        audience !== undefined &&
        !audience.adGroups &&
        diffDefinition(audience.definition, detail.definition).length > 0
      );
    },
  };
}

/**
 * What the plans of several desired states of one account need read (the file and its base, see
 * PlanBase): each audience read once for all of them, its ad groups when any of them needs them.
 */
export function neededReadsOfAll(states: DesiredState[], list: LiveAudienceSummary[]): NeededReads {
  const each = states.map((desired) => neededReads(desired, list));
  const unique = (ids: Long[]): Long[] => [...new Set(ids)];
  return {
    detailIds: unique(each.flatMap((needed) => needed.detailIds)),
    linkIds: unique(each.flatMap((needed) => needed.linkIds)),
    needsLinks: (id, detail) => each.some((needed) => needed.needsLinks(id, detail)),
  };
}

/**
 * What the live state lacks of what `desired` needs read (`identities`: its audiences matched with the live list):
 * empty when the reader kept the contract.
 */
export function missingReads(desired: DesiredState, live: LiveState, identities: Identities): string[] {
  const needed = neededReads(desired, live.audiences, identities);
  const linkIds = new Set(needed.linkIds);
  const missing: string[] = [];
  for (const id of needed.detailIds) {
    const key = String(id);
    if (live.unreadable?.[key] !== undefined) continue;
    const detail = live.details[key];
    if (!detail) missing.push(`the full read of audience ${id}`);
    else if ((linkIds.has(id) || needed.needsLinks(id, detail)) && !live.links[key])
      missing.push(`the ad groups of audience ${id}`);
  }
  if (desired.business && live.business === undefined) missing.push('the business lookup');
  return missing;
}

/** A read the contract promises (checked by `missingReads` before planning): its absence is a bug of the reader. */
export function requireRead<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw missingReadError([what]);
  return value;
}

export function missingReadError(missing: string[]): AppError {
  return new AppError({
    code: 'INTERNAL',
    source: 'internal',
    summary: `the plan was given a live state without ${missing.join(', ')}`,
    hint: 'this is a bug of audiences: please report it with the command you ran',
  });
}

/**
 * A problem of a saved plan's change that names an audience by id (see `inconsistencies`): the plan did not read it.
 */
export function notRead(id: Long, read: ReadonlySet<Long>): string[] {
  return read.has(id) ? [] : [`the plan did not read audience ${id}`];
}
