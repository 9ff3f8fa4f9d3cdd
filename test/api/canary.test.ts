/**
 * A canary credential must never show: not in an error's message, detail, hint, stack or
 * inspection, not in a verbose log line, not in the CLI's output, not in the emulator's
 * request log, even when the service quotes the credential back.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseErrorBody } from '../../src/api/api-error.js';
import { createAudienceClient } from '../../src/api/audiences.js';
import { createBusinessClient } from '../../src/api/business.js';
import type { HttpClient } from '../../src/api/http.js';
import { createImageClient } from '../../src/api/imagegen.js';
import { renderError } from '../../src/cli/report-error.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { registerSecret } from '../../src/secrets.js';
import { definition } from '../helpers/builders.js';
import { runInProcess, workspace } from '../helpers/cli.js';
import { emulatorCall, FAST_RETRY, startScripted, transport, type ScriptedServer } from './support.js';

const CANARY = 'canary-7f3a9c1e5b2d';
/** A second canary for the CLI, registered only by the CLI's own path. */
const CLI_CANARY = 'cli-canary-4e8b6a0d2c9f';

let emulator: RunningEmulator;
let echo: ScriptedServer;
const captured: string[] = [];
const log = (line: string) => void captured.push(line);
const transports: HttpClient[] = [];

function canaryTransport(service: 'audience' | 'business' | 'imagegen', baseUrl: string): HttpClient {
  const headers = { Authorization: service === 'imagegen' ? `AppKey ${CANARY}` : `Bearer ${CANARY}` };
  // A service that answers 500 to everything: a short budget ends the retries soon.
  const http = transport({ service, baseUrl, headers, verbose: true, log, retry: { ...FAST_RETRY, budgetMs: 200 } });
  transports.push(http);
  return http;
}

/** Everything a person or a log could see of an error. */
function shown(error: unknown): string {
  const record = error as Record<string, unknown>;
  return [
    String(error),
    JSON.stringify(error),
    inspect(error, { depth: 6 }),
    renderError(error, true),
    ...['message', 'summary', 'detail', 'hint', 'stack', 'path', 'detailMsg'].map((key) => String(record[key])),
  ].join('\n');
}

async function capture(operation: () => Promise<unknown>): Promise<unknown> {
  const error = await operation().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeDefined();
  captured.push(shown(error));
  return error;
}

function operations(baseUrl: string): Record<string, () => Promise<unknown>> {
  const audiences = createAudienceClient(canaryTransport('audience', baseUrl), 1234);
  const business = createBusinessClient(canaryTransport('business', baseUrl), 1234);
  const images = createImageClient(canaryTransport('imagegen', baseUrl));
  return {
    list: () => audiences.list(),
    read: () => audiences.read('100001'),
    create: () => audiences.create(definition({ name: 'canary' })),
    update: () => audiences.update('100001', definition({ name: 'canary' })),
    delete: () => audiences.delete('100001'),
    // The batch delete's outcome is data: the error that stands instead of an answer.
    deleteMany: () =>
      audiences
        .deleteMany(['100001', '100002'])
        .then((result) => ('error' in result.answer ? Promise.reject(result.answer.error) : result)),
    adGroups: () => audiences.adGroups('100001'),
    unlink: () => audiences.unlink('100001', '101'),
    lookup: () => business.lookup('120-81-47521'),
    textToImage: () => images.textToImage({ version: 'v2.0', prompt: 'x', width: 384, height: 384 }),
    variations: () => images.variations({ version: 'v2.0', image: 'AAAA', width: 384, height: 384 }),
    inpainting: () => images.inpainting({ prompt: 'x', image: 'AAAA', mask: 'AAAA' }),
  };
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  echo = await startScripted([
    (req, res) => {
      // A careless service (or proxy) that quotes the credential back, everywhere it can.
      const auth = String(req.headers.authorization);
      const bad = req.url?.includes('bizNum') ? 400 : 200;
      res.writeHead(bad === 400 ? 400 : 500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          code: -400,
          msg: `bad header ${auth}`,
          extras: { detailCode: 1, detailMsg: `you sent ${auth}` },
        }),
      );
    },
  ]);
});
afterAll(async () => {
  await Promise.all(transports.map((http) => http.close()));
  await echo.close();
  await emulator.close();
});

describe('a canary credential', () => {
  it('the emulator rejects it on every operation, and nothing shows it', async () => {
    for (const [name, operation] of Object.entries(operations(emulator.url))) {
      const error = await capture(operation);
      expect(error, name).toMatchObject({ status: 401, code: 'API_UNAUTHORIZED' });
    }
    expect(captured.filter((line) => line.includes('-> 401'))).toHaveLength(12);
    const requests = await emulatorCall(emulator, 'GET', '/_emulator/requests');
    captured.push(JSON.stringify(requests));
    expect(captured.join('\n')).not.toContain(CANARY);
  });

  it('a service that quotes it back in errors and bodies', async () => {
    for (const operation of Object.values(operations(echo.url))) await capture(operation);
    expect(echo.seen.length).toBeGreaterThan(12);
    expect(echo.seen.every((seen) => seen.headers.authorization?.endsWith(CANARY))).toBe(true);
    const all = captured.join('\n');
    expect(all).toContain('[REDACTED]');
    expect(all).not.toContain(CANARY);
  });

  it('a message or a body cut through it', () => {
    registerSecret(CANARY);
    for (const before of [991, 995, 999, 1000]) {
      const quoted = parseErrorBody(
        JSON.stringify({
          code: -400,
          msg: `${'A'.repeat(before)}${CANARY}`,
          extras: { detailCode: 1, detailMsg: `${'B'.repeat(before)}${CANARY}` },
        }),
      );
      expect(quoted.serviceMsg).toContain('more characters');
      expect(JSON.stringify(quoted)).not.toContain(CANARY.slice(0, 8));
    }
    const page = parseErrorBody(`<html>${'x'.repeat(190)}${CANARY}</html>`);
    expect(page.reason).toContain('…');
    expect(page.reason).not.toContain(CANARY.slice(0, 8));
  });

  it('the CLI, verbose and with stack traces', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - name: a\n    type: DISPLAY\n',
    });
    const env = {
      ADS_API_URL: emulator.url,
      ADS_ACCESS_TOKEN: CLI_CANARY,
      IMAGEGEN_API_URL: emulator.url,
      IMAGEGEN_API_KEY: CLI_CANARY,
    };
    const result = await runInProcess(['plan', '--verbose', '--debug'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('API_UNAUTHORIZED');
    expect(result.stderr).toMatch(/audience GET \/openapi\/v4\/targetings\/audiences -> 401/);
    expect(result.stdout + result.stderr).not.toContain(CLI_CANARY);
  });
});

describe('a value that quotes the token', () => {
  it('is masked in every output of the CLI', async () => {
    const env = { ADS_API_URL: emulator.url, ADS_ACCESS_TOKEN: emulator.accessToken };
    const named = `leak ${emulator.accessToken}`;
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n  - name: ${named}\n    type: DISPLAY\n`,
    });
    const outputs = [await runInProcess(['apply', '--auto-approve'], { cwd, env })];
    await writeFile(join(cwd, 'audiences.yaml'), 'adAccountId: 1234\nprune: true\naudiences: []\n');
    for (const format of ['text', 'json', 'markdown'])
      outputs.push(await runInProcess(['plan', '--format', format], { cwd, env }));
    const all = outputs.map((result) => result.stdout + result.stderr).join('\n');
    expect(outputs[0]?.code).toBe(0);
    expect(all).toContain('leak [REDACTED]');
    expect(all).not.toContain(emulator.accessToken);
  });
});

describe('--requests-per-second', () => {
  it('is checked on the command line, and a good value is used', async () => {
    const cwd = await workspace({ 'audiences.yaml': 'adAccountId: 1234\naudiences: []\n' });
    const env = { ADS_API_URL: emulator.url, ADS_ACCESS_TOKEN: emulator.accessToken };
    const refused = await runInProcess(['plan', '--requests-per-second', '0'], { cwd, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[USAGE]: --requests-per-second takes a number from 0.1 to 1000, not 0');
    const paced = await runInProcess(['plan', '--requests-per-second', '20'], { cwd, env });
    expect(paced.stderr).toBe('');
    expect(paced.code).toBe(0);
  });
});
