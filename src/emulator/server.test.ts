import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hasValidCheckDigit } from './company.js';
import { startEmulator } from './server.js';
import type { RunningEmulator } from './server.js';

/** Authentication, routing, body handling, the company lookup, image routing, test routes and quirks. */
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ accessToken: 'token-for-server-tests', appKey: 'key-for-server-tests' });
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

async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  const response = await fetch(emulator.url + path, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function fetchJson(url: string, init?: RequestInit): Promise<any> {
  return (await fetch(url, init)).json();
}

const ads = (account = '1234'): Record<string, string> => ({
  authorization: `Bearer ${emulator.accessToken}`,
  adAccountId: account,
});
const jsonHeaders = (account = '1234'): Record<string, string> => ({
  ...ads(account),
  'content-type': 'application/json',
});

const validAudience = {
  adAccountId: 1234,
  name: 'n',
  type: 'DISPLAY',
  ageType: 'ALL',
  genderType: 'ALL',
  locationType: 'ALL',
};

function expectError(answer: Answer, status: number, detailCode: number): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/json;charset=UTF-8');
  expect(answer.json.code).toBe(-status);
  expect(answer.json.msg).toEqual(expect.any(String));
  expect(answer.json.extras).toEqual({ detailCode, detailMsg: expect.any(String) });
}

describe('authentication of the audience and company services', () => {
  const list = '/openapi/v4/targetings/audiences';

  it('answers 401 without, with a malformed, another-scheme or unknown credential', async () => {
    expectError(await send('GET', list, { adAccountId: '1234' }), 401, 2001);
    expectError(await send('GET', list, { authorization: 'Bearer', adAccountId: '1234' }), 401, 2002);
    expectError(
      await send('GET', list, { authorization: `Basic ${emulator.accessToken}`, adAccountId: '1234' }),
      401,
      2002,
    );
    expectError(
      await send('GET', list, { authorization: `AppKey ${emulator.appKey}`, adAccountId: '1234' }),
      401,
      2002,
    );
    expectError(
      await send('GET', list, { authorization: 'Bearer emulator-access-token', adAccountId: '1234' }),
      401,
      2003,
    );
    expectError(await send('GET', '/openapi/v1/companies?bizNum=120-81-47521', { adAccountId: '1234' }), 401, 2001);
  });

  it('accepts the scheme word in any case', async () => {
    expect(
      (await send('GET', list, { authorization: `bearer ${emulator.accessToken}`, adAccountId: '1234' })).status,
    ).toBe(200);
  });

  it('answers 403 without adAccountId, for an account the token cannot use, and for an unknown account', async () => {
    expectError(await send('GET', list, { authorization: `Bearer ${emulator.accessToken}` }), 403, 2004);
    expectError(await send('GET', list, ads('12x')), 403, 2004);
    expectError(await send('GET', list, ads('9999')), 403, 2005);
    expectError(await send('GET', list, ads('4444')), 403, 2005);
    expectError(await send('GET', '/openapi/v1/companies?bizNum=120-81-47521', ads('9999')), 403, 2005);
  });

  it('checks credentials before the body', async () => {
    expectError(await send('POST', '/openapi/v4/targetings', { 'content-type': 'application/json' }, '{'), 401, 2001);
  });
});

describe('routing and the request body', () => {
  it('answers 404 for an unknown route, not in the service error shape, and 405 with Allow for a wrong method', async () => {
    for (const path of [
      '/openapi/v4/nothing',
      '/openapi/v4/targetings/audiences/',
      '/v2/inference/karlo/t2i',
      '/openapi/v4/companies',
    ]) {
      const unknown = await send('GET', path, ads());
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ status: 404, error: 'Not Found', path });
    }
    const wrong = await send('PATCH', '/openapi/v4/targetings', ads());
    expectError(wrong, 405, 1008);
    expect(wrong.headers.get('allow')).toBe('POST, PUT, DELETE');
    expectError(await send('POST', '/openapi/v4/targetings/audiences', ads()), 405, 1008);
  });

  it('answers 415 for a body that is not application/json', async () => {
    const body = JSON.stringify(validAudience);
    expectError(
      await send('POST', '/openapi/v4/targetings', { ...ads(), 'content-type': 'text/plain' }, body),
      415,
      1003,
    );
    expectError(await send('POST', '/openapi/v4/targetings', ads(), body), 415, 1003);
    const charset = await send(
      'POST',
      '/openapi/v4/targetings',
      { ...ads(), 'content-type': 'application/json;charset=UTF-8' },
      body,
    );
    expect(charset.status, charset.text).toBe(200);
  });

  it('answers 400 for malformed JSON, an empty body, and a body that is not an object', async () => {
    expectError(await send('POST', '/openapi/v4/targetings', jsonHeaders(), '{"name": '), 400, 1001);
    expectError(await send('POST', '/openapi/v4/targetings', jsonHeaders(), ''), 400, 1001);
    expectError(await send('PUT', '/openapi/v4/targetings', jsonHeaders(), '"text"'), 400, 1002);
  });

  it('answers 413 for a body over 25 MB', async () => {
    const huge = Buffer.alloc(25 * 1024 * 1024 + 10, 0x20);
    expectError(await send('POST', '/openapi/v4/targetings', jsonHeaders(), huge), 413, 1004);
  });
});

describe('company lookup', () => {
  it('returns the seeded company with exactly the Company fields', async () => {
    const answer = await send('GET', '/openapi/v1/companies?bizNum=120-81-47521', ads());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(Object.keys(answer.json).sort()).toEqual(
      [
        'id',
        'businessRegistrationNumber',
        'name',
        'representationName',
        'businessCategory',
        'businessItem',
        'address',
      ].sort(),
    );
    expect(answer.json.businessRegistrationNumber).toBe('120-81-47521');
    expect(Object.keys(answer.json.address).sort()).toEqual(['baseAddress', 'detailAddress', 'zipCode']);
  });

  it('seeds only numbers with valid check digits', async () => {
    const state = await fetchJson(`${emulator.url}/_emulator/state`);
    for (const company of state.companies as Array<{ businessRegistrationNumber: string }>) {
      expect(hasValidCheckDigit(company.businessRegistrationNumber.replaceAll('-', ''))).toBe(true);
    }
  });

  it('checks the check digit as wire decision 9 describes', () => {
    expect(hasValidCheckDigit('1208147521')).toBe(true);
    for (let last = 0; last <= 9; last++) {
      if (last !== 1) expect(hasValidCheckDigit(`120814752${last}`)).toBe(false);
    }
  });

  it('refuses a malformed number (400), a wrong check digit (400), and answers 404 for a valid unknown one', async () => {
    expectError(await send('GET', '/openapi/v1/companies?bizNum=1208147521', ads()), 400, 6001);
    expectError(await send('GET', '/openapi/v1/companies?bizNum=12-081-47521', ads()), 400, 6001);
    expectError(await send('GET', '/openapi/v1/companies?bizNum=000-00-00000', ads()), 400, 6001);
    expectError(await send('GET', '/openapi/v1/companies?bizNum=120-81-47522', ads()), 400, 6002);
    expectError(await send('GET', '/openapi/v1/companies', ads()), 400, 1006);
    expectError(await send('GET', '/openapi/v1/companies?bizNum=120-81-47521&bizNum=211-88-12346', ads()), 400, 1006);
    expect(hasValidCheckDigit('2118812346')).toBe(true);
    expectError(await send('GET', '/openapi/v1/companies?bizNum=211-88-12346', ads()), 404, 3002);
  });
});

describe("the real services' paths and scheme, when configured", () => {
  let real: RunningEmulator;
  beforeAll(async () => {
    real = await startEmulator({
      appKey: 'key-for-server-tests',
      modelFamily: 'karlo',
      imageAuthScheme: 'KakaoAK',
      companyPath: '/openapi/v4/companies',
    });
  });
  afterAll(async () => {
    await real.close();
  });
  const at = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
    const response = await fetch(real.url + path, { method, headers, body });
    return {
      status: response.status,
      json: (await response.json()) as { error?: string; extras?: { detailCode?: number }; images?: unknown[] },
    };
  };
  const request = JSON.stringify({
    version: 'v2.0',
    prompt: 'a red apple',
    width: 384,
    height: 384,
    seed: [7],
    return_type: 'base64_string',
  });

  it('serves the business lookup at its path and image generation under its model family, with its scheme', async () => {
    expect(
      (
        await at('GET', '/openapi/v4/companies?bizNum=120-81-47521', {
          authorization: `Bearer ${real.accessToken}`,
          adAccountId: '1234',
        })
      ).status,
    ).toBe(200);
    const generated = await at(
      'POST',
      '/v2/inference/karlo/t2i',
      { authorization: `KakaoAK ${real.appKey}`, 'content-type': 'application/json' },
      request,
    );
    expect(generated.status).toBe(200);
    expect(generated.json.images).toHaveLength(1);
    const log = (await (await fetch(`${real.url}/_emulator/requests`)).json()) as {
      requests: Array<{ path: string; auth: string }>;
    };
    expect(log.requests.at(-1)).toMatchObject({ path: '/v2/inference/karlo/t2i', auth: 'KakaoAK' });
  });

  it("answers the spec's literal paths as unknown, and the spec's scheme as another scheme", async () => {
    expect(
      await at('GET', '/openapi/v1/companies?bizNum=120-81-47521', {
        authorization: `Bearer ${real.accessToken}`,
        adAccountId: '1234',
      }),
    ).toEqual({
      status: 404,
      json: { status: 404, error: 'Not Found', path: '/openapi/v1/companies' },
    });
    expect(
      (
        await at(
          'POST',
          '/v2/inference/imagegen/t2i',
          { authorization: `KakaoAK ${real.appKey}`, 'content-type': 'application/json' },
          request,
        )
      ).status,
    ).toBe(404);
    const appKey = await at(
      'POST',
      '/v2/inference/karlo/t2i',
      { authorization: `AppKey ${real.appKey}`, 'content-type': 'application/json' },
      request,
    );
    expect(appKey).toMatchObject({ status: 401, json: { extras: { detailCode: 2002 } } });
  });
});

describe('image generation routing', () => {
  const t2i = '/v2/inference/imagegen/t2i';
  const request = JSON.stringify({
    version: 'v2.1',
    prompt: 'a red apple',
    width: 768,
    height: 768,
    seed: [7],
    image_format: 'png',
  });
  const appKey = (): Record<string, string> => ({
    authorization: `AppKey ${emulator.appKey}`,
    'content-type': 'application/json',
  });

  it('requires Authorization: AppKey with the right key', async () => {
    expectError(await send('POST', t2i, { 'content-type': 'application/json' }, request), 401, 2001);
    expectError(await send('POST', t2i, { ...jsonHeaders() }, request), 401, 2002);
    expectError(await send('POST', t2i, { ...appKey(), authorization: 'AppKey wrong-key' }, request), 401, 2003);
  });

  it('checks the body form before handing it over', async () => {
    expectError(await send('POST', t2i, { ...appKey(), 'content-type': 'text/plain' }, request), 415, 1003);
    expectError(await send('POST', t2i, appKey(), '{'), 400, 1001);
    expectError(await send('GET', t2i, appKey()), 405, 1008);
  });

  it('passes the generator rule errors through in the error body shape', async () => {
    const answer = await send(
      'POST',
      t2i,
      appKey(),
      JSON.stringify({ version: 'v2.1', prompt: 'x', width: 700, height: 768 }),
    );
    expect(answer.status).toBe(400);
    expect(answer.json.extras.detailCode).toEqual(expect.any(Number));
  });

  it('serves a returned image URL under /images/ and 404 for an unknown one', async () => {
    const answer = await send('POST', t2i, appKey(), request);
    expect(answer.status, answer.text).toBe(200);
    const url = answer.json.images[0].image as string;
    expect(url.startsWith(`${emulator.url}/images/`)).toBe(true);
    const image = await fetch(url);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    expectError(await send('GET', '/images/nothing.png', {}), 404, 3005);
  });
});

describe('test routes', () => {
  it('logs requests without ever storing credentials', async () => {
    await fetch(`${emulator.url}/_emulator/requests`, { method: 'DELETE' });
    await send('GET', '/openapi/v4/targetings/audiences', ads());
    await send('POST', '/openapi/v4/targetings', jsonHeaders(), JSON.stringify(validAudience));
    await send(
      'POST',
      '/v2/inference/imagegen/t2i',
      { authorization: `AppKey ${emulator.appKey}`, 'content-type': 'application/json' },
      '{}',
    );
    const text = await (await fetch(`${emulator.url}/_emulator/requests`)).text();
    expect(text).not.toContain(emulator.accessToken);
    expect(text).not.toContain(emulator.appKey);
    const { requests } = JSON.parse(text);
    expect(
      requests.map((entry: { method: string; path: string; status: number }) => [
        entry.method,
        entry.path,
        entry.status,
      ]),
    ).toEqual([
      ['GET', '/openapi/v4/targetings/audiences', 200],
      ['POST', '/openapi/v4/targetings', 200],
      ['POST', '/v2/inference/imagegen/t2i', 400],
    ]);
    expect(requests[0]).toMatchObject({ seq: expect.any(Number), adAccountId: '1234', auth: 'Bearer', fault: null });
    expect(requests[1].body).toEqual(validAudience);
    expect(requests[2].auth).toBe('AppKey');
    await fetch(`${emulator.url}/_emulator/requests`, { method: 'DELETE' });
    expect((await fetchJson(`${emulator.url}/_emulator/requests`)).requests).toEqual([]);
  });

  it('gives only the entries after a sequence number, for a poll that reads what is new', async () => {
    await send('GET', '/openapi/v4/targetings/audiences', ads());
    await send('GET', '/openapi/v4/targetings/audiences', ads());
    const all = (await fetchJson(`${emulator.url}/_emulator/requests`)).requests as Array<{ seq: number }>;
    const last = all.at(-1)?.seq ?? 0;
    expect(
      (await fetchJson(`${emulator.url}/_emulator/requests?after=${last - 1}`)).requests.map(
        (entry: { seq: number }) => entry.seq,
      ),
    ).toEqual([last]);
    expect((await fetchJson(`${emulator.url}/_emulator/requests?after=${last}`)).requests).toEqual([]);
    expect((await fetchJson(`${emulator.url}/_emulator/requests?after=0`)).requests).toEqual(all);
    await send('POST', '/openapi/v4/targetings', jsonHeaders(), JSON.stringify(validAudience));
    expect(
      (await fetchJson(`${emulator.url}/_emulator/requests?after=${last}`)).requests.map(
        (entry: { seq: number; method: string }) => [entry.seq, entry.method],
      ),
    ).toEqual([[last + 1, 'POST']]);
    const refused = await fetch(`${emulator.url}/_emulator/requests?after=-1`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/after must be a sequence number/);
  });

  it('dumps the state and resets it to the seed', async () => {
    await send('POST', '/openapi/v4/targetings', jsonHeaders(), JSON.stringify(validAudience));
    const before = await fetchJson(`${emulator.url}/_emulator/state`);
    expect(before.audiences).toHaveLength(1);
    expect(before.accounts.map((account: { id: number }) => account.id)).toEqual(expect.arrayContaining([1234, 9999]));
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
    const after = await fetchJson(`${emulator.url}/_emulator/state`);
    expect(after.audiences).toEqual([]);
    expect(after.nextAudienceId).toBe(String(Number(before.nextAudienceId) - 1));
  });

  it('refuses a request a web page sends from another origin (403, 2006), and serves tools, which send no Origin, and the emulator’s own origin', async () => {
    await send('POST', '/openapi/v4/targetings', jsonHeaders(), JSON.stringify(validAudience));
    const port = new URL(emulator.url).port;
    const refused: Array<Record<string, string>> = [
      { origin: 'https://attacker.example' },
      { origin: `http://127.0.0.1:${Number(port) + 1}` },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      for (const [method, path] of [
        ['POST', '/_emulator/reset'],
        ['GET', '/_emulator/state'],
        ['PUT', '/_emulator/faults'],
        ['POST', '/_emulator/links'],
      ]) {
        const answer = await send(method ?? '', path ?? '', headers, method === 'GET' ? undefined : '{}');
        expectError(answer, 403, 2006);
        expect(answer.json.extras.detailMsg).toMatch(
          /^the test-only routes refuse a request a web page sent from another (origin|site)/,
        );
      }
    }
    expect((await fetchJson(`${emulator.url}/_emulator/state`)).audiences).toHaveLength(1);
    const served: Array<Record<string, string>> = [
      {},
      { origin: emulator.url },
      { origin: `http://localhost:${port}` },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
    ];
    for (const headers of served) {
      expect((await send('GET', '/_emulator/faults', headers)).status).toBe(200);
    }
    expect(
      (await send('POST', '/_emulator/reset', { origin: emulator.url, 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
    expect((await fetchJson(`${emulator.url}/_emulator/state`)).audiences).toEqual([]);
  });

  it('refuses a request for another Host (a page whose name was rebound to 127.0.0.1), and serves its own address', async () => {
    await send('POST', '/openapi/v4/targetings', jsonHeaders(), JSON.stringify(validAudience));
    const { port } = new URL(emulator.url);
    /** GET /_emulator/state with this Host header (none: undefined); fetch cannot set Host. */
    const withHost = (host: string | undefined) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/_emulator/state',
            setHost: false,
            headers: host === undefined ? {} : { host },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        request.on('error', reject);
        request.end();
      });
    for (const host of [
      'attacker.example',
      `attacker.example:${port}`,
      `127.0.0.1:${Number(port) + 1}`,
      `localhost:${Number(port) + 1}`,
    ]) {
      const answer = await withHost(host);
      expect(answer.status, host).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({
        extras: {
          detailCode: 2006,
          detailMsg: `the test-only routes refuse a request for another host (Host: ${host}), as a page whose name leads here would send`,
        },
      });
      expect(answer.text).not.toContain('"audiences"');
    }
    // HTTP/1.1 without Host is refused before any route (Node's server answers 400).
    expect((await withHost(undefined)).status).toBe(400);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LocalHost:${port}`])
      expect((await withHost(host)).status, host).toBe(200);
  });

  it('adds an accessible ad account until the next reset, each id once', async () => {
    const add = (body: unknown) =>
      send('POST', '/_emulator/accounts', { 'content-type': 'application/json' }, JSON.stringify(body));
    expectError(await send('GET', '/openapi/v4/targetings/audiences', ads('2001')), 403, 2005);
    const added = await add({ id: 2001 });
    expect(added.status, added.text).toBe(200);
    expect(added.json).toEqual({ id: 2001, name: 'Account 2001' });
    const created = await send(
      'POST',
      '/openapi/v4/targetings',
      jsonHeaders('2001'),
      JSON.stringify({ ...validAudience, adAccountId: 2001 }),
    );
    expect(created.status, created.text).toBe(200);
    const listed = await send('GET', '/openapi/v4/targetings/audiences', ads('2001'));
    expect(listed.json.content.map((audience: { name: string }) => audience.name)).toEqual(['n']);
    expect((await send('GET', '/openapi/v4/targetings/audiences', ads('1234'))).json.content).toEqual([]);
    expectError(await add({ id: 2001 }), 400, 4004);
    expectError(await add({ id: 1234 }), 400, 4004);
    expectError(await add({ id: '2002' }), 400, 4004);
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' });
    expectError(await send('GET', '/openapi/v4/targetings/audiences', ads('2001')), 403, 2005);
  });

  it('refuses a bad fault setting and an unknown test route', async () => {
    const bad = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'PUT',
      body: JSON.stringify({ faultRate: 2 }),
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${emulator.url}/_emulator/nothing`)).status).toBe(404);
  });
});

describe('quirks mode', () => {
  it('answers like the spec examples: depth2locations, and descripton inside depth-2 and depth-3 objects', async () => {
    const quirky = await startEmulator({ quirks: true });
    try {
      const headers = {
        authorization: `Bearer ${quirky.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      };
      const body = {
        ...validAudience,
        locationType: 'AREA',
        locations: [{ value: 'I' }],
        depth2Locations: [{ value: 'I04' }],
        depth3Locations: [{ value: 'I0401' }],
      };
      const created = await fetch(`${quirky.url}/openapi/v4/targetings`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const write: any = await created.json();
      expect(write).not.toHaveProperty('depth2Locations');
      expect(write.depth2locations).toEqual([
        { value: 'I04', descripton: 'Seoul Gangnam-gu', depth1Name: 'Seoul', depth2Name: 'Gangnam-gu' },
      ]);
      expect(write.depth3Locations).toEqual([
        { value: 'I0401', descripton: 'Seoul Gangnam-gu Yeoksam-dong', depth1Name: 'Seoul' },
      ]);
      expect(write.locations).toEqual([{ value: 'I', description: 'Seoul', depth1Name: 'Seoul' }]);
      const read = await fetchJson(`${quirky.url}/openapi/v4/targetings/${write.id}`, { headers });
      expect(read.depth2locations).toEqual([{ value: 'I04', descripton: 'Seoul Gangnam-gu', depth1Name: 'Seoul' }]);
      expect(read.depth3Locations[0]).toHaveProperty('descripton');
      expect(read.depth3Locations[0]).not.toHaveProperty('description');
    } finally {
      await quirky.close();
    }
  });
});
