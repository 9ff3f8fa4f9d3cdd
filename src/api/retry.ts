/**
 * When to try a request again and how long to wait first. Pure: the clock and the random
 * source are arguments, so the transport's tests run instantly and deterministically.
 */

export interface RetryPolicy {
  /** Attempts in all when the service cannot be reached at all (it is down or the address is wrong, not flaky). */
  maxAttempts: number;
  /**
   * No retry starts later than this after the first attempt began. Quota answers and the
   * transient failures of idempotent requests are tried again for as long as it lasts.
   */
  budgetMs: number;
  /** Upper bound of the first backoff; doubled on each further attempt. */
  baseDelayMs: number;
  /** Cap of the exponential backoff (a Retry-After from the service is honoured beyond it). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxAttempts: 5,
  budgetMs: 60_000,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
};

/**
 * How one attempt failed, as far as retrying is concerned.
 * - `throttled`: the service refused the request for its quota, before doing any work;
 * - `status`: any other answer with this status;
 * - `unsent`: no connection was ever made (refused, connect timeout), so the service cannot
 *   have seen the request;
 * - `lost`: the connection broke or went silent after the request may have been sent;
 * - `permanent`: retrying cannot help (unknown host, certificate problems).
 */
export type Failure =
  | { kind: 'throttled' }
  | { kind: 'status'; status: number }
  | { kind: 'unsent' }
  | { kind: 'lost' }
  | { kind: 'permanent' };

/** The service code of a quota excess answered as 400 ("allowed request count exceeded"). */
const QUOTA_SERVICE_CODE = -10;

/**
 * The service answers a quota excess in two spellings: 429 (whatever the body), or 400 whose
 * error body has the service code -10. Any other 400 is a rejection of the request itself.
 */
export function isQuotaAnswer(status: number, serviceCode: number | undefined): boolean {
  return status === 429 || (status === 400 && serviceCode === QUOTA_SERVICE_CODE);
}

/** The failure of an answer with a non-2xx status and the service code of its error body. */
export function answerFailure(status: number, serviceCode: number | undefined): Failure {
  return isQuotaAnswer(status, serviceCode) ? { kind: 'throttled' } : { kind: 'status', status };
}

/**
 * Idempotent requests are retried when throttled, on 5xx and on any transient network
 * failure. A non-idempotent one (a create) only when the service provably did not act on it:
 * throttled (refused before processing) or a connection that was never made. Everything else
 * is left to the caller, which can look at the live state first.
 */
export function isRetryable(failure: Failure, idempotent: boolean): boolean {
  switch (failure.kind) {
    case 'throttled':
      return true;
    case 'status':
      return idempotent && failure.status >= 500;
    case 'unsent':
      return true;
    case 'lost':
      return idempotent;
    case 'permanent':
      return false;
  }
}

/** True when a non-idempotent request may have taken effect although it did not succeed. */
export function isAmbiguous(failure: Failure, idempotent: boolean): boolean {
  if (idempotent) return false;
  return failure.kind === 'lost' || (failure.kind === 'status' && failure.status >= 500);
}

/** A failed attempt as the policy sees it: how it failed, and how long the service asked to wait (Retry-After). */
export interface FailedAttempt {
  failure: Failure;
  retryAfterMs: number | undefined;
}

/**
 * Where one request's retries stand: the attempt that just ended, when the first one began, and how many before it were
 * quota answers.
 */
export interface RetryState {
  readonly idempotent: boolean;
  readonly startedAt: number;
  readonly attempt: number;
  readonly quotaAnswersBefore: number;
}

/**
 * What follows a failed attempt: stop (with why, when the policy cut the retries short), or
 * wait `delayMs` and try again, holding every other request start until `pauseUntil` too
 * when the service asked everyone to wait.
 */
export type RetryStep =
  { kind: 'stop'; gaveUp?: string } | { kind: 'retry'; delayMs: number; pauseUntil: number | undefined };

/**
 * The retry policy as one decision: given the state and a failed attempt at `nowMs`, what comes next.
 * - A quota answer was refused before any work, and a transient failure of an idempotent
 *   request (a 5xx, a lost connection) can be repeated safely: both are tried again for as
 *   long as the time budget lasts, so a busy or flaky service slows a command down instead of
 *   stopping it. Both wait a backoff that doubles with each attempt; after a quota answer
 *   the limiter also spaces the starts to the rate it found, and holds them for a Retry-After.
 * - A service that cannot be reached at all is tried `maxAttempts` times.
 */
export function nextStep(
  state: RetryState,
  failed: FailedAttempt,
  nowMs: number,
  policy: RetryPolicy,
  random: () => number,
): RetryStep {
  if (!isRetryable(failed.failure, state.idempotent)) return { kind: 'stop' };
  const throttled = failed.failure.kind === 'throttled';
  if (failed.failure.kind === 'unsent' && state.attempt >= policy.maxAttempts) return { kind: 'stop' };
  // A quota answer waits the backoff too, doubling as it is refused again: a service that
  // refuses everything must not be asked several times a second for the whole budget.
  const backoff = backoffDelay(state.attempt, policy, random);
  const delayMs = throttled ? Math.max(failed.retryAfterMs ?? 0, backoff) : (failed.retryAfterMs ?? backoff);
  if (nowMs + delayMs - state.startedAt > policy.budgetMs) {
    return { kind: 'stop', gaveUp: gaveUpText(throttled, state, delayMs, policy.budgetMs) };
  }
  // The service asked everyone to wait, not only this request.
  const pauseUntil = throttled && failed.retryAfterMs !== undefined ? nowMs + failed.retryAfterMs : undefined;
  return { kind: 'retry', delayMs, pauseUntil };
}

/**
 * Why the retries stopped at the budget; after a quota answer, that the quota was what they
 * waited for, and as many times as it was (earlier attempts may have failed otherwise: a 5xx).
 */
function gaveUpText(throttled: boolean, state: RetryState, delayMs: number, budgetMs: number): string {
  const waiting = `waiting ${seconds(delayMs)} more would pass the retry budget of ${seconds(budgetMs)}`;
  if (!throttled) return `gave up: ${waiting}`;
  if (state.attempt === 1) return `gave up on the quota answer: ${waiting}`;
  if (state.quotaAnswersBefore === state.attempt - 1)
    return `gave up: the quota answers were retried until the retry budget of ${seconds(budgetMs)} ran out (${waiting})`;
  const quota = state.quotaAnswersBefore + 1;
  return `gave up: the request was retried until the retry budget of ${seconds(budgetMs)} ran out; ${quota} of its ${state.attempt} attempts were quota answers, the last one too (${waiting})`;
}

/** A duration for people: whole seconds, or tenths. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/** "Full jitter": uniformly random in [0, min(max, base · 2^(attempt−1))). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds from `nowMs`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date always names the month; this keeps Date.parse from reading "1.5" as a date.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
