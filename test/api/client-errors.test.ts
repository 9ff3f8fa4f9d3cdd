/**
 * Error paths of the three clients that the emulator never produces: error bodies without
 * extras, 2xx answers that are empty or not JSON, silence, expired image URLs and files that
 * are not images. A tiny scripted server stands in for the service.
 */
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { createAudienceClient } from '../../src/api/audiences.js';
import { createBusinessClient } from '../../src/api/business.js';
import type { HttpClient } from '../../src/api/http.js';
import { createImageClient } from '../../src/api/imagegen.js';
import { renderError } from '../../src/cli/report-error.js';
import { isOutcomeUnknown } from '../../src/errors.js';
import { definition } from '../helpers/builders.js';
import {
  bearer,
  reply,
  replyBytes,
  silence,
  startScripted,
  transport,
  type Script,
  type ScriptedServer,
} from './support.js';

let server: ScriptedServer;
let clients: HttpClient[];

beforeEach(async () => {
  server = await startScripted();
  clients = [];
});
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server.close();
});

function http(service: 'audience' | 'business' | 'imagegen', timeouts?: { headersMs: number }): HttpClient {
  const client = transport({
    service,
    baseUrl: server.url,
    headers: service === 'imagegen' ? { Authorization: 'AppKey test-app-key' } : bearer('test-access-token'),
    ...(timeouts ? { timeouts } : {}),
  });
  clients.push(client);
  return client;
}

/** One call of each client, all answered by the same scripted answers. */
/**
 * A create whose answer could not be used (a 2xx it cannot read, a timeout) may have made the
 * audience: when the list that would tell fails too, its outcome is unknown, and the error
 * about the answer is that error's cause.
 */
async function unknownCause(error: unknown): Promise<never> {
  expect(isOutcomeUnknown(error)).toBe(true);
  throw (error as Error).cause;
}

const calls = {
  'audience list': () => createAudienceClient(http('audience'), 1234).list(),
  'audience read': () => createAudienceClient(http('audience'), 1234).read('5'),
  'audience create': () =>
    createAudienceClient(http('audience'), 1234)
      .create(audienceBody)
      .catch((error: unknown) => (isOutcomeUnknown(error) ? unknownCause(error) : Promise.reject(error))),
  'business lookup': () => createBusinessClient(http('business'), 1234).lookup('120-81-47521'),
  'text to image': () =>
    createImageClient(http('imagegen')).textToImage({ version: 'v2.0', prompt: 'x', width: 384, height: 384 }),
};
const audienceBody = definition({ name: 'a' });

async function failure(call: () => Promise<unknown>): Promise<ApiError> {
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe.each(Object.entries(calls))('%s', (_name, call) => {
  it('a 4xx with extras carries every field of the body', async () => {
    server.answers = [
      reply(400, {
        code: -400,
        msg: 'invalid request',
        extras: { detailCode: 4321, detailMsg: 'the field x is wrong' },
      }),
    ];
    const error = await failure(call);
    expect(error).toMatchObject({
      kind: 'http',
      status: 400,
      code: 'API_REJECTED',
      serviceCode: -400,
      detailCode: 4321,
      detailMsg: 'the field x is wrong',
      ambiguous: false,
      attempts: 1,
      source: 'remote',
    });
    expect(error.summary).toContain('the field x is wrong');
    expect(error.detail).toContain('service code -400, detail code 4321 (invalid request)');
    expect(server.seen).toHaveLength(1);
  });

  it.each([
    ['missing', { code: -401, msg: 'unauthorized' }],
    ['empty', { code: -401, msg: 'unauthorized', extras: {} }],
    ['null', { code: -401, msg: 'unauthorized', extras: null }],
  ])('a 4xx whose extras are %s keeps the code and message', async (_kind, body) => {
    server.answers = [reply(401, body)];
    const error = await failure(call);
    expect(error).toMatchObject({
      status: 401,
      code: 'API_UNAUTHORIZED',
      serviceCode: -401,
      detailCode: undefined,
      detailMsg: undefined,
    });
    expect(error.summary).toContain('unauthorized');
    expect(error.hint).toMatch(/ADS_ACCESS_TOKEN|IMAGEGEN_API_KEY/);
  });

  it('a 4xx with an HTML body says what came back', async () => {
    server.answers = [reply(403, '<html><body>Forbidden by proxy</body></html>', { 'content-type': 'text/html' })];
    const error = await failure(call);
    expect(error).toMatchObject({ status: 403, code: 'API_FORBIDDEN', serviceCode: undefined });
    expect(error.summary).toContain('Forbidden by proxy');
  });

  it('a 200 that is not JSON is an invalid response', async () => {
    server.answers = [reply(200, '{"content": [')];
    const error = await failure(call);
    expect(error).toMatchObject({ kind: 'invalid-response', code: 'API_INVALID_RESPONSE', status: 200 });
    expect(error.summary).toContain('not JSON');
  });

  it('a 200 with an empty body is an invalid response', async () => {
    server.answers = [(_req, res) => res.writeHead(200, { 'content-length': '0' }).end()];
    const error = await failure(call);
    expect(error).toMatchObject({ kind: 'invalid-response', status: 200 });
    expect(error.summary).toContain('empty body');
  });

  it('a 200 of the wrong shape names the problem', async () => {
    // A list whose content is missing is not whole (LIST_INCOMPLETE): its items are what can have the wrong shape.
    server.answers = [reply(200, { unexpected: true, content: [{ name: 'no id' }] })];
    const error = await failure(call);
    expect(error.kind).toBe('invalid-response');
    expect(error.summary).toMatch(/not an? \w+: (body|content\[0\]) must have required property/);
  });
});

describe('silence', () => {
  it('is a timeout for every client', async () => {
    server.answers = [silence];
    // undici checks its timers about once a second: one attempt each (no budget to retry), all at once, keeps this
    // short.
    const slow = (service: 'audience' | 'business' | 'imagegen') => {
      const client = transport({ service, baseUrl: server.url, timeouts: { headersMs: 100 }, retry: { budgetMs: 0 } });
      clients.push(client);
      return client;
    };
    const errors = await Promise.all([
      failure(() => createAudienceClient(slow('audience'), 1234).list()),
      failure(() => createAudienceClient(slow('audience'), 1234).read('5')),
      failure(() => createAudienceClient(slow('audience'), 1234).create(audienceBody).catch(unknownCause)),
      failure(() => createBusinessClient(slow('business'), 1234).lookup('120-81-47521')),
      failure(() =>
        createImageClient(slow('imagegen')).textToImage({ version: 'v2.0', prompt: 'x', width: 384, height: 384 }),
      ),
    ]);
    for (const error of errors) {
      expect(error).toMatchObject({ kind: 'timeout', code: 'API_TIMEOUT' });
      expect(error.summary).toContain('no response headers within 100 ms');
    }
    expect(errors.map((error) => error.service)).toEqual(['audience', 'audience', 'audience', 'business', 'imagegen']);
  });
});

describe('the create under silence', () => {
  it('lists the account before sending again, and sends again only when nothing was made', async () => {
    const created = {
      id: 9,
      name: 'a',
      audienceStatus: 'STANDBY',
      type: 'DISPLAY',
      createdDate: '2026-01-01T00:00:00',
      lastModifiedDate: '2026-01-01T00:00:00',
      adAccountId: 1234,
      ageType: 'ALL',
      genderType: 'ALL',
    };
    server.answers = [silence, reply(200, { content: [] }), reply(200, created)];
    const result = await createAudienceClient(http('audience', { headersMs: 100 }), 1234).create(audienceBody);
    expect(result.id).toBe('9');
    expect(server.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual([
      'POST /openapi/v4/targetings',
      'GET /openapi/v4/targetings/audiences',
      'POST /openapi/v4/targetings',
    ]);
  });
});

describe('a change whose answer was lost, then refused for the quota', () => {
  it('is unknown, not failed: the quota answer says nothing of what the lost attempt did', async () => {
    // Asked to wait a second, past the budget: the quota answer stands.
    const quota = reply(429, { code: -813, msg: 'too many requests' }, { 'Retry-After': '1' });
    for (const [name, call] of [
      ['update', (client: HttpClient) => createAudienceClient(client, 1234).update('5', audienceBody)],
      ['delete', (client: HttpClient) => createAudienceClient(client, 1234).delete('5')],
      ['unlink', (client: HttpClient) => createAudienceClient(client, 1234).unlink('5', '101')],
    ] as const) {
      server.seen.length = 0;
      server.answers = [reply(503, { code: -500, msg: 'busy' }), quota];
      const client = transport({
        baseUrl: server.url,
        headers: bearer('t'),
        retry: { maxAttempts: 5, baseDelayMs: 0, maxDelayMs: 0, budgetMs: 500 },
      });
      clients.push(client);
      const error = await call(client).catch((thrown: unknown) => thrown);
      expect(server.seen, name).toHaveLength(2);
      expect(isOutcomeUnknown(error), name).toBe(true);
      expect((error as Error).message, name).toContain('may have been carried out');
    }
  });

  it('is failed when no answer was lost: the quota answer says it was not made', async () => {
    server.answers = [reply(429, { code: -813, msg: 'too many requests' }, { 'Retry-After': '1' })];
    const client = transport({
      baseUrl: server.url,
      headers: bearer('t'),
      retry: { maxAttempts: 5, baseDelayMs: 0, maxDelayMs: 0, budgetMs: 500 },
    });
    clients.push(client);
    const error = await createAudienceClient(client, 1234)
      .update('5', audienceBody)
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(isOutcomeUnknown(error)).toBe(false);
  });
});

describe('business lookup', () => {
  it.each([
    [
      'a 404 with the error body',
      reply(404, { code: -404, msg: 'not found', extras: { detailCode: 3002, detailMsg: 'no company' } }),
    ],
    [
      'detail code 5001, whatever the status',
      reply(400, {
        code: -813,
        msg: 'KakaoMomentException',
        extras: { detailCode: 5001, detailMsg: '존재하지 않는 사업자입니다.' },
      }),
    ],
  ])('%s is no business: null', async (_kind, answer) => {
    server.answers = [answer];
    expect(await createBusinessClient(http('business'), 1234).lookup('120-81-47521')).toBeNull();
    expect(server.seen[0]?.headers['adaccountid']).toBe('1234');
  });

  it.each([
    ['an empty body', ((_req, res) => res.writeHead(404).end()) as Script],
    [
      'a web server page',
      reply(404, {
        timestamp: '2024-05-01T00:00:00.000+00:00',
        status: 404,
        error: 'Not Found',
        path: '/openapi/v1/companies',
      }),
    ],
  ])('a 404 with %s is a wrong address, not "no business"', async (_kind, answer) => {
    server.answers = [answer];
    const error = await failure(() =>
      createBusinessClient(http('business'), 1234, '/openapi/v4/companies').lookup('120-81-47521'),
    );
    expect(error).toMatchObject({ code: 'API_NOT_FOUND', path: '/openapi/v4/companies?bizNum=120-81-47521' });
    expect(error.hint).toContain('Nothing of the business-information API is at this address');
    expect(error.hint).toContain('ADS_COMPANY_PATH');
    expect(server.seen[0]?.url).toBe('/openapi/v4/companies?bizNum=120-81-47521');
  });

  it('an answer about another registration number is an invalid response', async () => {
    server.answers = [reply(200, { businessRegistrationNumber: '220-81-62458', name: 'Harbor Foods Inc.' })];
    const error = await failure(() => createBusinessClient(http('business'), 1234).lookup('1208147521'));
    expect(error).toMatchObject({ code: 'API_INVALID_RESPONSE', kind: 'invalid-response' });
    expect(error.summary).toContain('it describes the business registered under "220-81-62458", not 120-81-47521');
    expect(error.hint).toContain('ADS_COMPANY_PATH');
  });

  it('reads missing and null fields as null, and the number however it is written', async () => {
    server.answers = [
      reply(200, {
        businessRegistrationNumber: '1208147521',
        name: 'Only a name',
        businessItem: null,
        address: null,
        extra: 'ignored',
      }),
    ];
    expect(await createBusinessClient(http('business'), 1234).lookup('120-81-47521')).toEqual({
      id: null,
      businessRegistrationNumber: '1208147521',
      name: 'Only a name',
      representationName: null,
      businessCategory: null,
      businessItem: null,
      address: { zipCode: null, baseAddress: null, detailAddress: null },
    });
  });
});

describe('image results', () => {
  const answer = (image: string) =>
    reply(200, { id: 'job-1', model_version: 'v2.1', images: [{ id: 'img-1', seed: 4, image }] });

  it('the format comes from the bytes, not from the request', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#fff' } })
      .png()
      .toBuffer();
    server.answers = [answer(png.toString('base64'))];
    const result = await createImageClient(http('imagegen')).textToImage({
      version: 'v2.1',
      prompt: 'x',
      width: 768,
      height: 768,
      image_format: 'webp',
      return_type: 'base64_string',
    });
    expect(result).toEqual({
      jobId: 'job-1',
      modelVersion: 'v2.1',
      images: [
        { id: 'img-1', seed: 4, bytes: new Uint8Array(png), format: 'png', nsfwContentDetected: null, nsfwScore: null },
      ],
    });
  });

  it('an expired URL (404) fails the generation, naming the file', async () => {
    server.answers = [
      (req, res, body) => answer(`${server.url}/images/img-1.webp`)(req, res, body),
      reply(404, { code: -404, msg: 'not found', extras: { detailCode: 3005, detailMsg: 'no such image' } }),
    ];
    const error = await failure(() =>
      createImageClient(http('imagegen')).textToImage({ version: 'v2.1', prompt: 'x', width: 768, height: 768 }),
    );
    expect(error).toMatchObject({ status: 404, method: 'GET', path: '/images/img-1.webp' });
  });

  it("a URL's file gone without the service's error body is not blamed on the settings", async () => {
    server.answers = [
      (req, res, body) => answer(`${server.url}/images/img-1.webp`)(req, res, body),
      reply(404, '<Error><Code>NoSuchKey</Code></Error>'),
    ];
    const error = await failure(() =>
      createImageClient(http('imagegen')).textToImage({ version: 'v2.1', prompt: 'x', width: 768, height: 768 }),
    );
    expect(error).toMatchObject({ status: 404, method: 'GET', path: '/images/img-1.webp' });
    expect(error.hint).toBeUndefined();
  });

  it('a URL whose file is not an image is an invalid response', async () => {
    server.answers = [
      (req, res, body) => answer(`${server.url}/images/img-1.webp`)(req, res, body),
      replyBytes(200, new TextEncoder().encode('<html>login</html>'), 'text/html'),
    ];
    const error = await failure(() =>
      createImageClient(http('imagegen')).textToImage({ version: 'v2.1', prompt: 'x', width: 768, height: 768 }),
    );
    expect(error).toMatchObject({ kind: 'invalid-response', method: 'GET', path: '/images/img-1.webp' });
    expect(error.summary).toContain('not a webp, jpeg or png file');
  });

  it.each([
    ['not Base64', 'this is not base64!'],
    ['Base64 of something else', Buffer.from('just some text').toString('base64')],
  ])('a result that is %s is an invalid response', async (_kind, image) => {
    server.answers = [answer(image)];
    const error = await failure(() =>
      createImageClient(http('imagegen')).textToImage({
        version: 'v2.1',
        prompt: 'x',
        width: 768,
        height: 768,
        return_type: 'base64_string',
      }),
    );
    expect(error).toMatchObject({ kind: 'invalid-response', service: 'imagegen', path: '/v2/inference/imagegen/t2i' });
  });

  it('variations and inpainting post to their own paths', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    server.answers = [answer(png.toString('base64'))];
    const client = createImageClient(http('imagegen'));
    await client.variations({ version: 'v2.0', image: 'AAAA', width: 384, height: 384 });
    await client.inpainting({ prompt: 'x', image: 'AAAA', mask: 'AAAA' });
    expect(server.seen.map((seen) => `${seen.method} ${seen.url} ${String(seen.headers['authorization'])}`)).toEqual([
      'POST /v2/inference/imagegen/variations AppKey test-app-key',
      'POST /v2/inference/imagegen/inpainting AppKey test-app-key',
    ]);
    expect(JSON.parse(server.seen[1]?.body ?? '')).toEqual({ prompt: 'x', image: 'AAAA', mask: 'AAAA' });
  });
});

describe('answers that never end', () => {
  it('cuts off an answer larger than the cap, after the cap, says so, and does not ask again', async () => {
    // An endless body: chunks until the client hangs up.
    server.answers = [
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const write = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', write);
        };
        write();
      },
    ];
    const client = transport({ baseUrl: server.url, headers: bearer('t'), maxAnswerBytes: 1024 * 1024 });
    clients.push(client);
    const error = await client
      .request({ method: 'GET', path: '/openapi/v4/targetings/audiences', response: 'AudienceListResponse' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).summary).toContain('the answer was larger than 1048576 bytes, and was cut off');
    // Reached, and answered too much: not "unreachable".
    expect(error).toMatchObject({
      code: 'API_INVALID_RESPONSE',
      hint: expect.stringContaining('not at a proxy or another service') as unknown,
    });
    expect(server.seen).toHaveLength(1);
  });

  it("writes a line break of the service's message out, so that it cannot forge a line of its own", async () => {
    server.answers = [
      reply(400, {
        code: -400,
        msg: 'x\n  hint: run `audiences apply --allow-mass-delete`',
        extras: { detailCode: 1, detailMsg: 'bad' },
      }),
    ];
    const client = transport({ baseUrl: server.url, headers: bearer('t') });
    clients.push(client);
    const error = await client
      .request({ method: 'GET', path: '/openapi/v4/targetings/audiences', response: 'AudienceListResponse' })
      .catch((thrown: unknown) => thrown);
    const shown = renderError(error, false);
    expect(shown).toContain('service code -400, detail code 1 (x\\n  hint: run `audiences apply --allow-mass-delete`)');
    expect(shown).not.toMatch(/^\s*hint: run/m);
  });

  it('ends an attempt whose body drips, after its time in all, though bytes keep coming', async () => {
    server.answers = [
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 20);
        res.on('close', () => clearInterval(drip));
      },
    ];
    const client = transport({
      baseUrl: server.url,
      headers: bearer('t'),
      timeouts: { bodyMs: 1000, totalMs: 300 },
      retry: { budgetMs: 0 },
    });
    clients.push(client);
    const error = await client
      .request({ method: 'GET', path: '/openapi/v4/targetings/audiences', response: 'AudienceListResponse' })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).summary).toContain('the answer took over 0.3 s in all');
  });
});
