import { describe, expect, it } from 'vitest';
import { answerFailure, backoffDelay, DEFAULT_RETRY_POLICY, isAmbiguous, isQuotaAnswer, isRetryable, parseRetryAfter, type Failure } from './retry.js';

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
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, policy, almostOne))).toEqual([99, 199, 399, 799, 999, 999]);
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
