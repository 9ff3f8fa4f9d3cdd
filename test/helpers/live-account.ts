import { stringify } from 'yaml';
import { createAudienceClient, type AudienceClient } from '../../src/api/audiences.js';
import { createHttpClient, type HttpClient, type RetryPolicy } from '../../src/api/http.js';
import { validateConfig, type AudiencesFile } from '../../src/config/index.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { EmulatorState, StoredAudience } from '../../src/emulator/store.js';
import type { DesiredState } from '../../src/model/index.js';
import { emulatorRoute } from './cli.js';

/** Retries that wait a millisecond or two: the emulator's faults are instant, tests should be too. */
export const FAST_RETRY: Partial<RetryPolicy> = { maxAttempts: 10, baseDelayMs: 2, maxDelayMs: 10, budgetMs: 10_000 };

export interface LiveClient {
  client: AudienceClient;
  http: HttpClient;
  close(): Promise<void>;
}

/**
 * The real audience client over the real transport, pointed at an emulator (or at `baseUrl`, a proxy in front of it).
 */
export function connectClient(
  emulator: RunningEmulator,
  options: { adAccountId?: number; retry?: Partial<RetryPolicy>; concurrency?: number; baseUrl?: string } = {},
): LiveClient {
  const http = createHttpClient({
    service: 'audience',
    baseUrl: options.baseUrl ?? emulator.url,
    headers: { Authorization: `Bearer ${emulator.accessToken}` },
    retry: options.retry ?? FAST_RETRY,
    concurrency: options.concurrency ?? 8,
  });
  return { client: createAudienceClient(http, options.adAccountId ?? 1234), http, close: () => http.close() };
}

/** The desired state of a file given as data, through the real YAML text and validation. */
export function desiredFromFile(file: AudiencesFile, name = 'audiences.yaml'): DesiredState {
  const result = validateConfig(stringify(file), name);
  if (!result.ok)
    throw new Error(
      `invalid test file:\n${result.issues.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`).join('\n')}`,
    );
  return result.value;
}

/** The emulator's stored state (not the API's view of it): the ground truth a test checks. */
export async function emulatorState(emulator: RunningEmulator): Promise<EmulatorState> {
  return (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as EmulatorState;
}

/** The audiences stored for one account. */
export async function storedAudiences(emulator: RunningEmulator, adAccountId = 1234): Promise<StoredAudience[]> {
  return (await emulatorState(emulator)).audiences.filter((audience) => audience.adAccountId === adAccountId);
}

/** Links an ad group to an audience, as the ad manager would (ids as the client holds them, or numbers for short). */
export async function linkAdGroup(
  emulator: RunningEmulator,
  audienceId: string | number,
  adGroupId: string | number,
  adAccountId = 1234,
): Promise<void> {
  await emulatorRoute(emulator, 'POST', '/_emulator/links', { adAccountId, audienceId, adGroupId });
}

/**
 * Gives a live audience fields of the service that the tool does not model, as JSON text (every digit of a number
 * kept). The test route changes no date: as a change made within the same second as a read.
 */
export async function giveFields(emulator: RunningEmulator, id: string, json: string): Promise<void> {
  const response = await fetch(`${emulator.url}/_emulator/audiences/${id}/fields`, { method: 'PUT', body: json });
  if (!response.ok) throw new Error(`PUT fields of ${id}: ${response.status} ${await response.text()}`);
}

export async function setFaults(emulator: RunningEmulator, settings: Record<string, unknown>): Promise<void> {
  await emulatorRoute(emulator, 'PUT', '/_emulator/faults', settings);
}

export async function resetEmulator(emulator: RunningEmulator): Promise<void> {
  await emulatorRoute(emulator, 'POST', '/_emulator/reset');
}

/**
 * Edits made in the ad manager, not by the tool: requests of the audience API as another client
 * sends them (the body in the spec's shape, every field the create and update bodies require).
 */
export const outside = {
  async create(emulator: RunningEmulator, name: string, definition: Record<string, unknown> = {}): Promise<string> {
    const answer = (await outsideRequest(emulator, 'POST', '/openapi/v4/targetings', {
      ...outsideBody(name),
      ...definition,
    })) as { id: number };
    return String(answer.id);
  },
  async update(
    emulator: RunningEmulator,
    id: string,
    name: string,
    definition: Record<string, unknown>,
  ): Promise<void> {
    await outsideRequest(emulator, 'PUT', '/openapi/v4/targetings', {
      id: Number(id),
      ...outsideBody(name),
      ...definition,
    });
  },
  async delete(emulator: RunningEmulator, id: string): Promise<void> {
    await outsideRequest(emulator, 'DELETE', `/openapi/v4/targetings/${id}`);
  },
};

function outsideBody(name: string): Record<string, unknown> {
  return { adAccountId: 1234, name, type: 'DISPLAY', ageType: 'ALL', genderType: 'ALL', locationType: 'ALL' };
}

async function outsideRequest(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const headers = {
    authorization: `Bearer ${emulator.accessToken}`,
    adAccountId: '1234',
    'content-type': 'application/json',
  };
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
