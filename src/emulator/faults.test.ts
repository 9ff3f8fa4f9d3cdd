import { afterEach, describe, expect, it } from 'vitest';
import { createFaults, defaultFaultSettings, seededRandom } from './faults.js';
import { startEmulator } from './server.js';
import type { EmulatorOptions, RunningEmulator } from './server.js';

/** Latency, the three injected fault kinds (before and after the operation), rate limits, determinism. */
const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(options: EmulatorOptions): Promise<RunningEmulator> {
  const emulator = await startEmulator(options);
  running.push(emulator);
  return emulator;
}

function headers(emulator: RunningEmulator, account = '1234'): Record<string, string> {
  return { authorization: `Bearer ${emulator.accessToken}`, adAccountId: account, 'content-type': 'application/json' };
}

const body = JSON.stringify({
  adAccountId: 1234,
  name: 'f',
  type: 'DISPLAY',
  ageType: 'ALL',
  genderType: 'ALL',
  locationType: 'ALL',
});

/** The status of a create, or 'reset' when the connection was reset. */
async function tryCreate(emulator: RunningEmulator): Promise<number | 'reset'> {
  try {
    const response = await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'POST',
      headers: headers(emulator),
      body,
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'reset';
  }
}

async function tryList(emulator: RunningEmulator, account = '1234'): Promise<number | 'reset'> {
  try {
    const response = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, {
      headers: headers(emulator, account),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'reset';
  }
}

async function audienceCount(emulator: RunningEmulator): Promise<number> {
  const state = (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as { audiences: unknown[] };
  return state.audiences.length;
}

async function faultLog(emulator: RunningEmulator): Promise<Array<string | null>> {
  const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as {
    requests: Array<{ fault: string | null }>;
  };
  return log.requests.map((entry) => entry.fault);
}

async function sequential<T>(count: number, step: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let index = 0; index < count; index++) results.push(await step());
  return results;
}

describe('the seeded fault draw', () => {
  it('gives the same stream for the same seed and another for another seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const first = Array.from({ length: 20 }, () => a());
    expect(Array.from({ length: 20 }, () => b())).toEqual(first);
    expect(Array.from({ length: 20 }, () => c())).not.toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
  });

  it('strikes 5xx and resets both before and after the operation, and 429 always before', () => {
    const faults = createFaults({ ...defaultFaultSettings, faultRate: 1, seed: 5 });
    const seen = new Set<string>();
    for (let index = 0; index < 300; index++) {
      const fault = faults.decide();
      seen.add(fault.kind === 'none' || fault.kind === '429' ? fault.kind : `${fault.kind}-${fault.when}`);
    }
    expect([...seen].sort()).toEqual(['429', '5xx-after', '5xx-before', 'reset-after', 'reset-before']);
  });

  it('injects at roughly the given rate', () => {
    const faults = createFaults({ ...defaultFaultSettings, faultRate: 0.2, seed: 11 });
    const hits = Array.from({ length: 2000 }, () => faults.decide()).filter((fault) => fault.kind !== 'none').length;
    expect(hits).toBeGreaterThan(300);
    expect(hits).toBeLessThan(500);
  });

  it('resets to the start settings as if created anew: same streams, empty rate windows', () => {
    const start = { ...defaultFaultSettings, faultRate: 0.5, jitterMs: 10, rateLimitPerSecond: 1, seed: 7 };
    const fresh = createFaults(start);
    const used = createFaults(start);
    used.admit('account:1', 0);
    used.update({ seed: 8, faultRate: 1, quotaStatus: 400 });
    for (let index = 0; index < 5; index++) {
      used.decide();
      used.delayMs();
    }
    used.reset();
    expect(used.settings).toEqual(start);
    expect(used.admit('account:1', 1)).toBeUndefined();
    expect(Array.from({ length: 20 }, () => [used.decide(), used.delayMs()])).toEqual(
      Array.from({ length: 20 }, () => [fresh.decide(), fresh.delayMs()]),
    );
  });
});

describe('injected faults over HTTP', () => {
  it('5xx: answers 500/503 in the error shape; the operation happened exactly for the "after" ones', async () => {
    const emulator = await start({ faultRate: 1, faultKinds: ['5xx'], faultSeed: 3 });
    const statuses = await sequential(24, () => tryCreate(emulator));
    expect(statuses.every((status) => status === 500 || status === 503)).toBe(true);
    const faults = await faultLog(emulator);
    const after = faults.filter((fault) => fault === '5xx-after').length;
    expect(after).toBeGreaterThan(0);
    expect(faults.filter((fault) => fault === '5xx-before').length).toBeGreaterThan(0);
    expect(await audienceCount(emulator)).toBe(after);
    const response = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, { headers: headers(emulator) });
    expect(await response.json()).toMatchObject({ code: expect.any(Number), extras: { detailCode: 8002 } });
  });

  it('reset: the connection is reset; the operation happened exactly for the "after" ones', async () => {
    const emulator = await start({ faultRate: 1, faultKinds: ['reset'], faultSeed: 4 });
    const outcomes = await sequential(20, () => tryCreate(emulator));
    expect(outcomes.every((outcome) => outcome === 'reset')).toBe(true);
    const faults = await faultLog(emulator);
    expect(faults).toHaveLength(20);
    const after = faults.filter((fault) => fault === 'reset-after').length;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(20);
    expect(await audienceCount(emulator)).toBe(after);
  });

  it('429: answers with Retry-After and never performs the operation', async () => {
    const emulator = await start({ faultRate: 1, faultKinds: ['429'], retryAfterSeconds: 7 });
    const response = await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'POST',
      headers: headers(emulator),
      body,
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toEqual({
      code: -813,
      msg: 'too many requests',
      extras: { detailCode: 8001, detailMsg: 'injected fault: too many requests' },
    });
    await sequential(5, () => tryCreate(emulator));
    expect(await audienceCount(emulator)).toBe(0);
  });

  it('strikes only the requests of the accounts named, in the same sequence however the others interleave', async () => {
    const emulator = await start({ faultRate: 0.5, faultKinds: ['429'], faultAccounts: [5678], faultSeed: 21 });
    const alone = await sequential(12, () => tryList(emulator, '5678'));
    expect(new Set(alone)).toEqual(new Set([200, 429]));
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
    const interleaved = await sequential(12, async () => [
      await tryList(emulator, '1234'),
      await tryList(emulator, '4321'),
    ]);
    expect(interleaved.flat().every((status) => status === 200)).toBe(true);
    expect(await sequential(12, () => tryList(emulator, '5678'))).toEqual(alone);
    const settings = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'PUT',
      body: JSON.stringify({ faultAccounts: [1234] }),
    });
    expect(await settings.json()).toMatchObject({ faultAccounts: [1234] });
    const refused = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'PUT',
      body: JSON.stringify({ faultAccounts: ['1234'] }),
    });
    expect(refused.status).toBe(400);
  });

  it('never faults the test routes', async () => {
    const emulator = await start({ faultRate: 1, faultKinds: ['reset'] });
    expect((await fetch(`${emulator.url}/_emulator/state`)).status).toBe(200);
  });

  it('gives the same fault sequence for the same seed, another for another seed, and restarts on a new seed', async () => {
    const options: EmulatorOptions = { faultRate: 0.5, faultSeed: 99 };
    const run = async (emulator: RunningEmulator) => sequential(30, () => tryList(emulator));
    const first = await start(options);
    const second = await start(options);
    const other = await start({ ...options, faultSeed: 100 });
    const sequence = await run(first);
    expect(new Set(sequence).size).toBeGreaterThan(1);
    expect(await run(second)).toEqual(sequence);
    expect(await run(other)).not.toEqual(sequence);
    const reseed = await fetch(`${first.url}/_emulator/faults`, { method: 'PUT', body: JSON.stringify({ seed: 99 }) });
    expect(reseed.status).toBe(200);
    expect(await run(first)).toEqual(sequence);
  });

  it('takes fault settings at run time and reads them back', async () => {
    const emulator = await start({});
    expect(await tryList(emulator)).toBe(200);
    const put = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'PUT',
      body: JSON.stringify({ faultRate: 1, faultKinds: ['429'], retryAfterSeconds: 3 }),
    });
    expect(await put.json()).toMatchObject({ faultRate: 1, faultKinds: ['429'], retryAfterSeconds: 3 });
    expect(await tryList(emulator)).toBe(429);
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
    expect(await tryList(emulator)).toBe(200);
  });
});

describe('latency and rate limits', () => {
  it('answers each request the fixed latency after it arrived, never earlier', async () => {
    const emulator = await start({ latencyMs: 30 });
    const took: number[] = [];
    await sequential(10, async () => {
      const started = performance.now();
      const status = await tryList(emulator);
      took.push(performance.now() - started);
      return status;
    });
    expect(Math.min(...took)).toBeGreaterThanOrEqual(30);
    const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as {
      requests: Array<{ durationMs: number }>;
    };
    expect(Math.min(...log.requests.map((entry) => entry.durationMs))).toBeGreaterThanOrEqual(30);
  });

  it('adds jitter within its bound', async () => {
    const emulator = await start({ jitterMs: 15 });
    await sequential(8, () => tryList(emulator));
    const log = (await (await fetch(`${emulator.url}/_emulator/requests`)).json()) as {
      requests: Array<{ durationMs: number }>;
    };
    const durations = log.requests.map((entry) => entry.durationMs);
    expect(Math.max(...durations)).toBeLessThan(15 + 25);
    expect(new Set(durations).size).toBeGreaterThan(1);
  });

  it('answers 429 with Retry-After beyond the per-account rate, without touching other accounts', async () => {
    const emulator = await start({ rateLimitPerSecond: 3 });
    expect(await sequential(3, () => tryList(emulator))).toEqual([200, 200, 200]);
    const limited = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, { headers: headers(emulator) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await tryList(emulator, '5678')).toBe(200);
    expect((await faultLog(emulator)).filter((fault) => fault === 'rate-limit')).toHaveLength(1);
  });
  it('counts only writes when the scope is "writes": reads go through, and a bad scope is refused', async () => {
    const emulator = await start({ rateLimitPerSecond: 1, rateLimitScope: 'writes' });
    expect(await sequential(4, () => tryList(emulator))).toEqual([200, 200, 200, 200]);
    const create = () =>
      fetch(`${emulator.url}/openapi/v4/targetings`, {
        method: 'POST',
        headers: { ...headers(emulator), 'content-type': 'application/json' },
        body: JSON.stringify({ adAccountId: 1234, name: 'w', type: 'DISPLAY' }),
      });
    expect((await create()).status).not.toBe(429);
    expect((await create()).status).toBe(429);
    expect(await tryList(emulator)).toBe(200);
    const refused = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'PUT',
      body: JSON.stringify({ rateLimitScope: 'reads' }),
    });
    expect(refused.status).toBe(400);
  });
});

describe('quota answers in both spellings of the service', () => {
  const listing = (emulator: RunningEmulator) =>
    fetch(`${emulator.url}/openapi/v4/targetings/audiences`, { headers: headers(emulator) });
  const put = (emulator: RunningEmulator, settings: unknown) =>
    fetch(`${emulator.url}/_emulator/faults`, { method: 'PUT', body: JSON.stringify(settings) });
  const asQuota400 = {
    code: -10,
    msg: 'allowed request count exceeded',
    extras: { detailCode: 8001, detailMsg: expect.any(String) },
  };

  it('answers 400 with code -10 when quotaStatus is 400, for the rate limit and the injected 429 alike', async () => {
    const limited = await start({ rateLimitPerSecond: 1, quotaStatus: 400 });
    expect(await tryList(limited)).toBe(200);
    const refused = await listing(limited);
    expect(refused.status).toBe(400);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual(asQuota400);

    const injected = await start({ faultRate: 1, faultKinds: ['429'], retryAfterSeconds: 4, quotaStatus: 400 });
    const answer = await listing(injected);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('retry-after')).toBe('4');
    expect(await answer.json()).toEqual(asQuota400);
  });

  it('leaves Retry-After out when quotaRetryAfter is false, in either spelling', async () => {
    const emulator = await start({ faultRate: 1, faultKinds: ['429'], quotaRetryAfter: false });
    const spelled429 = await listing(emulator);
    expect(spelled429.status).toBe(429);
    expect(spelled429.headers.has('retry-after')).toBe(false);
    expect(await spelled429.json()).toMatchObject({ code: -813, extras: { detailCode: 8001 } });
    await put(emulator, { quotaStatus: 400 });
    const spelled400 = await listing(emulator);
    expect(spelled400.status).toBe(400);
    expect(spelled400.headers.has('retry-after')).toBe(false);

    const limited = await start({ rateLimitPerSecond: 1, quotaRetryAfter: false });
    await tryList(limited);
    const refused = await listing(limited);
    expect(refused.status).toBe(429);
    expect(refused.headers.has('retry-after')).toBe(false);
  });

  it('changes the spelling at run time, reads it back, refuses bad values and resets to the start options', async () => {
    const emulator = await start({ faultRate: 1, faultKinds: ['429'] });
    const changed = await put(emulator, { quotaStatus: 400, quotaRetryAfter: false, memberIds: 'text' });
    expect(await changed.json()).toMatchObject({ quotaStatus: 400, quotaRetryAfter: false, memberIds: 'text' });
    expect(await (await fetch(`${emulator.url}/_emulator/faults`)).json()).toMatchObject({
      quotaStatus: 400,
      quotaRetryAfter: false,
      memberIds: 'text',
    });
    expect((await listing(emulator)).status).toBe(400);
    for (const bad of [{ quotaStatus: 401 }, { quotaStatus: '429' }, { quotaRetryAfter: 'no' }, { memberIds: 'hex' }]) {
      const refused = await put(emulator, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(((await refused.json()) as { extras: { detailMsg: string } }).extras.detailMsg).toContain(
        Object.keys(bad)[0],
      );
    }
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
    expect(await (await fetch(`${emulator.url}/_emulator/faults`)).json()).toMatchObject({
      quotaStatus: 429,
      quotaRetryAfter: true,
      memberIds: 'catalog',
    });
    const after = await listing(emulator);
    expect(after.status).toBe(429);
    expect(after.headers.get('retry-after')).toBe('1');
  });
});
