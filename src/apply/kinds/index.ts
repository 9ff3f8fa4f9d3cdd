import type { ApplyKind } from '../kind.js';
import { adGroupLinkKind } from './ad-group-link.js';
import { audienceKind } from './audience.js';
import { imageKind } from './image.js';

/**
 * The kinds with changes to apply, in the order they are applied: the ad groups are released
 * before an audience changes or goes, the images come last. (The business is a precondition of
 * the plan and changes nothing.)
 */
export const APPLY_KINDS: readonly ApplyKind[] = [adGroupLinkKind, audienceKind, imageKind];
