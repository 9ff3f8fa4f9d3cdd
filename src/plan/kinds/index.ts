import { inKindOrder } from '../../model/index.js';
import type { Change } from '../types.js';
import type { PlanKind, PlanKinds } from '../kind.js';
import { NOTHING_TO_REVIEW, type ChangeReview } from '../review.js';
import { adGroupLinkKind } from './ad-group-link.js';
import { audienceKind } from './audience.js';
import { businessKind } from './business.js';
import { imageKind } from './image.js';

/**
 * The kinds of resource a plan covers, each by its name: one for every kind of KINDS (the
 * compiler asks for a missing one). They are planned in the order of KINDS, and each sees the
 * changes of those before it (an audience's update sees the ad groups unlinked from it).
 */
export const PLAN_KINDS: PlanKinds = {
  business: businessKind,
  adGroupLink: adGroupLinkKind,
  audience: audienceKind,
  image: imageKind,
};

export const PLAN_KINDS_IN_ORDER: readonly PlanKind[] = inKindOrder<PlanKind>(PLAN_KINDS);

/** The planner of a change's kind. */
export function planKindOf(change: Change): PlanKind {
  return PLAN_KINDS[change.kind] as PlanKind;
}

/**
 * What a reviewer must see of a change at a glance, derived from the change alone (so a saved plan shows the same), by
 * its kind.
 */
export function reviewChange(change: Change): ChangeReview {
  return planKindOf(change).review?.(change) ?? NOTHING_TO_REVIEW;
}
