/**
 * The whole audience client under a hostile service: 30% of requests fail with a 5xx, a 429
 * or a connection reset, before or after the service acted. 200 mixed operations must all
 * complete, and the account must end with each intended audience exactly once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAudienceClient } from '../../src/api/audiences.js';
import type { HttpClient } from '../../src/api/http.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import type { LiveAudience } from '../../src/model/index.js';
import { definition } from '../helpers/builders.js';
import { bearer, emulatorCall, storedAudiences, transport } from './support.js';

const ACCOUNT = 1234;
const CREATES = 60;

let emulator: RunningEmulator;
let http: HttpClient;

beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    faultRate: 0.3,
    faultKinds: ['5xx', '429', 'reset'],
    faultSeed: 20_240_222,
    retryAfterSeconds: 0,
  });
  // Ten attempts: a request fails all of them with probability 0.3^10, about 6 in a million.
  http = transport({
    baseUrl: emulator.url,
    headers: bearer(emulator.accessToken),
    retry: { maxAttempts: 10, baseDelayMs: 1, maxDelayMs: 10, budgetMs: 15_000 },
  });
});
afterAll(async () => {
  await http.close();
  await emulator.close();
});

it('200 mixed operations with 30% faults all complete, with no duplicate audience', async () => {
  const client = createAudienceClient(http, ACCOUNT);
  const names = Array.from({ length: CREATES }, (_, index) => `faulty-${String(index).padStart(2, '0')}`);
  let operations = 0;
  const count = <T>(promise: Promise<T>): Promise<T> => {
    operations += 1;
    return promise;
  };

  // 60 creates, all at once.
  const created = (await Promise.all(names.map((name) => count(client.create(definition({ name })))))).map(
    ({ audience }) => audience as LiveAudience,
  );
  expect(created.map((audience) => audience.name)).toEqual(names);

  // 60 reads, 40 updates and 14 lists, interleaved.
  const updated = created.slice(0, 40);
  await Promise.all([
    ...created.map(async (audience) => expect((await count(client.read(audience.id))).name).toBe(audience.name)),
    ...updated.map((audience) =>
      count(client.update(audience.id, definition({ name: audience.name, genderType: 'NOT_ALL', genders: ['F'] }))),
    ),
    ...Array.from({ length: 14 }, async () => expect((await count(client.list())).length).toBe(CREATES)),
  ]);

  // 24 single deletes and 2 batch deletes of 6.
  const deletedOne = created.slice(30, 54);
  const deletedBatch = created.slice(54, 60);
  const [, first, second] = await Promise.all([
    Promise.all(deletedOne.map((audience) => count(client.delete(audience.id)))),
    count(client.deleteMany(deletedBatch.slice(0, 3).map((audience) => audience.id))),
    count(client.deleteMany(deletedBatch.slice(3).map((audience) => audience.id))),
  ]);
  // Each of the three was deleted: by the batch answered, or by an attempt whose answer was lost.
  for (const batch of [first, second]) {
    expect(batch.answer).toMatchObject({ failCount: 0 });
    expect(batch.deletedUnanswered.length + ('error' in batch.answer ? 0 : batch.answer.successCount)).toBe(3);
  }
  expect(operations).toBe(200);

  const kept = created.slice(0, 30);
  const stored = await storedAudiences(emulator, ACCOUNT);
  expect(stored.map((audience) => audience.name).sort()).toEqual(kept.map((audience) => audience.name).sort());
  expect(stored.map((audience) => String(audience.id)).sort()).toEqual(kept.map((audience) => audience.id).sort());
  const updatedIds = new Set(updated.map((audience) => audience.id));
  for (const audience of stored) expect(audience.genders).toEqual(updatedIds.has(String(audience.id)) ? ['F'] : []);

  // The faults really struck, of every kind and on both sides of the operation.
  const log = (await emulatorCall(emulator, 'GET', '/_emulator/requests')) as {
    requests: Array<{ fault: string | null }>;
  };
  const faults = log.requests.map((entry) => entry.fault).filter((fault) => fault !== null);
  expect(faults.length / log.requests.length).toBeGreaterThan(0.2);
  expect(new Set(faults)).toEqual(new Set(['5xx-before', '5xx-after', 'reset-before', 'reset-after', '429']));
});
