import { compareText, type DesiredState, type LiveState } from '../model/index.js';
import { matchIdentities } from './identity.js';
import type { CurrentState, PlanKind, PlanOptions } from './kind.js';
import { PLAN_KINDS } from './kinds/index.js';
import { missingReadError, missingReads } from './reads.js';
import type { Change, Fingerprint, Plan, PlanBusiness, PlanProblem, PlanSummary } from './types.js';

/**
 * desired + live → plan, as a pure function: each kind of resource plans its share, in the
 * order of the registry. `live` must hold what `neededReads` asks for (checked first).
 */
export function planAccount(desired: DesiredState, live: LiveState, options: PlanOptions, kinds: readonly PlanKind[] = PLAN_KINDS): Plan {
  const missing = missingReads(desired, live);
  if (missing.length > 0) throw missingReadError(missing);
  const identities = matchIdentities(desired, live.audiences);
  const planned: Change[] = [];
  const errors: PlanProblem[] = [...identities.errors];
  const warnings: PlanProblem[] = [];
  let fingerprint: Fingerprint = { desiredHash: desired.source.hash, audiences: [], accountAudienceIds: null };
  let business: PlanBusiness | undefined;
  let imageDir: string | undefined;
  for (const kind of kinds) {
    const part = kind.plan({ desired, live, options, identities, planned });
    planned.push(...part.changes);
    errors.push(...part.errors);
    warnings.push(...part.warnings);
    fingerprint = { ...fingerprint, ...part.fingerprint };
    business ??= part.business;
    imageDir ??= part.imageDir;
  }
  const changes = orderChanges(planned);
  return {
    formatVersion: 1,
    adAccountId: desired.adAccountId,
    ...(business ? { business } : {}),
    changes,
    warnings: sortProblems(warnings),
    errors: sortProblems(errors),
    summary: summarize(changes),
    fingerprint,
    ...(imageDir === undefined ? {} : { imageDir }),
  };
}

/** Why a saved plan no longer fits the account and the local files, kind by kind; nothing when it still does. */
export function staleReasons(plan: Plan, current: CurrentState, kinds: readonly PlanKind[] = PLAN_KINDS): string[] {
  return kinds.flatMap((kind) => kind.staleReasons(plan, current));
}

const ACTION_RANK: Partial<Record<Change['action'], number>> = { unlink: 0, create: 1, update: 1, delete: 2 };

/**
 * The changes that concern an audience (its own and its ad groups' unlinks) by audience name,
 * and for one audience its unlinks (by ad group) before the change they enable; the other
 * kinds' changes follow in the order their kind planned them (images: sources first).
 */
function orderChanges(changes: Change[]): Change[] {
  const concernsAudience = (change: Change) => change.kind === 'audience' || change.kind === 'adGroupLink';
  const byAudience = changes.filter(concernsAudience).sort(
    (a, b) =>
      compareText(a.name, b.name) ||
      (a.id ?? 0) - (b.id ?? 0) ||
      (ACTION_RANK[a.action] ?? 0) - (ACTION_RANK[b.action] ?? 0) ||
      (a.action === 'unlink' && b.action === 'unlink' ? a.adGroupId - b.adGroupId : 0),
  );
  return [...byAudience, ...changes.filter((change) => !concernsAudience(change))];
}

function sortProblems(problems: PlanProblem[]): PlanProblem[] {
  return [...problems].sort((a, b) => compareText(a.code, b.code) || compareText(a.name ?? '', b.name ?? '') || compareText(a.message, b.message));
}

function summarize(changes: Change[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, unlink: 0, generate: 0, remove: 0 };
  for (const change of changes) summary[change.action] += 1;
  return summary;
}
