import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from './server.js';
import type { RunningEmulator } from './server.js';

/** The shapes the two list operations answer on request, and audiences that vanish when read (SPEC.md, Lists). */
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
});

const ads = { authorization: `Bearer emulator-access-token`, adAccountId: '1234', 'content-type': 'application/json' };

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: ads,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function settings(patch: Record<string, unknown>): Promise<Response> {
  return fetch(`${emulator.url}/_emulator/faults`, { method: 'PUT', body: JSON.stringify(patch) });
}

/** Five audiences named a…e, ad groups 101, 102 and 105 using the first; their ids. */
async function fiveAudiences(): Promise<string[]> {
  const ids: string[] = [];
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    const made = await call('POST', '/openapi/v4/targetings', {
      adAccountId: 1234,
      name,
      type: 'DISPLAY',
      ageType: 'ALL',
      genderType: 'ALL',
      locationType: 'ALL',
    });
    ids.push(String(made.json['id']));
  }
  for (const adGroupId of [101, 102, 105]) {
    await fetch(`${emulator.url}/_emulator/links`, {
      method: 'POST',
      body: JSON.stringify({ adAccountId: 1234, audienceId: Number(ids[0]), adGroupId }),
    });
  }
  return ids;
}

const names = (answer: { json: Record<string, unknown> }) =>
  (answer.json['content'] as Array<{ name: string }>).map((item) => item.name);
const adGroupIds = (answer: { json: Record<string, unknown> }) =>
  (answer.json['content'] as Array<{ adGroupId: number }>).map((item) => item.adGroupId);

describe('list shapes', () => {
  it('answers the whole list by default, page parameters ignored', async () => {
    const [first] = await fiveAudiences();
    const listed = await call('GET', '/openapi/v4/targetings/audiences?page=1&size=2');
    expect(Object.keys(listed.json)).toEqual(['content']);
    expect(names(listed)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(adGroupIds(await call('GET', `/openapi/v4/targetings/${first}/adGroups`))).toEqual([101, 102, 105]);
  });

  it('pages both lists as Spring does: the page and size asked for, or page 0 of pageSize', async () => {
    const [first] = await fiveAudiences();
    expect((await settings({ audienceListShape: 'paged', adGroupListShape: 'paged', pageSize: 2 })).status).toBe(200);
    const unasked = await call('GET', '/openapi/v4/targetings/audiences');
    expect(names(unasked)).toEqual(['a', 'b']);
    expect(unasked.json).toMatchObject({
      pageable: { pageNumber: 0, pageSize: 2, offset: 0, paged: true, unpaged: false },
      last: false,
      totalPages: 3,
      totalElements: 5,
      size: 2,
      number: 0,
      first: true,
      numberOfElements: 2,
      empty: false,
    });
    const last = await call('GET', '/openapi/v4/targetings/audiences?page=2&size=2');
    expect(names(last)).toEqual(['e']);
    expect(last.json).toMatchObject({ last: true, first: false, number: 2, numberOfElements: 1 });
    expect(names(await call('GET', '/openapi/v4/targetings/audiences?page=0&size=10'))).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
    expect(await call('GET', '/openapi/v4/targetings/audiences?page=9&size=2')).toMatchObject({
      json: { content: [], last: true, empty: true },
    });
    const adGroups = await call('GET', `/openapi/v4/targetings/${first}/adGroups?page=1&size=2`);
    expect(adGroupIds(adGroups)).toEqual([105]);
    expect(adGroups.json).toMatchObject({ totalElements: 3, totalPages: 2, last: true });
    for (const query of ['page=-1', 'page=x', 'size=0', 'page=1&page=2']) {
      const refused = await call('GET', `/openapi/v4/targetings/audiences?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json).toMatchObject({ extras: { detailCode: 1006 } });
    }
  });

  it("pages as Spring's PagedModel: content and the numbers under page, nothing else", async () => {
    const [first] = await fiveAudiences();
    await settings({ audienceListShape: 'paged-model', adGroupListShape: 'paged-model', pageSize: 2 });
    const unasked = await call('GET', '/openapi/v4/targetings/audiences');
    expect(unasked.json).toEqual({
      content: expect.any(Array),
      page: { size: 2, number: 0, totalElements: 5, totalPages: 3 },
    });
    expect(names(unasked)).toEqual(['a', 'b']);
    const last = await call('GET', '/openapi/v4/targetings/audiences?page=2&size=2');
    expect(names(last)).toEqual(['e']);
    expect(last.json['page']).toEqual({ size: 2, number: 2, totalElements: 5, totalPages: 3 });
    expect(await call('GET', `/openapi/v4/targetings/${first}/adGroups?page=1&size=2`)).toMatchObject({
      json: { content: [{ adGroupId: 105 }], page: { number: 1, totalPages: 2 } },
    });
    expect((await call('GET', '/openapi/v4/targetings/audiences?page=x')).status).toBe(400);
  });

  it('answers a page that does not say how to ask for the next, null or missing content, and an id twice, each list on its own', async () => {
    const [first] = await fiveAudiences();
    await settings({ audienceListShape: 'paged-unfollowable', pageSize: 2 });
    expect((await call('GET', '/openapi/v4/targetings/audiences')).json).toEqual({
      content: expect.any(Array),
      last: false,
      totalPages: 3,
      totalElements: 5,
    });
    expect(adGroupIds(await call('GET', `/openapi/v4/targetings/${first}/adGroups`))).toEqual([101, 102, 105]);
    await settings({ audienceListShape: 'null-content', adGroupListShape: 'missing-content' });
    expect((await call('GET', '/openapi/v4/targetings/audiences')).json).toEqual({ content: null });
    expect((await call('GET', `/openapi/v4/targetings/${first}/adGroups`)).json).toEqual({});
    await settings({ audienceListShape: 'duplicate-ids', adGroupListShape: 'duplicate-ids' });
    expect(names(await call('GET', '/openapi/v4/targetings/audiences'))).toEqual(['a', 'a', 'b', 'c', 'd', 'e']);
    expect(adGroupIds(await call('GET', `/openapi/v4/targetings/${first}/adGroups`))).toEqual([101, 101, 102, 105]);
  });

  it('deletes an audience vanishOnRead names when it is read or its ad groups are, then answers 404; other reads are untouched', async () => {
    const [a, b, c] = await fiveAudiences();
    await settings({ vanishOnRead: [String(a), Number(b)] });
    expect(await call('GET', `/openapi/v4/targetings/${a}`)).toMatchObject({
      status: 404,
      json: { extras: { detailCode: 3001 } },
    });
    expect(await call('GET', `/openapi/v4/targetings/${b}/adGroups`)).toMatchObject({
      status: 404,
      json: { extras: { detailCode: 3001 } },
    });
    expect((await call('GET', `/openapi/v4/targetings/${c}`)).status).toBe(200);
    expect(names(await call('GET', '/openapi/v4/targetings/audiences'))).toEqual(['c', 'd', 'e']);
    const state = (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as { links: unknown[] };
    expect(state.links).toEqual([]);
  });

  it('refuses settings it does not know, and a reset puts them back', async () => {
    for (const bad of [
      { audienceListShape: 'pages' },
      { adGroupListShape: null },
      { pageSize: 0 },
      { pageSize: 2001 },
      { vanishOnRead: [0] },
      { vanishOnRead: 'x' },
    ]) {
      const refused = await settings(bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(((await refused.json()) as { extras: { detailMsg: string } }).extras.detailMsg).toContain(
        Object.keys(bad)[0],
      );
    }
    await settings({ audienceListShape: 'paged', pageSize: 3, vanishOnRead: ['7'] });
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
    expect(await (await fetch(`${emulator.url}/_emulator/faults`)).json()).toMatchObject({
      audienceListShape: 'whole',
      adGroupListShape: 'whole',
      pageSize: 20,
      vanishOnRead: [],
    });
  });
});
