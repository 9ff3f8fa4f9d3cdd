import type { ChangeAction, Plan } from './types.js';

/** What happened to one change of a plan: plain data, so a partial failure is a result, not a lost exception. */
export interface ChangeResult {
  action: ChangeAction;
  name: string;
  /** The audience's id: for a create, the id it got (null when it failed). */
  id: number | null;
  adGroupId?: number;
  status: 'ok' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  cause?: string;
  /** For a create or update: the fields that the service's answer holds otherwise than sent (verified after the apply). */
  differing?: string[];
}

/** What applying one plan did: a result per change, in the plan's order, and their counts. */
export interface ApplyResult {
  adAccountId: number;
  results: ChangeResult[];
  summary: { ok: number; failed: number; skipped: number };
}

/** One account's apply: what each change did, what still differs afterwards, and whether that could be checked. */
export interface AppliedAccount {
  plan: Plan;
  result: ApplyResult;
  /** Differences that remain after applying (there should be none). */
  remaining: string[];
  /** Why the account could not be read back after applying (the changes' results still stand), or null. */
  unverified: string | null;
  /** The apply was interrupted: the changes in flight finished, the others were not started (and nothing was read back). */
  interrupted: boolean;
}
