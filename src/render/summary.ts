import { scopeText, type ChangeAction, type EstimatedRequests, type Plan, type PlanProblem } from '../plan/index.js';
import type { ActionWords } from './kind.js';
import { SHOWN_KINDS } from './kinds/index.js';
import { visible } from '../model/index.js';

/**
 * `2 to create, 1 to update, …`: the counts every view shows, kind by kind, zero counts of the actions a kind says only
 * when some are left out.
 */
export function summaryText(plan: Plan): string {
  return SHOWN_KINDS.flatMap((renderer) =>
    Object.entries<ActionWords>(renderer.actions).flatMap(([action, words]) => {
      const n = actionCount(plan, action as ChangeAction);
      return n > 0 || words.always ? [`${n} ${words.summary}`] : [];
    }),
  ).join(', ');
}

/** How many changes of an action the plan counts (an action is one kind's: see ActionsAreOneKinds). */
export function actionCount(plan: Plan, action: ChangeAction): number {
  return plan.summary[action] ?? 0;
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}

/**
 * What a plan without changes says. With errors (a duplicate name, a blocked unlink) the
 * account was not fully compared, so it must not claim that the account matches.
 */
export function noChangesText(plan: Plan): string {
  // A partial plan saw only its scope: it never claims the account matches the rest of the file.
  if (plan.partial && plan.errors.length === 0)
    return `No changes within the scope: ad account ${plan.adAccountId} matches the desired state there.`;
  return plan.errors.length === 0
    ? `No changes: ad account ${plan.adAccountId} matches the desired state.`
    : `No changes planned: ad account ${plan.adAccountId} cannot be brought to the desired state until the errors are resolved.`;
}

/** `[CODE]: message`, after `error` or `warning`: the one form of every error of the command line. */
export function problemText(problem: PlanProblem): string {
  return `[${problem.code}]: ${visible(problem.message)}`;
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * What a partial plan says first, in every view: it holds only what its scope covers, and the rest of the file and the
 * account is neither planned nor pruned (a saved one applies only what it holds).
 */
export function partialText(plan: Plan): string | undefined {
  if (!plan.scope) return undefined;
  return `Partial plan (${scopeText(plan.scope)}): only the changes within this scope; the rest of the file and the account is not planned, and nothing outside the scope is deleted`;
}

const ESTIMATED: ReadonlyArray<[keyof EstimatedRequests, string, string]> = [
  ['check', 'to check the plan', 'to check the plan'],
  ['unlink', 'unlink', 'unlinks'],
  ['create', 'create', 'creates'],
  ['update', 'update', 'updates'],
  ['delete', 'batch delete', 'batch deletes'],
  ['generate', 'image generation', 'image generations'],
  ['download', 'image download', 'image downloads'],
  ['verify', 'to verify', 'to verify'],
];

/**
 * `Apply: 9 requests (3 to check the plan, 2 creates, …); at 5 requests per second, at least 1.6 s`: what the
 * plan's apply asks of the services. Nothing for a plan without changes (its apply only checks the plan, and the
 * line would say more than the plan), one with errors (it is never applied) or without an estimate (saved by an
 * earlier version).
 */
export function estimateText(plan: Plan): string | undefined {
  const { estimate } = plan;
  if (!estimate || !hasChanges(plan) || plan.errors.length > 0) return undefined;
  const parts = ESTIMATED.flatMap(([key, one, many]) => {
    const n = estimate.requests[key];
    return n === 0 ? [] : [`${n} ${n === 1 ? one : many}`];
  });
  const time =
    estimate.requestsPerSecond === undefined || estimate.leastSeconds === undefined
      ? ''
      : `; at ${estimate.requestsPerSecond} requests per second, at least ${estimate.leastSeconds} s`;
  return `Apply: ${count(estimate.total, 'request')} (${parts.join(', ')})${time}`;
}
