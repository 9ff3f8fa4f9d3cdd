import { describe, expect, it } from 'vitest';
import {
  answerFailure,
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  isAmbiguous,
  isQuotaAnswer,
  isRetryable,
  nextStep,
  parseRetryAfter,
  type Failure,
  type RetryState,
} from './retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('-2', now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the ceiling per attempt up to the cap, with full jitter below it', () => {
    const almostOne = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, policy, almostOne))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(4, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
  });
});

describe('isRetryable and isAmbiguous', () => {
  const cases: [Failure, boolean, boolean, boolean][] = [
    // failure, idempotent, retryable, ambiguous
    [{ kind: 'status', status: 503 }, true, true, false],
    [{ kind: 'status', status: 503 }, false, false, true],
    [{ kind: 'status', status: 500 }, false, false, true],
    [{ kind: 'throttled' }, true, true, false],
    [{ kind: 'throttled' }, false, true, false],
    [{ kind: 'status', status: 400 }, true, false, false],
    [{ kind: 'status', status: 404 }, false, false, false],
    [{ kind: 'lost' }, true, true, false],
    [{ kind: 'lost' }, false, false, true],
    [{ kind: 'unsent' }, false, true, false],
    [{ kind: 'permanent' }, true, false, false],
  ];
  it.each(cases)('%j idempotent=%s → retry %s, ambiguous %s', (failure, idempotent, retryable, ambiguous) => {
    expect(isRetryable(failure, idempotent)).toBe(retryable);
    expect(isAmbiguous(failure, idempotent)).toBe(ambiguous);
  });
});

describe('isQuotaAnswer and answerFailure', () => {
  const cases: [number, number | undefined, boolean][] = [
    // status, service code, a quota answer
    [429, undefined, true],
    [429, -813, true],
    [429, -400, true],
    [400, -10, true],
    [400, -400, false],
    [400, -813, false],
    [400, undefined, false],
    [403, -10, false],
    [500, -10, false],
  ];
  it.each(cases)('status %s with service code %s → quota %s', (status, serviceCode, quota) => {
    expect(isQuotaAnswer(status, serviceCode)).toBe(quota);
    expect(answerFailure(status, serviceCode)).toEqual(quota ? { kind: 'throttled' } : { kind: 'status', status });
  });
});

describe('nextStep', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3, budgetMs: 10_000, baseDelayMs: 100 };
  const half = () => 0.5;
  const at = (attempt: number, idempotent = true, quotaAnswersBefore = attempt - 1): RetryState => ({
    idempotent,
    startedAt: 0,
    attempt,
    quotaAnswersBefore,
  });
  const status503: Failure = { kind: 'status', status: 503 };

  it('stops at once when the failure is not retryable', () => {
    expect(nextStep(at(1, false), { failure: status503, retryAfterMs: undefined }, 0, policy, half)).toEqual({
      kind: 'stop',
    });
    expect(nextStep(at(1), { failure: { kind: 'permanent' }, retryAfterMs: undefined }, 0, policy, half)).toEqual({
      kind: 'stop',
    });
  });

  it('waits the backoff, or Retry-After when the service gives one, past the attempt count while the budget lasts', () => {
    expect(nextStep(at(1), { failure: status503, retryAfterMs: undefined }, 0, policy, half)).toEqual({
      kind: 'retry',
      delayMs: 50,
      pauseUntil: undefined,
    });
    expect(nextStep(at(2), { failure: status503, retryAfterMs: 4000 }, 0, policy, half)).toEqual({
      kind: 'retry',
      delayMs: 4000,
      pauseUntil: undefined,
    });
    expect(nextStep(at(9), { failure: { kind: 'lost' }, retryAfterMs: undefined }, 0, policy, half)).toEqual({
      kind: 'retry',
      delayMs: 2000,
      pauseUntil: undefined,
    });
  });

  it('tries a service that cannot be reached at all only the attempt count', () => {
    expect(nextStep(at(2), { failure: { kind: 'unsent' }, retryAfterMs: undefined }, 0, policy, half)).toMatchObject({
      kind: 'retry',
    });
    expect(nextStep(at(3), { failure: { kind: 'unsent' }, retryAfterMs: undefined }, 0, policy, half)).toEqual({
      kind: 'stop',
    });
    expect(nextStep(at(3, false), { failure: { kind: 'unsent' }, retryAfterMs: undefined }, 0, policy, half)).toEqual({
      kind: 'stop',
    });
  });

  it('tries a quota answer again past the attempt count after a backoff that doubles, and pauses every start for its Retry-After', () => {
    expect(
      nextStep(at(1, false), { failure: { kind: 'throttled' }, retryAfterMs: undefined }, 1000, policy, half),
    ).toEqual({ kind: 'retry', delayMs: 50, pauseUntil: undefined });
    expect(
      nextStep(at(3, false), { failure: { kind: 'throttled' }, retryAfterMs: undefined }, 1000, policy, half),
    ).toEqual({ kind: 'retry', delayMs: 200, pauseUntil: undefined });
    expect(nextStep(at(7, false), { failure: { kind: 'throttled' }, retryAfterMs: 0 }, 1000, policy, half)).toEqual({
      kind: 'retry',
      delayMs: 2000,
      pauseUntil: 1000,
    });
    expect(nextStep(at(1), { failure: { kind: 'throttled' }, retryAfterMs: 2000 }, 1000, policy, half)).toEqual({
      kind: 'retry',
      delayMs: 2000,
      pauseUntil: 3000,
    });
  });

  it('stops, saying why, when the wait would pass the time budget', () => {
    expect(nextStep(at(1), { failure: { kind: 'throttled' }, retryAfterMs: 120_000 }, 0, policy, half)).toEqual({
      kind: 'stop',
      gaveUp: 'gave up on the quota answer: waiting 120 s more would pass the retry budget of 10 s',
    });
    expect(nextStep(at(6), { failure: { kind: 'throttled' }, retryAfterMs: 2000 }, 9000, policy, half)).toEqual({
      kind: 'stop',
      gaveUp:
        'gave up: the quota answers were retried until the retry budget of 10 s ran out (waiting 2 s more would pass the retry budget of 10 s)',
    });
    expect(nextStep(at(2), { failure: status503, retryAfterMs: 1500 }, 9000, policy, half)).toMatchObject({
      gaveUp: expect.stringContaining('waiting 1.5 s more'),
    });
  });

  it('says how many attempts were quota answers when others failed otherwise (a 5xx), never that all were', () => {
    expect(
      nextStep(at(6, true, 3), { failure: { kind: 'throttled' }, retryAfterMs: 2000 }, 9000, policy, half),
    ).toEqual({
      kind: 'stop',
      gaveUp:
        'gave up: the request was retried until the retry budget of 10 s ran out; 4 of its 6 attempts were quota answers, the last one too (waiting 2 s more would pass the retry budget of 10 s)',
    });
  });
});
