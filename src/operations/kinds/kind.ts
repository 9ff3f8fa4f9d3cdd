import type { ImageClient } from '../../api/imagegen.js';
import type { ServiceParts } from '../../apply/kind.js';
import type { Company, DesiredState, KindName, LiveAudienceSummary, LiveState, PartOf } from '../../model/index.js';
import type { CurrentParts, Plan } from '../../plan/index.js';
import type { AccountReader } from '../account-reader.js';

/** The business lookup (the business-information API). */
export interface BusinessLookup {
  lookup(bizNum: string): Promise<Company | null>;
}

/**
 * The services besides the audience API that a kind may open, each made on first use: the
 * command gives them all, and a kind opens its own only when its part of the file or the plan
 * needs it (the business lookup for a file that declares a business, say). The pipelines pass
 * them on without naming any.
 */
export interface KindServices {
  business(adAccountId: number): BusinessLookup;
  images(): ImageClient;
}

/** Where planning reads from: the account, the other services, and the desired-state file's folder (for images). */
export interface ReadContext {
  reader: AccountReader;
  services?: Partial<KindServices> | undefined;
  /** The desired-state file, relative to `cwd`; without it, no local files are read. */
  file?: string | undefined;
  cwd?: string | undefined;
  /** Aborted when another kind's read failed: the plan has failed, so no more requests start. */
  signal?: AbortSignal | undefined;
  /**
   * The file at its base, planned against the same read (see PlanBase): what its plan needs is read too, in the same
   * pass.
   */
  base?: DesiredState | undefined;
}

/** Where a saved plan is checked against: as ReadContext, with the account's list read once for every kind. */
export interface CurrentContext {
  reader: AccountReader;
  services?: Partial<KindServices> | undefined;
  /** The folder the plan is applied from; without it, no local files are checked. */
  cwd?: string | undefined;
  list(): Promise<LiveAudienceSummary[]>;
}

/** What the command gives for applying: the folder it runs in, the other services, the concurrency. */
export interface ServiceContext {
  cwd: string;
  services?: Partial<KindServices> | undefined;
  concurrency?: number | undefined;
}

/** A saved plan being written or read: the folder the command runs in, and the plan's file (absolute). */
export interface SavedPlanContext {
  cwd: string;
  planFile: string;
}

/**
 * A kind of resource, as the operations see it: what is read of it to plan, what is read to
 * tell whether a saved plan is still true (compared by the kind's planner, src/plan/kinds/),
 * what a saved plan records to find its local files again, and what applying its changes
 * needs besides the audience API.
 */
export interface KindOperations<K extends KindName = KindName> {
  kind: K;
  /**
   * Its share of the live state (LiveParts), and of the kinds read with it: a kind read with another one (the ad
   * groups, with their audiences) has none.
   */
  read?(desired: DesiredState, context: ReadContext): Promise<Partial<LiveState>>;
  readCurrent(plan: Plan, context: CurrentContext): Promise<Partial<PartOf<CurrentParts, K>>>;
  /** A plan about to be saved: with what finding its local files again needs, wherever it is applied from. */
  saving?(plan: Plan, context: SavedPlanContext): Plan;
  /**
   * A saved plan about to be applied: its local paths made to start from `cwd`; an error when its files cannot be
   * found.
   */
  placing?(plan: Plan, context: SavedPlanContext): Promise<Plan>;
  /**
   * The services its changes are applied with, checked before anything is changed (a missing setting must not stop an
   * apply halfway).
   */
  applyServices?(plan: Plan, context: ServiceContext): PartOf<ServiceParts, K>;
}

/** The operations of every kind, by kind. */
export type OperationKinds = { readonly [K in KindName]: KindOperations<K> };
