import { adGroupLinkSource } from './ad-group-link.js';
import { audienceSource } from './audience.js';
import { businessSource } from './business.js';
import { imageSource } from './image.js';
import type { KindOperations } from './kind.js';

/** The kinds of resource, as the operations read them (src/plan/kinds/ and src/apply/kinds/ have the same kinds). */
export const OPERATION_KINDS: readonly KindOperations[] = [businessSource, adGroupLinkSource, audienceSource, imageSource];
