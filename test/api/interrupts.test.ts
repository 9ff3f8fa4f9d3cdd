import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAudienceClient } from '../../src/api/audiences.js';
import type { HttpClient } from '../../src/api/http.js';
import { createImageClient } from '../../src/api/imagegen.js';
import { isNotStarted, type AppError } from '../../src/errors.js';
import { definition } from '../helpers/builders.js';
import { bearer, reply, startScripted, transport, type Script, type ScriptedServer } from './support.js';

let server: ScriptedServer;
let client: HttpClient;
beforeEach(async () => (server = await startScripted()));
afterEach(async () => {
  await client.close();
  await server.close();
});
/** Ctrl-C arrives while this answer is on its way: the request itself was already sent. */
const interruptDuring =
  (answer: Script): Script =>
  (req, res, body) => {
    client.stopStarting();
    answer(req, res, body);
  };

/**
 * An interrupt stops what has not begun; what a change already sent still needs (the list that
 * settles a lost answer, the read of what it found, the download of a generated image) goes out.
 */
describe('requests that finish a change already sent, after an interrupt', () => {
  it('a create whose lost answer is found by the list is never "not started"', async () => {
    client = transport({ baseUrl: server.url, headers: bearer('t') });
    server.answers = [
      reply(500, { code: -500, msg: 'boom' }), // POST: the service made it, the answer is lost
      interruptDuring(
        reply(200, {
          content: [
            {
              id: 77,
              name: 'a',
              audienceStatus: 'STANDBY',
              type: 'DISPLAY',
              createdDate: '2026-01-01T00:00:00',
              lastModifiedDate: '2026-01-01T00:00:00',
            },
          ],
        }),
      ),
    ];
    const error = await createAudienceClient(client, 1234)
      .create(definition({ name: 'a' }))
      .catch((thrown: unknown) => thrown);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /openapi/v4/targetings',
      'GET /openapi/v4/targetings/audiences',
      'GET /openapi/v4/targetings/77',
    ]);
    expect(isNotStarted(error)).toBe(false);
  });

  it('a create whose lost answer the list shows made nothing is not sent again after Ctrl-C, and says what is known', async () => {
    client = transport({ baseUrl: server.url, headers: bearer('t') });
    server.answers = [
      reply(500, { code: -500, msg: 'boom' }), // POST: the answer is lost
      interruptDuring(reply(200, { content: [] })), // the list: nothing was made; Ctrl-C meanwhile
    ];
    const error = await createAudienceClient(client, 1234)
      .create(definition({ name: 'a' }))
      .catch((thrown: unknown) => thrown);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /openapi/v4/targetings',
      'GET /openapi/v4/targetings/audiences',
    ]);
    expect(isNotStarted(error)).toBe(true);
    expect((error as AppError).detail).toBe(
      'the answer was lost (the service answered 500); the account was listed and the audience was not there',
    );
  });

  it('a create the service refused with a quota answer is not sent again after Ctrl-C: not started, without waiting out its Retry-After', async () => {
    client = transport({ baseUrl: server.url, headers: bearer('t') });
    server.answers = [interruptDuring(reply(429, { code: -813, msg: 'too many requests' }, { 'Retry-After': '5' }))];
    const started = Date.now();
    const error = await createAudienceClient(client, 1234)
      .create(definition({ name: 'a' }))
      .catch((thrown: unknown) => thrown);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /openapi/v4/targetings']);
    expect(isNotStarted(error)).toBe(true);
    expect((error as AppError).summary).toBe(
      'POST /openapi/v4/targetings was not sent again: the service had refused it before acting on it, and the command was interrupted',
    );
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('an update whose answer was lost before Ctrl-C is tried again, to settle it: never "not started"', async () => {
    client = transport({ baseUrl: server.url, headers: bearer('t') });
    server.answers = [interruptDuring(reply(503, { code: -503, msg: 'busy' })), reply(200, { id: 77 })];
    const error = await createAudienceClient(client, 1234)
      .update('77', definition({ name: 'a' }))
      .catch((thrown: unknown) => thrown);
    expect(server.seen.map((s) => s.method)).toEqual(['PUT', 'PUT']);
    expect(isNotStarted(error)).toBe(false);
  });

  it('a generation made before Ctrl-C is never "not started" (return_type url, the default)', async () => {
    client = transport({ service: 'imagegen', baseUrl: server.url, headers: { Authorization: 'AppKey k' } });
    server.answers = [
      interruptDuring(
        reply(200, {
          id: 'job',
          model_version: 'v2.1',
          images: [{ id: 'i', seed: 4, image: `${server.url}/files/i.webp` }],
        }),
      ),
    ];
    const error = await createImageClient(client)
      .textToImage({ version: 'v2.1', prompt: 'x', width: 768, height: 768 })
      .catch((thrown: unknown) => thrown);
    expect(isNotStarted(error)).toBe(false);
  });
});

it('an image answer over the cap is not generated again and again', async () => {
  client = transport({
    service: 'imagegen',
    baseUrl: server.url,
    headers: { Authorization: 'AppKey k' },
    maxAnswerBytes: 1024 * 1024,
  });
  const big = 'A'.repeat(2 * 1024 * 1024); // 8 samples at 2048 px in base64 are far above 32 MB; scaled down here
  server.answers = [reply(200, { id: 'job', model_version: 'v2.1', images: [{ id: 'i', seed: 4, image: big }] })];
  await createImageClient(client)
    .textToImage({ version: 'v2.1', prompt: 'x', width: 768, height: 768, return_type: 'base64_string' })
    .catch(() => undefined);
  expect(server.seen).toHaveLength(1);
});
