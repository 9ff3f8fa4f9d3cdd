/**
 * Planning: pure functions from the desired and live states to a plan of plain JSON data.
 * No I/O, no network, no clock (the lint enforces it).
 */
export { planAccount, neededReads, type PlanOptions, type NeededReads } from './planner.js';
export { DEFAULT_MASS_DELETE, type MassDeleteThreshold } from './safety.js';
export type * from './types.js';
export { knownAudienceIds, linksToRecheck, staleReasons, type CurrentAccount } from './fingerprint.js';
export { diffDefinition } from './diff.js';
export { planBusiness } from './business.js';
export { planImages, type ImagePlan } from './images.js';
