import { jsonEqual, parseNameGlob, quoted, type JsonValue } from '../model/index.js';
import { planKindOf } from './kinds/index.js';
import { summarize } from './planner.js';
import { scopeTest, scopeText, withinScope } from './scope.js';
import type { Change, Plan, PlanScope } from './types.js';

/**
 * What a plan says of itself that its changes do not bear out, as a plan edited by hand or
 * damaged would: `planAccount` never makes one. The summary and what each change shows people
 * (its name, an update's fields) are derived from what the applier reads (the action, the ids,
 * `before` and `after`) again, and an audience a change names by id must be one the plan read.
 * `show` and the apply's lines would otherwise say one thing while the apply does another. Each
 * kind checks its own changes (PlanKind.inconsistencies).
 */
export function inconsistencies(plan: Plan): string[] {
  const read = new Set(plan.fingerprint.audiences.map((entry) => entry.id));
  const found = plan.changes.flatMap((change) => planKindOf(change).inconsistencies?.(change, read) ?? []);
  if (plan.scope) found.push(...scopeInconsistencies(plan.changes, plan.scope));
  const summary = summarize(plan.changes);
  if (!jsonEqual(summary as unknown as JsonValue, plan.summary as unknown as JsonValue)) {
    found.push(`its summary (${JSON.stringify(plan.summary)}) does not count its changes (${JSON.stringify(summary)})`);
  }
  return found;
}

/**
 * A partial plan's scope that is no scope (a glob the command line would refuse), or a change it holds outside it: the
 * plan says it leaves out what it would do.
 */
function scopeInconsistencies(changes: Change[], scope: PlanScope): string[] {
  const bad = [...scope.targets, ...scope.excludes].filter((glob) => !parseNameGlob(glob).ok);
  if (bad.length > 0) return bad.map((glob) => `its scope's glob ${quoted(glob)} is not a name glob`);
  const within = new Set(withinScope(changes, scopeTest(scope), scope));
  return changes
    .filter((change) => !within.has(change))
    .map((change) => `the ${change.action} of ${quoted(change.name)} is outside its scope (${scopeText(scope)})`);
}
