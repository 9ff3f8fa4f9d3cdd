/**
 * The real services reached by configuration, and remote errors that help. The real service
 * differs from the spec's literal paths (model family `karlo`, scheme `KakaoAK`, the business
 * lookup under v4): the tool and the emulator (`audiences emulator` and `--emulator` alike) follow
 * IMAGEGEN_MODEL_FAMILY, IMAGEGEN_AUTH_SCHEME and ADS_COMPANY_PATH. A wrong one shows as a remote
 * error whose hint names it; a business lookup never reads a wrong address or another number's
 * business as an answer. The service's account-level refusals carry hints, the same in a plan's
 * error and an apply's FAILED line, without the exception class name the real service sends. The
 * real service's answers that the emulator never gives come from a proxy in front of it, or a
 * stand-in.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { AppError } from '../../src/errors.js';
import { startProxy, type Proxy, type ProxyAction } from '../api/support.js';
import { applyThrough, emulatorEnv, emulatorRoute, runInProcess, workspace } from '../helpers/cli.js';
import { connectClient } from '../helpers/live-account.js';
import { standIn } from '../helpers/stand-in.js';

const REAL = {
  IMAGEGEN_MODEL_FAMILY: 'karlo',
  IMAGEGEN_AUTH_SCHEME: 'KakaoAK',
  ADS_COMPANY_PATH: '/openapi/v4/companies',
};

const IMAGE = `images:
  - name: hero
    prompt: a spring picnic in a park, watercolor
    version: v2.0
    width: 512
    height: 384
    output: assets/hero.webp
`;
const BUSINESS = 'business:\n  registrationNumber: 120-81-47521\n';
const AUDIENCE = 'audiences:\n  - name: seoul\n    type: DISPLAY\n    locations: [I]\n';

interface LoggedRequest {
  method: string;
  path: string;
  auth: string;
  status: number | string;
}

async function requests(emulator: RunningEmulator): Promise<LoggedRequest[]> {
  return ((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: LoggedRequest[] }).requests;
}

/** The FAILED progress line of an apply's output. */
function failedLine(stderr: string): string {
  const line = stderr.split('\n').find((candidate) => candidate.startsWith('FAILED'));
  expect(line, stderr).toBeDefined();
  return line as string;
}

describe("the real services' paths and scheme, by configuration", () => {
  let emulator: RunningEmulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ emulator, env } = await emulatorEnv({
      modelFamily: 'karlo',
      imageAuthScheme: 'KakaoAK',
      companyPath: '/openapi/v4/companies',
    }));
  });
  afterAll(async () => {
    await emulator.close();
  });
  beforeEach(async () => {
    await emulatorRoute(emulator, 'POST', '/_emulator/reset');
  });

  it('reach a service at its real paths with its real scheme', async () => {
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${BUSINESS}${IMAGE}${AUDIENCE}` });
    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env: { ...env, ...REAL } });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('business: 120-81-47521 "Demo Commerce Co., Ltd."');
    const served = (await requests(emulator)).filter((request) => !request.path.startsWith('/openapi/v4/targetings'));
    expect(served).toEqual([
      expect.objectContaining({
        method: 'GET',
        path: '/openapi/v4/companies?bizNum=120-81-47521',
        auth: 'Bearer',
        status: 200,
      }),
      expect.objectContaining({ method: 'POST', path: '/v2/inference/karlo/t2i', auth: 'KakaoAK', status: 200 }),
      expect.objectContaining({ method: 'GET', path: expect.stringMatching(/^\/images\//), status: 200 }),
    ]);
  });

  it("a business path the service does not serve is a wrong address naming ADS_COMPANY_PATH, never 'no business'", async () => {
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${BUSINESS}${AUDIENCE}` });
    const company = await runInProcess(['company', '120-81-47521'], { cwd, env });
    expect(company.code).toBe(1);
    expect(company.stderr).toContain(
      'error[API_NOT_FOUND]: the business-information API answered 404 to GET /openapi/v1/companies?bizNum=120-81-47521',
    );
    expect(company.stderr).toContain('hint: Nothing of the business-information API is at this address');
    expect(company.stderr).toContain('ADS_COMPANY_PATH');
    expect(company.stderr).not.toContain('no business');
    const plan = await runInProcess(['plan'], { cwd, env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[API_NOT_FOUND]');
    expect(plan.stderr).not.toContain('BUSINESS_NOT_FOUND');
  });

  it('an image model family or scheme the service does not take fails the generation with a hint naming the setting', async () => {
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${IMAGE}audiences: []\n` });
    const family = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(family.code).toBe(1);
    const wrongFamily = failedLine(family.stderr);
    expect(wrongFamily).toContain(
      'generate image "hero": the image-generation API answered 404 to POST /v2/inference/imagegen/t2i',
    );
    expect(wrongFamily).toContain('hint: Nothing of the image-generation API is at this address');
    expect(wrongFamily).toContain('IMAGEGEN_MODEL_FAMILY');

    const scheme = await runInProcess(['apply', '--auto-approve'], {
      cwd,
      env: { ...env, IMAGEGEN_MODEL_FAMILY: 'karlo' },
    });
    expect(scheme.code).toBe(1);
    const wrongScheme = failedLine(scheme.stderr);
    expect(wrongScheme).toContain('answered 401 to POST /v2/inference/karlo/t2i');
    expect(wrongScheme).toContain('IMAGEGEN_AUTH_SCHEME');
    expect(scheme.stderr + scheme.stdout).not.toContain(env['IMAGEGEN_API_KEY']);
  });

  it('--emulator serves the paths and scheme the environment names, as the tool sends them', async () => {
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${BUSINESS}${IMAGE}${AUDIENCE}` });
    const apply = await runInProcess(['apply', '--auto-approve', '--emulator', '--verbose'], { cwd, env: REAL });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stderr).toMatch(/^business GET \/openapi\/v4\/companies\?bizNum=120-81-47521 -> 200 /m);
    expect(apply.stderr).toMatch(/^imagegen POST \/v2\/inference\/karlo\/t2i -> 200 /m);
  });

  it('`audiences emulator` serves them too, and prints them with the environment', async () => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(new URL('../../bin/audiences.js', import.meta.url)), 'emulator'],
      {
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...REAL },
      },
    );
    try {
      let printed = '';
      child.stdout.on('data', (chunk: Buffer) => void (printed += chunk.toString('utf8')));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', () => {
          // The environment is printed in one write, after the server listens.
          const found = /ADS_API_URL=(\S+)/.exec(printed)?.[1];
          if (found) resolve(found);
        });
        child.once('exit', () => reject(new Error(`the emulator exited: ${printed}`)));
      });
      expect(printed).toContain(
        'export IMAGEGEN_MODEL_FAMILY=karlo\nexport IMAGEGEN_AUTH_SCHEME=KakaoAK\nexport ADS_COMPANY_PATH=/openapi/v4/companies\n',
      );
      const generated = await fetch(`${url}/v2/inference/karlo/t2i`, {
        method: 'POST',
        headers: { authorization: 'KakaoAK emulator-app-key', 'content-type': 'application/json' },
        body: JSON.stringify({
          version: 'v2.0',
          prompt: 'a kite',
          width: 384,
          height: 384,
          return_type: 'base64_string',
        }),
      });
      expect(generated.status).toBe(200);
      const company = await fetch(`${url}/openapi/v4/companies?bizNum=120-81-47521`, {
        headers: { authorization: 'Bearer emulator-access-token', adAccountId: '1234' },
      });
      expect(company.status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  describe('settings it cannot use are named before any change, never echoing a secret', () => {
    const SECRET = 'secret-app-key-8d2f61';
    it.each([
      ['IMAGEGEN_MODEL_FAMILY', `karlo/${SECRET}`, 'IMAGEGEN_MODEL_FAMILY is not one path segment: "karlo/[REDACTED]"'],
      ['IMAGEGEN_AUTH_SCHEME', `KakaoAK ${SECRET}`, 'IMAGEGEN_AUTH_SCHEME is not one word'],
      ['ADS_COMPANY_PATH', 'openapi/v4/companies', 'ADS_COMPANY_PATH is not a path starting with "/"'],
    ])('%s', async (variable, value, summary) => {
      const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${BUSINESS}${IMAGE}${AUDIENCE}` });
      const settings = { [variable]: value, IMAGEGEN_API_KEY: SECRET };
      // The emulator --emulator would start serves the settings, so they are checked before it starts.
      for (const [args, runEnv] of [
        [['plan', '--emulator'], settings],
        [['apply', '--auto-approve'], { ...env, ...REAL, ...settings }],
      ] as const) {
        const run = await runInProcess([...args], { cwd, env: runEnv });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`error[INVALID_SETTING]: ${summary}`);
        expect(run.stderr).toContain('  hint: set it to');
        expect(run.stdout + run.stderr).not.toContain(SECRET);
      }
      expect((await requests(emulator)).filter((request) => request.method !== 'GET')).toEqual([]);
    });
  });
});

describe('the business lookup takes only an answer about the number asked', () => {
  let emulator: RunningEmulator;
  let env: Record<string, string>;
  let business: Awaited<ReturnType<typeof standIn>>;
  /** What the stand-in business service answers. */
  let answer: { status: number; json: unknown };
  beforeAll(async () => {
    ({ emulator, env } = await emulatorEnv());
    business = await standIn(() => answer);
  });
  afterAll(async () => {
    await business.close();
    await emulator.close();
  });

  it('a business of another registration number is an error, not the business', async () => {
    answer = { status: 200, json: { id: 7, businessRegistrationNumber: '220-81-62458', name: 'Harbor Foods Inc.' } };
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${BUSINESS}${AUDIENCE}` });
    const company = await runInProcess(['company', '120-81-47521'], {
      cwd,
      env: { ...env, ADS_COMPANY_URL: business.url },
    });
    expect(company.code).toBe(1);
    expect(company.stdout).toBe('');
    expect(company.stderr).toContain(
      'error[API_INVALID_RESPONSE]: the business-information API answered GET /openapi/v1/companies?bizNum=120-81-47521 with an unexpected body: it describes the business registered under "220-81-62458", not 120-81-47521',
    );
    expect(company.stderr).toContain('ADS_COMPANY_PATH');
    const plan = await runInProcess(['plan'], { cwd, env: { ...env, ADS_COMPANY_URL: business.url } });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[API_INVALID_RESPONSE]');
  });

  it("detail code 5001 reads as 'no business is registered under that number'", async () => {
    answer = {
      status: 400,
      json: {
        code: -813,
        msg: 'KakaoMomentException',
        extras: { detailCode: 5001, detailMsg: '존재하지 않는 사업자입니다.' },
      },
    };
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${BUSINESS}${AUDIENCE}` });
    const company = await runInProcess(['company', '120-81-47521'], {
      cwd,
      env: { ...env, ADS_COMPANY_URL: business.url },
    });
    expect(company.code).toBe(1);
    expect(company.stderr).toContain('error[COMPANY_NOT_FOUND]: no business is registered under 120-81-47521');
    const plan = await runInProcess(['plan'], { cwd, env: { ...env, ADS_COMPANY_URL: business.url } });
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('BUSINESS_NOT_FOUND');
  });
});

describe('remote errors that help', () => {
  let emulator: RunningEmulator;
  let env: Record<string, string>;
  let proxy: Proxy;
  /** What the proxy in front of the emulator does with each request, set by the test. */
  let decide: (request: string) => ProxyAction;
  beforeEach(async () => {
    ({ emulator, env } = await emulatorEnv());
    decide = () => 'pass';
    proxy = await startProxy(emulator.url, (request) => decide(request));
    env = { ...env, ADS_API_URL: proxy.url, ADS_COMPANY_URL: proxy.url };
  });
  afterEach(async () => {
    await proxy.close();
    await emulator.close();
  });

  const refusal = (status: number, detailCode: number, detailMsg: string) => ({
    status,
    body: { code: -813, msg: 'KakaoMomentException', extras: { detailCode, detailMsg } },
  });
  const isList = (request: string) => request.startsWith('GET /openapi/v4/targetings/audiences');
  const isCreate = (request: string) => request === 'POST /openapi/v4/targetings';

  it.each([
    [21006, 400, '존재하지 않는 광고계정입니다.', 'this ad account does not exist: check adAccountId'],
    [6003, 400, '존재하지 않는 광고계정입니다.', 'this ad account does not exist: check adAccountId'],
    [20023, 400, '허용되지 않은 광고계정의 집행 상태입니다.', "the ad account's state does not allow this"],
    [9004, 403, '권한이 없습니다.', 'there is no permission'],
  ])(
    'detail code %i: the same hint in a plan error and an apply FAILED line, without the exception class name',
    async (detailCode, status, detailMsg, said) => {
      const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${AUDIENCE}` });
      decide = (request) => (isList(request) ? refusal(status, detailCode, detailMsg) : 'pass');
      const plan = await runInProcess(['plan'], { cwd, env });
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain(`: ${detailMsg}\n  service code -813, detail code ${detailCode}\n`);
      const hint = /^ {2}hint: (.*)$/m.exec(plan.stderr)?.[1];
      expect(hint).toContain(said);

      decide = (request) => (isCreate(request) ? refusal(status, detailCode, detailMsg) : 'pass');
      const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env });
      expect(apply.code).toBe(1);
      const line = failedLine(apply.stderr);
      expect(line).toContain(
        `create audience "seoul": the audience API answered ${status} to POST /openapi/v4/targetings: ${detailMsg} (service code -813, detail code ${detailCode}); hint: ${hint}`,
      );
      expect(plan.stderr + apply.stderr + apply.stdout).not.toContain('KakaoMomentException');
    },
  );

  it('a quota answer that asks to wait past the retry budget says so on its FAILED line, with a hint at --requests-per-second', async () => {
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${AUDIENCE}` });
    // The service asks to wait past the 60 s retry budget: the retries end at once.
    decide = (request) =>
      isCreate(request) ? { ...refusal(429, 8001, 'too many requests'), headers: { 'Retry-After': '120' } } : 'pass';
    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(1);
    const line = failedLine(apply.stderr);
    expect(line).toContain(
      'the audience API answered 429 to POST /openapi/v4/targetings: too many requests (service code -813, detail code 8001; gave up on the quota answer: waiting 120 s more would pass the retry budget of 60 s)',
    );
    expect(line).toContain('; hint: ');
    expect(line).toContain('--requests-per-second');
  });

  describe('retried until the retry budget ran out (a budget of 0.3 s instead of 60 s)', () => {
    const SHORT_BUDGET = { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 40, budgetMs: 300 };
    const quota = { ...refusal(429, 8001, 'too many requests') };

    /**
     * Applies `file` through the proxy with the short budget: the FAILED line, and how many times `sent` matched a
     * request.
     */
    async function applyShort(
      file: string,
      sent: (request: string) => boolean,
    ): Promise<{ line: string; attempts: number }> {
      const proxied = connectClient(emulator, { baseUrl: proxy.url, retry: SHORT_BUDGET });
      try {
        const apply = await applyThrough(await workspace({ 'audiences.yaml': file }), proxied.client);
        expect(apply.code).toBe(1);
        return { line: failedLine(apply.stderr), attempts: proxy.seen.filter(sent).length };
      } finally {
        await proxied.close();
      }
    }

    it('quota answers again and again: the FAILED line says they were retried until the budget ran out', async () => {
      decide = (request) => (isCreate(request) ? quota : 'pass');
      const { line, attempts } = await applyShort(`adAccountId: 1234\n${AUDIENCE}`, isCreate);
      expect(attempts).toBeGreaterThan(2);
      expect(line).toMatch(
        /; gave up: the quota answers were retried until the retry budget of 0\.3 s ran out \(waiting [\d.]+ s more would pass the retry budget of 0\.3 s\)\); hint: /,
      );
      expect(line).toContain('--requests-per-second');
    });

    it('a 5xx first, then quota answers: the error counts the quota answers, never says every attempt was one', async () => {
      let lists = 0;
      decide = (request) => (!isList(request) ? 'pass' : (lists += 1) === 1 ? '500-before' : quota);
      const proxied = connectClient(emulator, { baseUrl: proxy.url, retry: SHORT_BUDGET });
      const failed = await applyThrough(
        await workspace({ 'audiences.yaml': `adAccountId: 1234\n${AUDIENCE}` }),
        proxied.client,
      ).catch((error: unknown) => error as AppError);
      await proxied.close();
      expect(lists).toBeGreaterThan(2);
      expect(failed).toMatchObject({ code: 'API_RATE_LIMITED' });
      const said = [(failed as AppError).summary, (failed as AppError).detail].join('\n');
      expect(said).toContain(
        `gave up: the request was retried until the retry budget of 0.3 s ran out; ${lists - 1} of its ${lists} attempts were quota answers, the last one too (waiting `,
      );
      expect(said).not.toContain('the quota answers were retried');
    });
  });
});
