/**
 * Planning: pure functions from the desired and live states to a plan of plain JSON data,
 * and the types of the plan and of its outcome (the results of applying it). No I/O, no
 * network, no clock (the lint enforces it).
 */
export { planAccount, staleReasons } from './planner.js';
export type { ActionOf, ChangeOf, CurrentParts, CurrentState, PlanBase, PlanOptions } from './kind.js';
export { neededReads, neededReadsOfAll, type NeededReads } from './reads.js';
export { DEFAULT_MASS_DELETE, type MassDeleteThreshold } from './safety.js';
export type * from './types.js';
export { knownAudienceIds, rereadIds } from './kinds/audience.js';
export { linksToRecheck } from './kinds/ad-group-link.js';
export { diffDefinition } from './diff.js';
export type { ChangeReview, Criterion, CriterionEffect, Risk } from './review.js';
export { reviewChange } from './kinds/index.js';
export { inconsistencies } from './consistency.js';
export { SCOPE_KINDS, scopeText } from './scope.js';
export { PLAN_FORMAT_VERSION, upgradeProblem, upgradeSavedPlan } from './format.js';
export type * from './results.js';
