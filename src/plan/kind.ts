import type {
  Company,
  DesiredState,
  EveryKind,
  ImageLock,
  KindName,
  LiveAudience,
  LiveAudienceSummary,
  LiveState,
  Long,
  Merged,
  PartOf,
} from '../model/index.js';
import type { Identities } from './identity.js';
import type { ChangeReview } from './review.js';
import type {
  AdGroupUnlink,
  AudienceCreate,
  AudienceDelete,
  AudienceUpdate,
  Change,
  Fingerprint,
  ImageGenerate,
  ImageMove,
  ImageRemove,
  Plan,
  PlanProblem,
  PlanScope,
  PlanSummary,
} from './types.js';

export interface PlanOptions {
  allowMassDelete: boolean;
  /** The file as it was at a git ref (`plan --base REF`): see PlanBase. Without it, nothing is compared. */
  base?: PlanBase | undefined;
  /**
   * `--target`, `--kind`, `--exclude`: the plan holds only the changes within it, and neither deletes nor guards
   * anything outside it (see scope.ts). Without it, the whole file and account.
   */
  scope?: PlanScope | undefined;
  /**
   * The rate the apply will be paced at (`--requests-per-second`, which wins over the file's `requestsPerSecond`): the
   * plan's estimate says the least time it takes.
   */
  requestsPerSecond?: number | undefined;
  /**
   * The apply this plan is shown for makes it at once (`apply -f --auto-approve`), having just read the account: its
   * estimate counts no check. Without it, the plan's estimate is that of `apply PLAN`, or of `apply -f` approved at its
   * prompt, which checks the plan as a saved one is checked.
   */
  appliedAtOnce?: boolean | undefined;
}

/**
 * The file at the base of the change under review: planned against the same live state, so that
 * a change it makes too is marked as reverting a change made outside the tool, and its
 * mass-delete guard is the floor of the file's. `problem`: it could not be planned (not valid,
 * another ad account), which the plan says. `absent`: the ref holds no such file (a new file,
 * or one renamed), so every change is the change's own. Without a file at the base to compare
 * with, the default guard is the floor: a change cannot loosen its guard by moving the file.
 */
export type PlanBase = (
  { ref: string; desired: DesiredState } | { ref: string; problem: string } | { ref: string; absent: true }
) & {
  /**
   * images.lock.json beside the file at the ref (null: none there), which the images the change adds, changes or
   * removes are told from (Plan.previews); absent when it could not be read as a lock.
   */
  imageLock?: ImageLock | null;
};

/**
 * What each kind plans from: both states, the audiences' identities, and the changes of the kinds planned before it.
 */
export interface PlanInput {
  desired: DesiredState;
  live: LiveState;
  options: PlanOptions;
  identities: Identities;
  /**
   * The changes of the kinds before this one in the registry (an audience's update sees the ad groups unlinked from
   * it).
   */
  planned: readonly Change[];
}

/**
 * Each kind's changes, by kind: those whose `kind` is its name (none for the business, a precondition). Together, every
 * change (see ChangesCovered).
 */
export interface ChangeParts {
  business: never;
  adGroupLink: AdGroupUnlink;
  audience: AudienceCreate | AudienceUpdate | AudienceDelete;
  image: ImageGenerate | ImageMove | ImageRemove;
}

/** The changes of one kind. */
export type ChangeOf<K extends KindName> = PartOf<EveryKind<ChangeParts>, K>;

/** The actions of one kind's changes. */
export type ActionOf<K extends KindName> = ChangeOf<K>['action'];

/**
 * Each kind's part of the plan's fingerprint (what it read, so that a saved plan can be refused
 * once it is no longer true), by kind. Every field of the plan's fingerprint but the file's hash
 * is some kind's (see FingerprintCovered).
 */
export interface FingerprintParts {
  business: Record<never, never>;
  /** The links read are recorded with their audiences (`audiences[].adGroupIds`). */
  adGroupLink: Record<never, never>;
  audience: Pick<Fingerprint, 'audiences' | 'accountAudienceIds'>;
  image: Pick<Fingerprint, 'images'>;
}

/**
 * Each kind's part of the plan's header, by kind: the business as the lookup found it; where image paths start, and how
 * a saved plan finds it.
 */
export interface HeaderParts {
  business: Pick<Plan, 'business'>;
  adGroupLink: Record<never, never>;
  audience: Record<never, never>;
  image: Pick<Plan, 'imageDir' | 'imageHome' | 'previews'>;
}

/** The plan's header fields that kinds give (the business; where image paths start). */
export type PlanHeader = Merged<HeaderParts>;

/** One kind's share of a plan. */
export interface KindPlan<K extends KindName = KindName> {
  changes: Array<ChangeOf<K>>;
  errors: PlanProblem[];
  warnings: PlanProblem[];
  fingerprint?: Partial<PartOf<EveryKind<FingerprintParts>, K>>;
  header?: Partial<PartOf<HeaderParts, K>>;
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
export type CurrentState = Merged<CurrentParts>;

/** Each kind's part of the current state, by kind. */
export interface CurrentParts {
  business: {
    /** The business registered under the plan's number now, when the plan has one and a lookup was possible. */
    business?: Company | null;
  };
  adGroupLink: {
    /**
     * Ad-group ids by audience id, for the audiences whose links the plan recorded and that the
     * list still has; null when the service answered 404 for them (the audience deleted since).
     */
    adGroupIds: Record<string, Long[] | null>;
  };
  audience: {
    audiences: LiveAudienceSummary[];
    /**
     * The audiences the plan updates whose modification date is unchanged, read again (see `rereadIds`): their
     * definitions and what the file cannot hold.
     */
    reread?: Record<string, Pick<LiveAudience, 'definition' | 'unmodelled'>>;
  };
  image: {
    /** The lock's hash and each image file the plan recorded, by path (null: absent). */
    images?: { lockHash: string | null; files: Record<string, string | null> };
  };
}

/**
 * A kind of resource, as planning sees it: how its desired and live states become changes
 * and problems, and what makes a saved plan stale for it. Pure: reading is the operations'
 * job (src/operations/kinds/), applying the applier's (src/apply/kinds/).
 */
export interface PlanKind<K extends KindName = KindName> {
  kind: K;
  plan(input: PlanInput): KindPlan<K>;
  staleReasons(plan: Plan, current: CurrentState): string[];
  /**
   * Where its changes sort, when they interleave with another kind's (an audience's unlinks come before its delete).
   */
  orderKey?(change: ChangeOf<K>): OrderKey;
  /**
   * `change` marked as drift when `base`, the base's change of the same kind, action, id, name
   * and ad group (see markDrift), does the same: it reverts a change made outside the tool.
   * Only the kinds of the account have it: a change of a local file (an image) is the
   * checkout's, never the ad manager's.
   */
  drift?(change: ChangeOf<K>, base: ChangeOf<K>): ChangeOf<K>;
  /**
   * What one of its changes says of itself that the change does not bear out (see
   * `inconsistencies`), each said with the change it is of; `read`: the audiences the plan read.
   */
  inconsistencies?(change: ChangeOf<K>, read: ReadonlySet<Long>): string[];
  /**
   * What a reviewer must see of one of its changes at a glance (see ChangeReview); without it, nothing
   * (NOTHING_TO_REVIEW).
   */
  review?(change: ChangeOf<K>): ChangeReview;
}

/** The planner of every kind, by kind. */
export type PlanKinds = { readonly [K in KindName]: PlanKind<K> };

/** Whether two unions are the same: `true`, or `false` (checked by a type that accepts `true` alone). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

/** Every field of the plan's fingerprint is the file's hash or some kind's part (see FingerprintParts). */
export type FingerprintCovered = Holds<
  Same<
    keyof Fingerprint,
    'desiredHash' | { [K in keyof FingerprintParts]: keyof FingerprintParts[K] }[keyof FingerprintParts]
  >
>;
/** Every change of the plan is some kind's, and each kind's changes name it as their kind. */
export type ChangesCovered = Holds<Same<Change, ChangeParts[keyof ChangeParts]>>;
/**
 * Each action is one kind's (a new kind names its own, `deleteFile` rather than `delete`): the
 * plan's summary counts by action (PlanSummary, whose fields are exactly the actions), and its
 * views speak of each count in the nouns of the action's kind.
 */
export type ActionsAreOneKinds = Holds<
  Same<{ [K in KindName]: ActionOf<K> & ActionOf<Exclude<KindName, K>> }[KindName], never>
>;
export type SummaryCoversActions = Holds<Same<keyof PlanSummary, Change['action']>>;
export type ChangesNameTheirKind = Holds<
  Same<{ [K in KindName]: ChangeOf<K> extends { kind: K } ? true : false }[KindName], true>
>;
