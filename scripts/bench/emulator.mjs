/**
 * The emulator the benchmark runs against: started in this process from the build (dist/),
 * in memory (no state file, so no disk write slows an apply down), driven through its
 * test-only routes (reset, latency, links) and seeded through the audience API itself with
 * the latency turned off. Requests are counted from its request log.
 */
import { BENCH_ACCOUNT_ID, BENCH_AD_GROUP_ID, createBody, isLinked } from './fixtures.mjs';

const distUrl = new URL('../../dist/', import.meta.url);

/** Starts the emulator on 127.0.0.1, any free port. */
export async function startBenchEmulator({ latencyMs }) {
  const { startEmulator } = await import(new URL('emulator/server.js', distUrl).href);
  const emulator = await startEmulator({ port: 0, latencyMs });
  const log = new RequestLog(emulator.url);

  const test = async (method, path, body) => {
    const response = await fetch(`${emulator.url}/_emulator/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`emulator ${method} /_emulator/${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };

  return {
    url: emulator.url,
    accessToken: emulator.accessToken,
    log,
    /** Back to the seeded state; empties the request log (the log's sequence numbers go on). */
    reset: async () => {
      await log.sync();
      await test('POST', 'reset');
    },
    setLatency: (ms) => test('PUT', 'faults', { latencyMs: ms, jitterMs: 0 }),
    /**
     * Creates audiences 0..count-1 through the API (with no latency, `parallel` at a time), and
     * links ad group 101 to every tenth of them; returns their ids by index.
     */
    seed: async (count, { parallel = 16 } = {}) => {
      const ids = new Array(count);
      await forEachParallel(count, parallel, async (index) => {
        const response = await fetch(`${emulator.url}/openapi/v4/targetings`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${emulator.accessToken}`,
            adAccountId: String(BENCH_ACCOUNT_ID),
            'content-type': 'application/json',
          },
          body: JSON.stringify(createBody(index)),
        });
        const body = await response.json();
        if (!response.ok) throw new Error(`seeding audience ${index} failed: ${response.status} ${JSON.stringify(body)}`);
        ids[index] = body.id;
      });
      await forEachParallel(count, parallel, async (index) => {
        if (!isLinked(index)) return;
        await test('POST', 'links', { adAccountId: BENCH_ACCOUNT_ID, audienceId: ids[index], adGroupId: BENCH_AD_GROUP_ID });
      });
      await log.sync();
      return ids;
    },
    /** How many audiences the bench account has now (one list request). */
    countAudiences: async () => {
      const response = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, {
        headers: { authorization: `Bearer ${emulator.accessToken}`, adAccountId: String(BENCH_ACCOUNT_ID) },
      });
      const body = await response.json();
      return body.content.length;
    },
    close: () => emulator.close(),
  };
}

async function forEachParallel(count, parallel, work) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await work(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
}

/**
 * The emulator keeps only its last 2,000 requests, so a run of 5,000 is collected while it
 * happens: `watch` polls the log and keeps every entry by its sequence number; a gap in the
 * numbers means entries were lost, and the count is refused rather than under-reported.
 */
class RequestLog {
  #url;
  #lastSeq = 0;
  #entries = new Map();

  constructor(url) {
    this.#url = url;
  }

  async #poll() {
    const response = await fetch(`${this.#url}/_emulator/requests`);
    const { requests } = await response.json();
    for (const entry of requests) if (entry.seq > this.#lastSeq) this.#entries.set(entry.seq, entry);
  }

  /**
   * Marks everything logged so far as seen. Called after unwatched requests (seeding) and
   * before a reset empties the log, so the next `watch` knows where its requests start.
   */
  async sync() {
    await this.#poll();
    for (const seq of this.#entries.keys()) this.#lastSeq = Math.max(this.#lastSeq, seq);
    this.#entries.clear();
  }

  /** Runs `work`, polling the log meanwhile; returns its result and the requests it caused. */
  async watch(work, { intervalMs = 500 } = {}) {
    await this.sync();
    const from = this.#lastSeq;
    let polling = Promise.resolve();
    const timer = setInterval(() => {
      polling = polling.then(() => this.#poll());
    }, intervalMs);
    let result;
    try {
      result = await work();
    } finally {
      clearInterval(timer);
      await polling;
    }
    await this.#poll();
    const entries = [...this.#entries.values()].filter((entry) => entry.seq > from).sort((a, b) => a.seq - b.seq);
    entries.forEach((entry, offset) => {
      if (entry.seq !== from + offset + 1) {
        throw new Error(`the emulator's request log lost entries (expected #${from + offset + 1}, got #${entry.seq}); poll it more often`);
      }
    });
    this.#lastSeq = entries.at(-1)?.seq ?? from;
    this.#entries.clear();
    return { result, requests: entries };
  }
}
