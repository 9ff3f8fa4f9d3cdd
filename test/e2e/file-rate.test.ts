/**
 * The file's `requestsPerSecond`, the account's quota, through the CLI against the emulator: each plan's estimate says
 * the least time at it, `--requests-per-second` wins over it, and `plan` and `apply` (of a saved plan too) space that
 * account's requests to it, so an emulator that allows the account that many requests a second refuses none; two
 * accounts each at its own rate; an account's files agree on it or leave it to one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { Plan } from '../../src/plan/index.js';
import type { LoggedRequest } from '../../src/emulator/request-log.js';
import { emulatorEnv, emulatorRoute, lastLoggedSeq, loggedRequests, runInProcess, workspace } from '../helpers/cli.js';
import { outside, setFaults } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await emulatorRoute(emulator, 'POST', '/_emulator/reset');
});

const run = (cwd: string, ...args: string[]) => runInProcess(args, { cwd, env });

const logged = (after = 0) => loggedRequests(emulator, after);
const lastSeq = () => lastLoggedSeq(emulator);

/** A file of `count` audiences named after the account, with `head` (the settings) after its adAccountId. */
const file = (adAccountId: number, count: number, head = '') =>
  `adAccountId: ${adAccountId}\n${head}audiences:\n${Array.from(
    { length: count },
    (_, index) => `  - name: a${adAccountId}-${index}\n    type: DISPLAY\n`,
  ).join('')}`;

/** The least time, in ms, that any `rate + 1` requests of the account took to be served, one after another. */
function tightestSecond(requests: LoggedRequest[], adAccountId: number, rate: number): number {
  const times = requests
    .filter((request) => request.adAccountId === String(adAccountId))
    .map((request) => Date.parse(request.at));
  let least = Number.POSITIVE_INFINITY;
  for (let index = rate; index < times.length; index += 1)
    least = Math.min(least, (times[index] ?? 0) - (times[index - rate] ?? 0));
  return least;
}

const refused = (requests: LoggedRequest[], adAccountId: number) =>
  requests.filter((request) => request.adAccountId === String(adAccountId) && request.status !== 200);

describe("the file's requestsPerSecond", () => {
  it("the plan's estimate says the least time at the file's rate, in text and JSON; --requests-per-second wins", async () => {
    const cwd = await workspace({ 'audiences.yaml': file(1234, 6, 'requestsPerSecond: 4\n') });
    const text = await run(cwd, 'plan');
    expect(text.stdout).toContain('Apply: 8 requests (1 to check the plan, 6 creates, 1 to verify); at 4 requests');
    expect(text.stdout).toContain('at 4 requests per second, at least 1.75 s.');
    const [plan] = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout) as Plan[];
    expect(plan?.requestsPerSecond).toBe(4);
    expect(plan?.estimate).toMatchObject({ total: 8, requestsPerSecond: 4, leastSeconds: 1.75 });
    const flag = await run(cwd, 'plan', '--format', 'json', '--requests-per-second', '10');
    const [overridden] = JSON.parse(flag.stdout) as Plan[];
    expect(overridden?.estimate).toMatchObject({ total: 8, requestsPerSecond: 10, leastSeconds: 0.7 });
    expect((await run(cwd, 'plan', '--requests-per-second', '10')).stdout).toContain(
      'at 10 requests per second, at least 0.7 s.',
    );
  });

  it("the file's rate is the audience API's alone: the image service's requests are not counted at it, the flag's are", async () => {
    const images = `images:
  - name: hero
    prompt: a spring picnic in a park, watercolor
    version: v2.0
    width: 512
    height: 384
    samples: 4
    output: assets/hero.webp
`;
    const cwd = await workspace({ 'audiences.yaml': file(1234, 1, `requestsPerSecond: 1\n${images}`) });
    const [own] = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout) as Plan[];
    // The audience API's: the check, the create, the list after it; the image service's: a generation, four downloads.
    expect(own?.estimate).toMatchObject({ requests: { generate: 1, download: 4 }, total: 8, leastSeconds: 2 });
    const flag = await run(cwd, 'plan', '--format', 'json', '--requests-per-second', '1');
    const [paced] = JSON.parse(flag.stdout) as Plan[];
    expect(paced?.estimate).toMatchObject({ total: 8, requestsPerSecond: 1, leastSeconds: 4 });
  });

  it("apply -f counts no business lookup at the rate: it looked the business up when planning, so every request is the audience API's", async () => {
    const business = 'business:\n  registrationNumber: 120-81-47521\n';
    const cwd = await workspace({ 'audiences.yaml': file(1234, 2, `requestsPerSecond: 10\n${business}`) });
    const applied = await run(cwd, 'apply', '--auto-approve');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(
      'Apply: 3 requests (2 creates, 1 to verify); at 10 requests per second, at least 0.2 s.',
    );
  });

  it('paces the apply of a saved plan to the rate the account allows: none refused, where without it some are', async () => {
    await setFaults(emulator, { rateLimitPerSecond: 5 });
    const unpaced = await workspace({ 'audiences.yaml': file(1234, 15) });
    let before = await lastSeq();
    const burst = await run(unpaced, 'apply', '--auto-approve');
    expect(burst.code, burst.stderr).toBe(0);
    expect(refused(await logged(before), 1234).length).toBeGreaterThan(0);

    const cwd = await workspace({ 'audiences.yaml': file(5678, 15, 'requestsPerSecond: 5\n') });
    expect((await run(cwd, 'plan', '--out', 'plan.json')).code).toBe(0);
    const [saved] = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as Plan[];
    expect(saved?.requestsPerSecond).toBe(5);
    // The plan's own list counts in the account's second too: the apply is another command, which cannot know it. A
    // new limit starts the emulator's windows afresh, as a second's wait would.
    await setFaults(emulator, { rateLimitPerSecond: 5 });
    before = await lastSeq();
    const applied = await run(cwd, 'apply', 'plan.json');
    expect(applied.code, applied.stderr).toBe(0);
    const requests = await logged(before);
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(15);
    expect(refused(requests, 5678)).toEqual([]);
    // Any six requests of the account span a second at least (less what serving them may shift their arrival).
    expect(tightestSecond(requests, 5678, 5)).toBeGreaterThanOrEqual(990);
  });

  it("paces a plan's reads, its first list too (it leaves before the file is read and its rate known)", async () => {
    for (let index = 0; index < 8; index += 1) await outside.create(emulator, `a1234-${index}`);
    await setFaults(emulator, { rateLimitPerSecond: 4 });
    const cwd = await workspace({ 'audiences.yaml': file(1234, 8, 'requestsPerSecond: 4\n') });
    const before = await lastSeq();
    const planned = await run(cwd, 'plan');
    expect(planned.code, planned.stderr).toBe(0);
    const requests = await logged(before);
    // The list, then a read of each audience the file manages.
    expect(requests.filter((request) => request.method === 'GET')).toHaveLength(9);
    expect(refused(requests, 1234)).toEqual([]);
    expect(tightestSecond(requests, 1234, 4)).toBeGreaterThanOrEqual(990);
  });

  it("paces apply -f's reads and writes alike, its list too (asked under the lock, before the file is checked)", async () => {
    for (let index = 0; index < 6; index += 1) await outside.create(emulator, `a1234-${index}`);
    await setFaults(emulator, { rateLimitPerSecond: 4 });
    const narrowed = Array.from(
      { length: 6 },
      (_, index) => `  - name: a1234-${index}\n    type: DISPLAY\n    genders: [F]\n`,
    );
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nrequestsPerSecond: 4\naudiences:\n${narrowed.join('')}`,
    });
    const before = await lastSeq();
    const applied = await run(cwd, 'apply', '--auto-approve');
    expect(applied.code, applied.stderr).toBe(0);
    const requests = await logged(before);
    // The list, a read of each audience, its update, and the list that checks the apply.
    expect(requests.filter((request) => request.method === 'GET').length).toBeGreaterThanOrEqual(8);
    expect(requests.filter((request) => request.method === 'PUT')).toHaveLength(6);
    expect(refused(requests, 1234)).toEqual([]);
    expect(tightestSecond(requests, 1234, 4)).toBeGreaterThanOrEqual(990);
  });

  it('two accounts in one command, each paced at its own rate; --requests-per-second paces both at it', async () => {
    const cwd = await workspace({
      'slow.yaml': file(1234, 8, 'requestsPerSecond: 4\n'),
      'fast.yaml': file(5678, 8, 'requestsPerSecond: 40\n'),
    });
    let before = await lastSeq();
    const applied = await run(cwd, 'apply', '-f', 'slow.yaml', '-f', 'fast.yaml', '--auto-approve');
    expect(applied.code, applied.stderr).toBe(0);
    let requests = await logged(before);
    expect(tightestSecond(requests, 1234, 4)).toBeGreaterThanOrEqual(990);
    expect(tightestSecond(requests, 5678, 40)).toBeGreaterThanOrEqual(990);
    // The fast account is not held to the slow one's rate: any five of its requests are served within a second.
    expect(tightestSecond(requests, 5678, 4)).toBeLessThan(990);

    // The command line's rate is every account's, the file's aside.
    const flagged = await workspace({
      'slow.yaml': file(1234, 6, 'requestsPerSecond: 40\n'),
      'fast.yaml': file(4321, 6, 'requestsPerSecond: 40\n'),
    });
    before = await lastSeq();
    const overridden = await run(
      flagged,
      'apply',
      '-f',
      'slow.yaml',
      '-f',
      'fast.yaml',
      '--auto-approve',
      '--requests-per-second',
      '4',
    );
    expect(overridden.code, overridden.stderr).toBe(0);
    requests = await logged(before);
    expect(tightestSecond(requests, 1234, 4)).toBeGreaterThanOrEqual(990);
    expect(tightestSecond(requests, 4321, 4)).toBeGreaterThanOrEqual(990);

    // Faster too: the flag's rate is the pace, not a bound beside the file's.
    // (The account's first eight audiences exist already: the eight after them are made.)
    const faster = await workspace({ 'slow.yaml': file(5678, 16, 'requestsPerSecond: 4\n') });
    before = await lastSeq();
    const quick = await run(faster, 'apply', '-f', 'slow.yaml', '--auto-approve', '--requests-per-second', '40');
    expect(quick.code, quick.stderr).toBe(0);
    requests = await logged(before);
    expect(requests.filter((request) => request.method === 'POST')).toHaveLength(8);
    expect(tightestSecond(requests, 5678, 4)).toBeLessThan(990);
  });

  it("an account's files agree on it, or only one sets it; disagreeing ones are refused, naming both", async () => {
    const cwd = await workspace({
      'a.yaml': `${file(1234, 2, 'accountFiles: [b.yaml]\nrequestsPerSecond: 5\n')}`,
      'b.yaml': `adAccountId: 1234\naccountFiles: [a.yaml]\nrequestsPerSecond: 10\naudiences:\n  - name: other\n    type: DISPLAY\n`,
      'c.yaml': `adAccountId: 1234\naccountFiles: [a.yaml]\naudiences:\n  - name: other\n    type: DISPLAY\n`,
    });
    const disagreeing = await run(cwd, 'plan', '-f', 'a.yaml', '-f', 'b.yaml');
    expect(disagreeing.code).toBe(1);
    expect(disagreeing.stderr).toContain(
      'b.yaml:3:20: requestsPerSecond is 10 here but 5 in a.yaml:3:20, a file of the same ad account',
    );
    expect(disagreeing.stderr).toContain('set requestsPerSecond in one file of the account, or alike in each');

    const agreeing = await workspace({
      'a.yaml': `${file(1234, 2, 'accountFiles: [b.yaml]\nrequestsPerSecond: 5\n')}`,
      'b.yaml': `adAccountId: 1234\naccountFiles: [a.yaml]\naudiences:\n  - name: other\n    type: DISPLAY\n`,
    });
    const [plan] = JSON.parse(
      (await run(agreeing, 'plan', '-f', 'a.yaml', '-f', 'b.yaml', '--format', 'json')).stdout,
    ) as Plan[];
    expect(plan?.requestsPerSecond).toBe(5);
    expect(plan?.estimate).toMatchObject({ total: 5, requestsPerSecond: 5, leastSeconds: 0.8 });
  });

  it('out of range or not a number: the file, line and column, and a hint with the bounds', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\nrequestsPerSecond: 0.01\naudiences: []\n',
      'word.yaml': 'adAccountId: 1234\nrequestsPerSecond: fast\naudiences: []\n',
    });
    const low = await run(cwd, 'validate');
    expect(low.code).toBe(1);
    expect(low.stdout + low.stderr).toContain('audiences.yaml:2:20: requestsPerSecond: must be at least 0.1, got 0.01');
    expect(low.stdout + low.stderr).toContain(
      "hint: requestsPerSecond: the account's quota, from 0.1 to 1000 requests",
    );
    const word = await run(cwd, 'validate', '-f', 'word.yaml');
    expect(word.stdout + word.stderr).toContain('word.yaml:2:20: requestsPerSecond: expected a number, got "fast"');
  });
});
