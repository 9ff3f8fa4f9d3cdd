import { isAppError } from '../errors.js';
import type { Change, ChangeResult } from '../plan/index.js';

/** A change's result without its outcome: what it is and which audience (and ad group) it touches. */
export function identify(change: Change): Omit<ChangeResult, 'status'> {
  return { action: change.action, name: change.name, id: change.id, ...(change.action === 'unlink' ? { adGroupId: change.adGroupId } : {}) };
}

/** Runs one request of a change: `ok` when it answers, `failed` with the cause when it throws. */
export async function attempt(change: Change, run: () => Promise<unknown>): Promise<ChangeResult> {
  try {
    await run();
    return { ...identify(change), status: 'ok' };
  } catch (error) {
    return { ...identify(change), status: 'failed', cause: causeOf(error) };
  }
}

/** The cause of a failure in one line: an error's summary (with the first line of its detail), or its message. */
export function causeOf(error: unknown): string {
  if (isAppError(error)) return error.detail ? `${error.summary} (${error.detail.split('\n')[0]})` : error.summary;
  return error instanceof Error ? error.message : String(error);
}
