import type { KindName } from '../../model/index.js';
import type { Change, ChangeAction, ChangeResult } from '../../plan/index.js';
import type { KindRenderer, RenderKinds } from '../kind.js';
import { adGroupLinkRenderer } from './ad-group-link.js';
import { audienceRenderer } from './audience.js';
import { imageRenderer } from './image.js';

/**
 * The renderer of every kind with changes, by name (the compiler asks for a missing one). The
 * order written here is the order their counts are said: `2 to create, …, 1 to unlink, 1 to generate`.
 */
export const RENDER_KINDS: RenderKinds = {
  audience: audienceRenderer,
  adGroupLink: adGroupLinkRenderer,
  image: imageRenderer,
  business: null,
};

/** The renderers in the order their counts are said. */
export const SHOWN_KINDS: ReadonlyArray<KindRenderer> = Object.values(RENDER_KINDS).filter(
  (renderer): renderer is KindRenderer => renderer !== null,
);

/** The renderer of a change's kind. */
export function rendererOf(change: Change): KindRenderer {
  return RENDER_KINDS[change.kind] as KindRenderer;
}

/** Each action's kind (an action is one kind's: see ActionsAreOneKinds), for a result, which names its action alone. */
const KIND_OF_ACTION = new Map(
  Object.entries(RENDER_KINDS).flatMap(([kind, renderer]) =>
    renderer === null ? [] : Object.keys(renderer.actions).map((action) => [action, kind as KindName] as const),
  ),
);

/** The renderer of a result's kind. */
export function rendererOfResult(result: ChangeResult): KindRenderer {
  return RENDER_KINDS[KIND_OF_ACTION.get(result.action) as KindName] as KindRenderer;
}

/** The actions that destroy something, which a reviewer must see first. */
export const DESTRUCTIVE: ReadonlySet<ChangeAction> = new Set(
  SHOWN_KINDS.flatMap((renderer) =>
    Object.entries(renderer.actions).flatMap(([action, words]) =>
      words.destroys === undefined ? [] : [action as ChangeAction],
    ),
  ),
);
