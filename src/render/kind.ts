import type { KindName } from '../model/index.js';
import type { ActionOf, ChangeOf, ChangeResult } from '../plan/index.js';
import type { Block } from './block.js';

/**
 * How the counts of a plan and of a review speak of one action: `2 to create`; an action that destroys, `deletes 2
 * audiences`.
 */
export interface ActionWords {
  /** After the count in the plan's summary: `to create`. */
  summary: string;
  /**
   * Said with a zero count too (the audiences' and links' actions always are; the images' only when there are some).
   */
  always: boolean;
  /** The verb of an action a reviewer must not miss, counted in the noun of its kind: `deletes` (2 audiences). */
  destroys?: string;
}

/**
 * A kind of resource, as rendering sees it: the words of its actions (in the order its counts
 * are said), its noun, its changes as display rows, and a change's result as the apply tells it.
 */
export interface KindRenderer<K extends KindName = KindName> {
  actions: { readonly [A in ActionOf<K>]: ActionWords };
  /** What a destroying action counts: `audience` (deletes 2 audiences), `ad group` (unlinks 1 ad group). */
  noun: string;
  block(change: ChangeOf<K>): Omit<Block, 'fields' | 'marks'>;
  /** A change's result in the apply's lines, its name quoted: `create audience "a" (id 101)`. */
  describe(result: ChangeResult, name: string): string;
  /** The files a change deletes, each listed in the comment (never folded). */
  deletes?(change: ChangeOf<K>): string[];
}

/**
 * The renderer of every kind, by kind: null for a kind that has no changes (the business, shown in the plan's header).
 */
export type RenderKinds = { readonly [K in KindName]: [ChangeOf<K>] extends [never] ? null : KindRenderer<K> };
