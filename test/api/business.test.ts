import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { createBusinessClient } from '../../src/api/business.js';
import type { HttpClient } from '../../src/api/http.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { bearer, emulatorCall, transport } from './support.js';

let emulator: RunningEmulator;
let http: HttpClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  http = transport({ service: 'business', baseUrl: emulator.url, headers: bearer(emulator.accessToken) });
});
afterAll(async () => {
  await http.close();
  await emulator.close();
});

/** A registration number with a valid check digit (wire decision 9), for numbers no company has. */
function withCheckDigit(nine: string): string {
  const digits = [...nine].map(Number);
  const weights = [1, 3, 7, 1, 3, 7, 1, 3, 5];
  const sum =
    digits.reduce((total, digit, index) => total + digit * (weights[index] ?? 0), 0) +
    Math.floor(((digits[8] ?? 0) * 5) / 10);
  const check = (10 - (sum % 10)) % 10;
  return `${nine.slice(0, 3)}-${nine.slice(3, 5)}-${nine.slice(5)}${String(check)}`;
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('business lookup against the emulator', () => {
  it('returns the company as the model, sending the token and the ad account', async () => {
    await emulatorCall(emulator, 'DELETE', '/_emulator/requests');
    const company = await createBusinessClient(http, 1234).lookup('120-81-47521');
    expect(company).toEqual({
      id: '1',
      businessRegistrationNumber: '120-81-47521',
      name: 'Demo Commerce Co., Ltd.',
      representationName: expect.any(String),
      businessCategory: expect.any(String),
      businessItem: expect.any(String),
      address: { zipCode: expect.any(String), baseAddress: expect.any(String), detailAddress: expect.any(String) },
    });
    const log = (await emulatorCall(emulator, 'GET', '/_emulator/requests')) as {
      requests: Array<{ method: string; path: string; adAccountId: string; auth: string }>;
    };
    expect(log.requests).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/openapi/v1/companies?bizNum=120-81-47521',
        adAccountId: '1234',
        auth: 'Bearer',
      }),
    ]);
  });

  it('gives ten bare digits their separators', async () => {
    const company = await createBusinessClient(http, 1234).lookup(' 2208162458 ');
    expect(company?.name).toBe('Harbor Foods Inc.');
  });

  it('answers null for a well-formed number no business has (404)', async () => {
    const unknown = withCheckDigit('123456789');
    expect(await createBusinessClient(http, 1234).lookup(unknown)).toBeNull();
  });

  it('throws on a malformed number or a wrong check digit (400), with the service codes', async () => {
    const client = createBusinessClient(http, 1234);
    const malformed = await rejection(client.lookup('12-345-678'));
    expect(malformed).toMatchObject({
      service: 'business',
      kind: 'http',
      status: 400,
      code: 'API_REJECTED',
      detailCode: 6001,
      attempts: 1,
    });
    const wrong = withCheckDigit('123456789').replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
    expect(await rejection(client.lookup(wrong))).toMatchObject({ status: 400, detailCode: 6002 });
  });

  it('throws on an account the token may not use (403), not null', async () => {
    const error = await rejection(createBusinessClient(http, 9999).lookup('120-81-47521'));
    expect(error).toMatchObject({ status: 403, code: 'API_FORBIDDEN', detailCode: 2005 });
    expect(error.hint).toContain('ADS_ACCESS_TOKEN');
  });
});
