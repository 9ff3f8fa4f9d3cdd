/**
 * The overall bound on requests in flight, shared by every account's limiter (limiter.ts): each
 * account has its own slots and rate, and a request takes a place here too, once its account lets it
 * start. Places are given in the order asked, a retry ahead of first attempts (as in an account's own
 * queue). A request waiting for its account's turn (a pause, its rate) holds no place here, so an
 * account that the service holds back never slows another.
 */

/**
 * The default overall bound (`--max-concurrency`), sized for one machine: each request in flight holds
 * a connection, a file descriptor, and 128 stays within half of the smallest common default limit of
 * open files (256 on macOS; 1024 on Linux), leaving the rest to the files a command reads and writes,
 * while 16 accounts at the default 8 each still run unhindered, which a single process's CPU can answer.
 */
export const DEFAULT_MAX_CONCURRENCY = 128;

/** Gives the place back; a second call is ignored. */
export type GateRelease = () => void;

interface GateWaiter {
  enter(): void;
}

export class RequestGate {
  readonly capacity: number;
  #inFlight = 0;
  #waiters: GateWaiter[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`the overall concurrency must be a whole number of at least 1, not ${String(capacity)}`);
    }
    this.capacity = capacity;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** How many wait for a place. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * A place among the requests in flight, once one is free; `ahead` (a retry) is served before those
   * already waiting. Rejects with `signal`'s reason when it is aborted before the place comes.
   */
  enter(options: { ahead?: boolean; signal?: AbortSignal | undefined } = {}): Promise<GateRelease> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const free = this.tryEnter();
    if (free !== undefined) return Promise.resolve(free);
    return new Promise<GateRelease>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiters = this.#waiters.filter((other) => other !== waiter);
        reject(abortReason(signal));
      };
      const waiter: GateWaiter = {
        enter: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#releaser());
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.ahead === true) this.#waiters.unshift(waiter);
      else this.#waiters.push(waiter);
    });
  }

  /** A place at once, when one is free and nobody waits for one; else undefined (nothing is queued). */
  tryEnter(): GateRelease | undefined {
    if (this.#inFlight >= this.capacity || this.#waiters.length > 0) return undefined;
    this.#inFlight += 1;
    return this.#releaser();
  }

  #releaser(): GateRelease {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      const next = this.#waiters.shift();
      if (next === undefined) return;
      this.#inFlight += 1;
      next.enter();
    };
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('the wait for a place among the requests in flight was aborted');
}
