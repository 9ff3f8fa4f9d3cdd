import type { Company, DesiredState, LiveAudience, LiveAudienceSummary, LiveState, Long } from '../model/index.js';
import type { Identities } from './identity.js';
import type { Change, Fingerprint, Plan, PlanProblem } from './types.js';

export interface PlanOptions {
  allowMassDelete: boolean;
  /** The file as it was at a git ref (`plan --base REF`): see PlanBase. Without it, nothing is compared. */
  base?: PlanBase | undefined;
}

/**
 * The file at the base of the change under review: planned against the same live state, so that
 * a change it makes too is marked as reverting a change made outside the tool, and its
 * mass-delete guard is the floor of the file's. `problem`: it could not be planned (not valid,
 * another ad account), which the plan says. `absent`: the ref holds no such file (a new file,
 * or one renamed), so every change is the change's own. Without a file at the base to compare
 * with, the default guard is the floor: a change cannot loosen its guard by moving the file.
 */
export type PlanBase = { ref: string; desired: DesiredState } | { ref: string; problem: string } | { ref: string; absent: true };

/** What each kind plans from: both states, the audiences' identities, and the changes of the kinds planned before it. */
export interface PlanInput {
  desired: DesiredState;
  live: LiveState;
  options: PlanOptions;
  identities: Identities;
  /** The changes of the kinds before this one in the registry (an audience's update sees the ad groups unlinked from it). */
  planned: readonly Change[];
}

/** One kind's share of a plan. */
export interface KindPlan {
  changes: Change[];
  errors: PlanProblem[];
  warnings: PlanProblem[];
  /** What this kind read, so that a saved plan can be refused once it is no longer true. */
  fingerprint?: Partial<Omit<Fingerprint, 'desiredHash'>>;
  /** Its part of the plan's header (the business as the lookup found it; where image paths start, and how a saved plan finds it). */
  header?: Partial<Pick<Plan, 'business' | 'imageDir' | 'imageHome'>>;
}

/**
 * Where a change sorts among the changes of every kind that gives one (by name, then by number;
 * an id as a bigint, its Long's number); changes without one keep their kind's order, after them.
 */
export type OrderKey = Array<string | number | bigint>;

/**
 * The account and the local files as they are when a saved plan is applied: what each kind
 * compares with what the plan recorded. A part that was not read is absent.
 */
export interface CurrentState {
  audiences: LiveAudienceSummary[];
  /**
   * Ad-group ids by audience id, for the audiences whose links the plan recorded and that the
   * list still has; null when the service answered 404 for them (the audience deleted since).
   */
  adGroupIds: Record<string, Long[] | null>;
  /** The audiences the plan updates whose modification date is unchanged, read again (see `rereadIds`): their definitions and what the file cannot hold. */
  reread?: Record<string, Pick<LiveAudience, 'definition' | 'unmodelled'>>;
  /** The business registered under the plan's number now, when the plan has one and a lookup was possible. */
  business?: Company | null;
  /** The lock's hash and each image file the plan recorded, by path (null: absent). */
  images?: { lockHash: string | null; files: Record<string, string | null> };
}

/**
 * A kind of resource, as planning sees it: how its desired and live states become changes
 * and problems, and what makes a saved plan stale for it. Pure: reading is the operations'
 * job (src/operations/kinds/), applying the applier's (src/apply/kinds/).
 */
export interface PlanKind {
  kind: 'business' | 'adGroupLink' | 'audience' | 'image';
  plan(input: PlanInput): KindPlan;
  staleReasons(plan: Plan, current: CurrentState): string[];
  /** Where its changes sort, when they interleave with another kind's (an audience's unlinks come before its delete). */
  orderKey?(change: Change): OrderKey;
  /**
   * `change` marked as drift when `base`, the base's change of the same kind, action, id, name
   * and ad group (see markDrift), does the same: it reverts a change made outside the tool.
   * Only the kinds of the account have it: a change of a local file (an image) is the
   * checkout's, never the ad manager's.
   */
  drift?(change: Change, base: Change): Change;
}
