/**
 * Bounds the requests in flight and how fast they start, and adapts both to the service's
 * quota, which it finds by itself (AIMD):
 * - A quota answer without Retry-After, while other requests still succeed, tells the rate the service allows: the
 *   answers accepted in the last second. Starts are then spaced to a little under it
 *   (multiplicative decrease to what was measured), and the rate grows again linearly, a tenth
 *   of it per second (additive increase), until the next quota answer. At a steady quota this
 *   saws a few percent under the allowed rate and loses almost nothing to refusals.
 * - A quota answer with Retry-After says how long to wait, and one when nothing got through
 *   says nothing about the rate: the bound on requests in flight is halved instead, and won
 *   back one slot per window of successes.
 * - A configured requests-per-second is where the rate starts and the most it grows to.
 * - A rate of R spaces the starts evenly, one after another, each from the later of when the
 *   previous one was due and when it really started (less a little, to catch up a timer that
 *   fired late). So any R + 1 starts span at least a second and a margin more, for the network
 *   to shift their arrival (a smaller margin let the service refuse a few). Spacing
 *   from due times alone would let a late start and a timely one put one request too many
 *   into the service's second.
 * - A pause (the service's Retry-After) holds every start until it ends.
 * - With a gate (gate.ts, the overall bound shared by every account), a request that its account
 *   lets start takes a place there too; it starts when it has one, and the next start of the
 *   account is spaced from then.
 * Only a quota answer of a request that started under the current rate and bound lowers them:
 * those in flight before were caused by the old ones. A request tried again after a quota
 * answer goes ahead of those not yet started: its time budget runs, theirs does not yet.
 */

import type { GateRelease, RequestGate } from './gate.js';

/** `throttled`: a quota answer without Retry-After; `paused`: one with it (the service said how long to wait). */
export type AttemptOutcome = 'ok' | 'throttled' | 'paused' | 'failed';

export interface Permit {
  /** Frees the slot and feeds the outcome into the adaptive bounds; a second call is ignored. */
  release(outcome: AttemptOutcome): void;
}

export interface LimiterOptions {
  maxConcurrency: number;
  requestsPerSecond?: number | undefined;
  now: () => number;
  /** Waits `ms`, or less when `signal` is aborted first. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The bound on requests in flight shared with other limiters (other accounts'); none by default. */
  gate?: RequestGate | undefined;
}

/** A request waiting for a slot: woken with one, or refused at an interrupt when it is a first attempt. */
interface Waiter {
  wake(): void;
  refuse: ((error: Error) => void) | undefined;
}

/** Starts are spaced to this share of the rate measured when the service refused one. */
const DECREASE_TO = 0.95;
/** Per second without a refusal, the rate grows by this share of the rate it was lowered to. */
const INCREASE_PER_SECOND = 0.1;
/** The release of no place: without a gate. */
const NO_GATE: GateRelease = () => undefined;
/** The rate is never spaced below this (the slowest documented quota of the service is 1 per 5 s). */
const MIN_RATE = 0.1;

/**
 * The requests per second that may be configured. Below the least, requests would wait longer
 * than the slowest quota asks, up to hours apart; below 0.0000005 the spacing (past 2^31 ms)
 * overflows the timer, which then fires at once: no pacing at all. Above the most, starts would
 * be spaced under a millisecond, closer than timers keep them: no pacing either.
 */
export const REQUESTS_PER_SECOND = { min: MIN_RATE, max: 1000 } as const;
/** What the network may shift a request's arrival by, against the service's count per second. */
const ARRIVAL_TOLERANCE_MS = 10;
/** How much earlier than its due time a start may follow a late one. */
const CATCH_UP_MS = 2;
/** Successes are counted over this window to measure the rate the service accepts. */
const WINDOW_MS = 1000;

export class ConcurrencyLimiter {
  readonly maxConcurrency: number;
  #limit: number;
  #inFlight = 0;
  /** Bumped on every decrease, of the rate or of the bound. */
  #epoch = 0;
  #successes = 0;
  /** Requests per second that starts are spaced to (Infinity: not spaced). */
  #rate: number;
  #maxRate: number;
  /** How much the rate grows per second, set at each decrease. */
  #increase = 0;
  #grownAt = 0;
  /** When the answers of the last window's successes came. */
  readonly #accepted: number[] = [];
  /** When the last start was due and when it really happened; the next start waits for it to be decided. */
  #lastDue = Number.NEGATIVE_INFINITY;
  #lastStart = Number.NEGATIVE_INFINITY;
  #pacing: Promise<void> = Promise.resolve();
  #pausedUntil = Number.NEGATIVE_INFINITY;
  #waiters: Waiter[] = [];
  /** Aborted by `stop`: a first attempt no longer starts. */
  readonly #stopping = new AbortController();
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #gate: RequestGate | undefined;

  constructor(options: LimiterOptions) {
    if (!Number.isInteger(options.maxConcurrency) || options.maxConcurrency < 1) {
      throw new RangeError(`concurrency must be a whole number of at least 1, not ${String(options.maxConcurrency)}`);
    }
    const rps = options.requestsPerSecond;
    if (rps !== undefined) checkRate(rps);
    this.maxConcurrency = options.maxConcurrency;
    this.#limit = options.maxConcurrency;
    this.#rate = rps ?? Number.POSITIVE_INFINITY;
    this.#maxRate = this.#rate;
    this.#now = options.now;
    this.#sleep = options.sleep;
    this.#gate = options.gate;
  }

  /** The current bound (between 1 and maxConcurrency). */
  get limit(): number {
    return this.#limit;
  }

  /** The rate starts are spaced to, in requests per second (Infinity when they are not). */
  get rate(): number {
    return this.#rate;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Whether `stop` was called. */
  get stopped(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** Aborted by `stop`. */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /**
   * An interrupt: from now on a request's first attempt (`stoppable`) never gets a slot.
   * Those waiting for one, for the end of a pause or for their turn at the rate are refused
   * at once (acquire rejects), so they end as not started without waiting for the requests in
   * flight; retries still get theirs.
   */
  stop(): void {
    this.#stopping.abort();
    const refused = this.#waiters.filter((waiter) => waiter.refuse !== undefined);
    this.#waiters = this.#waiters.filter((waiter) => waiter.refuse === undefined);
    for (const waiter of refused) waiter.refuse?.(stoppedError());
  }

  /**
   * A slot, once the bound, the pause and the spacing allow; `retry` goes ahead of first
   * attempts. A `stoppable` request (a first attempt) is refused once `stop` is called.
   */
  async acquire(options: { retry?: boolean; stoppable?: boolean } = {}): Promise<Permit> {
    const stopping = options.stoppable === true ? this.#stopping.signal : undefined;
    if (stopping?.aborted) throw stoppedError();
    if (this.#inFlight >= this.#limit || this.#waiters.length > 0) {
      await new Promise<void>((resolve, reject) => {
        const waiter = { wake: resolve, refuse: stopping === undefined ? undefined : reject };
        if (options.retry === true) this.#waiters.unshift(waiter);
        else this.#waiters.push(waiter);
      });
    } else {
      this.#inFlight += 1;
    }
    const epoch = this.#epoch;
    const pausedFor = this.#pausedUntil - this.#now();
    if (pausedFor > 0) await this.#sleep(pausedFor, stopping);
    const placed = stopping?.aborted
      ? undefined
      : (this.#placedAtOnce() ?? (await this.#inRate(stopping, options.retry === true)));
    if (placed === undefined) {
      this.#free();
      throw stoppedError();
    }
    let released = false;
    return {
      release: (outcome) => {
        if (released) return;
        released = true;
        placed();
        this.#settle(outcome, epoch);
      },
    };
  }

  /**
   * Waits for this start's turn at the rate (see the top), one start after another, and for its place in the gate;
   * undefined when `stopping` is aborted before they come.
   */
  async #inRate(stopping: AbortSignal | undefined, ahead: boolean): Promise<GateRelease | undefined> {
    if (!Number.isFinite(this.#rate)) return this.#enterGate(stopping, ahead);
    const previous = this.#pacing;
    let decided = (): void => undefined;
    this.#pacing = new Promise((resolve) => (decided = resolve));
    await previous;
    const interval = (1000 + ARRIVAL_TOLERANCE_MS + CATCH_UP_MS) / this.#rate;
    const due = Math.max(this.#now(), this.#lastDue + interval, this.#lastStart + interval - CATCH_UP_MS);
    const wait = due - this.#now();
    if (wait > 0 && stopping?.aborted !== true) await this.#sleep(wait, stopping);
    // The start is when the gate lets it through: the next one is spaced from then, never bunched behind it.
    const placed = stopping?.aborted ? undefined : await this.#enterGate(stopping, ahead);
    if (placed === undefined) {
      decided();
      return undefined;
    }
    this.#lastDue = due;
    this.#lastStart = this.#now();
    decided();
    return placed;
  }

  /**
   * The place of a start that waits for nothing, taken without a turn of the microtask queue (most starts of a plan):
   * with no rate to keep and a free place in the gate; else undefined, and #inRate waits for them.
   */
  #placedAtOnce(): GateRelease | undefined {
    if (Number.isFinite(this.#rate)) return undefined;
    return this.#gate === undefined ? NO_GATE : this.#gate.tryEnter();
  }

  /** A place in the gate (at once without one); undefined when `stopping` is aborted first. */
  async #enterGate(stopping: AbortSignal | undefined, ahead: boolean): Promise<GateRelease | undefined> {
    if (this.#gate === undefined) return NO_GATE;
    try {
      return await this.#gate.enter({ ahead, signal: stopping });
    } catch {
      return undefined;
    }
  }

  /**
   * Paces the starts to `requestsPerSecond` from now on, as if it had been configured: an account's own rate, known
   * once its file is read, when a request of the account may have left already (unpaced, its start not kept), so the
   * next start is spaced from now. Pacing again at the same rate changes nothing.
   */
  pace(requestsPerSecond: number): void {
    checkRate(requestsPerSecond);
    if (requestsPerSecond === this.#maxRate) return;
    this.#maxRate = requestsPerSecond;
    this.#rate = Math.min(this.#rate, requestsPerSecond);
    this.#lastStart = Math.max(this.#lastStart, this.#now());
  }

  /** Holds every request start until `until` (a time of `now`), as the service asked. */
  pauseUntil(until: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, until);
  }

  #settle(outcome: AttemptOutcome, epoch: number): void {
    if (outcome === 'ok') this.#succeeded();
    else if (outcome !== 'failed' && epoch === this.#epoch) this.#throttled(outcome === 'throttled');
    this.#free();
  }

  /** Gives a slot back, handing it to the next waiter. */
  #free(): void {
    this.#inFlight -= 1;
    while (this.#inFlight < this.#limit && this.#waiters.length > 0) {
      this.#inFlight += 1;
      this.#waiters.shift()?.wake();
    }
  }

  #succeeded(): void {
    const now = this.#now();
    this.#accepted.push(now);
    this.#forgetBefore(now - WINDOW_MS);
    if (Number.isFinite(this.#rate) && this.#rate < this.#maxRate) {
      this.#rate = Math.min(this.#maxRate, this.#rate + (this.#increase * (now - this.#grownAt)) / 1000);
      this.#grownAt = now;
    }
    if (this.#limit < this.maxConcurrency) {
      this.#successes += 1;
      if (this.#successes >= this.#limit) {
        this.#limit += 1;
        this.#successes = 0;
      }
    }
  }

  /** Drops the successes answered at or before `time` (the oldest come first). */
  #forgetBefore(time: number): void {
    while ((this.#accepted[0] ?? Number.POSITIVE_INFINITY) <= time) this.#accepted.shift();
  }

  #throttled(findRate: boolean): void {
    const now = this.#now();
    this.#forgetBefore(now - WINDOW_MS);
    const accepted = this.#accepted.length;
    this.#epoch += 1;
    if (findRate && accepted > 0) {
      this.#rate = Math.max(MIN_RATE, Math.min(this.#rate, accepted) * DECREASE_TO);
      this.#increase = this.#rate * INCREASE_PER_SECOND;
      this.#grownAt = now;
    } else {
      this.#limit = Math.max(1, Math.floor(this.#limit / 2));
      this.#successes = 0;
    }
  }
}

function checkRate(rps: number): void {
  if (!(rps >= REQUESTS_PER_SECOND.min && rps <= REQUESTS_PER_SECOND.max))
    throw new RangeError(
      `requests per second must be from ${REQUESTS_PER_SECOND.min} to ${REQUESTS_PER_SECOND.max}, not ${String(rps)}`,
    );
}

/** Why a first attempt got no slot: the limiter was stopped (an interrupt). */
function stoppedError(): Error {
  return new Error('not started: the limiter was stopped');
}
