import type { Plan, PlanProblem } from '../plan/index.js';
import { visible } from '../model/index.js';

/** `2 to create, 1 to update, …`: the counts every view shows, zero counts of image actions left out. */
export function summaryText(plan: Plan): string {
  const { create, update, delete: deletes, unlink, generate, move, remove } = plan.summary;
  const parts = [`${create} to create`, `${update} to update`, `${deletes} to delete`, `${unlink} to unlink`];
  if (generate > 0) parts.push(`${generate} to generate`);
  if (move !== undefined && move > 0) parts.push(`${move} to move`);
  if (remove > 0) parts.push(`${remove} to remove`);
  return parts.join(', ');
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}

/**
 * What a plan without changes says. With errors (a duplicate name, a blocked unlink) the
 * account was not fully compared, so it must not claim that the account matches.
 */
export function noChangesText(plan: Plan): string {
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
