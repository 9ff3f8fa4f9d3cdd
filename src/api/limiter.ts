/**
 * Bounds the requests in flight and adapts the bound to the service: halve it when the
 * service says 429 (multiplicative decrease), then win it back one slot per window of
 * successes (additive increase), never above the configured maximum. An optional
 * requests-per-second limit spaces request starts evenly to stay under a known quota, and a
 * pause (the service's Retry-After) holds every start until it ends: when the answers are
 * fast, fewer requests in flight alone would not lower the rate.
 */

export type AttemptOutcome = 'ok' | 'throttled' | 'failed';

export interface Permit {
  /** Frees the slot and feeds the outcome into the adaptive bound; a second call is ignored. */
  release(outcome: AttemptOutcome): void;
}

export interface LimiterOptions {
  maxConcurrency: number;
  requestsPerSecond?: number | undefined;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export class ConcurrencyLimiter {
  readonly maxConcurrency: number;
  #limit: number;
  #inFlight = 0;
  /**
   * Bumped on every decrease. 429s from requests that started before the last decrease
   * were caused by the old bound, so they must not halve the new one again.
   */
  #epoch = 0;
  #successes = 0;
  #nextStartAt = Number.NEGATIVE_INFINITY;
  #pausedUntil = Number.NEGATIVE_INFINITY;
  readonly #interval: number;
  readonly #waiters: (() => void)[] = [];
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: LimiterOptions) {
    if (!Number.isInteger(options.maxConcurrency) || options.maxConcurrency < 1) {
      throw new RangeError(`concurrency must be a whole number of at least 1, not ${String(options.maxConcurrency)}`);
    }
    const rps = options.requestsPerSecond;
    if (rps !== undefined && !(rps > 0)) throw new RangeError(`requests per second must be above 0, not ${String(rps)}`);
    this.maxConcurrency = options.maxConcurrency;
    this.#limit = options.maxConcurrency;
    this.#interval = rps === undefined ? 0 : 1000 / rps;
    this.#now = options.now;
    this.#sleep = options.sleep;
  }

  /** The current bound (between 1 and maxConcurrency). */
  get limit(): number {
    return this.#limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  async acquire(): Promise<Permit> {
    if (this.#inFlight >= this.#limit || this.#waiters.length > 0) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    } else {
      this.#inFlight += 1;
    }
    const epoch = this.#epoch;
    const pausedFor = this.#pausedUntil - this.#now();
    if (pausedFor > 0) await this.#sleep(pausedFor);
    if (this.#interval > 0) {
      const now = this.#now();
      const startAt = Math.max(now, this.#nextStartAt);
      this.#nextStartAt = startAt + this.#interval;
      if (startAt > now) await this.#sleep(startAt - now);
    }
    let released = false;
    return {
      release: (outcome) => {
        if (released) return;
        released = true;
        this.#settle(outcome, epoch);
      },
    };
  }

  /** Holds every request start until `until` (a time of `now`), as the service asked. */
  pauseUntil(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
  }

  #settle(outcome: AttemptOutcome, epoch: number): void {
    if (outcome === 'throttled' && epoch === this.#epoch) {
      this.#limit = Math.max(1, Math.floor(this.#limit / 2));
      this.#epoch += 1;
      this.#successes = 0;
    } else if (outcome === 'ok' && this.#limit < this.maxConcurrency) {
      this.#successes += 1;
      if (this.#successes >= this.#limit) {
        this.#limit += 1;
        this.#successes = 0;
      }
    }
    this.#inFlight -= 1;
    while (this.#inFlight < this.#limit && this.#waiters.length > 0) {
      this.#inFlight += 1;
      this.#waiters.shift()?.();
    }
  }
}
