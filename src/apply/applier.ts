import type { AudienceClient } from '../api/audiences.js';
import type { ApplyResult, Change, ChangeResult, Plan } from '../plan/index.js';
import type { ApplyKind, ApplyServices, Done } from './kind.js';
import { APPLY_KINDS } from './kinds/index.js';

/**
 * Executes a plan kind by kind, in the order of the registry. Every change ends as `ok`,
 * `failed` (with the cause) or `skipped` (with the reason); nothing throws halfway. `report` is
 * called once per finished change. A bare audience client applies the audiences and their ad
 * groups only (image changes are then skipped).
 */
export async function applyPlan(
  plan: Plan,
  services: ApplyServices | AudienceClient,
  report: (result: ChangeResult) => void = () => undefined,
  kinds: readonly ApplyKind[] = APPLY_KINDS,
): Promise<ApplyResult> {
  const given: ApplyServices = 'audiences' in services ? services : { audiences: services };
  const results = new Map<Change, ChangeResult>();
  for (const kind of kinds) {
    const changes = plan.changes.filter((change) => change.kind === kind.kind);
    if (changes.length === 0) continue;
    const earlier = [...results.values()];
    const kindResults = await kind.apply(changes, { ...given, plan, report, earlier });
    changes.forEach((change, index) => {
      const result = kindResults[index];
      if (result) results.set(change, result);
    });
  }
  const ordered = plan.changes.map((change) => results.get(change) ?? { action: change.action, name: change.name, id: change.id, status: 'skipped' as const, cause: 'no applier handles this kind of change' });
  const count = (status: ChangeResult['status']): number => ordered.filter((result) => result.status === status).length;
  return { adAccountId: plan.adAccountId, results: ordered, summary: { ok: count('ok'), failed: count('failed'), skipped: count('skipped') } };
}

/**
 * What still differs after applying, kind by kind: every audience written holds the definition
 * sent, every deleted one is gone, every unlinked ad group no longer uses its audience. The
 * account is listed once, and only when something was done.
 */
export async function verifyApplied(plan: Plan, result: ApplyResult, audiences: AudienceClient, kinds: readonly ApplyKind[] = APPLY_KINDS): Promise<string[]> {
  const done: Done[] = plan.changes.flatMap((change, index) => {
    const changeResult = result.results[index];
    return changeResult?.status === 'ok' ? [{ change, result: changeResult }] : [];
  });
  let listed: Promise<ReadonlySet<number>> | undefined;
  const present = () => (listed ??= audiences.list().then((summaries) => new Set(summaries.map((summary) => summary.id))));
  const remaining: string[] = [];
  for (const kind of kinds) {
    const ofKind = done.filter((entry) => entry.change.kind === kind.kind);
    if (ofKind.length > 0) remaining.push(...(await kind.verify(ofKind, { audiences, present })));
  }
  return remaining;
}
