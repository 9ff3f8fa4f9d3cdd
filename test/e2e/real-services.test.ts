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
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { startProxy, type Proxy, type ProxyAction } from '../api/support.js';
import { emulatorEnv, runInProcess, workspace } from '../helpers/cli.js';

const AUDIENCE = 'audiences:\n  - name: seoul\n    type: DISPLAY\n    locations: [I]\n';

/** The FAILED progress line of an apply's output. */
function failedLine(stderr: string): string {
  const line = stderr.split('\n').find((candidate) => candidate.startsWith('FAILED'));
  expect(line, stderr).toBeDefined();
  return line as string;
}

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

  const refusal = (status: number, detailCode: number, detailMsg: string) => ({ status, body: { code: -813, msg: 'KakaoMomentException', extras: { detailCode, detailMsg } } });
  const isList = (request: string) => request.startsWith('GET /openapi/v4/targetings/audiences');
  const isCreate = (request: string) => request === 'POST /openapi/v4/targetings';

  it.each([
    [21006, 400, '존재하지 않는 광고계정입니다.', 'this ad account does not exist: check adAccountId'],
    [6003, 400, '존재하지 않는 광고계정입니다.', 'this ad account does not exist: check adAccountId'],
    [20023, 400, '허용되지 않은 광고계정의 집행 상태입니다.', "the ad account's state does not allow this"],
    [9004, 403, '권한이 없습니다.', 'there is no permission'],
  ])('detail code %i: the same hint in a plan error and an apply FAILED line, without the exception class name', async (detailCode, status, detailMsg, said) => {
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
    expect(line).toContain(`create audience "seoul": the audience API answered ${status} to POST /openapi/v4/targetings: ${detailMsg} (service code -813, detail code ${detailCode}); hint: ${hint}`);
    expect(plan.stderr + apply.stderr + apply.stdout).not.toContain('KakaoMomentException');
  });

  it('a quota answer retried until the budget ran out says so on its FAILED line, with a hint at --requests-per-second', async () => {
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\n${AUDIENCE}` });
    // The service asks to wait past the 60 s retry budget: the retries end at once, as they would after a minute of quota answers.
    decide = (request) => (isCreate(request) ? { ...refusal(429, 8001, 'too many requests'), headers: { 'Retry-After': '120' } } : 'pass');
    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(1);
    const line = failedLine(apply.stderr);
    expect(line).toContain(
      'the audience API answered 429 to POST /openapi/v4/targetings: too many requests (service code -813, detail code 8001; gave up on the quota answer: waiting 120 s more would pass the retry budget of 60 s)',
    );
    expect(line).toContain('; hint: ');
    expect(line).toContain('--requests-per-second');
  });
});
