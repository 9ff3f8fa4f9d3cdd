import { compareText, type DesiredState, type KindName, type LiveState } from '../model/index.js';
import { baseNotPlanned, comparedBase, markDrift } from './drift.js';
import { estimateRequests } from './estimate.js';
import { PLAN_FORMAT_VERSION } from './format.js';
import { matchIdentities } from './identity.js';
import type { CurrentState, OrderKey, PlanHeader, PlanOptions } from './kind.js';
import { PLAN_KINDS_IN_ORDER } from './kinds/index.js';
import { missingReadError, missingReads } from './reads.js';
import { serviceChecks } from './service-checks.js';
import { coversKind, problemInScope, scopeTest, unmatchedTargets, withinScope } from './scope.js';
import type { Change, Fingerprint, Plan, PlanProblem, PlanScope, PlanSummary } from './types.js';

/**
 * desired + live → plan, as a pure function: each kind of resource plans its share, in the
 * order of the registry. `live` must hold what `neededReads` asks for (checked first). With a
 * base (`options.base`), the base is planned against the same live state too, and each change
 * it makes as well is marked as drift (see markDrift).
 */
export function planAccount(desired: DesiredState, live: LiveState, options: PlanOptions): Plan {
  const { planned, errors, warnings, fingerprint, header } = planKinds(desired, live, options);
  const { base } = options;
  if (base && 'problem' in base) warnings.push(baseNotPlanned(base));
  const ordered = orderChanges(planned);
  // The base's own errors (a guard, a rule) only leave changes out of its plan: fewer are marked.
  const changes =
    base && 'desired' in base
      ? markDrift(
          ordered,
          planKinds(comparedBase(base.desired, desired), live, { allowMassDelete: true }).planned,
          PLAN_KINDS_IN_ORDER,
        )
      : ordered;
  const { business, imageDir, imageHome, previews } = header;
  const checks = serviceChecks(changes);
  const { scope } = options;
  if (scope) warnings.push(...unmatchedTargets(scope, namesOf(desired, live), desired.adAccountId));
  const plan: Plan = {
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
    ...(previews === undefined ? {} : { previews }),
    ...(scope ? { partial: true as const, scope } : {}),
    // Kept in the plan, not read again from the files at its apply: a saved plan is the whole of what is applied.
    ...(desired.requestsPerSecond === undefined ? {} : { requestsPerSecond: desired.requestsPerSecond }),
  };
  // The command line's rate, every service's, wins over the file's, the audience API's alone.
  const rate =
    options.requestsPerSecond !== undefined
      ? { requestsPerSecond: options.requestsPerSecond, audienceOnly: false }
      : desired.requestsPerSecond === undefined
        ? undefined
        : { requestsPerSecond: desired.requestsPerSecond, audienceOnly: true };
  return { ...plan, estimate: estimateRequests(plan, rate, options.appliedAtOnce !== true) };
}

/** Every name a target may mean: the file's audiences and images, the account's audiences, the lock's images. */
function namesOf(desired: DesiredState, live: LiveState): string[] {
  return [
    ...desired.audiences.map((audience) => audience.key),
    ...(desired.images ?? []).map((image) => image.key),
    ...live.audiences.map((summary) => summary.name),
    ...Object.keys(live.images?.lock.images ?? {}),
  ];
}

/** Each kind's share of the plan, in the order of the registry, unordered. */
function planKinds(desired: DesiredState, live: LiveState, options: PlanOptions) {
  const identities = matchIdentities(desired, live.audiences);
  const missing = missingReads(desired, live, identities);
  if (missing.length > 0) throw missingReadError(missing);
  const within = scoping(options.scope);
  const planned: Change[] = [];
  const errors: PlanProblem[] = within.problems('audience', identities.errors);
  const warnings: PlanProblem[] = within.problems('audience', identities.warnings);
  let fingerprint: Fingerprint = { desiredHash: desired.source.hash, audiences: [], accountAudienceIds: null };
  let header: Partial<PlanHeader> = {};
  for (const kind of PLAN_KINDS_IN_ORDER) {
    // Each kind sees only the changes in scope of those before it: an update out of an unlink's scope keeps its ad group.
    const part = kind.plan({ desired, live, options, identities, planned });
    const scopeKind = kind.kind === 'business' ? null : kind.kind;
    planned.push(...within.changes(part.changes));
    errors.push(...within.problems(scopeKind, part.errors));
    warnings.push(...within.problems(scopeKind, part.warnings));
    // A kind the scope leaves out records nothing a saved plan is checked against (an image file edited since).
    if (within.covers(scopeKind)) fingerprint = { ...fingerprint, ...part.fingerprint };
    header = { ...header, ...part.header };
  }
  return { planned, errors, warnings, fingerprint, header };
}

/** What a scope keeps of each kind's share of the plan; without a scope, everything. */
function scoping(scope: PlanScope | undefined) {
  if (!scope)
    return {
      changes: (changes: Change[]) => changes,
      problems: (_kind: KindName | null, problems: PlanProblem[]) => [...problems],
      covers: (_kind: KindName | null) => true,
    };
  const inScope = scopeTest(scope);
  const covers = (kind: KindName | null) => kind === null || coversKind(scope, kind);
  return {
    changes: (changes: Change[]) => withinScope(changes, inScope, scope),
    // The business is every kind's precondition: its problems are always the plan's.
    problems: (kind: KindName | null, problems: PlanProblem[]) =>
      kind === null ? [...problems] : problems.filter((problem) => problemInScope(kind, problem, inScope, scope)),
    // The audiences' reads record the links too: an unlink's plan is checked against them.
    covers: (kind: KindName | null) => covers(kind) || (kind === 'audience' && covers('adGroupLink')),
  };
}

/** Why a saved plan no longer fits the account and the local files, kind by kind; nothing when it still does. */
export function staleReasons(plan: Plan, current: CurrentState): string[] {
  return PLAN_KINDS_IN_ORDER.flatMap((kind) => kind.staleReasons(plan, current));
}

/**
 * The changes whose kind gives an order key, sorted by it (an audience's own change and its
 * ad groups' unlinks by audience name, the unlinks first); then the others, in the order their
 * kind planned them (images: sources first).
 */
function orderChanges(changes: Change[]): Change[] {
  const keyOf = new Map(PLAN_KINDS_IN_ORDER.map((kind) => [kind.kind, kind.orderKey]));
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
    const order =
      typeof x === 'string' || typeof y === 'string' ? compareText(String(x), String(y)) : x < y ? -1 : x > y ? 1 : 0;
    if (order !== 0) return order;
  }
  return 0;
}

function sortProblems(problems: PlanProblem[]): PlanProblem[] {
  return [...problems].sort(
    (a, b) =>
      compareText(a.code, b.code) || compareText(a.name ?? '', b.name ?? '') || compareText(a.message, b.message),
  );
}

/** How many changes of each action; `move` only when there are some, so a plan without moves reads as it always did. */
export function summarize(changes: Change[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0, unlink: 0, generate: 0, remove: 0 };
  for (const change of changes) summary[change.action] = (summary[change.action] ?? 0) + 1;
  return summary;
}
