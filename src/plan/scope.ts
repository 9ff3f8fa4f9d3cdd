import { nameMatcher, quoted, type KindName } from '../model/index.js';
import type { Change, ImageGenerate, PlanProblem, PlanScope, ScopeKind } from './types.js';

/** The kinds a scope can name: those with changes (the business is a precondition of every plan, never scoped out). */
export const SCOPE_KINDS: readonly ScopeKind[] = ['audience', 'adGroupLink', 'image'];

/**
 * A scope (`--target`, `--kind`, `--exclude`) as a test of a kind and the names of one thing:
 * within it when its kind is one of `kinds` (none given: every kind), one of its names matches a
 * target (none given: every name) and none matches an exclude. A rename answers to both its names.
 */
export type InScope = (kind: KindName, names: readonly string[]) => boolean;

export function scopeTest(scope: PlanScope): InScope {
  const targeted = scope.targets.length === 0 ? () => true : nameMatcher(scope.targets);
  const excluded = scope.excludes.length === 0 ? () => false : nameMatcher(scope.excludes);
  return (kind, names) => coversKind(scope, kind) && names.some(targeted) && !names.some(excluded);
}

/** Whether a scope covers a kind: it names it, or names no kind. */
export function coversKind(scope: PlanScope, kind: KindName): boolean {
  return scope.kinds.length === 0 || scope.kinds.some((named) => named === kind);
}

/**
 * The kind a change answers to in a scope. An unlink made because its audience is deleted is part
 * of that delete (the service deletes no audience in use): it is in scope exactly when the delete
 * is, so `--kind audience` keeps the unlink-before-delete order and `--kind adGroupLink` never
 * strips an audience of its ad groups for a delete it does not make. The other unlinks (ad groups
 * the file's `adGroups` leave out) are the ad-group link kind's.
 */
export function scopeKindOf(change: Change): KindName {
  return change.action === 'unlink' && change.display.reason === 'audience-deleted' ? 'audience' : change.kind;
}

/** The names a change answers to: its own, and the name an update renames away from. */
export function changeNames(change: Change): string[] {
  return change.action === 'update' && change.before.name !== change.name
    ? [change.name, change.before.name]
    : [change.name];
}

/**
 * The changes within a scope. An image made from another image the plan also makes or moves
 * needs it first: a targeted image brings it along (as Terraform's `-target` brings a
 * resource's dependencies), and an image whose source is left out (excluded, as OpenTofu's
 * `-exclude` leaves out a resource's dependents) is left out too, never made from a stale file.
 */
export function withinScope<C extends Change>(changes: readonly C[], inScope: InScope, scope: PlanScope): C[] {
  const excluded = scope.excludes.length === 0 ? () => false : nameMatcher(scope.excludes);
  const images = new Map(changes.flatMap((change) => (change.kind === 'image' ? [[change.name, change]] : [])));
  const kept = new Set(changes.filter((change) => inScope(scopeKindOf(change), changeNames(change))));
  for (const change of [...kept]) {
    for (const source of sourcesOf(change, images)) if (!excluded(source.name)) kept.add(source);
  }
  let dropped = true;
  while (dropped) {
    dropped = false;
    for (const change of kept) {
      if (sourcesOf(change, images, false).every((source) => kept.has(source))) continue;
      kept.delete(change);
      dropped = true;
    }
  }
  return changes.filter((change) => kept.has(change));
}

/** The changes of the images an image's generate is made from, those of their sources too when `deep`. */
function sourcesOf<C extends Change>(change: C, images: ReadonlyMap<string, C>, deep = true): C[] {
  const found: C[] = [];
  const visit = (current: C): void => {
    if (current.action !== 'generate') return;
    for (const input of Object.values((current as ImageGenerate).after.request.inputs)) {
      const source = input && 'from' in input ? images.get(input.from) : undefined;
      if (!source || found.includes(source) || source === change) continue;
      found.push(source);
      if (deep) visit(source);
    }
  };
  visit(change);
  return found;
}

/**
 * A problem within a scope: one of a kind the scope leaves out, or naming a thing it leaves out,
 * concerns nothing the plan changes (a protected audience out of scope is not deleted). A problem
 * naming nothing of a kind in scope is kept (the mass-delete guard, which counts within the scope).
 */
export function problemInScope(kind: KindName, problem: PlanProblem, inScope: InScope, scope: PlanScope): boolean {
  if (problem.name === undefined) return coversKind(scope, kind);
  return inScope(kind, [problem.name]);
}

/**
 * A `--target` that matches no name of the file or the account plans nothing, as Terraform's
 * `-target` of an address the configuration lacks does: a warning, for the name was most
 * likely mistyped, not an error that would fail a pipeline's scoped run of a name just removed.
 */
export function unmatchedTargets(scope: PlanScope, names: readonly string[], adAccountId: number): PlanProblem[] {
  return scope.targets
    .filter((target) => !names.some(nameMatcher(target)))
    .map((target) => ({
      code: 'TARGET_UNMATCHED',
      message: `--target ${quoted(target)} matches no audience or image of the file or of ad account ${adAccountId}, declared or live: nothing is planned for it`,
      hint: 'a glob matches whole names (`seoul-*`, not `seoul`); `audiences import --ad-account ID` lists the names the account has',
    }));
}

/** The scope as the command line gave it (`--target "a*" --kind audience`), for a line that says the plan is partial. */
export function scopeText(scope: PlanScope): string {
  return [
    ...scope.targets.map((glob) => `--target ${quoted(glob)}`),
    ...scope.kinds.map((kind) => `--kind ${kind}`),
    ...scope.excludes.map((glob) => `--exclude ${quoted(glob)}`),
  ].join(' ');
}
