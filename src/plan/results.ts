import type { Long } from '../model/index.js';
import type { ChangeAction, Plan } from './types.js';

/** What happened to one change of a plan: plain data, so a partial failure is a result, not a lost exception. */
export interface ChangeResult {
  action: ChangeAction;
  name: string;
  /** The audience's id: for a create, the id it got (null when it failed). */
  id: Long | null;
  adGroupId?: Long;
  /**
   * - `ok`: done (with `verified` when its answer was lost and the tool looked);
   * - `failed`: the service refused it, and `cause` says why;
   * - `unknown`: its answer was lost and looking could not settle it: it may or may not have
   *   been made, and `cause` says what is known (the next plan shows which);
   * - `skipped`: not started (the apply was interrupted, or what it needed failed first).
   */
  status: 'ok' | 'failed' | 'unknown' | 'skipped';
  /** Why it failed, is unknown or was skipped; on a change done, what else happened (an adopted race). */
  cause?: string;
  /**
   * Done although its answer was lost (a broken connection, a 5xx after the service may have
   * acted): how the tool found out, e.g. "the answer was lost (…); the account was listed and
   * the audience was found (id 123)". Only on `ok`.
   */
  verified?: string;
  /** For an image generated: each file written, with the seed the service used for it (locked). */
  written?: Array<{ path: string; seed: number }>;
  /**
   * For a create or update: the fields that the service's answer holds otherwise than sent (verified after the apply).
   */
  differing?: string[];
}

/** What applying one plan did: a result per change, in the plan's order, and their counts. */
export interface ApplyResult {
  adAccountId: number;
  results: ChangeResult[];
  /**
   * How many changes ended each way; the five add up to the number of changes. `ok` counts the
   * changes done as answered, `verified` those done and known by looking after a lost answer
   * (their status is `ok` too).
   */
  summary: { ok: number; verified: number; failed: number; unknown: number; skipped: number };
}

/** One account's apply: what each change did, what still differs afterwards, and whether that could be checked. */
export interface AppliedAccount {
  plan: Plan;
  result: ApplyResult;
  /** Differences that remain after applying (there should be none). */
  remaining: string[];
  /** Why the account could not be read back after applying (the changes' results still stand), or null. */
  unverified: string | null;
  /**
   * The apply was interrupted: the changes in flight finished, the others were not started (and nothing was read back).
   */
  interrupted: boolean;
}
