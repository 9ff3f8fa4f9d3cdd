import type { AccountReader } from './account-reader.js';
import { AppError } from '../errors.js';
import type { LiveAudienceSummary } from '../model/index.js';
import { staleReasons, type CurrentState, type Plan } from '../plan/index.js';
import { OPERATION_KINDS_IN_ORDER } from './kinds/index.js';
import type { KindServices } from './kinds/kind.js';

/**
 * Refuses a saved plan made from a picture of the account (or of the local image files) that
 * is no longer true. Each kind reads what it compares; the account is listed once for all.
 */
export async function checkPlanIsFresh(
  plan: Plan,
  reader: AccountReader,
  local: { cwd?: string; services?: Partial<KindServices> | undefined } = {},
): Promise<void> {
  let listed: Promise<LiveAudienceSummary[]> | undefined;
  const list = () => (listed ??= reader.list());
  const parts = await Promise.all(
    OPERATION_KINDS_IN_ORDER.map((source) => source.readCurrent(plan, { reader, list, ...local })),
  );
  const current: CurrentState = Object.assign({ audiences: await list(), adGroupIds: {} }, ...parts);
  const reasons = staleReasons(plan, current);
  if (reasons.length > 0) {
    throw new AppError({
      code: 'PLAN_STALE',
      source: 'user',
      summary: `the saved plan is stale: ad account ${plan.adAccountId} changed since it was made`,
      detail: reasons.join('\n'),
      hint: 'nothing was changed; run `audiences plan` again and review the new plan',
    });
  }
}
