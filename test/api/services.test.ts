import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Endpoints, type TransportOptions } from '../../src/api/services.js';
import { AppError } from '../../src/errors.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { emulatorCall } from './support.js';

let emulator: RunningEmulator;
let endpoints: Endpoints;
const options: TransportOptions = { concurrency: 4, verbose: false, log: () => undefined };

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  endpoints = {
    apiUrl: emulator.url,
    companyUrl: emulator.url,
    imageUrl: emulator.url,
    accessToken: emulator.accessToken,
    appKey: emulator.appKey,
  };
});
afterAll(async () => {
  await emulator.close();
});

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a throw');
}

describe('createServices', () => {
  it('gives one client per account and service, each with its own credential scheme', async () => {
    const services = createServices(endpoints, options);
    try {
      expect(services.audiences(1234)).toBe(services.audiences(1234));
      expect(services.business(1234)).toBe(services.business(1234));
      expect(services.business(5678)).not.toBe(services.business(1234));
      expect(services.images()).toBe(services.images());
      await emulatorCall(emulator, 'DELETE', '/_emulator/requests');
      expect(await services.audiences(1234).list()).toEqual([]);
      expect((await services.business(5678).lookup('120-81-47521'))?.name).toBe('Demo Commerce Co., Ltd.');
      const generated = await services
        .images()
        .textToImage({ version: 'v2.0', prompt: 'a kite', width: 384, height: 384, return_type: 'base64_string' });
      expect(generated.images[0]?.format).toBe('webp');
      const log = (await emulatorCall(emulator, 'GET', '/_emulator/requests')) as {
        requests: Array<{ path: string; auth: string; adAccountId: string | null; status: number }>;
      };
      expect(
        log.requests.map((entry) => [entry.path.split('?')[0], entry.auth, entry.adAccountId, entry.status]),
      ).toEqual([
        ['/openapi/v4/targetings/audiences', 'Bearer', '1234', 200],
        ['/openapi/v1/companies', 'Bearer', '5678', 200],
        ['/v2/inference/imagegen/t2i', 'AppKey', null, 200],
      ]);
    } finally {
      await services.close();
    }
  });

  it('says which setting is missing, only when that service is used', async () => {
    const services = createServices(
      { ...endpoints, imageUrl: undefined, appKey: undefined, accessToken: undefined },
      options,
    );
    try {
      expect(thrown(() => services.images())).toMatchObject({
        code: 'NO_SERVICE',
        summary: 'IMAGEGEN_API_URL is not set',
        source: 'user',
      });
      expect(thrown(() => services.business(1234))).toMatchObject({
        code: 'NO_CREDENTIAL',
        summary: 'ADS_ACCESS_TOKEN is not set',
      });
      const noKey = createServices({ ...endpoints, appKey: undefined }, options);
      expect(thrown(() => noKey.images())).toMatchObject({
        code: 'NO_CREDENTIAL',
        summary: 'IMAGEGEN_API_KEY is not set',
      });
      await noKey.close();
    } finally {
      await services.close();
    }
  });

  it('refuses a credential a header cannot carry, naming it and never showing it, before any request', async () => {
    await emulatorCall(emulator, 'DELETE', '/_emulator/requests');
    const cases: Array<[Partial<Endpoints>, () => (services: ReturnType<typeof createServices>) => unknown, string]> = [
      [
        { accessToken: `${emulator.accessToken}\n` },
        () => (services) => services.audiences(1234),
        'ADS_ACCESS_TOKEN has a space, a line break',
      ],
      [
        { accessToken: `Bearer ${emulator.accessToken}` },
        () => (services) => services.business(1234),
        'ADS_ACCESS_TOKEN starts with the word Bearer',
      ],
      [
        { appKey: `${emulator.appKey}\u20ac` },
        () => (services) => services.images(),
        'IMAGEGEN_API_KEY has a space, a line break',
      ],
      [
        { appKey: `appkey ${emulator.appKey}` },
        () => (services) => services.images(),
        'IMAGEGEN_API_KEY starts with the word AppKey',
      ],
    ];
    for (const [broken, use, summary] of cases) {
      const services = createServices({ ...endpoints, ...broken }, options);
      try {
        const error = thrown(() => use()(services));
        expect(error).toMatchObject({ code: 'INVALID_CREDENTIAL', source: 'user' });
        expect(error.summary).toContain(summary);
        expect(`${error.summary}\n${error.hint ?? ''}`).not.toContain(emulator.accessToken);
        expect(`${error.summary}\n${error.hint ?? ''}`).not.toContain(emulator.appKey);
      } finally {
        await services.close();
      }
    }
    expect(((await emulatorCall(emulator, 'GET', '/_emulator/requests')) as { requests: unknown[] }).requests).toEqual(
      [],
    );
  });

  it('paces request starts with requestsPerSecond', async () => {
    const services = createServices(endpoints, { ...options, requestsPerSecond: 20 });
    try {
      const business = services.business(1234);
      const started = performance.now();
      await Promise.all(Array.from({ length: 6 }, () => business.lookup('120-81-47521')));
      // Six starts 50 ms apart: the last cannot start before 250 ms.
      expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    } finally {
      await services.close();
    }
  });
});
