import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './server.js';
import type { RunningEmulator } from './server.js';

/** The eight audience operations and every rule of the create/update body, over HTTP. */
let emulator: RunningEmulator;
let clock = Date.parse('2025-03-01T09:00:00Z');
const advance = (ms: number) => {
  clock += ms;
};

beforeAll(async () => {
  emulator = await startEmulator({ now: () => new Date(clock) });
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

async function call(method: string, path: string, options: { body?: unknown; account?: number } = {}): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${emulator.accessToken}`,
    adAccountId: String(options.account ?? 1234),
  };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(emulator.url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

async function link(audienceId: number, adGroupId: number, adAccountId = 1234): Promise<Answer> {
  const response = await fetch(`${emulator.url}/_emulator/links`, {
    method: 'POST',
    body: JSON.stringify({ adAccountId, audienceId, adGroupId }),
  });
  return { status: response.status, headers: response.headers, text: '', json: await response.json() };
}

function audience(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    adAccountId: 1234,
    name: 'seoul-women-20s',
    type: 'DISPLAY',
    ageType: 'NOT_ALL',
    ages: ['25', '20'],
    genderType: 'NOT_ALL',
    genders: ['F'],
    locationType: 'AREA',
    locations: [{ value: 'I' }],
    ...overrides,
  };
}

function without(body: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...body };
  for (const key of keys) delete copy[key];
  return copy;
}

async function create(overrides: Record<string, unknown> = {}, account = 1234): Promise<Answer> {
  const answer = await call('POST', '/openapi/v4/targetings', {
    body: audience({ adAccountId: account, ...overrides }),
    account,
  });
  return answer;
}

const listKeys = ['id', 'name', 'audienceStatus', 'type', 'createdDate', 'lastModifiedDate'];
const readKeys = [
  ...listKeys,
  'populationScore',
  'ageType',
  'ages',
  'genderType',
  'genders',
  'locations',
  'depth2Locations',
  'depth3Locations',
  'ufoInterests',
  'ufoBusinessTypes',
  'customerFileTargetings',
  'trackerTargetings',
  'cohortTargetings',
  'talkChannelTargetings',
  'syncAppTargetings',
  'talkChannelGroupTargetings',
  'lookalikeTargetings',
];
const dateForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function expectRuleError(answer: Answer, detailCode: number): void {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.headers.get('content-type')).toBe('application/json;charset=UTF-8');
  expect(answer.json).toMatchObject({ code: expect.any(Number), msg: expect.any(String) });
  expect(answer.json.code).toBeLessThan(0);
  expect(answer.json.extras.detailCode).toBe(detailCode);
  expect(answer.json.extras.detailMsg).toEqual(expect.any(String));
}

describe('create (operation 3) and the response shapes', () => {
  it('creates an audience and answers the create shape: the single-read fields plus adAccountId', async () => {
    const answer = await create({
      depth2Locations: [{ value: 'I04', description: 'whatever the client says' }],
      depth3Locations: [{ value: 'I0401' }],
      ufoInterests: ['TRAVEL'],
      customerFileTargetings: [{ customerFileId: 5001, inclusionType: 'INCLUDE' }],
      trackerTargetings: [{ trackId: 'trk-web', eventCode: 'purchase', retentionDays: 30, inclusionType: 'EXCLUDE' }],
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    const body = answer.json;
    expect(Object.keys(body).sort()).toEqual([...readKeys, 'adAccountId'].sort());
    expect(body.adAccountId).toBe(1234);
    expect(body.id).toBe(100001);
    expect(body.createdDate).toBe('2025-03-01T09:00:00');
    expect(body.lastModifiedDate).toMatch(dateForm);
    expect(body.audienceStatus).toBe('STANDBY');
    expect(body.ages).toEqual(['20', '25']);
    expect(body.genders).toEqual(['F']);
    expect(body.locations).toEqual([{ value: 'I', description: 'Seoul', depth1Name: 'Seoul' }]);
    // Create/update: depth-2 objects are Depth2Location, depth-3 objects the Location shape.
    expect(body.depth2Locations).toEqual([
      { value: 'I04', description: 'Seoul Gangnam-gu', depth1Name: 'Seoul', depth2Name: 'Gangnam-gu' },
    ]);
    expect(body.depth3Locations).toEqual([
      { value: 'I0401', description: 'Seoul Gangnam-gu Yeoksam-dong', depth1Name: 'Seoul' },
    ]);
    expect(body.ufoInterests).toEqual(['TRAVEL']);
    expect(body.ufoBusinessTypes).toEqual([]);
    expect(body.customerFileTargetings).toEqual([
      { customerFileId: 5001, inclusionType: 'INCLUDE', customerFileName: 'VIP customers' },
    ]);
    expect(body.trackerTargetings).toEqual([
      {
        trackId: 'trk-web',
        eventCode: 'purchase',
        retentionDays: 30,
        inclusionType: 'EXCLUDE',
        trackName: 'Website pixel',
      },
    ]);
    expect(body.talkChannelGroupTargetings).toEqual([]);
    expect(body.populationScore).toEqual(expect.any(Number));
  });

  it('gives each created audience a new id', async () => {
    const first = await create({ name: 'a' });
    const second = await create({ name: 'a' });
    expect(second.json.id).not.toBe(first.json.id);
  });

  it('accepts ALL for ages, genders and locations with the sets left out', async () => {
    const answer = await create({
      ageType: 'ALL',
      genderType: 'ALL',
      locationType: 'ALL',
      ages: undefined,
      genders: undefined,
      locations: undefined,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.ages).toEqual([]);
    expect(answer.json.genders).toEqual([]);
    expect(answer.json.locations).toEqual([]);
  });

  it('reads null as not sent', async () => {
    const answer = await create({ id: null, ageType: 'ALL', ages: null, depth2Locations: null });
    expect(answer.status, answer.text).toBe(200);
  });

  it('accepts every targeting set of a MESSAGE audience the type table allows, friend groups included', async () => {
    const answer = await create({
      type: 'MESSAGE',
      cohortTargetings: [{ cohortId: 7001, inclusionType: 'INCLUDE' }],
      talkChannelTargetings: [{ profileId: '_brand', inclusionType: 'INCLUDE' }],
      syncAppTargetings: [{ profileId: 'app-main', inclusionType: 'EXCLUDE' }],
      talkChannelGroupTargetings: [{ groupId: 9001, inclusionType: 'INCLUDE' }],
      ufoBusinessTypes: ['RETAIL'],
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.talkChannelGroupTargetings).toEqual([
      { groupId: 9001, inclusionType: 'INCLUDE', groupName: 'Channel VIP friends' },
    ]);
    expect(answer.json.talkChannelTargetings[0].profileName).toBe('Brand channel');
    expect(answer.json.syncAppTargetings[0].profileName).toBe('Shopping app');
    expect(answer.json.cohortTargetings[0].cohortName).toBe('Ad clickers 30d');
  });

  it('keeps a duplicate name (the service allows it)', async () => {
    await create({ name: 'twin' });
    expect((await create({ name: 'twin' })).status).toBe(200);
  });
});

describe('the rules of the create body', () => {
  const twoBands = ['20', '25'];
  const cases: Array<[string, Record<string, unknown>, number, number?]> = [
    ['a body that is not an object', { __array: true }, 1002],
    ['an unknown top-level field', { colour: 'blue' }, 4003],
    ['id on create', { id: 5 }, 4002],
    ['adAccountId of another account than the header', { adAccountId: 5678 }, 4006],
    ['adAccountId as a string', { adAccountId: '1234' }, 4004],
    ['a blank name', { name: '  ' }, 4007],
    ['a name that is not a string', { name: 12 }, 4004],
    ['a name longer than 255', { name: 'x'.repeat(256) }, 4007],
    ['a name with NUL', { name: 'ab\u0000c' }, 4007],
    ['a name with ESC', { name: 'abcd\u001B[31m' }, 4007],
    ['a name with a tab inside', { name: 'a\tb' }, 4007],
    ['a name with DEL', { name: 'a\u007F' }, 4007],
    ['a name with a C1 control (NEL)', { name: 'a\u0085b' }, 4007],
    ['a name with the last C1 control', { name: '\u009F' }, 4007],
    ['an unknown type', { type: 'VIDEO' }, 4005],
    ['an unknown ageType', { ageType: 'SOME' }, 4005],
    ['an unknown genderType', { genderType: 'BOTH' }, 4005],
    ['an unknown locationType', { locationType: 'CITY' }, 4005],
    ['rule 1: ages with ageType ALL', { ageType: 'ALL', ages: twoBands }, 4101],
    ['rule 1: an empty ages with ageType ALL', { ageType: 'ALL', ages: [] }, 4101],
    ['rule 1: no ages with NOT_ALL', { ages: undefined }, 4102],
    ['rule 1: empty ages with NOT_ALL', { ages: [] }, 4102],
    ['ages as numbers (the wire type is String)', { ages: [20, 25] }, 4103],
    ['an age band that does not exist', { ages: ['17'] }, 4103],
    ['ages that is not an array', { ages: '20' }, 4004],
    ['rule 2: genders with genderType ALL', { genderType: 'ALL', genders: ['F'] }, 4201],
    ['rule 2: no genders with NOT_ALL', { genders: undefined }, 4202],
    ['an unknown gender', { genders: ['X'] }, 4203],
    ['rule 3: NOT_ALL on an adult account without the ten bands', { ages: twoBands }, 4301, 4321],
    [
      'rule 3: the ten bands plus 15 on an adult account',
      { ages: ['15', '20', '25', '30', '35', '40', '45', '50', '55', '60', '65'] },
      4301,
      4321,
    ],
    ['rule 4: locations with locationType ALL', { locationType: 'ALL' }, 4401],
    [
      'rule 4: depth2Locations with locationType ALL',
      { locationType: 'ALL', locations: undefined, depth2Locations: [{ value: 'I01' }] },
      4401,
    ],
    ['rule 5: AREA without any region', { locations: undefined }, 4501],
    ['rule 5: AREA with only empty region sets', { locations: [], depth3Locations: [] }, 4501],
    ['an unknown province code', { locations: [{ value: 'X' }] }, 4502],
    ['a depth-2 code among the provinces', { locations: [{ value: 'I01' }] }, 4502],
    ['an unknown depth-3 code', { depth3Locations: [{ value: 'I0199' }] }, 4502],
    ['a region without value', { locations: [{ description: 'Seoul' }] }, 4001],
    ['an unknown field inside a region', { locations: [{ value: 'I', name: 'Seoul' }] }, 4003],
    ['an unknown interest code', { ufoInterests: ['KNITTING'] }, 4903],
    ['an unknown business type', { ufoBusinessTypes: [3] }, 4903],
    [
      'an unknown field inside a member',
      { cohortTargetings: [{ cohortId: 7001, inclusionType: 'INCLUDE', weight: 2 }] },
      4003,
    ],
    [
      'a member field named like a property of every object',
      { cohortTargetings: [{ cohortId: 7001, inclusionType: 'INCLUDE', toString: 'x' }] },
      4003,
    ],
    ['a member without inclusionType', { cohortTargetings: [{ cohortId: 7001 }] }, 4001],
    ['a wrong inclusionType', { cohortTargetings: [{ cohortId: 7001, inclusionType: 'MAYBE' }] }, 4902],
    ['a member id of zero', { cohortTargetings: [{ cohortId: 0, inclusionType: 'INCLUDE' }] }, 4902],
    ['a negative member id', { customerFileTargetings: [{ customerFileId: -5001, inclusionType: 'INCLUDE' }] }, 4902],
    [
      'a fractional member id',
      { customerFileTargetings: [{ customerFileId: 5001.5, inclusionType: 'INCLUDE' }] },
      4902,
    ],
    [
      'rule 9: a member id past 2^53, read exactly, of no item',
      { customerFileTargetings: [{ customerFileId: 2 ** 53, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    ['an empty member id', { talkChannelTargetings: [{ profileId: '', inclusionType: 'INCLUDE' }] }, 4902],
    ['a member id that is a boolean', { syncAppTargetings: [{ profileId: true, inclusionType: 'INCLUDE' }] }, 4902],
    [
      'a member id that is an object',
      { trackerTargetings: [{ trackId: { id: 1 }, eventCode: 'visit', retentionDays: 7, inclusionType: 'INCLUDE' }] },
      4902,
    ],
    [
      'an empty event code',
      { trackerTargetings: [{ trackId: 'trk-web', eventCode: '', retentionDays: 7, inclusionType: 'INCLUDE' }] },
      4902,
    ],
    [
      'an event code that is a number',
      { trackerTargetings: [{ trackId: 'trk-web', eventCode: 1, retentionDays: 7, inclusionType: 'INCLUDE' }] },
      4902,
    ],
    [
      'retentionDays as a string',
      { trackerTargetings: [{ trackId: 'trk-web', eventCode: 'visit', retentionDays: '7', inclusionType: 'INCLUDE' }] },
      4902,
    ],
    [
      'retentionDays out of 1..180',
      { trackerTargetings: [{ trackId: 'trk-web', eventCode: 'visit', retentionDays: 181, inclusionType: 'INCLUDE' }] },
      4902,
    ],
    ['a member that is not an object', { cohortTargetings: [7001] }, 4004],
    [
      'rule 8: customer files on a MESSAGE audience',
      { type: 'MESSAGE', customerFileTargetings: [{ customerFileId: 5001, inclusionType: 'INCLUDE' }] },
      4801,
    ],
    [
      'rule 8: trackers on a MESSAGE audience',
      {
        type: 'MESSAGE',
        trackerTargetings: [{ trackId: 'trk-web', eventCode: 'visit', retentionDays: 7, inclusionType: 'INCLUDE' }],
      },
      4801,
    ],
    [
      'rule 7: friend groups on a DISPLAY audience',
      { talkChannelGroupTargetings: [{ groupId: 9001, inclusionType: 'INCLUDE' }] },
      4701,
    ],
    [
      'rule 9: a customer file of another account',
      { customerFileTargetings: [{ customerFileId: 5101, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: a customer file of another account, id as text',
      { customerFileTargetings: [{ customerFileId: '5101', inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: a customer file id with a leading zero (ids match as text)',
      { customerFileTargetings: [{ customerFileId: '05001', inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown cohort, id as text',
      { cohortTargetings: [{ cohortId: '7101', inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown tracker, id as a number',
      { trackerTargetings: [{ trackId: 123, eventCode: 'visit', retentionDays: 7, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: the numeric channel of another account',
      { talkChannelTargetings: [{ profileId: 601, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: the numeric channel of another account, id as text',
      { talkChannelTargetings: [{ profileId: '601', inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown sync app, id as a number',
      { syncAppTargetings: [{ profileId: 999, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown friend group, id as text',
      { type: 'MESSAGE', talkChannelGroupTargetings: [{ groupId: '9101', inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown tracker',
      { trackerTargetings: [{ trackId: 'trk-nope', eventCode: 'visit', retentionDays: 7, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an event code the tracker does not track',
      { trackerTargetings: [{ trackId: 'trk-web', eventCode: 'refund', retentionDays: 7, inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown channel profile',
      { talkChannelTargetings: [{ profileId: '_other', inclusionType: 'INCLUDE' }] },
      4901,
    ],
    [
      'rule 9: an unknown friend group',
      { type: 'MESSAGE', talkChannelGroupTargetings: [{ groupId: 9101, inclusionType: 'INCLUDE' }] },
      4901,
    ],
  ];
  it.each(cases)('refuses %s', async (_title, overrides, detailCode, account = 1234) => {
    const body = '__array' in overrides ? [audience()] : audience({ adAccountId: account, ...overrides });
    expectRuleError(await call('POST', '/openapi/v4/targetings', { body, account }), detailCode);
  });

  it.each(['adAccountId', 'name', 'type', 'ageType', 'genderType', 'locationType'])(
    'refuses a body without %s',
    async (field) => {
      expectRuleError(await call('POST', '/openapi/v4/targetings', { body: without(audience(), field) }), 4001);
    },
  );

  it('rule 3: accepts exactly the ten adult bands, and ALL, on an adult account', async () => {
    const bands = ['65', '60', '55', '50', '45', '40', '35', '30', '25', '20'];
    expect((await create({ ages: bands }, 4321)).status).toBe(200);
    expect((await create({ ageType: 'ALL', ages: undefined }, 4321)).status).toBe(200);
  });

  it('rule 3 applies only to the adult account: 15 alone is fine elsewhere', async () => {
    expect((await create({ ages: ['15'] })).status).toBe(200);
  });

  it('names the offending field in the message', async () => {
    const answer = await create({ locations: [{ value: 'I', colour: 'red' }] });
    expect(answer.json.extras.detailMsg).toContain('locations[0].colour');
  });
});

describe('read and list (operations 1 and 2)', () => {
  it('reads the single-read shape: no adAccountId, no locationType, its own region shapes', async () => {
    const created = await create({ depth2Locations: [{ value: 'I04' }], depth3Locations: [{ value: 'I0401' }] });
    const answer = await call('GET', `/openapi/v4/targetings/${created.json.id}`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual([...readKeys].sort());
    // Single read: depth-2 objects are the Location shape, depth-3 objects Depth3Location.
    expect(answer.json.depth2Locations).toEqual([
      { value: 'I04', description: 'Seoul Gangnam-gu', depth1Name: 'Seoul' },
    ]);
    expect(answer.json.depth3Locations).toEqual([
      {
        value: 'I0401',
        description: 'Seoul Gangnam-gu Yeoksam-dong',
        depth1Name: 'Seoul',
        depth2Name: 'Gangnam-gu',
        depth3Name: 'Yeoksam-dong',
      },
    ]);
    expect(answer.json.populationScore).toBe(created.json.populationScore);
  });

  it('lists the account audiences with exactly the list fields', async () => {
    await create({ name: 'one' });
    await create({ name: 'two' });
    const answer = await call('GET', '/openapi/v4/targetings/audiences');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json)).toEqual(['content']);
    expect(answer.json.content.map((item: { name: string }) => item.name)).toEqual(['one', 'two']);
    for (const item of answer.json.content) {
      expect(Object.keys(item).sort()).toEqual([...listKeys].sort());
      expect(item.createdDate).toMatch(dateForm);
    }
  });

  it('answers 404 for an unknown audience and 400 for an id that is not an integer', async () => {
    expect((await call('GET', '/openapi/v4/targetings/424242')).json.extras.detailCode).toBe(3001);
    for (const bad of ['abc', '1.5', '-3', '0']) {
      const answer = await call('GET', `/openapi/v4/targetings/${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.json.extras.detailCode).toBe(1005);
    }
  });
});

describe('account isolation', () => {
  it('an account sees, reads, changes and deletes only its own audiences', async () => {
    const mine = await create({ name: 'mine' });
    const theirs = await create({ name: 'theirs' }, 5678);
    expect(theirs.status, theirs.text).toBe(200);
    const list = await call('GET', '/openapi/v4/targetings/audiences', { account: 5678 });
    expect(list.json.content.map((item: { name: string }) => item.name)).toEqual(['theirs']);
    const id = mine.json.id as number;
    expect((await call('GET', `/openapi/v4/targetings/${id}`, { account: 5678 })).status).toBe(404);
    expect((await call('GET', `/openapi/v4/targetings/${id}/adGroups`, { account: 5678 })).status).toBe(404);
    expect((await call('DELETE', `/openapi/v4/targetings/${id}`, { account: 5678 })).status).toBe(404);
    const update = await call('PUT', '/openapi/v4/targetings', {
      body: audience({ id, adAccountId: 5678 }),
      account: 5678,
    });
    expect(update.status).toBe(404);
    const batch = await call('DELETE', `/openapi/v4/targetings?audienceIds=${id}`, { account: 5678 });
    expect(batch.json).toEqual({ successCount: 0, failCount: 1, errorMessages: [`audience ${id}: not found`] });
    expect((await call('GET', `/openapi/v4/targetings/${id}`)).status).toBe(200);
  });
});

describe('update (operation 4)', () => {
  it('replaces the definition, keeps id and createdDate, moves lastModifiedDate', async () => {
    const created = await create();
    advance(60_000);
    const answer = await call('PUT', '/openapi/v4/targetings', {
      body: audience({ id: created.json.id, name: 'renamed', genderType: 'ALL', genders: undefined }),
    });
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual([...readKeys, 'adAccountId'].sort());
    expect(answer.json).toMatchObject({ id: created.json.id, name: 'renamed', genderType: 'ALL', genders: [] });
    expect(answer.json.createdDate).toBe(created.json.createdDate);
    expect(answer.json.lastModifiedDate).not.toBe(created.json.lastModifiedDate);
    const read = await call('GET', `/openapi/v4/targetings/${created.json.id}`);
    expect(read.json.name).toBe('renamed');
  });

  it('requires an integer id and answers 404 for an unknown one', async () => {
    expectRuleError(await call('PUT', '/openapi/v4/targetings', { body: audience() }), 4001);
    expectRuleError(await call('PUT', '/openapi/v4/targetings', { body: audience({ id: '7' }) }), 4004);
    const missing = await call('PUT', '/openapi/v4/targetings', { body: audience({ id: 999_999 }) });
    expect(missing.status).toBe(404);
    expect(missing.json.extras.detailCode).toBe(3001);
  });

  it('applies the body rules on update too', async () => {
    const created = await create();
    expectRuleError(
      await call('PUT', '/openapi/v4/targetings', { body: audience({ id: created.json.id, ages: undefined }) }),
      4102,
    );
  });

  it('rule 3: on an adult account an update may only use NOT_ALL', async () => {
    const created = await create({ ageType: 'ALL', ages: undefined }, 4321);
    const body = audience({ id: created.json.id, adAccountId: 4321, ageType: 'ALL', ages: undefined });
    expectRuleError(await call('PUT', '/openapi/v4/targetings', { body, account: 4321 }), 4302);
    const bands = ['20', '25', '30', '35', '40', '45', '50', '55', '60', '65'];
    const fixed = await call('PUT', '/openapi/v4/targetings', {
      body: { ...body, ageType: 'NOT_ALL', ages: bands },
      account: 4321,
    });
    expect(fixed.status, fixed.text).toBe(200);
  });
});

describe('rules 6 and 7: checked when linked and when a linked audience is updated', () => {
  it('rule 6: Z cannot reach a business-board campaign', async () => {
    const overseas = await create({ locations: [{ value: 'Z' }] });
    expect(overseas.status).toBe(200);
    expect((await link(overseas.json.id, 101)).status).toBe(200);
    const refused = await link(overseas.json.id, 103);
    expect(refused.status).toBe(400);
    expect(refused.json.extras.detailCode).toBe(4601);

    const local = await create({ name: 'local' });
    expect((await link(local.json.id, 103)).status).toBe(200);
    const update = await call('PUT', '/openapi/v4/targetings', {
      body: audience({ id: local.json.id, locations: [{ value: 'I' }, { value: 'Z' }] }),
    });
    expectRuleError(update, 4601);
  });

  it('rule 7: friend groups only when every linked campaign is a messaging-channel reach campaign', async () => {
    const friends = await create({
      type: 'MESSAGE',
      talkChannelGroupTargetings: [{ groupId: 9001, inclusionType: 'INCLUDE' }],
    });
    expect(friends.status, friends.text).toBe(200);
    expect((await link(friends.json.id, 104)).status).toBe(200);
    const refused = await link(friends.json.id, 101);
    expect(refused.status).toBe(400);
    expect(refused.json.extras.detailCode).toBe(4702);

    const plain = await create({ type: 'MESSAGE', name: 'plain' });
    expect((await link(plain.json.id, 101)).status).toBe(200);
    const update = await call('PUT', '/openapi/v4/targetings', {
      body: audience({
        id: plain.json.id,
        type: 'MESSAGE',
        talkChannelGroupTargetings: [{ groupId: 9001, inclusionType: 'INCLUDE' }],
      }),
    });
    expectRuleError(update, 4702);
  });

  it('the link route checks the ad group and the audience belong to the account', async () => {
    const created = await create();
    expect((await link(created.json.id, 201)).json.extras.detailCode).toBe(3004);
    expect((await link(created.json.id, 201, 5678)).json.extras.detailCode).toBe(3001);
  });
});

describe('ad groups, unlink and delete (operations 5 to 8)', () => {
  it('lists the ad groups that use an audience, with campaignTypeGoal', async () => {
    const created = await create();
    await link(created.json.id, 104);
    await link(created.json.id, 101);
    const answer = await call('GET', `/openapi/v4/targetings/${created.json.id}/adGroups`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      content: [
        {
          campaignId: 11,
          campaignName: 'Spring display',
          campaignTypeGoal: { campaignType: 'DISPLAY', goal: 'VISITING' },
          adGroupId: 101,
          adGroupName: 'Seoul commuters',
          adGroupStatus: ['LIVE'],
          adGroupType: 'DISPLAY',
        },
        {
          campaignId: 13,
          campaignName: 'Channel reach',
          campaignTypeGoal: { campaignType: 'TALK_CHANNEL', goal: 'REACH' },
          adGroupId: 104,
          adGroupName: 'Channel friends',
          adGroupStatus: ['LIVE'],
          adGroupType: 'DIRECT_MESSAGE',
        },
      ],
    });
  });

  it('unlinks with PUT (empty 200), then 404 when not linked; other methods are 405', async () => {
    const created = await create();
    await link(created.json.id, 101);
    const path = `/openapi/v4/targetings/${created.json.id}/unlink?adGroupId=101`;
    const answer = await call('PUT', path);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    expect(answer.headers.get('content-length')).toBe('0');
    expect((await call('GET', `/openapi/v4/targetings/${created.json.id}/adGroups`)).json.content).toEqual([]);
    const again = await call('PUT', path);
    expect(again.status).toBe(404);
    expect(again.json.extras.detailCode).toBe(3003);
    const get = await call('GET', path);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('PUT');
    expectRuleError(await call('PUT', `/openapi/v4/targetings/${created.json.id}/unlink`), 1006);
    expectRuleError(await call('PUT', `/openapi/v4/targetings/${created.json.id}/unlink?adGroupId=x1`), 1006);
    await link(created.json.id, 101);
    expectRuleError(await call('PUT', `${path}&adGroupId=101`), 1006);
  });

  it('deletes one audience with an empty 200, and refuses one in use with a 400 naming the ad groups', async () => {
    const free = await create({ name: 'free' });
    const used = await create({ name: 'used' });
    await link(used.json.id, 102);
    await link(used.json.id, 101);
    const answer = await call('DELETE', `/openapi/v4/targetings/${free.json.id}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-length')).toBe('0');
    expect((await call('GET', `/openapi/v4/targetings/${free.json.id}`)).status).toBe(404);
    const refused = await call('DELETE', `/openapi/v4/targetings/${used.json.id}`);
    expectRuleError(refused, 5001);
    expect(refused.json.extras.detailMsg).toContain('101, 102');
    expect((await call('GET', `/openapi/v4/targetings/${used.json.id}`)).status).toBe(200);
  });

  it('batch-deletes: 200 with counts, each failure naming its id first', async () => {
    const a = await create({ name: 'a' });
    const b = await create({ name: 'b' });
    const used = await create({ name: 'used' });
    await link(used.json.id, 101);
    const ids = [a.json.id, used.json.id, 999_999, b.json.id];
    const answer = await call('DELETE', `/openapi/v4/targetings?audienceIds=${ids.join(',')}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      successCount: 2,
      failCount: 2,
      errorMessages: [`audience ${used.json.id}: in use by ad groups 101`, 'audience 999999: not found'],
    });
    const left = await call('GET', '/openapi/v4/targetings/audiences');
    expect(left.json.content.map((item: { id: number }) => item.id)).toEqual([used.json.id]);
  });

  it('refuses a malformed or missing id list', async () => {
    for (const list of ['1,,2', 'a,b', '', '1;2']) {
      expectRuleError(await call('DELETE', `/openapi/v4/targetings?audienceIds=${encodeURIComponent(list)}`), 5002);
    }
    expectRuleError(await call('DELETE', '/openapi/v4/targetings'), 1006);
    const a = await create({ name: 'a' });
    const b = await create({ name: 'b' });
    expectRuleError(
      await call('DELETE', `/openapi/v4/targetings?audienceIds=${a.json.id}&audienceIds=${b.json.id}`),
      1006,
    );
    const left = await call('GET', '/openapi/v4/targetings/audiences');
    expect(left.json.content.map((item: { id: number }) => item.id)).toEqual([a.json.id, b.json.id]);
  });
});

describe('status and population score', () => {
  it('is STANDBY while processing, then AVAILABLE', async () => {
    const created = await create();
    const read = async () => (await call('GET', `/openapi/v4/targetings/${created.json.id}`)).json.audienceStatus;
    expect(await read()).toBe('STANDBY');
    advance(5_000);
    expect(await read()).toBe('AVAILABLE');
  });

  it('is SEED_NOT_ENOUGH when a small item is included, ERROR when a broken item is used', async () => {
    const small = await create({ customerFileTargetings: [{ customerFileId: 5002, inclusionType: 'INCLUDE' }] });
    const excludedSmall = await create({ cohortTargetings: [{ cohortId: 7002, inclusionType: 'EXCLUDE' }] });
    const broken = await create({ customerFileTargetings: [{ customerFileId: 5003, inclusionType: 'EXCLUDE' }] });
    advance(5_000);
    const status = async (id: number) => (await call('GET', `/openapi/v4/targetings/${id}`)).json.audienceStatus;
    expect(await status(small.json.id)).toBe('SEED_NOT_ENOUGH');
    expect(await status(excludedSmall.json.id)).toBe('AVAILABLE');
    expect(await status(broken.json.id)).toBe('ERROR');
  });

  it('can be pinned through the test route until the next update', async () => {
    const created = await create();
    const pin = await fetch(`${emulator.url}/_emulator/audiences/${created.json.id}/status`, {
      method: 'PUT',
      body: JSON.stringify({ audienceStatus: 'ERROR' }),
    });
    expect(pin.status).toBe(200);
    const list = await call('GET', '/openapi/v4/targetings/audiences');
    expect(list.json.content[0].audienceStatus).toBe('ERROR');
    const updated = await call('PUT', '/openapi/v4/targetings', { body: audience({ id: created.json.id }) });
    expect(updated.json.audienceStatus).toBe('STANDBY');
  });

  it('derives populationScore from the definition alone: equal definitions score equal, narrower ones lower', async () => {
    const wide = await create({ name: 'x', ages: ['20', '25', '30'] });
    const same = await create({ name: 'y', ages: ['30', '25', '20'] });
    const narrow = await create({ name: 'z', ages: ['20'] });
    expect(same.json.populationScore).toBe(wide.json.populationScore);
    expect(narrow.json.populationScore).toBeLessThan(wide.json.populationScore);
    const all = await create({
      ageType: 'ALL',
      ages: undefined,
      genderType: 'ALL',
      genders: undefined,
      locationType: 'ALL',
      locations: undefined,
    });
    expect(all.json.populationScore).toBeGreaterThan(wide.json.populationScore);
  });
});

describe('names', () => {
  it('refuses a control character, naming its code point and its position (in characters, from 0)', async () => {
    const cases: Array<[string, string]> = [
      ['ab\u0000c', 'U+0000 at position 2'],
      ['abcd\u001B[0m', 'U+001B at position 4'],
      ['\u{1F600}\u0007', 'U+0007 at position 1'],
      ['x\u009F', 'U+009F at position 1'],
    ];
    for (const [name, where] of cases) {
      const answer = await create({ name });
      expectRuleError(answer, 4007);
      expect(answer.json.extras.detailMsg).toBe(`field 'name' must not contain control characters (${where})`);
    }
  });

  it('accepts the characters next to the control ranges and keeps the name as sent', async () => {
    for (const name of ['space and tilde~', 'no\u00A0break', 'é ü 한글 \u{1F600}']) {
      const answer = await create({ name });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.name).toBe(name);
    }
  });
});

describe('update replaces the whole definition (the body has the fields of create)', () => {
  it('clears every set the body leaves out, and ALL empties ages and genders', async () => {
    const created = await create({
      depth2Locations: [{ value: 'I04' }],
      depth3Locations: [{ value: 'I0401' }],
      ufoInterests: ['TRAVEL', 'FOOD'],
      ufoBusinessTypes: ['RETAIL'],
      customerFileTargetings: [{ customerFileId: 5001, inclusionType: 'INCLUDE' }],
      trackerTargetings: [{ trackId: 'trk-web', eventCode: 'visit', retentionDays: 7, inclusionType: 'INCLUDE' }],
      cohortTargetings: [{ cohortId: 7001, inclusionType: 'EXCLUDE' }],
      talkChannelTargetings: [{ profileId: '_brand', inclusionType: 'INCLUDE' }],
      syncAppTargetings: [{ profileId: 'app-main', inclusionType: 'INCLUDE' }],
    });
    expect(created.status, created.text).toBe(200);
    const id = created.json.id as number;
    const body = audience({
      id,
      ageType: 'ALL',
      ages: undefined,
      genderType: 'ALL',
      genders: undefined,
      locations: [{ value: 'B' }],
    });
    const cleared = {
      ageType: 'ALL',
      ages: [],
      genderType: 'ALL',
      genders: [],
      locations: [{ value: 'B', description: 'Gyeonggi', depth1Name: 'Gyeonggi' }],
      depth2Locations: [],
      depth3Locations: [],
      ufoInterests: [],
      ufoBusinessTypes: [],
      customerFileTargetings: [],
      trackerTargetings: [],
      cohortTargetings: [],
      talkChannelTargetings: [],
      syncAppTargetings: [],
    };
    const updated = await call('PUT', '/openapi/v4/targetings', { body });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json).toMatchObject(cleared);
    expect((await call('GET', `/openapi/v4/targetings/${id}`)).json).toMatchObject(cleared);

    const everywhere = await call('PUT', '/openapi/v4/targetings', {
      body: { ...body, locationType: 'ALL', locations: undefined },
    });
    expect(everywhere.json).toMatchObject({ locations: [], depth2Locations: [], depth3Locations: [] });
    expect(everywhere.json.populationScore).toBeGreaterThan(updated.json.populationScore);
  });
});

describe('member ids are opaque scalars, matched as text (wire decision §2)', () => {
  const setMemberIds = async (memberIds: string) => {
    const response = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'PUT',
      body: JSON.stringify({ memberIds }),
    });
    expect(response.status).toBe(200);
  };

  const kinds: Array<[string, 'DISPLAY' | 'MESSAGE', string, string, number]> = [
    // set, audience type, id field, display-name key, an item id made of digits
    ['customerFileTargetings', 'DISPLAY', 'customerFileId', 'customerFileName', 5001],
    ['cohortTargetings', 'DISPLAY', 'cohortId', 'cohortName', 7001],
    ['talkChannelTargetings', 'DISPLAY', 'profileId', 'profileName', 501],
    ['syncAppTargetings', 'MESSAGE', 'profileId', 'profileName', 502],
    ['talkChannelGroupTargetings', 'MESSAGE', 'groupId', 'groupName', 9001],
  ];
  it.each(kinds)(
    '%s: the id as a JSON number and as text is the same item',
    async (key, type, idField, nameKey, id) => {
      const answers: unknown[] = [];
      for (const spelled of [id, String(id)]) {
        const answer = await create({ type, [key]: [{ [idField]: spelled, inclusionType: 'INCLUDE' }] });
        expect(answer.status, answer.text).toBe(200);
        answers.push(answer.json[key]);
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[0]).toEqual([expect.objectContaining({ [nameKey]: expect.stringMatching(/\S/) })]);
    },
  );

  it('merges members that are the same as text, whatever their spelling', async () => {
    const answer = await create({
      customerFileTargetings: [
        { customerFileId: 5001, inclusionType: 'INCLUDE' },
        { customerFileId: '5001', inclusionType: 'INCLUDE' },
        { customerFileId: '5001', inclusionType: 'EXCLUDE' },
      ],
      talkChannelTargetings: [
        { profileId: '501', inclusionType: 'INCLUDE' },
        { profileId: 501, inclusionType: 'INCLUDE' },
      ],
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.customerFileTargetings).toEqual([
      { customerFileId: 5001, inclusionType: 'INCLUDE', customerFileName: 'VIP customers' },
      { customerFileId: 5001, inclusionType: 'EXCLUDE', customerFileName: 'VIP customers' },
    ]);
    expect(answer.json.talkChannelTargetings).toEqual([
      { profileId: '501', inclusionType: 'INCLUDE', profileName: 'Numeric channel' },
    ]);
  });

  /** Every id that can be a number sent as one, or every id sent as text. */
  const display = (asNumbers: boolean) => {
    const id = (value: number) => (asNumbers ? value : String(value));
    return {
      customerFileTargetings: [{ customerFileId: id(5001), inclusionType: 'INCLUDE' }],
      trackerTargetings: [{ trackId: 'trk-web', eventCode: 'visit', retentionDays: 7, inclusionType: 'INCLUDE' }],
      cohortTargetings: [{ cohortId: id(7001), inclusionType: 'INCLUDE' }],
      talkChannelTargetings: [
        { profileId: id(501), inclusionType: 'INCLUDE' },
        { profileId: '_brand', inclusionType: 'EXCLUDE' },
      ],
      syncAppTargetings: [
        { profileId: id(502), inclusionType: 'INCLUDE' },
        { profileId: 'app-main', inclusionType: 'EXCLUDE' },
      ],
    };
  };
  const message = (asNumbers: boolean) => ({
    type: 'MESSAGE',
    talkChannelGroupTargetings: [{ groupId: asNumbers ? 9001 : '9001', inclusionType: 'INCLUDE' }],
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const idsOf = (body: any) => ({
    customerFiles: body.customerFileTargetings.map((member: { customerFileId: unknown }) => member.customerFileId),
    trackers: body.trackerTargetings.map((member: { trackId: unknown }) => member.trackId),
    cohorts: body.cohortTargetings.map((member: { cohortId: unknown }) => member.cohortId),
    channels: body.talkChannelTargetings.map((member: { profileId: unknown }) => member.profileId),
    apps: body.syncAppTargetings.map((member: { profileId: unknown }) => member.profileId),
    groups: body.talkChannelGroupTargetings.map((member: { groupId: unknown }) => member.groupId),
  });
  const none = { customerFiles: [], trackers: [], cohorts: [], channels: [], apps: [] };
  const expected: Record<string, { display: ReturnType<typeof idsOf>; groups: unknown[] }> = {
    catalog: {
      display: {
        customerFiles: [5001],
        trackers: ['trk-web'],
        cohorts: [7001],
        channels: ['501', '_brand'],
        apps: ['502', 'app-main'],
        groups: [],
      },
      groups: [9001],
    },
    number: {
      display: {
        customerFiles: [5001],
        trackers: ['trk-web'],
        cohorts: [7001],
        channels: [501, '_brand'],
        apps: [502, 'app-main'],
        groups: [],
      },
      groups: [9001],
    },
    text: {
      display: {
        customerFiles: ['5001'],
        trackers: ['trk-web'],
        cohorts: ['7001'],
        channels: ['501', '_brand'],
        apps: ['502', 'app-main'],
        groups: [],
      },
      groups: ['9001'],
    },
  };

  it.each(Object.keys(expected))(
    'memberIds %s: create, update and read answers spell the ids so, however the request spelled them',
    async (mode) => {
      await setMemberIds(mode);
      const want = expected[mode]!;
      for (const asNumbers of [true, false]) {
        const created = await create(display(asNumbers));
        expect(created.status, created.text).toBe(200);
        expect(idsOf(created.json)).toEqual(want.display);
        const updated = await call('PUT', '/openapi/v4/targetings', {
          body: audience({ id: created.json.id, ...display(!asNumbers) }),
        });
        expect(idsOf(updated.json)).toEqual(want.display);
        expect(idsOf((await call('GET', `/openapi/v4/targetings/${created.json.id}`)).json)).toEqual(want.display);

        const friends = await create(message(asNumbers));
        expect(friends.status, friends.text).toBe(200);
        expect(idsOf(friends.json)).toEqual({ ...none, groups: want.groups });
        expect(idsOf((await call('GET', `/openapi/v4/targetings/${friends.json.id}`)).json)).toEqual({
          ...none,
          groups: want.groups,
        });
      }
    },
  );

  it('stores the catalogue item’s own id, so a later memberIds setting changes only the answers', async () => {
    const created = await create(display(false));
    const state = (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as {
      audiences: Array<{ id: string }>;
    };
    const stored = state.audiences.find((candidate) => candidate.id === String(created.json.id));
    expect(idsOf({ ...stored, talkChannelGroupTargetings: [] })).toEqual(expected['catalog']!.display);
    const read = async () => idsOf((await call('GET', `/openapi/v4/targetings/${created.json.id}`)).json);
    await setMemberIds('number');
    expect(await read()).toEqual(expected['number']!.display);
    await setMemberIds('text');
    expect(await read()).toEqual(expected['text']!.display);
  });

  it('the numeric channel and sync app of every account are its own, with digit-only ids', async () => {
    for (const [account, channel, app] of [
      [1234, '501', '502'],
      [5678, '601', '602'],
      [4321, '701', '702'],
    ] as const) {
      const answer = await create(
        {
          ageType: 'ALL',
          ages: undefined,
          talkChannelTargetings: [{ profileId: channel, inclusionType: 'INCLUDE' }],
          syncAppTargetings: [{ profileId: app, inclusionType: 'INCLUDE' }],
        },
        account,
      );
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.talkChannelTargetings[0].profileName).toBe('Numeric channel');
      expect(answer.json.syncAppTargetings[0].profileName).toBe('Numeric app');
    }
  });
});

describe('ids past 2^53 (reset with an idBase): stored, answered and taken with every digit', () => {
  const base = 2n ** 53n;
  /** `text` with each id token as written, not as JSON.parse rounds it. */
  const tokens = (text: string, key: string) =>
    [...text.matchAll(new RegExp(`"${key}":(\\d+)`, 'g'))].map((match) => match[1]);

  beforeEach(async () => {
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST', body: JSON.stringify({ idBase: String(base) }) });
  });

  it('gives out ids past 2^53 and answers them as JSON numbers with every digit', async () => {
    const first = await create({ name: 'a' });
    const second = await create({ name: 'b' });
    expect(tokens(first.text, 'id')).toEqual([String(base + 100001n)]);
    expect(tokens(second.text, 'id')).toEqual([String(base + 100002n)]);
    const list = await call('GET', '/openapi/v4/targetings/audiences');
    expect(tokens(list.text, 'id')).toEqual([String(base + 100001n), String(base + 100002n)]);
  });

  it('reads, updates, links, unlinks and deletes the audience the digits name, and no neighbour', async () => {
    await create({ name: 'a' });
    await create({ name: 'b' });
    const id = String(base + 100002n);
    const read = await call('GET', `/openapi/v4/targetings/${id}`);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text.replace(/"id":(\d+)/, '"id":"$1"')).name).toBe('b');
    // The id JSON.parse would make of it names no audience: 9007199254840994 and …992 are not …993.
    expect((await call('GET', `/openapi/v4/targetings/${String(base + 100003n)}`)).status).toBe(404);

    const body = JSON.stringify(audience({ name: 'b2' })).replace(/^\{/, `{"id":${id},`);
    const updated = await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${emulator.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      },
      body,
    });
    expect(updated.status, await updated.clone().text()).toBe(200);
    expect(
      (await call('GET', '/openapi/v4/targetings/audiences')).json.content.map((item: { name: string }) => item.name),
    ).toEqual(['a', 'b2']);

    const adGroup = String(base + 101n);
    const linked = await fetch(`${emulator.url}/_emulator/links`, {
      method: 'POST',
      body: `{"adAccountId":1234,"audienceId":${id},"adGroupId":${adGroup}}`,
    });
    expect(linked.status).toBe(200);
    const adGroups = await call('GET', `/openapi/v4/targetings/${id}/adGroups`);
    expect(tokens(adGroups.text, 'adGroupId')).toEqual([adGroup]);
    expect(tokens(adGroups.text, 'campaignId')).toEqual([String(base + 11n)]);
    expect((await call('PUT', `/openapi/v4/targetings/${id}/unlink?adGroupId=${adGroup}`)).status).toBe(200);
    const deleted = await call('DELETE', `/openapi/v4/targetings?audienceIds=${id}`);
    expect(deleted.json).toEqual({ successCount: 1, failCount: 0, errorMessages: [] });
    expect(
      (await call('GET', '/openapi/v4/targetings/audiences')).json.content.map((item: { name: string }) => item.name),
    ).toEqual(['a']);
  });

  it('refuses an id sent as text in a body: a Long is a JSON number', async () => {
    await create({ name: 'a' });
    const answer = await call('PUT', '/openapi/v4/targetings', {
      body: audience({ id: String(base + 100001n), name: 'a' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.json.extras.detailMsg).toBe("field 'id' must be a positive integer (Long)");
  });
});

describe('lookalikes, the real tracker member and fields beyond the spec', () => {
  const put = async (path: string, body: unknown) =>
    fetch(`${emulator.url}${path}`, { method: 'PUT', body: JSON.stringify(body) });

  it('takes lookalikes as a set of either type, answered with their display names; one of no item is rule 9', async () => {
    const made = await create({
      type: 'MESSAGE',
      ageType: 'ALL',
      ages: undefined,
      lookalikeTargetings: [{ lookalikeId: '8001', inclusionType: 'INCLUDE' }],
    });
    expect(made.status, made.text).toBe(200);
    expect(made.json.lookalikeTargetings).toEqual([
      { lookalikeId: 8001, inclusionType: 'INCLUDE', lookalikeName: 'Like VIP customers' },
    ]);
    const unknown = await create({ lookalikeTargetings: [{ lookalikeId: 8101, inclusionType: 'INCLUDE' }] });
    expect([unknown.status, unknown.json.extras.detailCode]).toEqual([400, 4901]);
  });

  it("in the trackerShape 'terms', takes and answers the real tracker member: terms for retention, the member's id and its rule added, and what it added taken back", async () => {
    expect((await put('/_emulator/faults', { trackerShape: 'terms' })).status).toBe(200);
    const member = {
      trackId: 'trk-web',
      eventCode: 'purchase',
      trackerTargetingTerms: ['ONE_MONTH'],
      inclusionType: 'INCLUDE',
    };
    const made = await create({ trackerTargetings: [member] });
    expect(made.status, made.text).toBe(200);
    const [answered] = made.json.trackerTargetings as Array<Record<string, unknown>>;
    expect(answered).toMatchObject({
      ...member,
      trackName: 'Website pixel',
      trackRuleName: 'Website pixel: purchase, ONE_MONTH',
    });
    expect(answered?.['id']).toEqual(expect.any(Number));
    expect(answered?.['trackRuleId']).toEqual(expect.any(Number));
    // What the service answered is taken back as it is, and the same member keeps its ids.
    const again = await call('PUT', '/openapi/v4/targetings', {
      body: audience({ id: made.json.id, trackerTargetings: [answered] }),
    });
    expect(again.status, again.text).toBe(200);
    expect(again.json.trackerTargetings).toEqual([answered]);
    const days = await create({
      name: 'days',
      trackerTargetings: [{ trackId: 'trk-web', eventCode: 'purchase', retentionDays: 30, inclusionType: 'INCLUDE' }],
    });
    expect([days.status, days.json.extras.detailMsg]).toEqual([
      400,
      "unknown field 'trackerTargetings[0].retentionDays'",
    ]);
    const badTerm = await create({
      name: 'bad',
      trackerTargetings: [{ ...member, trackerTargetingTerms: ['FOREVER'] }],
    });
    expect([badTerm.status, badTerm.json.extras.detailCode]).toEqual([400, 4902]);
  });

  it('answers the fields a test route gives an audience exactly, takes them in bodies, and an update that leaves one out loses it', async () => {
    const made = await create();
    const given = await fetch(`${emulator.url}/_emulator/audiences/${made.json.id}/fields`, {
      method: 'PUT',
      body: '{"zzzTargetings":[{"zzzId":9007199254740993,"weight":0.5}],"note":"kept"}',
    });
    expect(given.status).toBe(200);
    const read = await call('GET', `/openapi/v4/targetings/${made.json.id}`);
    expect(read.text).toContain('"zzzTargetings":[{"zzzId":9007199254740993,"weight":0.5}],"note":"kept"');
    const sentBack = await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${emulator.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      },
      body: JSON.stringify(audience({ id: made.json.id, note: 'kept' })).replace(
        /}$/,
        ',"zzzTargetings":[{"zzzId":9007199254740993,"weight":0.5}]}',
      ),
    });
    expect(sentBack.status).toBe(200);
    const sentBackText = await sentBack.text();
    expect(sentBackText).toContain('"zzzTargetings":[{"zzzId":9007199254740993,"weight":0.5}]');
    expect(sentBackText).toContain('"note":"kept"');
    const leftOut = await call('PUT', '/openapi/v4/targetings', { body: audience({ id: made.json.id }) });
    expect(leftOut.status).toBe(200);
    expect(Object.keys(leftOut.json)).not.toContain('zzzTargetings');
    expect((await create({ name: 'other', zzzOther: 1 })).json.extras.detailMsg).toBe("unknown field 'zzzOther'");
    expect((await put(`/_emulator/audiences/${made.json.id}/fields`, { ages: ['20'] })).status).toBe(400);
  });
});
