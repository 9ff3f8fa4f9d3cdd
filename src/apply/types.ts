import type { ChangeAction } from '../plan/index.js';

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
}

export interface ApplyResult {
  adAccountId: number;
  results: ChangeResult[];
  summary: { ok: number; failed: number; skipped: number };
}
