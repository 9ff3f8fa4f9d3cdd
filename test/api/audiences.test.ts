import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { isOutcomeUnknown, type AppError } from '../../src/errors.js';
import { createAudienceClient, type AudienceClient, type BatchAnswer } from '../../src/api/audiences.js';
import type { HttpClient } from '../../src/api/http.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { REGION_FIELDS, type LiveAudience } from '../../src/model/index.js';
import { definition } from '../helpers/builders.js';
import {
  bearer,
  emulatorCall,
  FAST_RETRY,
  startProxy,
  storedAudiences,
  transport,
  type Proxy,
  type ProxyAction,
} from './support.js';

const ACCOUNT = 1234;

let emulator: RunningEmulator;
let http: HttpClient;
let client: AudienceClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  http = transport({ baseUrl: emulator.url, headers: bearer(emulator.accessToken) });
  client = createAudienceClient(http, ACCOUNT);
});
afterAll(async () => {
  await http.close();
  await emulator.close();
});
beforeEach(async () => {
  await emulatorCall(emulator, 'POST', '/_emulator/reset');
});

/** The audience a create or update answered, the first time (no answer lost on the way). */
function answered(outcome: { audience: LiveAudience | null; verified: string | null }): LiveAudience {
  expect(outcome.verified).toBeNull();
  if (outcome.audience === null) throw new Error('the write answered no audience');
  return outcome.audience;
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const seoulWomen = definition({
  name: 'seoul-women-20s',
  ageType: 'NOT_ALL',
  ages: ['25', '20'],
  genderType: 'NOT_ALL',
  genders: ['F'],
  locationType: 'AREA',
  locations: [{ value: 'I' }],
  depth2Locations: [{ value: 'B01' }],
  depth3Locations: [{ value: 'I0401' }],
  ufoInterests: ['TRAVEL', 'FOOD'],
  cohortTargetings: [{ cohortId: 7001, inclusionType: 'INCLUDE' }],
  trackerTargetings: [{ trackId: 'trk-web', eventCode: 'purchase', retentionDays: 30, inclusionType: 'EXCLUDE' }],
});

describe('the eight operations against the emulator', () => {
  it('create answers the model, with the service names of regions and members', async () => {
    const created = answered(await client.create(seoulWomen));
    expect(created.id).toMatch(/^[1-9][0-9]*$/);
    expect(created.name).toBe('seoul-women-20s');
    expect(created.definition.ages).toEqual(['20', '25']);
    expect(created.definition.locationType).toBe('AREA');
    expect(created.definition.locations).toEqual([{ value: 'I', description: 'Seoul', depth1Name: 'Seoul' }]);
    expect(created.definition.depth2Locations.map((region) => region.value)).toEqual(['B01']);
    expect(created.definition.depth3Locations.map((region) => region.value)).toEqual(['I0401']);
    expect(created.definition.ufoInterests).toEqual(['FOOD', 'TRAVEL']);
    expect(created.definition.cohortTargetings).toEqual([
      expect.objectContaining({ cohortId: 7001, inclusionType: 'INCLUDE', cohortName: expect.any(String) }),
    ]);
    expect(created.populationScore).toEqual(expect.any(Number));
  });

  it('read returns what create stored; list returns the summaries', async () => {
    const created = answered(await client.create(seoulWomen));
    const other = await client.create(definition({ name: 'everyone', type: 'MESSAGE' }));
    const read = await client.read(created.id);
    // Create and read answer different region shapes (the spec's Depth2Location vs Location); the codes are the same.
    const codes = (live: typeof read) => ({
      ...live.definition,
      ...Object.fromEntries(
        REGION_FIELDS.map((field) => [field, live.definition[field].map((region) => region.value)]),
      ),
    });
    expect(codes(read)).toEqual(codes(created));
    expect(read.definition.depth3Locations).toEqual([
      {
        value: 'I0401',
        description: 'Seoul Gangnam-gu Yeoksam-dong',
        depth1Name: 'Seoul',
        depth2Name: 'Gangnam-gu',
        depth3Name: 'Yeoksam-dong',
      },
    ]);
    expect(read.type).toBe('DISPLAY');
    const listed = await client.list();
    expect(listed.map((summary) => [summary.id, summary.name, summary.type])).toEqual([
      [created.id, 'seoul-women-20s', 'DISPLAY'],
      [other.id, 'everyone', 'MESSAGE'],
    ]);
    expect(listed[0]).toEqual({
      id: created.id,
      name: created.name,
      audienceStatus: created.audienceStatus,
      type: 'DISPLAY',
      createdDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
      lastModifiedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/),
    });
  });

  it('update replaces the definition; everything not sent is cleared', async () => {
    const created = await client.create(seoulWomen);
    const updated = answered(
      await client.update(created.id, definition({ name: 'renamed', genderType: 'NOT_ALL', genders: ['M'] })),
    );
    expect(updated.id).toBe(created.id);
    expect(updated.name).toBe('renamed');
    const read = await client.read(created.id);
    expect(read.definition.genders).toEqual(['M']);
    expect(read.definition.ageType).toBe('ALL');
    expect(read.definition.locationType).toBe('ALL');
    expect(read.definition.trackerTargetings).toEqual([]);
  });

  it('ad groups, unlink (PUT), and delete once unlinked', async () => {
    const created = await client.create(seoulWomen);
    await emulatorCall(emulator, 'POST', '/_emulator/links', {
      adAccountId: ACCOUNT,
      audienceId: created.id,
      adGroupId: 101,
    });
    await emulatorCall(emulator, 'POST', '/_emulator/links', {
      adAccountId: ACCOUNT,
      audienceId: created.id,
      adGroupId: 102,
    });
    expect(await client.adGroups(created.id)).toEqual([
      {
        adGroupId: '101',
        adGroupName: expect.any(String),
        adGroupType: 'DISPLAY',
        adGroupStatus: ['LIVE'],
        campaignId: '11',
        campaignName: expect.any(String),
        campaignType: 'DISPLAY',
        campaignGoal: 'VISITING',
      },
      expect.objectContaining({ adGroupId: '102', adGroupStatus: ['PAUSED'], campaignId: '11' }),
    ]);

    const inUse = await rejection(client.delete(created.id));
    expect(inUse).toMatchObject({
      kind: 'http',
      status: 400,
      code: 'API_REJECTED',
      detailCode: 5001,
      ambiguous: false,
      attempts: 1,
    });
    expect(inUse.detailMsg).toContain('101, 102');

    await client.unlink(created.id, '101');
    await client.unlink(created.id, '102');
    expect(await client.adGroups(created.id)).toEqual([]);
    const unlog = (await emulatorCall(emulator, 'GET', '/_emulator/requests')) as {
      requests: Array<{ method: string; path: string }>;
    };
    expect(
      unlog.requests.filter((entry) => entry.path.includes('/unlink')).map((entry) => `${entry.method} ${entry.path}`),
    ).toEqual([
      `PUT /openapi/v4/targetings/${created.id}/unlink?adGroupId=101`,
      `PUT /openapi/v4/targetings/${created.id}/unlink?adGroupId=102`,
    ]);

    await client.delete(created.id);
    expect(await storedAudiences(emulator, ACCOUNT)).toEqual([]);
    const gone = await rejection(client.read(created.id));
    expect(gone).toMatchObject({ kind: 'http', status: 404, code: 'API_NOT_FOUND', detailCode: 3001 });
  });

  it('a first-attempt 404 on delete, or on an unlink from an audience that does not exist, is still an error (a wrong id is reported)', async () => {
    expect(await rejection(client.unlink('999999', '101'))).toMatchObject({
      status: 404,
      detailCode: 3001,
      attempts: 1,
    });
    expect(await rejection(client.delete('999999'))).toMatchObject({ status: 404, detailCode: 3001, attempts: 1 });
  });

  it('a first-attempt 404 on an unlink whose ad group the audience does not hold is done: the link was already gone', async () => {
    const created = await client.create(seoulWomen);
    expect(await client.unlink(created.id, '101')).toEqual({
      verified: null,
      note: `the link was already gone: the unlink answered 404 (ad group 101 does not use audience ${created.id}), and the audience's ad groups, listed then, do not hold ad group 101`,
    });
  });

  it('delete many returns the counts and the messages as data', async () => {
    const free = await client.create(definition({ name: 'free' }));
    const linked = await client.create(definition({ name: 'linked' }));
    await emulatorCall(emulator, 'POST', '/_emulator/links', {
      adAccountId: ACCOUNT,
      audienceId: linked.id,
      adGroupId: 101,
    });
    const outcome = await client.deleteMany([free.id, linked.id, '999999']);
    expect(outcome).toMatchObject({ deletedUnanswered: [], lostAnswer: null, sent: [free.id, linked.id, '999999'] });
    const result = outcome.answer as BatchAnswer;
    expect(result.successCount).toBe(1);
    expect(result.failCount).toBe(2);
    expect(result.errorMessages).toHaveLength(2);
    expect(result.errorMessages.find((message) => message.startsWith(`audience ${linked.id}`))).toContain('101');
    expect(result.errorMessages.find((message) => message.startsWith('audience 999999'))).toContain('not found');
    expect((await storedAudiences(emulator, ACCOUNT)).map((audience) => audience.name)).toEqual(['linked']);
  });

  it('delete many of nothing sends nothing', async () => {
    await emulatorCall(emulator, 'DELETE', '/_emulator/requests');
    expect(await client.deleteMany([])).toEqual({
      deletedUnanswered: [],
      lostAnswer: null,
      sent: [],
      answer: { successCount: 0, failCount: 0, errorMessages: [] },
    });
    const log = (await emulatorCall(emulator, 'GET', '/_emulator/requests')) as { requests: unknown[] };
    expect(log.requests).toEqual([]);
  });

  it('a rule violation is an ApiError with the service codes', async () => {
    const error = await rejection(client.create(definition({ name: 'bad', ageType: 'NOT_ALL', ages: [] })));
    expect(error).toMatchObject({
      service: 'audience',
      method: 'POST',
      path: '/openapi/v4/targetings',
      kind: 'http',
      status: 400,
      serviceCode: -400,
      detailCode: 4102,
      ambiguous: false,
      attempts: 1,
    });
    expect(error.summary).toContain('400');
    expect(error.detail).toContain('detail code 4102');
  });

  it('another account sees none of them', async () => {
    const created = await client.create(seoulWomen);
    const second = createAudienceClient(http, 5678);
    expect(await second.list()).toEqual([]);
    expect(await rejection(second.read(created.id))).toMatchObject({ status: 404 });
    expect(await rejection(createAudienceClient(http, 9999).list())).toMatchObject({
      status: 403,
      code: 'API_FORBIDDEN',
      detailCode: 2005,
    });
  });
});

describe("reading the spec examples' quirks", () => {
  it('depth2locations and a misspelled description still give the regions and their names', async () => {
    const quirky = await startEmulator({ port: 0, quirks: true });
    const quirkyHttp = transport({ baseUrl: quirky.url, headers: bearer(quirky.accessToken) });
    try {
      const quirkyClient = createAudienceClient(quirkyHttp, ACCOUNT);
      const created = answered(await quirkyClient.create(seoulWomen));
      const read = await quirkyClient.read(created.id);
      for (const live of [created, read]) {
        expect(live.definition.depth2Locations).toEqual([
          expect.objectContaining({ value: 'B01', description: expect.stringContaining('Suwon') }),
        ]);
        expect(live.definition.depth3Locations).toEqual([
          expect.objectContaining({ value: 'I0401', description: expect.stringContaining('Yeoksam') }),
        ]);
      }
    } finally {
      await quirkyHttp.close();
      await quirky.close();
    }
  });
});

describe('answers lost on the way back (a proxy in front of the emulator)', () => {
  let proxy: Proxy;
  let proxied: HttpClient;
  let actions: Array<[RegExp, ProxyAction]>;

  beforeEach(async () => {
    actions = [];
    // Each scripted action applies once, to the first request that matches it.
    proxy = await startProxy(emulator.url, (request) => {
      const index = actions.findIndex(([pattern]) => pattern.test(request));
      if (index < 0) return 'pass';
      const [[, action]] = actions.splice(index, 1) as [[RegExp, ProxyAction]];
      return action;
    });
    // A read or an idempotent write is tried again while its budget lasts: a short one, so "every answer lost" ends
    // soon.
    proxied = transport({
      baseUrl: proxy.url,
      headers: bearer(emulator.accessToken),
      retry: { ...FAST_RETRY, budgetMs: 300 },
    });
  });
  afterEach(async () => {
    await proxied.close();
    await proxy.close();
  });

  const posts = () => proxy.seen.filter((request) => request.startsWith('POST '));

  /** The error a promise rejects with, whatever it is. */
  const thrown = (promise: Promise<unknown>): Promise<unknown> =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it.each(['500-after', 'reset-after'] as const)(
    'create: %s adopts the audience the service made, without a second POST, and says how it knows',
    async (action) => {
      actions.push([/^POST /, action]);
      const created = await createAudienceClient(proxied, ACCOUNT).create(seoulWomen);
      const stored = await storedAudiences(emulator, ACCOUNT);
      expect(stored.map((audience) => [audience.id, audience.name])).toEqual([[created.id, 'seoul-women-20s']]);
      expect(posts()).toHaveLength(1);
      expect(created.audience?.definition.genders).toEqual(['F']);
      expect(created.verified).toMatch(
        new RegExp(
          `^the answer was lost \\(.+\\); the account was listed and the audience was found \\(id ${created.id}\\)$`,
        ),
      );
    },
  );

  it.each(['500-before', 'reset-before'] as const)(
    'create: %s finds nothing made and sends it again, and says so',
    async (action) => {
      actions.push([/^POST /, action]);
      const created = await createAudienceClient(proxied, ACCOUNT).create(seoulWomen);
      expect((await storedAudiences(emulator, ACCOUNT)).map((audience) => audience.id)).toEqual([created.id]);
      expect(posts()).toHaveLength(2);
      expect(created.verified).toMatch(
        /^the answer was lost \(.+\); the account was listed and the audience was not there, so it was sent again and made$/,
      );
    },
  );

  it('create: an answer that comes back the first time is not "verified"', async () => {
    expect((await createAudienceClient(proxied, ACCOUNT).create(seoulWomen)).verified).toBeNull();
  });

  it.each([
    ['500-before', 2],
    ['500-after', 1],
  ] as const)('create: %s never takes an audience that was there before for the one made', async (action, sent) => {
    const before = await client.create(seoulWomen);
    actions.push([/^POST /, action]);
    const created = await createAudienceClient(proxied, ACCOUNT).create(seoulWomen, new Set([before.id]));
    expect(created.id).not.toBe(before.id);
    expect((await storedAudiences(emulator, ACCOUNT)).map((audience) => audience.id)).toEqual([before.id, created.id]);
    expect(posts()).toHaveLength(sent);
  });

  it('create: two audiences of that name after a lost answer are both named as candidates; the lowest is taken, and the apply settles the other', async () => {
    const first = await client.create(seoulWomen);
    actions.push([/^POST /, '500-after']);
    const created = await createAudienceClient(proxied, ACCOUNT).create(seoulWomen);
    const ids = (await storedAudiences(emulator, ACCOUNT)).map((audience) => audience.id);
    expect(ids).toHaveLength(2);
    expect(created).toMatchObject({ id: first.id, candidates: ids, audience: { id: first.id } });
    expect(created.verified).toContain(
      `held 2 audiences of that name made since the plan (ids ${ids.join(', ')}), so which one this create made is unknown: the lowest (id ${first.id}) is taken`,
    );
    expect(posts()).toHaveLength(1);
  });

  it('create: when the list that would settle a lost answer fails too, the outcome is unknown (not "failed"), with both causes', async () => {
    actions.push(
      [/^POST /, '500-after'],
      ...Array.from({ length: 1000 }, (): [RegExp, ProxyAction] => [/^GET .*\/audiences/, '500-before']),
    );
    const error = await thrown(createAudienceClient(proxied, ACCOUNT).create(seoulWomen));
    expect(isOutcomeUnknown(error)).toBe(true);
    expect((error as AppError).summary).toMatch(
      /^the outcome is unknown: the create of audience "seoul-women-20s" may have been carried out, but its answer was lost \(the audience API answered 500 to POST .*\); listing the account to find out failed too: the audience API answered 500 to GET /,
    );
    expect(await storedAudiences(emulator, ACCOUNT)).toHaveLength(1);
  });

  it.each([
    ['content null', { content: null }],
    ['one page of several', { content: [], last: false, totalPages: 2, totalElements: 1 }],
  ])(
    'create: a list that settles a lost answer with %s is not "the audience is not there": the outcome is unknown, and nothing is sent again',
    async (_, body) => {
      actions.push([/^POST /, '500-after'], [/^GET .*\/audiences/, { status: 200, body }]);
      const error = await thrown(createAudienceClient(proxied, ACCOUNT).create(seoulWomen));
      expect(isOutcomeUnknown(error)).toBe(true);
      expect((error as AppError).summary).toContain(
        '; listing the account to find out failed too: the audience API did not answer the whole list of audiences',
      );
      expect(posts()).toHaveLength(1);
      expect(await storedAudiences(emulator, ACCOUNT)).toHaveLength(1);
    },
  );

  it('update: a retry after a lost answer is done, and says so; when every answer is lost the outcome is unknown', async () => {
    const created = await client.create(seoulWomen);
    actions.push([/^PUT /, 'reset-after']);
    const updated = await createAudienceClient(proxied, ACCOUNT).update(
      created.id,
      definition({ name: 'seoul-women-20s', genderType: 'NOT_ALL', genders: ['M'] }),
    );
    expect(updated.audience.definition.genders).toEqual(['M']);
    expect(updated.verified).toMatch(
      /^the answer was lost \(.+\); the update was sent again, as an update safely can be, and answered$/,
    );

    actions.push(...Array.from({ length: 1000 }, (): [RegExp, ProxyAction] => [/^PUT /, '500-after']));
    const error = await thrown(
      createAudienceClient(proxied, ACCOUNT).update(created.id, definition({ name: 'seoul-women-20s' })),
    );
    expect(isOutcomeUnknown(error)).toBe(true);
    expect((error as AppError).summary).toContain(
      `the update of audience ${created.id} may have been carried out, but its answer was lost`,
    );
  });

  it('update: a refusal stays a failure (the service said why), not an unknown', async () => {
    const error = await thrown(createAudienceClient(proxied, ACCOUNT).update('999999', definition({ name: 'nobody' })));
    expect(error).toBeInstanceOf(ApiError);
    expect(isOutcomeUnknown(error)).toBe(false);
  });

  it('delete: a retry after the first attempt went through is a success, and says the audience was already gone', async () => {
    const created = await client.create(seoulWomen);
    actions.push([/^DELETE /, '500-after']);
    const deleted = await createAudienceClient(proxied, ACCOUNT).delete(created.id);
    expect(deleted.verified).toMatch(
      /^the answer was lost \(the service answered 500\); sent again, the audience was already gone \(404\)$/,
    );
    expect(await storedAudiences(emulator, ACCOUNT)).toEqual([]);
    expect(proxy.seen.filter((request) => request.startsWith('DELETE '))).toHaveLength(2);
  });

  it('delete: when every answer is lost, the outcome is unknown, even if the service did nothing (the client cannot tell)', async () => {
    const created = await client.create(seoulWomen);
    actions.push(...Array.from({ length: 1000 }, (): [RegExp, ProxyAction] => [/^DELETE /, 'reset-before']));
    expect(isOutcomeUnknown(await thrown(createAudienceClient(proxied, ACCOUNT).delete(created.id)))).toBe(true);
  });

  it('unlink: a retry after the first attempt went through is a success, and says so', async () => {
    const created = await client.create(seoulWomen);
    await emulatorCall(emulator, 'POST', '/_emulator/links', {
      adAccountId: ACCOUNT,
      audienceId: created.id,
      adGroupId: 101,
    });
    actions.push([/\/unlink/, 'reset-after']);
    const unlinked = await createAudienceClient(proxied, ACCOUNT).unlink(created.id, '101');
    expect(unlinked.verified).toMatch(
      /^the answer was lost \(.+\); sent again, the ad group no longer used the audience \(404\)$/,
    );
    expect(await client.adGroups(created.id)).toEqual([]);
    expect(proxy.seen.filter((request) => request.includes('/unlink'))).toHaveLength(2);
  });

  it('delete many: a lost answer is reconciled by listing, and only what is left is sent again; the result says which went which way', async () => {
    const free = await client.create(definition({ name: 'free' }));
    const linked = await client.create(definition({ name: 'linked' }));
    await emulatorCall(emulator, 'POST', '/_emulator/links', {
      adAccountId: ACCOUNT,
      audienceId: linked.id,
      adGroupId: 101,
    });
    actions.push([/^DELETE /, '500-after']);
    const result = await createAudienceClient(proxied, ACCOUNT).deleteMany([free.id, linked.id]);
    expect(result).toEqual({
      deletedUnanswered: [free.id],
      lostAnswer: expect.stringContaining('answered 500'),
      sent: [linked.id],
      answer: {
        successCount: 0,
        failCount: 1,
        errorMessages: [expect.stringMatching(new RegExp(`^audience ${linked.id}: in use`))],
      },
    });
    expect(proxy.seen.filter((request) => request.startsWith('DELETE '))).toEqual([
      `DELETE /openapi/v4/targetings?audienceIds=${free.id},${linked.id}`,
      `DELETE /openapi/v4/targetings?audienceIds=${linked.id}`,
    ]);
  });

  it('delete many: when the lost attempt deleted everything, nothing is sent again', async () => {
    const one = await client.create(definition({ name: 'one' }));
    const two = await client.create(definition({ name: 'two' }));
    actions.push([/^DELETE /, 'reset-after']);
    expect(await createAudienceClient(proxied, ACCOUNT).deleteMany([one.id, two.id])).toMatchObject({
      deletedUnanswered: [one.id, two.id],
      sent: [],
      answer: { successCount: 0, failCount: 0, errorMessages: [] },
    });
    expect(proxy.seen.filter((request) => request.startsWith('DELETE '))).toHaveLength(1);
  });

  it('delete many: when the list that would settle a lost answer fails, the outcome is unknown, as data', async () => {
    const one = await client.create(definition({ name: 'one' }));
    actions.push(
      [/^DELETE /, 'reset-after'],
      ...Array.from({ length: 1000 }, (): [RegExp, ProxyAction] => [/^GET .*\/audiences/, 'reset-before']),
    );
    const result = await createAudienceClient(proxied, ACCOUNT).deleteMany([one.id, '999999']);
    expect(result).toMatchObject({ deletedUnanswered: [], sent: [one.id, '999999'] });
    expect('error' in result.answer && isOutcomeUnknown(result.answer.error)).toBe(true);
  });
});
