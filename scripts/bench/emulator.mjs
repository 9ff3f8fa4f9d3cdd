/**
 * The emulator the benchmark runs against: started in this process from the build (dist/),
 * in memory (no state file, so no disk write slows an apply down), driven through its
 * test-only routes (reset, latency, links) and seeded through the audience API itself with
 * the latency turned off. Requests are counted from its request log.
 */
import { Pool } from 'undici';
import { BENCH_ACCOUNT_ID, BENCH_AD_GROUP_ID, createBody, isLinked } from './fixtures.mjs';

const distUrl = new URL('../../dist/', import.meta.url);

/** Starts the emulator on 127.0.0.1, any free port. */
export async function startBenchEmulator({ latencyMs }) {
  const { startEmulator } = await import(new URL('emulator/server.js', distUrl).href);
  const emulator = await startEmulator({ port: 0, latencyMs });
  // Seeding 5,000 audiences is 5,000 requests: undici's pool costs this process (which is
  // also the emulator) about half the CPU of fetch per request.
  const pool = new Pool(emulator.url, { connections: 16 });
  const ads = (adAccountId = BENCH_ACCOUNT_ID) => ({
    authorization: `Bearer ${emulator.accessToken}`,
    adaccountid: String(adAccountId),
  });

  const call = async (method, path, { headers = {}, body } = {}) => {
    const response = await pool.request({
      method,
      path,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`emulator ${method} ${path}: ${response.statusCode} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const test = (method, path, body) => call(method, `/_emulator/${path}`, { body });
  const log = new RequestLog((path) => call('GET', path));

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
    /** Changes fault settings (src/emulator/faults.ts), e.g. the rate limit; `reset` puts them back. */
    setFaults: (patch) => test('PUT', 'faults', patch),
    /** Adds these ad accounts (POST /_emulator/accounts); a reset removes them. */
    addAccounts: async (ids) => {
      for (const id of ids) await test('POST', 'accounts', { id });
    },
    /**
     * Creates audiences 0..count-1 through the API (with no latency, `parallel` at a time), and
     * links ad group 101 to every tenth of them (in the bench's own account, which has it); returns their ids by index.
     */
    seed: async (count, { parallel = 16, adAccountId = BENCH_ACCOUNT_ID } = {}) => {
      const ids = new Array(count);
      await forEachParallel(count, parallel, async (index) => {
        ids[index] = (
          await call('POST', '/openapi/v4/targetings', {
            headers: ads(adAccountId),
            body: createBody(index, adAccountId),
          })
        ).id;
      });
      await forEachParallel(count, parallel, async (index) => {
        if (!isLinked(index) || adAccountId !== BENCH_ACCOUNT_ID) return;
        await test('POST', 'links', {
          adAccountId: BENCH_ACCOUNT_ID,
          audienceId: ids[index],
          adGroupId: BENCH_AD_GROUP_ID,
        });
      });
      await log.sync();
      return ids;
    },
    /** The names of an account's audiences (the bench's by default), one per audience (one list request). */
    audienceNames: async (adAccountId = BENCH_ACCOUNT_ID) =>
      (await call('GET', '/openapi/v4/targetings/audiences', { headers: ads(adAccountId) })).content.map(
        (audience) => audience.name,
      ),
    close: async () => {
      await pool.close();
      await emulator.close();
    },
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
  #get;
  #lastSeq = 0;
  /** The highest sequence number read so far: the next poll asks for what came after it. */
  #newest = 0;
  #entries = new Map();

  constructor(get) {
    this.#get = get;
  }

  /**
   * Reads the entries logged since the last one read: the emulator serves this process too, and
   * serializing its whole log (2,000 entries, 12 ms at a stretch) would hold up the requests of
   * the run being measured, and move the arrival a rate limit counts.
   */
  async #poll() {
    const { requests } = await this.#get(`/_emulator/requests?after=${this.#newest}`);
    for (const entry of requests) {
      if (entry.seq > this.#lastSeq) this.#entries.set(entry.seq, entry);
      this.#newest = Math.max(this.#newest, entry.seq);
    }
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
        throw new Error(
          `the emulator's request log lost entries (expected #${from + offset + 1}, got #${entry.seq}); poll it more often`,
        );
      }
    });
    this.#lastSeq = entries.at(-1)?.seq ?? from;
    this.#entries.clear();
    return { result, requests: entries };
  }
}
