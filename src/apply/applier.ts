import type { AudienceClient } from '../api/audiences.js';
import type { Long } from '../model/index.js';
import type { ApplyResult, Change, ChangeResult, Plan } from '../plan/index.js';
import type { ApplyProgress, ApplyServices, DoneChange, ListedAfterWrites } from './kind.js';
import { APPLY_KINDS_IN_ORDER } from './kinds/index.js';
import { identify, notStarted } from './results.js';

/**
 * Executes a plan kind by kind, in the order of the registry. Every change ends as `ok` (with
 * `verified` when its answer was lost and the tool looked), `failed` (the service refused it,
 * with the cause), `unknown` (its answer was lost and looking could not settle it) or
 * `skipped` (with the reason); nothing throws halfway. `progress` is
 * told as each change starts and finishes. Without an image service, image changes are skipped. Once
 * `signal` is aborted (an interrupt), no change starts: those in flight finish, the others end
 * as not started.
 */
export async function applyPlan(
  plan: Plan,
  services: ApplyServices,
  progress: Partial<ApplyProgress> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<ApplyResult> {
  const results = new Map<Change, ChangeResult>();
  const told: ApplyProgress = {
    started: () => undefined,
    finished: () => undefined,
    followingUp: () => undefined,
    ...progress,
  };
  for (const kind of APPLY_KINDS_IN_ORDER) {
    const changes = plan.changes.filter((change) => change.kind === kind.kind);
    if (changes.length === 0) continue;
    if (signal.aborted) {
      for (const change of changes) {
        const result = notStarted(change);
        results.set(change, result);
        told.finished(change, result);
      }
      continue;
    }
    const kindResults = await kind.apply(changes, {
      ...services,
      ...told,
      plan,
      signal,
      earlier: [...results.values()],
    });
    for (const change of changes)
      results.set(
        change,
        kindResults.get(change) ?? { ...identify(change), status: 'skipped', cause: 'its kind gave no result for it' },
      );
  }
  const ordered = plan.changes.map(
    (change) => results.get(change) ?? { ...identify(change), status: 'skipped' as const, cause: 'no kind applies it' },
  );
  return { adAccountId: plan.adAccountId, results: ordered, summary: countOutcomes(ordered) };
}

/**
 * How many changes ended each way: done as answered, done and verified after a lost answer, failed, unknown, skipped.
 */
export function countOutcomes(results: readonly ChangeResult[]): ApplyResult['summary'] {
  const count = (outcome: (result: ChangeResult) => boolean): number => results.filter(outcome).length;
  return {
    ok: count((result) => result.status === 'ok' && result.verified === undefined),
    verified: count((result) => result.status === 'ok' && result.verified !== undefined),
    failed: count((result) => result.status === 'failed'),
    unknown: count((result) => result.status === 'unknown'),
    skipped: count((result) => result.status === 'skipped'),
  };
}

/**
 * What still differs after applying, kind by kind: every audience written holds the definition
 * sent, every deleted one is gone, every unlinked ad group no longer uses its audience. The
 * account is listed once, and only when something was done; not at all when the apply's own
 * last list was made after its last write (`listedAfterWrites`).
 */
export async function verifyApplied(
  plan: Plan,
  result: ApplyResult,
  audiences: AudienceClient,
  listedAfterWrites?: ListedAfterWrites,
): Promise<string[]> {
  const done: DoneChange[] = plan.changes.flatMap((change, index) => {
    const changeResult = result.results[index];
    return changeResult?.status === 'ok' ? [{ change, result: changeResult }] : [];
  });
  const kept = listedAfterWrites?.ids;
  let listed: Promise<ReadonlySet<Long>> | undefined = kept === undefined ? undefined : Promise.resolve(kept);
  const present = () =>
    (listed ??= audiences.list().then((summaries) => new Set(summaries.map((summary) => summary.id))));
  const remaining: string[] = [];
  for (const kind of APPLY_KINDS_IN_ORDER) {
    const ofKind = done.filter((entry) => entry.change.kind === kind.kind);
    if (ofKind.length > 0) remaining.push(...(await kind.verify(ofKind, { audiences, present })));
  }
  return remaining;
}
