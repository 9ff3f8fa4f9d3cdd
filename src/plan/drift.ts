import { jsonEqual, type DesiredState, type JsonValue } from '../model/index.js';
import type { PlanBase, PlanKind } from './kind.js';
import type { Change, PlanProblem } from './types.js';

/**
 * Drift, told from the change under review: the file at the base of the change (`plan --base
 * REF`) is planned against the same live state, and a change the base's plan makes too is not
 * an edit of the change under review but a revert of one made outside the tool (in the ad
 * manager), as Terraform's "Objects have changed outside of Terraform" says. Each kind decides
 * what "the same change" is (PlanKind.drift); here, which change of the base it is compared with.
 */
export function markDrift(changes: Change[], base: Change[], kinds: readonly PlanKind[]): Change[] {
  const byKey = new Map(base.map((change) => [changeKey(change), change]));
  const driftOf = new Map(kinds.map((kind) => [kind.kind, kind.drift]));
  return changes.map((change) => {
    const same = byKey.get(changeKey(change));
    const drift = driftOf.get(change.kind);
    return same && drift ? drift(change, same) : change;
  });
}

/**
 * Which change of the base a change is compared with: the one of its kind and action on the same audience (id and name)
 * and ad group (when it names one).
 */
function changeKey(change: Change): string {
  return JSON.stringify([
    change.kind,
    change.action,
    change.id,
    change.name,
    'adGroupId' in change ? change.adGroupId : null,
  ]);
}

/** Whether two changes go from the same value to the same value (`before` and `after`, as JSON). */
export function sameEnds(change: Change, base: Change): boolean {
  return (
    jsonEqual(change.before as unknown as JsonValue, base.before as unknown as JsonValue) &&
    jsonEqual(change.after as unknown as JsonValue, base.after as unknown as JsonValue)
  );
}

/**
 * The base's desired state as it is planned for the comparison: its audiences, links, prune,
 * ignore and protect, with the file's business and images. Neither can drift in the ad manager
 * (the business changes nothing; images are files of the checkout, which holds the file's, not
 * the base's), and so the base's plan needs no read the file's does not make.
 */
export function comparedBase(base: DesiredState, desired: DesiredState): DesiredState {
  return { ...base, business: desired.business, images: desired.images, pruneImages: desired.pruneImages };
}

/** A base that could not be planned: nothing is marked, and the plan says why. */
export function baseNotPlanned(base: Extract<PlanBase, { problem: string }>): PlanProblem {
  return {
    code: 'BASE_NOT_PLANNED',
    message: `the file at ${base.ref} cannot be compared with: ${base.problem}; no change is marked as made outside the tool, and the mass-delete guard is the stricter of the file's and the default`,
    hint: "each change is shown as this change's own: check in the ad manager whether any reverts a change made there",
  };
}
