import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalEmulator } from '../operations/connection.js';
import { seedState } from './seed.js';
import { StateFileBusyError, startEmulator } from './server.js';
import type { RunningEmulator } from './server.js';
import { storedAudience } from '../../test/helpers/builders.js';
import { openStore, type StoredAudience } from './store.js';

/** Persistence: atomic writes, restarts, corrupt files, concurrent changes. */
let dir: string;
let statePath: string;
const running: RunningEmulator[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'emulator-store-'));
  statePath = join(dir, 'nested', 'state.json');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(path = statePath): Promise<RunningEmulator> {
  const emulator = await startEmulator({ statePath: path });
  running.push(emulator);
  return emulator;
}

async function stop(emulator: RunningEmulator): Promise<void> {
  running.splice(running.indexOf(emulator), 1);
  await emulator.close();
}

function headers(emulator: RunningEmulator): Record<string, string> {
  return { authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234', 'content-type': 'application/json' };
}

async function createAudience(emulator: RunningEmulator, name: string): Promise<{ status: number; id: number }> {
  const response = await fetch(`${emulator.url}/openapi/v4/targetings`, {
    method: 'POST',
    headers: headers(emulator),
    body: JSON.stringify({
      adAccountId: 1234,
      name,
      type: 'DISPLAY',
      ageType: 'ALL',
      genderType: 'ALL',
      locationType: 'ALL',
    }),
  });
  const body = (await response.json()) as { id: number };
  return { status: response.status, id: body.id };
}

async function listNames(emulator: RunningEmulator): Promise<string[]> {
  const response = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, { headers: headers(emulator) });
  const body = (await response.json()) as { content: Array<{ name: string }> };
  return body.content.map((item) => item.name);
}

describe('state file', () => {
  it('writes the seed on first start and keeps changes across a restart', async () => {
    const first = await start();
    const seeded = JSON.parse(await readFile(statePath, 'utf8'));
    expect(seeded.version).toBe(2);
    const created = await createAudience(first, 'survivor');
    await fetch(`${first.url}/_emulator/links`, {
      method: 'POST',
      body: JSON.stringify({ adAccountId: 1234, audienceId: created.id, adGroupId: 101 }),
    });
    await stop(first);

    const second = await start();
    expect(await listNames(second)).toEqual(['survivor']);
    const adGroups = await fetch(`${second.url}/openapi/v4/targetings/${created.id}/adGroups`, {
      headers: headers(second),
    });
    expect(((await adGroups.json()) as { content: unknown[] }).content).toHaveLength(1);
    // Ids continue after a restart instead of starting over.
    expect((await createAudience(second, 'next')).id).toBe(created.id + 1);
  });

  it('reads a state file of version 1 (ids as numbers) with every id kept, and writes it back as version 2', async () => {
    const seeded = seedState();
    const v1 = {
      ...seeded,
      version: 1,
      nextAudienceId: 100003,
      campaigns: seeded.campaigns.map((campaign) => ({ ...campaign, id: Number(campaign.id) })),
      adGroups: seeded.adGroups.map((adGroup) => ({
        ...adGroup,
        id: Number(adGroup.id),
        campaignId: Number(adGroup.campaignId),
      })),
      audiences: [{ ...storedAudience('100002', 'kept'), id: 100002 }],
      links: [{ audienceId: 100002, adGroupId: 101 }],
    };
    await mkdir(join(dir, 'nested'));
    await writeFile(statePath, JSON.stringify(v1));
    const emulator = await start();
    expect(await listNames(emulator)).toEqual(['kept']);
    const adGroups = await fetch(`${emulator.url}/openapi/v4/targetings/100002/adGroups`, {
      headers: headers(emulator),
    });
    expect(
      ((await adGroups.json()) as { content: Array<{ adGroupId: number }> }).content.map((entry) => entry.adGroupId),
    ).toEqual([101]);
    expect((await createAudience(emulator, 'next')).id).toBe(100003);
    await stop(emulator);
    const written = JSON.parse(await readFile(statePath, 'utf8'));
    expect(written).toMatchObject({
      version: 2,
      nextAudienceId: '100004',
      links: [{ audienceId: '100002', adGroupId: '101' }],
    });
  });

  it('keeps state in memory when no path is given: a new emulator starts from the seed', async () => {
    const memory = await startEmulator();
    await createAudience(memory, 'gone');
    await memory.close();
    const again = await startEmulator();
    expect(await listNames(again)).toEqual([]);
    await again.close();
  });

  it('refuses a corrupt state file with an error naming the file, and leaves the file as it was', async () => {
    const path = join(dir, 'corrupt.json');
    await writeFile(path, '{"version": 1, "accou');
    await expect(startEmulator({ statePath: path })).rejects.toThrow(path);
    expect(await readFile(path, 'utf8')).toBe('{"version": 1, "accou');
  });

  it('refuses a JSON file that is not a state', async () => {
    const path = join(dir, 'other.json');
    await writeFile(path, JSON.stringify({ version: 1, nextAudienceId: 1, accounts: 'none' }));
    await expect(startEmulator({ statePath: path })).rejects.toThrow(/other\.json.*accounts/);
    await writeFile(path, '[]');
    await expect(startEmulator({ statePath: path })).rejects.toThrow(/corrupt/);
  });

  it('handles 100 concurrent creates: 100 distinct ids and a valid state file afterwards', async () => {
    const emulator = await start();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, index) => createAudience(emulator, `bulk-${index}`)),
    );
    expect(results.every((result) => result.status === 200)).toBe(true);
    expect(new Set(results.map((result) => result.id)).size).toBe(100);
    // Every answer came after its write, so the file already holds all of them.
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    expect(state.audiences).toHaveLength(100);
    expect(new Set(state.audiences.map((audience: { id: string }) => audience.id))).toEqual(
      new Set(results.map((result) => String(result.id))),
    );
    expect((await readdir(join(dir, 'nested'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a state that cannot be written', () => {
  /**
   * Makes every write of the state fail: the file becomes a folder that is not empty, so renaming a write over it fails
   * (root too).
   */
  async function blockWrites(): Promise<() => Promise<void>> {
    await rm(statePath);
    await mkdir(join(statePath, 'in-the-way'), { recursive: true });
    return () => rm(statePath, { recursive: true });
  }

  it('fails the change with 500 (8004) saying why, undoes it in memory, and gives its id out once', async () => {
    const emulator = await start();
    const kept = await createAudience(emulator, 'kept');
    const unblock = await blockWrites();
    const response = await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'POST',
      headers: headers(emulator),
      body: JSON.stringify({
        adAccountId: 1234,
        name: 'lost',
        type: 'DISPLAY',
        ageType: 'ALL',
        genderType: 'ALL',
        locationType: 'ALL',
      }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      code: -500,
      msg: 'internal server error',
      extras: {
        detailCode: 8004,
        detailMsg: expect.stringMatching(
          new RegExp(`^the emulator could not store its state in ${statePath}: EISDIR.*; the change was not made$`),
        ),
      },
    });
    // Nothing a list or a retry could find and call done.
    expect(await listNames(emulator)).toEqual(['kept']);
    const seen = (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as {
      audiences: unknown[];
      nextAudienceId: string;
    };
    expect(seen.audiences).toHaveLength(1);
    expect(seen.nextAudienceId).toBe(String(kept.id + 1));

    await unblock();
    const after = await createAudience(emulator, 'after');
    expect(after).toEqual({ status: 200, id: kept.id + 1 });
    await stop(emulator);
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    expect(state.audiences.map((audience: { name: string }) => audience.name)).toEqual(['kept', 'after']);
    expect((await readdir(join(dir, 'nested'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('fails every change of a burst whose writes fail, the ones queued behind the failed write too, and keeps none of them', async () => {
    const emulator = await start();
    const kept = await createAudience(emulator, 'kept');
    const unblock = await blockWrites();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) => createAudience(emulator, `burst-${index}`)),
    );
    expect(results.map((result) => result.status)).toEqual(Array.from({ length: 30 }, () => 500));
    expect(await listNames(emulator)).toEqual(['kept']);
    await unblock();
    expect(await createAudience(emulator, 'after')).toEqual({ status: 200, id: kept.id + 1 });
    await stop(emulator);
    expect(
      JSON.parse(await readFile(statePath, 'utf8')).audiences.map((audience: { name: string }) => audience.name),
    ).toEqual(['kept', 'after']);
  });

  it('fails the write queued behind a failed one too, though the disk has room again: its changes were made on the state put back', async () => {
    let failFirst: (error: Error) => void = () => undefined;
    let writes = 0;
    const store = await openStore(statePath, seedState, {}, async (path, text) => {
      writes += 1;
      // The seed's write, then one that hangs until the test fails it; the others succeed.
      if (writes === 2) await new Promise<void>((_, reject) => (failFirst = reject));
      await writeFile(path, text);
    });
    try {
      // Only the id and the name matter to the file; the rest of an audience is the service's.
      const audience = (name: string): StoredAudience => {
        const id = store.state.nextAudienceId;
        store.state.nextAudienceId = String(Number(id) + 1);
        return storedAudience(id, name);
      };
      const seeded = seedState();
      store.state.audiences.push(audience('a'));
      const first = store.persist();
      await new Promise((resolve) => setImmediate(resolve)); // the first write has begun
      store.state.audiences.push(audience('b'));
      const second = store.persist();
      failFirst(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      await expect(first).rejects.toThrow(
        `the emulator could not store its state in ${statePath}: ENOSPC: no space left on device, write`,
      );
      await expect(second).rejects.toThrow(/ENOSPC/);
      expect(store.state.audiences).toEqual([]);
      expect(store.state.nextAudienceId).toBe(seeded.nextAudienceId);

      store.state.audiences.push(audience('c'));
      await store.persist();
      const file = JSON.parse(await readFile(statePath, 'utf8')) as { audiences: Array<{ id: string; name: string }> };
      expect(file.audiences.map((stored) => [stored.id, stored.name])).toEqual([[seeded.nextAudienceId, 'c']]);
    } finally {
      await store.close();
    }
  });

  it('does not reset when the reset cannot be stored', async () => {
    const emulator = await start();
    await createAudience(emulator, 'kept');
    const unblock = await blockWrites();
    expect((await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' })).status).toBe(500);
    expect(await listNames(emulator)).toEqual(['kept']);
    await unblock();
  });
});

describe('one emulator per state file', () => {
  it('makes a second one wait for the first to close, then load every change the first made', async () => {
    const first = await start();
    await createAudience(first, 'from-first');
    let waiting: () => void = () => undefined;
    const waited = new Promise<void>((resolve) => (waiting = resolve));
    const opening = startEmulator({ statePath, onStateWait: () => waiting() });
    await waited;
    // The second has not read the file yet: what the first still does is not lost.
    await createAudience(first, 'from-first-later');
    await stop(first);
    const second = await opening;
    running.push(second);
    await createAudience(second, 'from-second');
    await stop(second);
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    expect(state.audiences.map((audience: { name: string }) => audience.name)).toEqual([
      'from-first',
      'from-first-later',
      'from-second',
    ]);
  });

  it('stops one that may not wait with an error naming the file, writes nothing, and lets the file go once closed', async () => {
    const first = await start();
    await createAudience(first, 'kept');
    const before = await readFile(statePath, 'utf8');
    const refused = await startEmulator({ statePath, stateWaitMs: 0 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StateFileBusyError);
    expect((refused as Error).message).toBe(
      `another process is using the emulator state file ${statePath} (it holds ${statePath}.lock)`,
    );
    expect(await readFile(statePath, 'utf8')).toBe(before);
    // What the command line reports: the code, and what to do.
    await expect(startLocalEmulator({ statePath, stateWaitMs: 0 })).rejects.toMatchObject({
      code: 'EMULATOR_BUSY',
      hint: expect.stringContaining('let the other command finish'),
    });
    await stop(first);
    const next = await start();
    expect(await listNames(next)).toEqual(['kept']);
    await stop(next);
    // Closed, it leaves the file alone: no lock, no temporary file.
    expect(await readdir(join(dir, 'nested'))).toEqual(['state.json']);
  });

  it("removes a write left by a process that is gone (or by an earlier one with this process's pid), never one of a living process", async () => {
    const dead = await exitedPid();
    const living = process.ppid;
    const folder = join(dir, 'nested');
    await mkdir(folder, { recursive: true });
    const files = {
      dead: `state.json.${dead}.3.tmp`,
      mine: `state.json.${process.pid}.1.tmp`,
      living: `state.json.${living}.2.tmp`,
      otherFile: `other.json.${dead}.1.tmp`,
      notAWrite: `state.json.${dead}.tmp`,
    };
    for (const name of Object.values(files)) await writeFile(join(folder, name), '{"half": ');
    const emulator = await start();
    expect((await readdir(folder)).sort()).toEqual(
      [files.living, files.notAWrite, files.otherFile, 'state.json', 'state.json.lock'].sort(),
    );
    await stop(emulator);
  });
});

/** The pid of a process that has exited. */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}
