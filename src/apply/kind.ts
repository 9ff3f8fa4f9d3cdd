import type { AudienceClient } from '../api/audiences.js';
import type { KindName, Long, Merged } from '../model/index.js';
import type { ImageClient } from '../api/imagegen.js';
import type { Change, ChangeOf, ChangeResult, Plan } from '../plan/index.js';
import type { ImageStore } from './kinds/image-store.js';

/**
 * The ids of the account's audiences, from a list made after this apply's last audience
 * write: the list that settles races after the creates then also serves to verify them.
 * Set by the audience kind when nothing is written after its list, read by verifyApplied.
 */
export interface ListedAfterWrites {
  ids: ReadonlySet<Long> | undefined;
}

/** What applying talks to: the account's audience API, and each kind's own services (ServiceParts). */
export type ApplyServices = { audiences: AudienceClient } & Merged<ServiceParts>;

/**
 * Each kind's own services, by kind: what applying its changes needs besides the audience API (given by its operations,
 * src/operations/kinds/).
 */
export interface ServiceParts {
  business: Record<never, never>;
  adGroupLink: Record<never, never>;
  audience: {
    /** Where the audience kind leaves its last list for verifying (see ListedAfterWrites). */
    listed?: ListedAfterWrites;
  };
  image: {
    /**
     * The image service (absent when the plan only removes images), the image folder, and how many generations may run
     * at once.
     */
    images?: { client?: ImageClient; store: ImageStore; concurrency: number };
  };
}

/**
 * What an apply tells as it goes, so that an apply stopped at once can still say what it knows:
 * the changes done, those in flight (their outcome unknown) and those never started.
 */
export interface ApplyProgress {
  /** A change's first request is about to leave: from then on, only its result says whether it was made. */
  started(change: Change): void;
  /** A change finished, as it finishes (again when settling a race changes its result). */
  finished(change: Change, result: ChangeResult): void;
  /**
   * Changes done are being followed up (`underway`: creates whose race with another apply is
   * being settled), until called again with false: stopped at once meanwhile, a create may
   * leave a duplicate behind.
   */
  followingUp(changes: readonly Change[], underway: boolean): void;
}

export interface ApplyContext extends ApplyServices, ApplyProgress {
  plan: Plan;
  /** Aborted when the apply is interrupted: no change starts after it (see `notStarted`), those in flight finish. */
  signal: AbortSignal;
  /** The results of the kinds applied before this one (a delete waits for the unlinks of its audience). */
  earlier: readonly ChangeResult[];
}

export interface VerifyContext {
  audiences: AudienceClient;
  /** The ids of the account's audiences after applying, listed once for every kind. */
  present(): Promise<ReadonlySet<Long>>;
}

/** A change that was done, with its result. */
export interface DoneChange {
  change: Change;
  result: ChangeResult;
}

/**
 * A kind of resource, as applying sees it: how its changes are made, and how what was done
 * is checked afterwards. `apply` gets the plan's changes of its kind, in plan order, and
 * returns the result of each; it never throws halfway (a change it returns no result for is
 * reported as not done). `verify` returns what still differs (there should be nothing).
 */
export interface ApplyKind<K extends KindName = KindName> {
  kind: K;
  apply(changes: Array<ChangeOf<K>>, context: ApplyContext): Promise<Map<Change, ChangeResult>>;
  verify(done: DoneChange[], context: VerifyContext): Promise<string[]>;
}

/** The applier of every kind, by kind: null for a kind that has no changes (the business, a precondition). */
export type ApplyKinds = { readonly [K in KindName]: [ChangeOf<K>] extends [never] ? null : ApplyKind<K> };
