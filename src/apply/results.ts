import { isAppError, isNotStarted, isOutcomeUnknown } from '../errors.js';
import type { Change, ChangeResult } from '../plan/index.js';

/**
 * A change's result without its outcome: what it is and which audience (and ad group, for a change that names one) it
 * touches.
 */
export function identify(change: Change): Omit<ChangeResult, 'status'> {
  return {
    action: change.action,
    name: change.name,
    id: change.id,
    ...('adGroupId' in change ? { adGroupId: change.adGroupId } : {}),
  };
}

/** Why a change was not made: the apply was interrupted before it started. */
export const NOT_STARTED = 'not started: the apply was interrupted';

/**
 * The result of a change the apply did not start, once it was interrupted. `lostFirst` says why
 * one that was sent once is not started either: its answer was lost, and looking showed that
 * the lost attempt had done nothing, but the interrupt came before it was sent again.
 */
export function notStarted(change: Change, lostFirst?: string): ChangeResult {
  return {
    ...identify(change),
    status: 'skipped',
    cause: lostFirst === undefined ? NOT_STARTED : `${NOT_STARTED} before it was sent again (${lostFirst})`,
  };
}

/**
 * A change whose request had left when the apply was stopped at once (a second interrupt): it may or may not have been
 * made.
 */
export function stoppedInFlight(change: Change): ChangeResult {
  return {
    ...identify(change),
    status: 'unknown',
    cause: 'in flight when the apply was stopped at once: it may or may not have been made',
  };
}

/**
 * A create done whose race with another apply was being settled when the apply was stopped at
 * once: done (its `ok` was said), with a note that a duplicate another apply made at the same
 * time may be left.
 */
export function stoppedSettling(result: ChangeResult): ChangeResult {
  const note =
    'the apply was stopped at once while it checked for a duplicate made by another apply at the same time: if the next plan stops at DUPLICATE_LIVE_NAME, keep the lowest id and delete the other';
  return { ...result, cause: result.cause === undefined ? note : `${result.cause}; ${note}` };
}

/** A change done: `ok`, with how it was known when its answer was lost (see ChangeResult.verified). */
export function done(change: Change, verified: string | null): ChangeResult {
  return { ...identify(change), status: 'ok', ...(verified === null ? {} : { verified }) };
}

/**
 * Runs one request of a change: `ok` when it answers (with `verified` and, as `cause`, the `note` it gives), otherwise
 * as `unmade` says.
 */
export async function attempt(
  change: Change,
  run: () => Promise<{ verified: string | null; note?: string }>,
): Promise<ChangeResult> {
  try {
    const { verified, note } = await run();
    return { ...done(change, verified), ...(note === undefined ? {} : { cause: note }) };
  } catch (error) {
    return unmade(change, error);
  }
}

/**
 * A change whose request threw: not started when it was never sent (an interrupt), unknown
 * when it may have acted and looking could not settle it, else failed with the cause.
 */
export function unmade(change: Change, error: unknown): ChangeResult {
  if (isNotStarted(error)) return notStarted(change, isAppError(error) ? error.detail : undefined);
  if (isOutcomeUnknown(error)) return { ...identify(change), status: 'unknown', cause: causeOf(error) };
  // A refusal says what to do about it as the same error says it in a plan: the hint comes with the cause.
  const hint = isAppError(error) ? error.hint : undefined;
  return { ...identify(change), status: 'failed', cause: hint ? `${causeOf(error)}; hint: ${hint}` : causeOf(error) };
}

/**
 * The cause of a failure in one line: an error's summary (with its detail: the service's codes, the attempts, why
 * retrying stopped), or its message.
 */
export function causeOf(error: unknown): string {
  if (isAppError(error))
    return error.detail ? `${error.summary} (${error.detail.split('\n').join('; ')})` : error.summary;
  return error instanceof Error ? error.message : String(error);
}
