import { inKindOrder } from '../../model/index.js';
import { adGroupLinkSource } from './ad-group-link.js';
import { audienceSource } from './audience.js';
import { businessSource } from './business.js';
import { imageSource } from './image.js';
import type { KindOperations, OperationKinds } from './kind.js';

/**
 * The kinds of resource as the operations read them, by name: one for every kind of KINDS (the compiler asks for a
 * missing one).
 */
export const OPERATION_KINDS: OperationKinds = {
  business: businessSource,
  adGroupLink: adGroupLinkSource,
  audience: audienceSource,
  image: imageSource,
};

/** The same, in the order of KINDS. */
export const OPERATION_KINDS_IN_ORDER: readonly KindOperations[] = inKindOrder<KindOperations>(OPERATION_KINDS);
