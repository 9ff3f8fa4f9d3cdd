/**
 * Several ad accounts at once, through the built CLI against the emulator: each account has its
 * own transport (slots, adaptive rate, pauses), so one account that the service holds back with
 * 429s never holds back another; applies of several accounts run at the same time, each with its
 * summary; the apply lock is per account. The emulator strikes only one account's requests
 * (`faultAccounts`), with a seed whose draws put the 429 on a known request of that account.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFaults, defaultFaultSettings } from '../../src/emulator/faults.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { applyLockPath, takeApplyLocks } from '../../src/operations/apply-lock.js';
import { emulatorEnv, emulatorRoute, runCli, runInProcess, workspace } from '../helpers/cli.js';
import { setFaults, storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

interface Logged {
  seq: number;
  method: string;
  path: string;
  adAccountId: string | null;
  status: number | 'reset';
  fault: string | null;
  body?: { name?: string };
}

async function requestLog(): Promise<Logged[]> {
  return ((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: Logged[] }).requests;
}

const file = (adAccountId: number, names: string[]) =>
  `adAccountId: ${adAccountId}\naudiences:\n${names.map((name) => `  - name: ${name}\n    type: DISPLAY\n`).join('')}`;
const named = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

/** Seconds the service asks the struck account to wait: far longer than the other account's whole run. */
const RETRY_AFTER_SECONDS = 2;

/**
 * 429s with Retry-After on account 5678 alone: a seed whose fault draws (made by that account's requests only, in the
 * order served) strike exactly its requests numbered in `struck` (from 1) among the first `count`.
 */
async function strike5678(struck: number[], count = 20): Promise<void> {
  const settings = { faultRate: 0.3, faultKinds: ['429' as const], retryAfterSeconds: RETRY_AFTER_SECONDS };
  for (let seed = 1; seed < 10_000; seed += 1) {
    const faults = createFaults({ ...defaultFaultSettings, ...settings, seed });
    const draws = Array.from({ length: count }, () => faults.decide().kind === '429');
    if (draws.every((hit, index) => hit === struck.includes(index + 1))) {
      await setFaults(emulator, { ...settings, faultAccounts: [5678], seed });
      return;
    }
  }
  throw new Error('no seed strikes those requests');
}

/** The requests of each account, in the order served. */
function byAccount(log: Logged[]): { a: Logged[]; b: Logged[] } {
  return {
    a: log.filter((entry) => entry.adAccountId === '1234'),
    b: log.filter((entry) => entry.adAccountId === '5678'),
  };
}

describe('two accounts at once, one answering 429', () => {
  it("plan: the other account's reads are all answered while the refused one waits out its Retry-After", async () => {
    const cwd = await workspace({ 'a.yaml': file(1234, named('a', 5)), 'b.yaml': file(5678, named('b', 2)) });
    const made = await runCli(['apply', '-f', 'a.yaml', '-f', 'b.yaml', '--auto-approve'], { cwd, env });
    expect(made.code, made.stderr).toBe(0);
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    // The refused account's first request, its list, is answered 429.
    await strike5678([1], 6);

    // One request at a time per account: the other account's reads are sent after the refusal came.
    const planned = await runCli(['plan', '-f', 'b.yaml', '-f', 'a.yaml', '--concurrency', '1'], { cwd, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('No changes: ad account 1234 matches the desired state.');
    expect(planned.stdout).toContain('No changes: ad account 5678 matches the desired state.');
    const { a, b } = byAccount(await requestLog());
    expect(b.map((entry) => entry.status)).toEqual([429, 200, 200, 200]);
    // The list and a read of each of the five audiences, none refused, all before the refused list was sent again.
    expect(a.map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const retried = b[1]?.seq ?? 0;
    expect(a.every((entry) => entry.seq < retried)).toBe(true);
  });

  it('apply: both accounts change at the same time; the other finishes while the refused one waits, each with its own summary', async () => {
    const cwd = await workspace({ 'a.yaml': file(1234, named('a', 6)), 'b.yaml': file(5678, named('b', 6)) });
    // The refused account's list goes through; its first create is answered 429.
    await strike5678([2]);

    const applied = await runCli(['apply', '-f', 'b.yaml', '-f', 'a.yaml', '--auto-approve'], { cwd, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Apply complete for ad account 5678: 6 done, 0 failed, 0 skipped.');
    expect(applied.stdout).toContain('Apply complete for ad account 1234: 6 done, 0 failed, 0 skipped.');
    // Summaries in the order of the files, whichever account finished first.
    expect(applied.stdout.indexOf('ad account 5678: 6 done')).toBeLessThan(
      applied.stdout.indexOf('ad account 1234: 6'),
    );
    // The lines of the two accounts interleave, so each names its account.
    const lines = applied.stderr.split('\n').filter((line) => line.includes('create audience'));
    expect(lines.filter((line) => line.startsWith('ad account 1234: ok      create audience "a-'))).toHaveLength(6);
    expect(lines.filter((line) => line.startsWith('ad account 5678: ok      create audience "b-'))).toHaveLength(6);
    expect(lines).toHaveLength(12);

    const { a, b } = byAccount(await requestLog());
    const refused = b.filter((entry) => entry.status === 429);
    expect(refused).toHaveLength(1);
    const retry = b.find((entry) => entry.seq > (refused[0]?.seq ?? 0) && entry.body?.name === refused[0]?.body?.name);
    expect(retry?.status).toBe(200);
    // The other account: its list, its six creates, never refused, all answered before the refused create was sent again.
    expect(a.filter((entry) => entry.method === 'POST')).toHaveLength(6);
    expect(a.every((entry) => entry.status === 200)).toBe(true);
    expect(a.every((entry) => entry.seq < (retry?.seq ?? 0))).toBe(true);
    expect((await storedAudiences(emulator, 1234)).map((audience) => audience.name).sort()).toEqual(named('a', 6));
    expect((await storedAudiences(emulator, 5678)).map((audience) => audience.name).sort()).toEqual(named('b', 6));
  });

  it('an interrupt stops both accounts, and each summary says what was done in it and what was not started', async () => {
    const cwd = await workspace({ 'a.yaml': file(1234, named('a', 4)), 'b.yaml': file(5678, named('b', 4)) });
    await strike5678([2]);
    // One request at a time per account: the interrupt comes after the other account's first create.
    const preload = new URL('../helpers/signal-at.mjs', import.meta.url).href;
    const interrupted = await runCli(
      ['apply', '-f', 'b.yaml', '-f', 'a.yaml', '--auto-approve', '--concurrency', '1'],
      {
        cwd,
        env: {
          ...env,
          NODE_OPTIONS: `--import ${preload}`,
          AUDIENCES_TEST_SIGNALS: JSON.stringify([{ signal: 'SIGINT', stderr: 'ad account 1234: ok' }]),
        },
      },
    );
    expect(interrupted.code, interrupted.stdout + interrupted.stderr).toBe(130);
    const summary = (account: number) =>
      new RegExp(`Apply interrupted for ad account ${account}: (\\d) done, 0 failed, (\\d) skipped\\.`).exec(
        interrupted.stdout,
      );
    const [a, b] = [summary(1234), summary(5678)];
    // Each account's own: done and not started add up to its four creates, and what was done is stored.
    expect(Number(a?.[1]) + Number(a?.[2])).toBe(4);
    expect(Number(b?.[1]) + Number(b?.[2])).toBe(4);
    expect(Number(a?.[1])).toBeGreaterThanOrEqual(1);
    expect(await storedAudiences(emulator, 1234)).toHaveLength(Number(a?.[1]));
    expect(await storedAudiences(emulator, 5678)).toHaveLength(Number(b?.[1]));
    expect(interrupted.stdout).toContain('skipped, not started: the apply was interrupted');
  });
});

describe('two accounts whose files share a folder', () => {
  it('generate their images at once, and the one images.lock.json beside them records every image of both', async () => {
    const images = (prefix: string) =>
      named(prefix, 3)
        .map(
          (name) =>
            `  - name: ${name}\n    prompt: a kite over ${name}\n    version: v2.0\n    width: 384\n    height: 384\n    output: assets/${name}.webp\n`,
        )
        .join('');
    const cwd = await workspace({
      'a.yaml': `adAccountId: 1234\nimages:\n${images('a')}audiences: []\n`,
      'b.yaml': `adAccountId: 5678\nimages:\n${images('b')}audiences: []\n`,
    });
    const applied = await runCli(['apply', '-f', 'a.yaml', '-f', 'b.yaml', '--auto-approve'], { cwd, env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const lock = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as { images: object };
    expect(Object.keys(lock.images).sort()).toEqual([...named('a', 3), ...named('b', 3)]);
    const again = await runCli(['plan', '-f', 'a.yaml', '-f', 'b.yaml', '--detailed-exitcode'], { cwd, env });
    expect(again.code, again.stdout).toBe(0);
  });
});

describe('the apply lock is per account', () => {
  it('two applies of different accounts from one folder run at once, and both land', async () => {
    await setFaults(emulator, { latencyMs: 150 });
    const cwd = await workspace({ 'a.yaml': file(1234, named('a', 3)), 'b.yaml': file(5678, named('b', 3)) });
    const runs = await Promise.all(
      ['a.yaml', 'b.yaml'].map((name) => runCli(['apply', '-f', name, '--auto-approve'], { cwd, env })),
    );
    for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(runs[0]?.stdout).toContain('Apply complete for ad account 1234: 3 done, 0 failed, 0 skipped.');
    expect(runs[1]?.stdout).toContain('Apply complete for ad account 5678: 3 done, 0 failed, 0 skipped.');
    // At the same time: each one's first request came before the other's last.
    const { a, b } = byAccount(await requestLog());
    expect(a[0]?.seq ?? 0).toBeLessThan(b.at(-1)?.seq ?? 0);
    expect(b[0]?.seq ?? 0).toBeLessThan(a.at(-1)?.seq ?? 0);
    expect(await storedAudiences(emulator, 1234)).toHaveLength(3);
    expect(await storedAudiences(emulator, 5678)).toHaveLength(3);
  });

  it('an apply of an account another apply holds is refused, naming it, and changes no account of its files', async () => {
    const cwd = await workspace({ 'a.yaml': file(1234, named('a', 2)), 'b.yaml': file(5678, named('b', 2)) });
    const release = await takeApplyLocks(cwd, [5678]);
    try {
      const refused = await runCli(['apply', '-f', 'a.yaml', '-f', 'b.yaml', '--auto-approve'], { cwd, env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'error[APPLY_LOCKED]: another apply of ad account 5678 is running in this folder (it holds .audiences/apply-5678.lock)',
      );
      // Refused before anything was read: no request at all, and the lock it took of the other account let go.
      expect(await requestLog()).toEqual([]);
      await expect(stat(join(cwd, applyLockPath(1234)))).rejects.toThrow(/ENOENT/);
      const alone = await runCli(['apply', '-f', 'a.yaml', '--auto-approve'], { cwd, env });
      expect(alone.code, alone.stderr).toBe(0);
    } finally {
      await release();
    }
    const both = await runCli(['apply', '-f', 'a.yaml', '-f', 'b.yaml', '--auto-approve'], { cwd, env });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain('Apply complete for ad account 5678: 2 done, 0 failed, 0 skipped.');
  });

  it.each([
    {
      head: 'names another account (a quoted name in a flow-style file continues on a line `adAccountId: 1234`)',
      text: (first: string) =>
        `{adAccountId: 5678, audiences: [{type: DISPLAY, name: "${first}\nadAccountId: 1234\nsale"}]}\n`,
    },
    {
      head: 'names none (its `adAccountId:` line is past the 64 KiB looked at)',
      text: (first: string) => `${'# padding\n'.repeat(7000)}${file(5678, [`"${first} adAccountId: 1234 sale"`])}`,
    },
  ])("a file whose head $head is applied to its own account, under that account's lock", async ({ text }) => {
    const cwd = await workspace({});
    // Whether the account the head names is locked by another apply or free, the file's own is the one locked.
    for (const held of [true, false]) {
      await writeFile(join(cwd, 'odd.yaml'), text(held ? 'held' : 'free'));
      await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
      const other = held ? await takeApplyLocks(cwd, [1234]) : undefined;
      const run = await runCli(['apply', '-f', 'odd.yaml', '--auto-approve'], { cwd, env }).finally(other);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('Apply complete for ad account 5678: 1 done, 0 failed, 0 skipped.');
      const { a, b } = byAccount(await requestLog());
      expect(a.filter((entry) => entry.method !== 'GET')).toEqual([]);
      expect(b.filter((entry) => entry.method === 'POST')).toHaveLength(1);
      for (const account of [1234, 5678])
        await expect(stat(join(cwd, applyLockPath(account)))).rejects.toThrow(/ENOENT/);
    }
    expect((await storedAudiences(emulator, 5678)).map((audience) => audience.name).sort()).toEqual([
      'free adAccountId: 1234 sale',
      'held adAccountId: 1234 sale',
    ]);
    expect(await storedAudiences(emulator, 1234)).toEqual([]);
  });

  it("the lock of the account a file's head names is let go when the files name more or other accounts, or are invalid", async () => {
    const cwd = await workspace({
      'a.yaml': file(1234, ['a-0']),
      // Flow style: no `adAccountId:` line heads these, so only a.yaml's account (or none) is locked early.
      'b.yaml': '{adAccountId: 5678, audiences: [{type: DISPLAY, name: b-0}]}\n',
      'c.yaml': '{adAccountId: 5678, audiences: [{type: DISPLAY, name: "c-0\nadAccountId: 1234\nsale"}]}\n',
      'bad.yaml': 'adAccountId: 1234\naudiences:\n  - name: bad\n    type: NOPE\n',
    });
    // In this process, so that a lock left held is not let go by the command's exit, and the next apply meets it.
    for (const [files, code] of [
      [['a.yaml', 'b.yaml'], 0],
      [['c.yaml'], 0],
      [['bad.yaml'], 1],
    ] as const) {
      const run = await runInProcess(['apply', ...files.flatMap((name) => ['-f', name]), '--auto-approve'], {
        cwd,
        env,
      });
      expect(run.code, files.join() + run.stdout + run.stderr).toBe(code);
      expect(run.stderr, files.join()).not.toContain('APPLY_LOCKED');
      await (
        await takeApplyLocks(cwd, [1234, 5678])
      )();
    }
    expect((await storedAudiences(emulator, 5678)).map((audience) => audience.name).sort()).toEqual([
      'b-0',
      'c-0 adAccountId: 1234 sale',
    ]);
    expect((await storedAudiences(emulator, 1234)).map((audience) => audience.name)).toEqual(['a-0']);
  });
});
