import type { AccountReader } from './account-reader.js';
import { AppError } from '../errors.js';
import type { LiveAudienceSummary } from '../model/index.js';
import { staleReasons, type CurrentState, type Plan } from '../plan/index.js';
import { OPERATION_KINDS_IN_ORDER } from './kinds/index.js';
import type { KindServices } from './kinds/kind.js';

/**
 * Which plan is checked: a saved one (saving it was the approval), or the one `apply -f` showed and the person approved
 * at its prompt, which the account may have moved past while it waited.
 */
export type CheckedPlan = 'saved' | 'approved';

const STALE_WORDS: Record<CheckedPlan, { summary: (adAccountId: number) => string; hint: string }> = {
  saved: {
    summary: (adAccountId) => `the saved plan is stale: ad account ${adAccountId} changed since it was made`,
    hint: 'nothing was changed; run `audiences plan` again and review the new plan',
  },
  approved: {
    summary: (adAccountId) =>
      `the plan is stale: ad account ${adAccountId} changed while the plan waited for its approval`,
    hint: 'nothing was changed; run `audiences apply` again and review the new plan',
  },
};

/**
 * Refuses a plan made from a picture of the account (or of the local image files) that
 * is no longer true. Each kind reads what it compares; the account is listed once for all.
 */
export async function checkPlanIsFresh(
  plan: Plan,
  reader: AccountReader,
  local: { cwd?: string; services?: Partial<KindServices> | undefined } = {},
  checked: CheckedPlan = 'saved',
): Promise<void> {
  let listed: Promise<LiveAudienceSummary[]> | undefined;
  const list = () => (listed ??= reader.list());
  const parts = await Promise.all(
    OPERATION_KINDS_IN_ORDER.map((source) => source.readCurrent(plan, { reader, list, ...local })),
  );
  const current: CurrentState = Object.assign({ audiences: await list(), adGroupIds: {} }, ...parts);
  const reasons = staleReasons(plan, current);
  if (reasons.length > 0) {
    const words = STALE_WORDS[checked];
    throw new AppError({
      code: 'PLAN_STALE',
      source: 'user',
      summary: words.summary(plan.adAccountId),
      detail: reasons.join('\n'),
      hint: words.hint,
    });
  }
}
