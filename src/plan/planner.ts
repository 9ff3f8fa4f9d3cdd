import { compareText, type DesiredState, type LiveState } from '../model/index.js';
import { PLAN_FORMAT_VERSION } from './format.js';
import { matchIdentities } from './identity.js';
import type { CurrentState, KindPlan, OrderKey, PlanOptions } from './kind.js';
import { PLAN_KINDS } from './kinds/index.js';
import { missingReadError, missingReads } from './reads.js';
import { serviceChecks } from './service-checks.js';
import type { Change, Fingerprint, Plan, PlanProblem, PlanSummary } from './types.js';

/**
 * desired + live → plan, as a pure function: each kind of resource plans its share, in the
 * order of the registry. `live` must hold what `neededReads` asks for (checked first).
 */
export function planAccount(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const identities = matchIdentities(desired, live.audiences);
  const missing = missingReads(desired, live, identities);
  if (missing.length > 0) throw missingReadError(missing);
  const planned: Change[] = [];
  const errors: PlanProblem[] = [...identities.errors];
  const warnings: PlanProblem[] = [...identities.warnings];
  let fingerprint: Fingerprint = { desiredHash: desired.source.hash, audiences: [], accountAudienceIds: null };
  let header: KindPlan['header'] = {};
  for (const kind of PLAN_KINDS) {
    const part = kind.plan({ desired, live, options, identities, planned });
    planned.push(...part.changes);
    errors.push(...part.errors);
    warnings.push(...part.warnings);
    fingerprint = { ...fingerprint, ...part.fingerprint };
    header = { ...header, ...part.header };
  }
  const changes = orderChanges(planned);
  const { business, imageDir, imageHome } = header;
  const checks = serviceChecks(changes);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    adAccountId: desired.adAccountId,
    ...(business ? { business } : {}),
    changes,
    warnings: sortProblems(warnings),
    errors: sortProblems(errors),
    ...(checks.length > 0 ? { serviceChecks: checks } : {}),
    summary: summarize(changes),
    fingerprint,
    ...(imageDir === undefined ? {} : { imageDir }),
    ...(imageHome === undefined ? {} : { imageHome }),
  };
}

/** Why a saved plan no longer fits the account and the local files, kind by kind; nothing when it still does. */
export function staleReasons(plan: Plan, current: CurrentState): string[] {
  return PLAN_KINDS.flatMap((kind) => kind.staleReasons(plan, current));
}

/**
 * The changes whose kind gives an order key, sorted by it (an audience's own change and its
 * ad groups' unlinks by audience name, the unlinks first); then the others, in the order their
 * kind planned them (images: sources first).
 */
function orderChanges(changes: Change[]): Change[] {
  const keyOf = new Map(PLAN_KINDS.map((kind) => [kind.kind, kind.orderKey]));
  const keyed = changes.flatMap((change) => {
    const key = keyOf.get(change.kind)?.(change);
    return key ? [{ change, key }] : [];
  });
  const sorted = keyed.sort((a, b) => compareKeys(a.key, b.key)).map((entry) => entry.change);
  const ordered = new Set(sorted);
  return [...sorted, ...changes.filter((change) => !ordered.has(change))];
}

function compareKeys(a: OrderKey, b: OrderKey): number {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const x = a[index] ?? 0;
    const y = b[index] ?? 0;
    const order = typeof x === 'string' || typeof y === 'string' ? compareText(String(x), String(y)) : x < y ? -1 : x > y ? 1 : 0;
    if (order !== 0) return order;
  }
  return 0;
}

function sortProblems(problems: PlanProblem[]): PlanProblem[] {
  return [...problems].sort((a, b) => compareText(a.code, b.code) || compareText(a.name ?? '', b.name ?? '') || compareText(a.message, b.message));
}

/** How many changes of each action; `move` only when there are some, so a plan without moves reads as it always did. */
export function summarize(changes: Change[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, unlink: 0, generate: 0, remove: 0 };
  for (const change of changes) summary[change.action] = (summary[change.action] ?? 0) + 1;
  return summary;
}
