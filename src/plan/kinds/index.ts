import type { PlanKind } from '../kind.js';
import { adGroupLinkKind } from './ad-group-link.js';
import { audienceKind } from './audience.js';
import { businessKind } from './business.js';
import { imageKind } from './image.js';

/**
 * The kinds of resource a plan covers, in the order they are planned: each sees the changes
 * of those before it (an audience's update sees the ad groups unlinked from it). Adding a kind
 * is a file here, one in src/apply/kinds/ and src/operations/kinds/, and a line in each registry.
 */
export const PLAN_KINDS: readonly PlanKind[] = [businessKind, adGroupLinkKind, audienceKind, imageKind];
