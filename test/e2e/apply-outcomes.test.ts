/**
 * "An apply that never lies": each change ends as done, done and verified after a lost answer,
 * failed (the service refused it), unknown (the answer was lost and looking could not settle
 * it) or not started; the summary counts each apart and names the verified and unknown ones,
 * and the next plan holds exactly the changes not done (an unknown one, either way). The real
 * command runs against the emulator behind a scripted proxy that loses chosen answers, before
 * or after the service acted, so each outcome comes up on a change known in advance.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { startProxy, type Proxy, type ProxyAction } from '../api/support.js';
import { definition } from '../helpers/builders.js';
import { emulatorEnv, runInProcess, workspace } from '../helpers/cli.js';
import { connectClient, linkAdGroup, storedAudiences, type LiveClient } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;
let live: LiveClient;
let proxy: Proxy;
/** What the proxy does with each request, set by the test. */
let decide: (request: string, body: string) => ProxyAction;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
  live = connectClient(emulator);
  decide = () => 'pass';
  proxy = await startProxy(emulator.url, (request, _index, body) => decide(request, body));
});
afterEach(async () => {
  await proxy.close();
  await live.close();
  await emulator.close();
});

const file = `adAccountId: 1234
prune: true
audiences:
  - name: keep-1
    type: DISPLAY
    genders: [F]
${['new-1', 'new-2', 'new-3', 'new-4', 'new-5', 'new-6'].map((name) => `  - name: ${name}\n    type: DISPLAY\n`).join('')}`;

/** The changes of a plan as its text lists them ("+ create audience "x""), sorted. */
function plannedChanges(text: string): string[] {
  return [...text.matchAll(/^\s*[-+~] (create|update|delete|unlink) .*$/gm)].map((match) => match[0].trim()).sort();
}

describe('an apply whose answers are lost', () => {
  it('says of each change how it ended; the counts add up, and the next plan holds what was not done', async () => {
    // The account: keep-1 is updated, old-1 (in use by ad group 101) and old-2 are pruned.
    const keep = await live.client.create(definition({ name: 'keep-1' }));
    const old1 = await live.client.create(definition({ name: 'old-1' }));
    const old2 = await live.client.create(definition({ name: 'old-2' }));
    await linkAdGroup(emulator, old1.id, 101);

    // Each create's first POST (by the name it sends) meets what is chosen for it.
    const firstPost: Record<string, ProxyAction> = {
      'new-1': '500-after', // made, its answer lost: the list finds it
      'new-2': 'reset-before', // not made: the list finds nothing, it is sent again
      'new-4': '500-after', // made, and the list that would tell is refused: unknown
      'new-5': 'reset-before', // not made, and the list that would tell is refused: unknown
      'new-6': 'refuse', // refused by the service: failed
    };
    const once: Array<[RegExp, ProxyAction]> = [
      [/^PUT \/openapi\/v4\/targetings$/, 'reset-after'], // the update is made, its answer lost: sent again
      [/^PUT .*\/unlink/, 'reset-after'], // the unlink is made, its answer lost: the retry finds it done (404)
      [/^DELETE \/openapi\/v4\/targetings\?audienceIds=/, '500-after'], // both deleted, the answer lost: the list finds them gone
    ];
    // The writes queue in the transport (one at a time, first come first served), so the lists
    // that settle the lost answers follow every first POST, in the order of the names: new-1's,
    // new-2's, new-4's, new-5's. The third and fourth are refused.
    let posted = false;
    let settlingLists = 0;
    decide = (request, body) => {
      if (request.startsWith('POST ')) {
        posted = true;
        const name = (JSON.parse(body) as { name: string }).name;
        const action = firstPost[name] ?? 'pass';
        delete firstPost[name];
        return action;
      }
      if (posted && request.startsWith('GET /openapi/v4/targetings/audiences')) {
        settlingLists += 1;
        return settlingLists === 3 || settlingLists === 4 ? 'refuse' : 'pass';
      }
      const index = once.findIndex(([pattern]) => pattern.test(request));
      return index < 0 ? 'pass' : (once.splice(index, 1)[0] as [RegExp, ProxyAction])[1];
    };

    const cwd = await workspace({ 'audiences.yaml': file });
    const applied = await runInProcess(['apply', '--auto-approve', '--concurrency', '1'], {
      cwd,
      env: { ...env, ADS_API_URL: proxy.url, ADS_COMPANY_URL: proxy.url },
    });
    const { stdout, stderr } = applied;

    expect(stdout).toContain('Plan: 6 to create, 1 to update, 2 to delete, 1 to unlink.');
    const summary =
      /Apply incomplete for ad account 1234: (\d+) done, (\d+) verified after a lost answer, (\d+) failed, (\d+) unknown, (\d+) skipped\./.exec(
        stdout,
      );
    expect(summary, stdout).not.toBeNull();
    const [done = 0, verified = 0, failed, unknown, skipped] = (summary ?? []).slice(1).map(Number);
    expect({ done, verified, failed, unknown, skipped }).toEqual({
      done: 1,
      verified: 6,
      failed: 1,
      unknown: 2,
      skipped: 0,
    });
    expect(applied.code).toBe(1);

    const stored = await storedAudiences(emulator);
    const idOf = (name: string) => stored.find((audience) => audience.name === name)?.id;
    const lost = String.raw`the answer was lost \(.+\)`;
    // One line per change as it finishes, saying how each verified one is known.
    for (const line of [
      String.raw`ok      update audience "keep-1" \(id ${keep.id}\): verified: ${lost}; the update was sent again, as an update safely can be, and answered`,
      String.raw`ok      unlink ad group 101 from audience "old-1" \(id ${old1.id}\): verified: ${lost}; sent again, the ad group no longer used the audience \(404\)`,
      String.raw`ok      delete audience "old-1" \(id ${old1.id}\): verified: the batch delete's answer was lost \(.+\); the account was listed and the audience was gone`,
      String.raw`ok      delete audience "old-2" \(id ${old2.id}\): verified: the batch delete's answer was lost \(.+\); the account was listed and the audience was gone`,
      String.raw`ok      create audience "new-1" \(id ${idOf('new-1')}\): verified: ${lost}; the account was listed and the audience was found \(id ${idOf('new-1')}\)`,
      String.raw`ok      create audience "new-2" \(id ${idOf('new-2')}\): verified: ${lost}; the account was listed and the audience was not there, so it was sent again and made`,
      String.raw`ok      create audience "new-3" \(id ${idOf('new-3')}\)$`,
      String.raw`UNKNOWN create audience "new-4": the outcome is unknown: the create of audience "new-4" may have been carried out, but its answer was lost \(.+\); listing the account to find out failed too: the audience API answered 403`,
      String.raw`UNKNOWN create audience "new-5": the outcome is unknown: the create of audience "new-5" may have been carried out`,
      String.raw`FAILED  create audience "new-6": the audience API answered 403 to POST /openapi/v4/targetings`,
    ]) {
      expect(stderr, line).toMatch(new RegExp(`^${line}`, 'm'));
    }
    // The summary names the verified ones, then what was not done.
    expect(stdout).toMatch(/Verified after a lost answer \(done\):\n( {2}.+\n){6}Not done:\n/);
    for (const name of ['keep-1', 'old-1', 'old-2', 'new-1', 'new-2'])
      expect(stdout).toMatch(
        new RegExp(`^  \\w+ (ad group 101 from )?audience "${name}".*: (the|the batch delete's) answer was lost`, 'm'),
      );
    expect(stdout).toMatch(/^ {2}create audience "new-4": unknown, the outcome is unknown/m);
    expect(stdout).toMatch(/^ {2}create audience "new-6": failed, the audience API answered 403/m);
    expect(stdout).toContain('Whether the changes marked unknown were made, `audiences plan` shows');

    // The account as the summary says: no audience twice; new-4 was made, new-5 and new-6 not.
    const names = stored.map((audience) => audience.name).sort();
    expect(names).toEqual(['keep-1', 'new-1', 'new-2', 'new-3', 'new-4']);

    // Done + the next plan = the applied plan: the next plan creates exactly the changes not done
    // (new-6 failed; new-5, unknown, was not made; new-4, unknown, was).
    const next = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(next.stdout).toContain('Plan: 2 to create, 0 to update, 0 to delete, 0 to unlink.');
    expect(plannedChanges(next.stdout)).toEqual(['+ create audience "new-5"', '+ create audience "new-6"']);
    expect(done + verified + plannedChanges(next.stdout).length + 1).toBe(10);

    const rerun = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(rerun.stdout).toContain('Apply complete for ad account 1234: 2 done, 0 failed, 0 skipped.');
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual([
      'keep-1',
      'new-1',
      'new-2',
      'new-3',
      'new-4',
      'new-5',
      'new-6',
    ]);
  });
});
