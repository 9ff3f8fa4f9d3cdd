import type { AudienceClient } from '../api/audiences.js';
import { startInTurns } from '../api/in-turns.js';
import { isAppError } from '../errors.js';
import { knownAudienceIds, type AdGroupUnlink, type AudienceCreate, type AudienceDelete, type AudienceUpdate, type Change, type Plan } from '../plan/index.js';
import type { ApplyResult, ChangeResult } from './types.js';

/** The batch delete takes ids in the query string; keep each request's URL short. */
const DELETE_BATCH_SIZE = 100;

/**
 * Executes a plan: unlinks first (a delete needs its ad groups released), then creates and
 * updates concurrently, then deletes through the batch delete. The transport bounds how many
 * requests are in flight. Every change ends as `ok`, `failed` (with the cause) or `skipped`
 * (with the reason); nothing throws halfway. `report` is called once per finished change.
 */
export async function applyPlan(plan: Plan, client: AudienceClient, report: (result: ChangeResult) => void = () => undefined): Promise<ApplyResult> {
  const results = new Map<Change, ChangeResult>();
  const finish = (change: Change, result: ChangeResult): ChangeResult => {
    results.set(change, result);
    report(result);
    return result;
  };

  const unlinks = plan.changes.filter((change): change is AdGroupUnlink => change.action === 'unlink');
  const unlinkResults = await startInTurns(unlinks, (change) => attempt(change, () => client.unlink(change.id, change.adGroupId)).then((result) => finish(change, result)));
  const blocked = new Map<number, string>();
  unlinkResults.forEach((result, index) => {
    const change = unlinks[index];
    if (result.status === 'failed' && change) blocked.set(change.id, `unlinking ad group ${change.adGroupId} failed`);
  });

  const writes = plan.changes.filter((change): change is AudienceCreate | AudienceUpdate => change.action === 'create' || change.action === 'update');
  const existing = knownAudienceIds(plan);
  await startInTurns(writes, (change) =>
    change.action === 'create'
      ? attempt(change, () => client.create(change.after, existing)).then((result) => finish(change, result))
      : attempt(change, () => client.update(change.id, change.after)).then((result) => finish(change, result)),
  );

  const deletes = plan.changes.filter((change): change is AudienceDelete => change.action === 'delete');
  for (const change of deletes.filter((candidate) => blocked.has(candidate.id))) {
    finish(change, { ...identify(change), status: 'skipped', cause: `${blocked.get(change.id)}, so the audience is still in use` });
  }
  const deletable = deletes.filter((change) => !blocked.has(change.id));
  for (let start = 0; start < deletable.length; start += DELETE_BATCH_SIZE) {
    const batch = deletable.slice(start, start + DELETE_BATCH_SIZE);
    (await deleteBatch(batch, client)).forEach((result, index) => finish(batch[index] as AudienceDelete, result));
  }

  const ordered = plan.changes.map((change) => results.get(change) as ChangeResult);
  return {
    adAccountId: plan.adAccountId,
    results: ordered,
    summary: {
      ok: ordered.filter((result) => result.status === 'ok').length,
      failed: ordered.filter((result) => result.status === 'failed').length,
      skipped: ordered.filter((result) => result.status === 'skipped').length,
    },
  };
}

/**
 * Several deletes in one request. The service answers 200 with counts and messages; each
 * message that names an id marks that delete failed. When the messages do not say which
 * failed, the account is listed again: an audience still there was not deleted.
 */
async function deleteBatch(changes: AudienceDelete[], client: AudienceClient): Promise<ChangeResult[]> {
  const [only] = changes;
  if (changes.length === 1 && only) return [await attempt(only, () => client.delete(only.id))];
  let outcome;
  try {
    outcome = await client.deleteMany(changes.map((change) => change.id));
  } catch (error) {
    return changes.map((change) => ({ ...identify(change), status: 'failed', cause: causeOf(error) }));
  }
  if (outcome.failCount === 0) return changes.map((change) => ({ ...identify(change), status: 'ok' }));

  const messages = outcome.errorMessages ?? [];
  const ids = new Set(changes.map((change) => change.id));
  const named = new Map<number, string>();
  for (const message of messages) {
    const id = audienceIdOf(message, ids);
    if (id !== undefined && !named.has(id)) named.set(id, message);
  }
  if (named.size >= outcome.failCount) {
    return changes.map((change) => (named.has(change.id) ? { ...identify(change), status: 'failed', cause: named.get(change.id) } : { ...identify(change), status: 'ok' }));
  }
  let remaining: Set<number>;
  try {
    remaining = new Set((await client.list()).map((summary) => summary.id));
  } catch (error) {
    const cause = `the batch delete reported ${outcome.failCount} failures (${messages.join('; ')}) and the account could not be read again: ${causeOf(error)}`;
    return changes.map((change) => ({ ...identify(change), status: 'failed', cause }));
  }
  return changes.map((change) =>
    remaining.has(change.id)
      ? { ...identify(change), status: 'failed', cause: named.get(change.id) ?? (messages.join('; ') || 'the batch delete did not delete it') }
      : { ...identify(change), status: 'ok' },
  );
}

/**
 * The audience a batch-delete message is about. The service names it first ("audience 123: in
 * use by ad groups 101, 102"); the ad groups named after it are another kind of id and may
 * well equal the id of another audience of the batch, so only the first id of the batch counts.
 */
function audienceIdOf(message: string, ids: ReadonlySet<number>): number | undefined {
  for (const [digits] of message.matchAll(/\d+/g)) {
    const id = Number(digits);
    if (ids.has(id)) return id;
  }
  return undefined;
}

async function attempt(change: Change, run: () => Promise<unknown>): Promise<ChangeResult> {
  try {
    const value = await run();
    const id = change.action === 'create' ? ((value as { id: number }).id ?? null) : change.id;
    return { ...identify(change), id, status: 'ok' };
  } catch (error) {
    return { ...identify(change), status: 'failed', cause: causeOf(error) };
  }
}

function identify(change: Change): Omit<ChangeResult, 'status'> {
  return { action: change.action, name: change.name, id: change.id, ...(change.action === 'unlink' ? { adGroupId: change.adGroupId } : {}) };
}

export function causeOf(error: unknown): string {
  if (isAppError(error)) return error.detail ? `${error.summary} (${error.detail.split('\n')[0]})` : error.summary;
  return error instanceof Error ? error.message : String(error);
}
