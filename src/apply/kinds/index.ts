import { inKindOrder } from '../../model/index.js';
import type { ApplyKind, ApplyKinds } from '../kind.js';
import { adGroupLinkKind } from './ad-group-link.js';
import { audienceKind } from './audience.js';
import { imageKind } from './image.js';

/**
 * The kinds with changes to apply, by name: one for every kind of KINDS that has changes (the
 * compiler asks for a missing one; the business is a precondition of the plan and changes
 * nothing). Applied in the order of KINDS: the ad groups are released before an audience
 * changes or goes, the images come last.
 */
export const APPLY_KINDS: ApplyKinds = {
  business: null,
  adGroupLink: adGroupLinkKind,
  audience: audienceKind,
  image: imageKind,
};

export const APPLY_KINDS_IN_ORDER: readonly ApplyKind[] = inKindOrder<ApplyKind>(APPLY_KINDS);
