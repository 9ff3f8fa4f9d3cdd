import { isAppError, isNotStarted } from '../errors.js';
import type { Change, ChangeResult } from '../plan/index.js';

/** A change's result without its outcome: what it is and which audience (and ad group) it touches. */
export function identify(change: Change): Omit<ChangeResult, 'status'> {
  return { action: change.action, name: change.name, id: change.id, ...(change.action === 'unlink' ? { adGroupId: change.adGroupId } : {}) };
}

/** Why a change was not made: the apply was interrupted before it started. */
export const NOT_STARTED = 'not started: the apply was interrupted';

/** The result of a change the apply did not start, once it was interrupted. */
export function notStarted(change: Change): ChangeResult {
  return { ...identify(change), status: 'skipped', cause: NOT_STARTED };
}

/** Runs one request of a change: `ok` when it answers, otherwise as `unmade` says. */
export async function attempt(change: Change, run: () => Promise<unknown>): Promise<ChangeResult> {
  try {
    await run();
    return { ...identify(change), status: 'ok' };
  } catch (error) {
    return unmade(change, error);
  }
}

/** A change whose request threw: not started when it was never sent (an interrupt), else failed with the cause. */
export function unmade(change: Change, error: unknown): ChangeResult {
  return isNotStarted(error) ? notStarted(change) : { ...identify(change), status: 'failed', cause: causeOf(error) };
}

/** The cause of a failure in one line: an error's summary (with the first line of its detail), or its message. */
export function causeOf(error: unknown): string {
  if (isAppError(error)) return error.detail ? `${error.summary} (${error.detail.split('\n')[0]})` : error.summary;
  return error instanceof Error ? error.message : String(error);
}
