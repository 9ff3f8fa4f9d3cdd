import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { ApiError, parseErrorBody } from './api-error.js';
import { createHttpClient, type HttpClient, type HttpClientOptions } from './http.js';

const CANARY = 'canary-token-8d1f0b7e2a';

/** One answer of the test server; the last one given repeats. */
type Respond = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  server: Server;
  url: string;
  seen: Seen[];
  answers: Respond[];
  inFlight: number;
  maxInFlight: number;
  connections: number;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Respond {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}
const empty =
  (status: number): Respond =>
  (_req, res) => {
    res.writeHead(status, { 'content-length': '0' });
    res.end();
  };
const reset: Respond = (req) => req.socket.destroy();
const silent: Respond = () => undefined;
const stalledBody: Respond = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
  res.write('{"content": [');
};
const later =
  (ms: number, respond: Respond): Respond =>
  (req, res, body) => {
    setTimeout(() => respond(req, res, body), ms);
  };

async function startServer(): Promise<TestServer> {
  const state: TestServer = {
    server: createServer(),
    url: '',
    seen: [],
    answers: [],
    inFlight: 0,
    maxInFlight: 0,
    connections: 0,
  };
  state.server.on('connection', () => (state.connections += 1));
  state.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      state.inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      res.on('close', () => (state.inFlight -= 1));
      const answer = state.answers[Math.min(state.seen.length - 1, state.answers.length - 1)] ?? empty(200);
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${String((state.server.address() as AddressInfo).port)}`;
  return state;
}

async function stopServer(state: TestServer): Promise<void> {
  state.server.closeAllConnections();
  await new Promise<void>((resolve) => state.server.close(() => resolve()));
}

let server: TestServer;
let clients: HttpClient[];
let delays: number[];
let lines: string[];

beforeEach(async () => {
  server = await startServer();
  clients = [];
  delays = [];
  lines = [];
});

afterEach(async () => {
  await stopServer(server);
  await Promise.all(clients.map((client) => client.close()));
});

function client(options: Partial<HttpClientOptions> = {}): HttpClient {
  const created = createHttpClient({
    service: 'audience',
    baseUrl: `${server.url}/base`,
    headers: { Authorization: `Bearer ${CANARY}`, adAccountId: '1234' },
    verbose: true,
    log: (line) => lines.push(line),
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    timeouts: { headersMs: 250, bodyMs: 250 },
    ...options,
  });
  clients.push(created);
  return created;
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  expect(apiError.source).toBe('remote');
  const shown = [
    apiError.message,
    apiError.summary,
    apiError.detail,
    apiError.hint,
    apiError.detailMsg,
    apiError.path,
    String(apiError),
  ];
  expect(shown.join('\n')).not.toContain(CANARY);
  return apiError;
}

afterEach(() => {
  expect(lines.join('\n')).not.toContain(CANARY);
});

const listItem = {
  id: 1,
  name: 'a',
  audienceStatus: 'AVAILABLE',
  type: 'DISPLAY',
  createdDate: 'd',
  lastModifiedDate: 'd',
};

describe('requests', () => {
  it('send a path the URL parser would change as the parser makes it: dot segments resolved, spaces and quotes escaped', async () => {
    server.answers = [json(200, { content: [] }), json(200, { content: [] })];
    await client().request({
      method: 'GET',
      path: '/openapi/v4/x/../targetings/a b',
      response: 'AudienceListResponse',
    });
    await client().request({
      method: 'GET',
      path: '/openapi/v4/targetings/./audiences',
      query: { name: "it's" },
      response: 'AudienceListResponse',
    });
    expect(server.seen.map((seen) => seen.url)).toEqual([
      '/base/openapi/v4/targetings/a%20b',
      '/base/openapi/v4/targetings/audiences?name=it%27s',
    ]);
  });

  it('send the headers, keep the base path, keep commas in the query, and type the answer', async () => {
    server.answers = [json(200, { successCount: 3, failCount: 0, errorMessages: [] })];
    const deleted = await client().request({
      method: 'DELETE',
      path: '/openapi/v4/targetings',
      query: { audienceIds: '1,2,3', skipped: undefined },
      response: 'BatchDeleteResult',
    });
    expect(deleted.successCount).toBe(3);
    server.answers = [json(200, { content: [listItem], unexpected: true })];
    const list = await client().request({
      method: 'GET',
      path: 'openapi/v4/targetings/audiences',
      response: 'AudienceListResponse',
    });
    expect(list.content).toMatchObject([{ name: 'a' }]);
    const [first, second] = server.seen;
    expect(first?.url).toBe('/base/openapi/v4/targetings?audienceIds=1,2,3');
    expect(second?.url).toBe('/base/openapi/v4/targetings/audiences');
    expect(second?.headers['authorization']).toBe(`Bearer ${CANARY}`);
    expect(second?.headers['adaccountid']).toBe('1234');
    expect(second?.headers['user-agent']).toMatch(/^audiences\/\d+\.\d+\.\d+/);
    expect(second?.headers['accept']).toBe('application/json');
  });

  it('send a JSON body with its content type', async () => {
    server.answers = [json(200, { successCount: 1, failCount: 0, errorMessages: [] })];
    await client().request({
      method: 'PUT',
      path: '/x',
      body: { name: 'n', ages: ['20'] },
      response: 'BatchDeleteResult',
    });
    expect(server.seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.seen[0]?.body ?? '')).toEqual({ name: 'n', ages: ['20'] });
  });

  it('accept an empty answer when no body is expected', async () => {
    server.answers = [empty(200)];
    await expect(client().request({ method: 'DELETE', path: '/openapi/v4/targetings/5' })).resolves.toBeUndefined();
  });

  it('reuse one kept-alive connection for sequential requests', async () => {
    server.answers = [json(200, { content: [] })];
    const http = client();
    for (let i = 0; i < 10; i += 1)
      await http.request({ method: 'GET', path: '/list', response: 'AudienceListResponse' });
    expect(server.seen).toHaveLength(10);
    // undici's pool may alternate between two sockets; without keep-alive there would be ten.
    expect(server.connections).toBeLessThanOrEqual(2);
  });
});

describe('answers that are not the documented shape', () => {
  it('malformed JSON is an invalid response, not retried', async () => {
    server.answers = [json(200, '{"content": [')];
    const error = await failure(client().request({ method: 'GET', path: '/list', response: 'AudienceListResponse' }));
    expect(error.code).toBe('API_INVALID_RESPONSE');
    expect(error.summary).toContain('not JSON');
    expect(server.seen).toHaveLength(1);
  });

  it('an empty body where one is expected', async () => {
    server.answers = [empty(200)];
    const error = await failure(client().request({ method: 'GET', path: '/one', response: 'AudienceDetail' }));
    expect(error.kind).toBe('invalid-response');
    expect(error.summary).toContain('empty body');
  });

  it('a body that breaks the schema names the problem', async () => {
    server.answers = [json(200, { content: [{ name: 'no id' }] })];
    const error = await failure(client().request({ method: 'GET', path: '/list', response: 'AudienceListResponse' }));
    expect(error.summary).toContain("content[0] must have required property 'id'");
  });

  it('after a POST, an unusable answer is ambiguous: the create may have happened', async () => {
    server.answers = [json(200, 'not json')];
    const error = await failure(
      client().request({ method: 'POST', path: '/openapi/v4/targetings', body: {}, response: 'AudienceWriteResponse' }),
    );
    expect(error.ambiguous).toBe(true);
  });
});

describe('retries of idempotent requests', () => {
  it('retry 5xx with full-jitter exponential backoff', async () => {
    server.answers = [json(503, { code: -500, msg: 'busy' }), json(502, 'Bad gateway'), json(200, { content: [] })];
    const list = await client({ retry: { baseDelayMs: 100 } }).request({
      method: 'GET',
      path: '/list',
      response: 'AudienceListResponse',
    });
    expect(list.content).toEqual([]);
    expect(server.seen).toHaveLength(3);
    // random() = 0.5: half of 100, then half of 200.
    expect(delays).toEqual([50, 100]);
    expect(lines).toEqual([
      expect.stringMatching(/^audience GET \/list -> 503 \(\d+ ms, attempt 1\), retrying in 50 ms$/),
      expect.stringMatching(/^audience GET \/list -> 502 \(\d+ ms, attempt 2\), retrying in 100 ms$/),
      expect.stringMatching(/^audience GET \/list -> 200 \(\d+ ms, attempt 3\)$/),
    ]);
  });

  it('honour Retry-After in seconds', async () => {
    server.answers = [json(429, { code: -429, msg: 'slow down' }, { 'retry-after': '3' }), json(200, { content: [] })];
    let clock = 0;
    const sleep = (ms: number) => {
      delays.push(ms);
      clock += ms;
      return Promise.resolve();
    };
    await client({ now: () => clock, sleep }).request({
      method: 'GET',
      path: '/list',
      response: 'AudienceListResponse',
    });
    expect(delays).toEqual([3000]);
  });

  it('honour Retry-After as an HTTP date', async () => {
    const now = Date.parse('2025-05-01T12:00:00Z');
    server.answers = [json(503, {}, { 'retry-after': 'Thu, 01 May 2025 12:00:04 GMT' }), json(200, { content: [] })];
    await client({ now: () => now }).request({ method: 'GET', path: '/list', response: 'AudienceListResponse' });
    expect(delays).toEqual([4000]);
  });

  it('retry PUT and DELETE after a connection reset', async () => {
    server.answers = [reset, json(200, { successCount: 1, failCount: 0 })];
    await client().request({ method: 'PUT', path: '/x', body: {}, response: 'BatchDeleteResult' });
    server.seen = [];
    server.answers = [reset, empty(200)];
    await client().request({ method: 'DELETE', path: '/openapi/v4/targetings/1' });
    expect(server.seen).toHaveLength(2);
  });

  it('a 5xx is tried again past the attempt count until the time budget ends, saying so', async () => {
    server.answers = [json(500, '<html>oops</html>')];
    let clock = 0;
    const sleep = (ms: number) => {
      clock += ms;
      delays.push(ms);
      return Promise.resolve();
    };
    const error = await failure(
      client({ now: () => clock, sleep, retry: { maxAttempts: 2, budgetMs: 2000 } }).request({
        method: 'GET',
        path: '/list',
        response: 'AudienceListResponse',
      }),
    );
    // random() = 0.5: half of 250, 500, 1000 and 2000; the last wait would end past 2 s.
    expect(delays).toEqual([125, 250, 500, 1000]);
    expect(server.seen).toHaveLength(5);
    expect(error.code).toBe('API_SERVER_ERROR');
    expect(error.attempts).toBe(5);
    expect(error.detail).toBe('tried 5 times\ngave up: waiting 2 s more would pass the retry budget of 2 s');
    expect(error.summary).toContain('<html>oops</html>');
    expect(error.ambiguous).toBe(false);
  });

  it('stop when waiting would pass the time budget', async () => {
    server.answers = [json(429, { code: -429, msg: 'quota' }, { 'retry-after': '120' })];
    const error = await failure(
      client({ retry: { budgetMs: 60_000 } }).request({
        method: 'GET',
        path: '/list',
        response: 'AudienceListResponse',
      }),
    );
    expect(server.seen).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(error.code).toBe('API_RATE_LIMITED');
    expect(error.detail).toContain('retry budget');
    expect(error.hint).toMatch(/quota/);
  });

  it('never retry a request made after the client was closed', async () => {
    const closed = client();
    await closed.close();
    const error = await failure(closed.request({ method: 'GET', path: '/list', response: 'AudienceListResponse' }));
    expect(error.summary).toContain('the client was closed');
    expect(error.attempts).toBe(1);
    expect(delays).toEqual([]);
    expect(server.seen).toEqual([]);
  });

  it('stop waiting to try again when the client is closed', async () => {
    server.answers = [json(503, { code: -503, msg: 'busy' })];
    // The real timer: a minute of backoff, which the close must cut short.
    const waiting = client({ sleep: undefined, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const outcome = failure(waiting.request({ method: 'GET', path: '/list', response: 'AudienceListResponse' }));
    while (!lines.some((line) => line.includes('retrying in'))) await new Promise((resolve) => setTimeout(resolve, 5));
    const closedAt = Date.now();
    await waiting.close();
    const error = await outcome;
    expect(Date.now() - closedAt).toBeLessThan(1000);
    expect(error.detail).toContain('the client was closed while it waited to try again');
    expect(error.attempts).toBe(1);
    expect(server.seen).toHaveLength(1);
  });

  it('never retry a 4xx other than 429', async () => {
    server.answers = [
      json(400, { code: -813, msg: 'invalid request', extras: { detailCode: 31001, detailMsg: 'ages is required' } }),
    ];
    const error = await failure(
      client().request({ method: 'PUT', path: '/x', body: {}, response: 'AudienceWriteResponse' }),
    );
    expect(server.seen).toHaveLength(1);
    expect(error.status).toBe(400);
  });

  it('never retry a request that cannot be made (a header with a line break)', async () => {
    const error = await failure(
      client().request({
        method: 'GET',
        path: '/list',
        headers: { 'x-note': 'a\nb' },
        response: 'AudienceListResponse',
      }),
    );
    expect(error.attempts).toBe(1);
    expect(delays).toEqual([]);
    expect(server.seen).toHaveLength(0);
    expect(error.summary).toContain('UND_ERR_INVALID_ARG');
  });
});

describe('creates (POST) are never retried blindly', () => {
  const create = (http: HttpClient) =>
    http.request({
      method: 'POST',
      path: '/openapi/v4/targetings',
      body: { name: 'x' },
      response: 'AudienceWriteResponse',
    });

  it('a 5xx is ambiguous and not retried', async () => {
    server.answers = [json(503, { code: -500, msg: 'unavailable' })];
    const error = await failure(create(client()));
    expect(server.seen).toHaveLength(1);
    expect(error.ambiguous).toBe(true);
    expect(error.detail).toContain('may have been carried out');
  });

  it('a reset after sending is ambiguous and not retried', async () => {
    server.answers = [reset];
    const error = await failure(create(client()));
    expect(server.seen).toHaveLength(1);
    expect(error.kind).toBe('network');
    expect(error.ambiguous).toBe(true);
  });

  it('a header timeout is ambiguous and not retried', async () => {
    server.answers = [silent];
    const error = await failure(create(client()));
    expect(server.seen).toHaveLength(1);
    expect(error.code).toBe('API_TIMEOUT');
    expect(error.summary).toContain('no response headers within 250 ms');
    expect(error.ambiguous).toBe(true);
  });

  it('a rejection (4xx) is not ambiguous', async () => {
    server.answers = [json(400, { code: -813, msg: 'invalid' })];
    const error = await failure(create(client()));
    expect(error.ambiguous).toBe(false);
  });

  it('a 429 is retried: the service refused before acting', async () => {
    server.answers = [
      json(429, { code: -429, msg: 'slow down' }, { 'retry-after': '1' }),
      json(200, { id: 9, name: 'x', type: 'DISPLAY', ageType: 'ALL', genderType: 'ALL' }),
    ];
    const created = await create(client());
    expect(created.id).toBe(9);
    expect(server.seen).toHaveLength(2);
  });

  it('a refused connection is retried: nothing was sent', async () => {
    const port = server.url.split(':').at(-1) ?? '';
    await stopServer(server);
    const http = client({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 2 } });
    const error = await failure(create(http));
    expect(error.code).toBe('API_UNREACHABLE');
    expect(error.attempts).toBe(2);
    expect(error.ambiguous).toBe(false);
    expect(error.hint).toMatch(/reachable.*ADS_API_URL/);
    server = await startServer();
  });

  it('unless the caller declares it idempotent (image generation)', async () => {
    server.answers = [json(503, {}), json(200, { id: 'j', model_version: 'v2.1', images: [] })];
    const answer = await client({ service: 'imagegen' }).request({
      method: 'POST',
      path: '/v2/inference/imagegen/t2i',
      body: {},
      idempotent: true,
      response: 'ImageGenerationResponse',
    });
    expect(answer.model_version).toBe('v2.1');
  });
});

describe('timeouts', () => {
  it('slow headers on a GET: retried, then a timeout error', async () => {
    server.answers = [silent];
    let clock = 0;
    const sleep = (ms: number) => {
      clock += ms;
      return Promise.resolve();
    };
    const error = await failure(
      client({ now: () => clock, sleep, retry: { budgetMs: 200 } }).request({
        method: 'GET',
        path: '/slow',
        response: 'AudienceDetail',
      }),
    );
    expect(server.seen).toHaveLength(2);
    expect(error.kind).toBe('timeout');
    expect(error.hint).toMatch(/slow or unreachable/);
  });

  it('a body that stalls', async () => {
    server.answers = [stalledBody, later(10, json(200, { content: [] }))];
    const list = await client().request({ method: 'GET', path: '/list', response: 'AudienceListResponse' });
    expect(list.content).toEqual([]);
    expect(lines[0]).toContain('the response body stalled for 250 ms');
  });
});

describe('errors', () => {
  const read = (http: HttpClient) =>
    http.request({ method: 'GET', path: '/openapi/v4/targetings/7', response: 'AudienceDetail' });

  it('carry the service code, detail code and message', async () => {
    server.answers = [
      json(404, { code: -404, msg: 'not found', extras: { detailCode: 2001, detailMsg: 'audience 7 not found' } }),
    ];
    const error = await failure(read(client()));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'API_NOT_FOUND',
      service: 'audience',
      method: 'GET',
      path: '/openapi/v4/targetings/7',
      status: 404,
    });
    expect(error).toMatchObject({ serviceCode: -404, detailCode: 2001, detailMsg: 'audience 7 not found' });
    expect(error.summary).toBe('the audience API answered 404 to GET /openapi/v4/targetings/7: audience 7 not found');
    expect(error.detail).toContain('service code -404, detail code 2001 (not found)');
  });

  it('name a batch delete by its first ids and their count, so each line stays short; the request itself carries them all', async () => {
    const ids = Array.from({ length: 42 }, (_, index) => index + 1).join(',');
    server.answers = [json(400, { code: -1, msg: 'bad ids' })];
    const error = await failure(
      client().request({
        method: 'DELETE',
        path: '/openapi/v4/targetings',
        query: { audienceIds: ids },
        idempotent: false,
        response: 'BatchDeleteResult',
      }),
    );
    expect(error.summary).toBe(
      'the audience API answered 400 to DELETE /openapi/v4/targetings?audienceIds=1,2,3,…(42 in all): bad ids',
    );
    expect(server.seen[0]?.url).toBe(`/base/openapi/v4/targetings?audienceIds=${ids}`);
  });

  it('tolerate missing, empty and null extras', async () => {
    for (const extras of [undefined, {}, null]) {
      server.seen = [];
      server.answers = [json(400, { code: -813, msg: 'invalid request', extras })];
      const error = await failure(read(client()));
      expect(error).toMatchObject({ serviceCode: -813, detailCode: undefined, detailMsg: undefined });
      expect(error.summary).toContain(': invalid request');
    }
  });

  it('tolerate non-JSON and empty error bodies', async () => {
    server.answers = [json(404, '<h1>Not Found</h1>')];
    const html = await failure(read(client()));
    expect(html.serviceCode).toBeUndefined();
    expect(html.summary).toContain('<h1>Not Found</h1>');
    server.answers = [empty(404)];
    server.seen = [];
    const blank = await failure(read(client()));
    expect(blank.summary).toContain('empty body');
  });

  it('hint at the token and ad account on 401 and 403', async () => {
    server.answers = [json(401, { code: -401, msg: 'unauthorized' })];
    expect((await failure(read(client()))).hint).toMatch(/ADS_ACCESS_TOKEN/);
    server.answers = [json(403, { code: -403, msg: 'forbidden' })];
    server.seen = [];
    const forbidden = await failure(read(client()));
    expect(forbidden.code).toBe('API_FORBIDDEN');
    expect(forbidden.hint).toMatch(/ad account/);
    server.answers = [json(401, {})];
    server.seen = [];
    expect((await failure(read(client({ service: 'imagegen' })))).hint).toMatch(/IMAGEGEN_API_KEY/);
  });

  it('mask the token even when the service echoes it', async () => {
    server.answers = [
      (req, res) => json(400, { code: -1, msg: `bad header ${req.headers['authorization'] ?? ''}` })(req, res, ''),
    ];
    const error = await failure(read(client()));
    expect(error.summary).toContain('[REDACTED]');
  });
});

describe('concurrency', () => {
  it('holds the bound', async () => {
    server.answers = [later(30, json(200, { content: [] }))];
    const http = client({ concurrency: 3 });
    await Promise.all(
      Array.from({ length: 10 }, () =>
        http.request({ method: 'GET', path: '/list', response: 'AudienceListResponse' }),
      ),
    );
    expect(server.seen).toHaveLength(10);
    expect(server.maxInFlight).toBe(3);
  });

  it('holds every start while the service asks to wait (Retry-After), not only the request it refused', async () => {
    let clock = 0;
    const waits: number[] = [];
    const throttled = json(429, { code: -429, msg: 'rate' }, { 'retry-after': '2' });
    server.answers = [throttled, json(200, { content: [] })];
    const http = client({
      concurrency: 1,
      now: () => clock,
      // Time passes once the other requests have had their turn, as it would.
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((resolve) => setImmediate(resolve));
        clock += ms;
      },
    });
    await Promise.all(
      ['/list/a', '/list/b'].map((path) => http.request({ method: 'GET', path, response: 'AudienceListResponse' })),
    );
    expect(server.seen.map((seen) => seen.url)).toEqual(['/base/list/a', '/base/list/b', '/base/list/a']);
    expect(waits).toEqual([2000, 2000]);
  });

  it('lets any number of requests wait to try again without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const firstTry = new Set<string>();
      server.answers = [
        (req, res, body) => {
          const throttled = !firstTry.has(req.url ?? '');
          firstTry.add(req.url ?? '');
          (throttled ? json(429, { code: -429, msg: 'rate' }, { 'retry-after': '1' }) : json(200, { content: [] }))(
            req,
            res,
            body,
          );
        },
      ];
      const http = client({ concurrency: 16, sleep: undefined });
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          http.request({ method: 'GET', path: `/list/${String(i)}`, response: 'AudienceListResponse' }),
        ),
      );
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(server.seen).toHaveLength(32);
    expect(warnings).toEqual([]);
  });

  it('tries a 429 again for as long as the time budget allows, past the attempt count, never in a tight loop', async () => {
    const throttled = json(429, { code: -429, msg: 'rate' }, { 'retry-after': '0' });
    server.answers = [throttled, throttled, throttled, throttled, throttled, throttled, json(200, { content: [] })];
    await client().request({ method: 'GET', path: '/list', response: 'AudienceListResponse' });
    expect(server.seen).toHaveLength(7);
    expect(delays.every((ms) => ms > 0)).toBe(true);

    server.seen = [];
    server.answers = [throttled];
    let clock = 0;
    const sleep = (ms: number) => {
      clock += ms;
      return Promise.resolve();
    };
    const error = await failure(
      client({ now: () => clock, sleep, retry: { budgetMs: 5_000 } }).request({
        method: 'GET',
        path: '/list',
        response: 'AudienceListResponse',
      }),
    );
    expect(error.status).toBe(429);
    expect(error.detail).toContain('gave up');
    expect(server.seen.length).toBeGreaterThan(5);
  });

  it('a Retry-After the request will not wait out (past the budget) holds nobody else', async () => {
    server.answers = [json(429, { code: -429, msg: 'rate' }, { 'retry-after': '120' }), json(200, { content: [] })];
    const http = client({ concurrency: 1 });
    const settled = await Promise.allSettled(
      ['/list/a', '/list/b'].map((path) => http.request({ method: 'GET', path, response: 'AudienceListResponse' })),
    );
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'fulfilled']);
    expect(delays).toEqual([]);
  });

  it('closing the client ends a Retry-After pause at once: nothing holds the exit', async () => {
    server.answers = [json(429, { code: -429, msg: 'rate' }, { 'retry-after': '5' }), json(200, { content: [] })];
    const http = client({ concurrency: 1, sleep: undefined });
    const requests = ['/list/a', '/list/b'].map((path) =>
      http.request({ method: 'GET', path, response: 'AudienceListResponse' }),
    );
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const settling = Promise.allSettled(requests);
    const closedAt = performance.now();
    await http.close();
    const settled = await settling;
    expect(performance.now() - closedAt).toBeLessThan(1_000);
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });

  it('lowers the bound on 429s and recovers it slowly', async () => {
    const firstTry = new Set<string>();
    server.answers = [
      (req, res, body) => {
        const throttled = !firstTry.has(req.url ?? '');
        firstTry.add(req.url ?? '');
        later(
          20,
          throttled ? json(429, { code: -429, msg: 'rate' }, { 'retry-after': '0' }) : json(200, { content: [] }),
        )(req, res, body);
      },
    ];
    const http = client({ concurrency: 8 });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        http.request({ method: 'GET', path: `/list/${String(i)}`, response: 'AudienceListResponse' }),
      ),
    );
    const lowered = http.concurrency;
    expect(lowered).toBeLessThan(8);
    expect(lowered).toBeGreaterThanOrEqual(4);

    server.maxInFlight = 0;
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        http.request({ method: 'GET', path: `/list/${String(i)}`, response: 'AudienceListResponse' }),
      ),
    );
    expect(server.maxInFlight).toBeLessThanOrEqual(lowered + 1);

    for (let i = 0; i < 40 && http.concurrency < 8; i += 1) {
      await http.request({ method: 'GET', path: '/list/0', response: 'AudienceListResponse' });
    }
    expect(http.concurrency).toBe(8);
  });
});

describe('quota answers: 429 with any body, or 400 with service code -10', () => {
  const quota400 = (headers: Record<string, string> = {}) =>
    json(
      400,
      { code: -10, msg: 'allowed request count exceeded', extras: { detailCode: 8001, detailMsg: 'quota' } },
      headers,
    );
  const quota429 = (headers: Record<string, string> = {}) =>
    json(429, { code: -813, msg: 'too many requests' }, headers);
  const list = (http: HttpClient, path = '/list') =>
    http.request({ method: 'GET', path, response: 'AudienceListResponse' });
  const created = json(200, { id: 9, name: 'x', type: 'DISPLAY', ageType: 'ALL', genderType: 'ALL' });

  it.each([
    ['429 with code -813', quota429],
    ['400 with code -10', quota400],
  ])('%s without Retry-After: retried after a backoff that doubles, until it succeeds', async (_title, quota) => {
    server.answers = [quota(), quota(), json(200, { content: [] })];
    expect((await list(client())).content).toEqual([]);
    expect(server.seen).toHaveLength(3);
    // random() = 0.5: half of 250, then half of 500.
    expect(delays).toEqual([125, 250]);
  });

  it('400 with code -10 is retried for a POST too: the service refused it before any work', async () => {
    server.answers = [quota400(), created];
    const answer = await client().request({
      method: 'POST',
      path: '/openapi/v4/targetings',
      body: { name: 'x' },
      response: 'AudienceWriteResponse',
    });
    expect(answer.id).toBe(9);
    expect(server.seen).toHaveLength(2);
  });

  it('400 with code -10 and Retry-After: the pause is honoured, and holds every other start too', async () => {
    let clock = 0;
    const waits: number[] = [];
    server.answers = [quota400({ 'retry-after': '3' }), json(200, { content: [] })];
    const http = client({
      concurrency: 1,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((resolve) => setImmediate(resolve));
        clock += ms;
      },
    });
    await Promise.all(['/list/a', '/list/b'].map((path) => list(http, path)));
    expect(server.seen.map((seen) => seen.url)).toEqual(['/base/list/a', '/base/list/b', '/base/list/a']);
    expect(waits).toEqual([3000, 3000]);
  });

  it('400 with code -10 lowers the bound on requests in flight, as a 429 does', async () => {
    const firstTry = new Set<string>();
    server.answers = [
      (req, res, body) => {
        const throttled = !firstTry.has(req.url ?? '');
        firstTry.add(req.url ?? '');
        later(20, throttled ? quota400() : json(200, { content: [] }))(req, res, body);
      },
    ];
    const http = client({ concurrency: 8 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => list(http, `/list/${String(i)}`)));
    expect(http.concurrency).toBeLessThan(8);
  });

  it('any other 400 is a rejection: not retried, not rate limited', async () => {
    server.answers = [
      json(400, { code: -400, msg: 'invalid request', extras: { detailCode: 4007, detailMsg: 'bad name' } }),
    ];
    const error = await failure(
      client().request({ method: 'PUT', path: '/x', body: {}, response: 'AudienceWriteResponse' }),
    );
    expect(server.seen).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(error.code).toBe('API_REJECTED');
    expect(error.hint).toBeUndefined();
  });

  it('past the retry budget the error is API_RATE_LIMITED with the quota hint, in either spelling', async () => {
    for (const quota of [quota400(), quota429()]) {
      server.seen = [];
      server.answers = [quota];
      let clock = 0;
      const sleep = (ms: number) => {
        clock += ms;
        return Promise.resolve();
      };
      const error = await failure(list(client({ now: () => clock, sleep, retry: { budgetMs: 5_000 } })));
      expect(server.seen.length).toBeGreaterThan(5);
      expect(error.code).toBe('API_RATE_LIMITED');
      expect(error.hint).toMatch(/quota/);
      expect(error.detail).toContain('retry budget');
      expect(error.ambiguous).toBe(false);
    }
  });
});

describe('URLs and downloads', () => {
  it('require https except on loopback', () => {
    const make = (baseUrl: string) => () => createHttpClient({ service: 'audience', baseUrl });
    expect(make('http://ads.example.com')).toThrow(expect.objectContaining({ code: 'INSECURE_URL', source: 'user' }));
    expect(make('ftp://ads.example.com')).toThrow(expect.objectContaining({ code: 'INVALID_URL' }));
    expect(make('not a url')).toThrow(
      expect.objectContaining({ code: 'INVALID_URL', summary: 'ADS_API_URL: not a valid URL: not a url' }),
    );
    expect(make('https://user:pa55word@[bad')).toThrow(
      expect.objectContaining({ code: 'INVALID_URL', summary: 'ADS_API_URL: not a valid URL: https://…@[bad' }),
    );
    expect(make('localhost:8080')).toThrow(
      expect.objectContaining({ code: 'INVALID_URL', summary: 'ADS_API_URL: not an https:// URL: localhost:8080' }),
    );
    expect(make('admin:s3cret@api.example.com')).toThrow(
      expect.objectContaining({ code: 'INVALID_URL', summary: 'ADS_API_URL: not an https:// URL: …@api.example.com' }),
    );
    expect(() => createHttpClient({ service: 'audience', baseUrl: 'https://a.example.com', concurrency: 0 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', source: 'user' }),
    );
    for (const ok of ['https://ads.example.com', 'http://localhost:1', 'http://127.9.8.7', 'http://[::1]:8080']) {
      const created = make(ok)();
      clients.push(created);
    }
  });

  it('download bytes; credentials only go to the service origin', async () => {
    const other = await startServer();
    try {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
      const bytes: Respond = (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(png);
      };
      server.answers = [bytes];
      other.answers = [bytes];
      const http = client();
      const own = await http.download('images/1.png');
      expect(Buffer.from(own.bytes)).toEqual(png);
      expect(own.contentType).toBe('image/png');
      expect(server.seen[0]?.url).toBe('/base/images/1.png');
      expect(server.seen[0]?.headers['authorization']).toBe(`Bearer ${CANARY}`);
      await http.download(`${other.url}/cdn/1.png`);
      expect(other.seen[0]?.headers['authorization']).toBeUndefined();
      // Resolved like a link: a leading slash means the root of the service's origin.
      await http.download('/images/2.png');
      expect(server.seen[1]?.url).toBe('/images/2.png');
      await expect(http.download('http://cdn.example.com/1.png')).rejects.toMatchObject({ code: 'INSECURE_URL' });
    } finally {
      await stopServer(other);
    }
  });
});

describe('logging', () => {
  it('is silent unless verbose', async () => {
    server.answers = [json(200, { content: [] })];
    await client({ verbose: false }).request({ method: 'GET', path: '/list', response: 'AudienceListResponse' });
    expect(lines).toEqual([]);
  });
});

describe('parseErrorBody', () => {
  it('reads what is there and nothing else', () => {
    expect(parseErrorBody('{"code":-1,"msg":"m","extras":{"detailCode":3,"detailMsg":"d"}}')).toEqual({
      serviceCode: -1,
      serviceMsg: 'm',
      detailCode: 3,
      detailMsg: 'd',
    });
    expect(parseErrorBody('{"code":"x","msg":7,"extras":"y"}')).toEqual({
      reason: 'body: {"code":"x","msg":7,"extras":"y"}',
    });
    expect(parseErrorBody('[1]')).toEqual({ reason: 'body: [1]' });
    expect(parseErrorBody('   ')).toEqual({ reason: 'empty body' });
    expect(parseErrorBody('x'.repeat(500)).reason).toHaveLength('body: '.length + 201);
  });

  it("drops a message that is only the service's exception class name, and keeps any other", () => {
    const message = (msg: string) =>
      parseErrorBody(JSON.stringify({ code: -813, msg, extras: { detailCode: 31001, detailMsg: 'd' } })).serviceMsg;
    for (const className of ['KakaoMomentException', 'com.kakao.moment.KakaoMomentException', ' KakaoMomentException '])
      expect(message(className), className).toBeUndefined();
    for (const meaningful of [
      'ValidationError',
      'InternalError',
      'kakaoMomentException',
      'Bad Request Exception',
      'com..Exception',
    ]) {
      expect(message(meaningful), meaningful).toBe(meaningful);
    }
  });

  it('keeps the codes of a 5 MB message whole, and the start of its text', () => {
    const huge = 'y'.repeat(5 * 1024 * 1024);
    const fields = parseErrorBody(
      JSON.stringify({ code: -813, msg: huge, extras: { detailCode: 31001, detailMsg: huge } }),
    );
    expect(fields).toMatchObject({ serviceCode: -813, detailCode: 31001 });
    expect(fields.serviceMsg).toBe(`${'y'.repeat(1000)}… (${huge.length - 1000} more characters)`);
    expect(fields.detailMsg).toBe(fields.serviceMsg);
  });
});
