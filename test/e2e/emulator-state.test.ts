import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { runCli, workspace, type CliResult } from '../helpers/cli.js';

/**
 * The embedded emulator's state (.audiences/emulator-state.json) shared by commands that run at
 * once: each waits for the one before, so no change is lost and every summary is true.
 */

const bin = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));
const WAITING = "Waiting for another command that uses the emulator's state (.audiences/emulator-state.json)";

function file(prefix: string): string {
  const names = Array.from({ length: 10 }, (_, index) => `${prefix}-${String(index).padStart(2, '0')}`);
  return `adAccountId: 1234\naudiences:\n${names.map((name) => `  - name: ${name}\n    type: DISPLAY\n`).join('')}`;
}

/** Starts the built command; `waiting` resolves once it says it waits for the emulator's state. */
function startCli(args: string[], cwd: string): { waiting: Promise<void>; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  let waited: (error?: Error) => void = () => undefined;
  const waiting = new Promise<void>((resolve, reject) => (waited = (error) => (error ? reject(error) : resolve())));
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.includes(WAITING)) waited();
  });
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      // Settles `waiting` too (a second settling is ignored), so a command that ended without waiting fails the test.
      waited(new Error(`ended without waiting: ${stderr}`));
      resolve({ code: code ?? 1, stdout, stderr });
    }),
  );
  return { waiting, done };
}

async function storedNames(cwd: string): Promise<string[]> {
  const state = JSON.parse(await readFile(join(cwd, '.audiences', 'emulator-state.json'), 'utf8')) as {
    audiences: Array<{ name: string }>;
  };
  return state.audiences.map((audience) => audience.name).sort();
}

describe('commands sharing the embedded emulator', () => {
  it('two --emulator applies at once, of different files in one folder, each wait their turn: both report what they did and the state keeps both', async () => {
    const cwd = await workspace({ 'a.yaml': file('team-a'), 'b.yaml': file('team-b') });
    // An emulator serving the same state file (as `audiences emulator --state` would) holds it
    // first, so both applies are certain to start while the state is in use, and both wait.
    const server = await startEmulator({ statePath: join(cwd, '.audiences', 'emulator-state.json') });
    await fetch(`${server.url}/openapi/v4/targetings`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        adAccountId: 1234,
        name: 'from-server',
        type: 'DISPLAY',
        ageType: 'ALL',
        genderType: 'ALL',
        locationType: 'ALL',
      }),
    });
    const applies = [
      startCli(['apply', '--emulator', '--auto-approve', '-f', 'a.yaml'], cwd),
      startCli(['apply', '--emulator', '--auto-approve', '-f', 'b.yaml'], cwd),
    ];
    try {
      await Promise.all(applies.map((apply) => apply.waiting));
    } finally {
      await server.close();
    }
    const [a, b] = await Promise.all(applies.map((apply) => apply.done));
    for (const result of [a, b]) {
      expect(result?.code, result?.stdout + (result?.stderr ?? '')).toBe(0);
      expect(result?.stdout).toContain('Plan: 10 to create, 0 to update, 0 to delete, 0 to unlink.');
      expect(result?.stdout).toContain('Apply complete for ad account 1234: 10 done, 0 failed, 0 skipped.');
      expect(result?.stderr).not.toContain('APPLY_LOCKED');
    }

    const expected = [
      'from-server',
      ...Array.from({ length: 10 }, (_, index) => [
        `team-a-${String(index).padStart(2, '0')}`,
        `team-b-${String(index).padStart(2, '0')}`,
      ]).flat(),
    ].sort();
    expect(await storedNames(cwd)).toEqual(expected);
    for (const name of ['a.yaml', 'b.yaml'])
      expect((await runCli(['plan', '--emulator', '--detailed-exitcode', '-f', name], { cwd })).code).toBe(0);
    expect(await readdir(join(cwd, '.audiences'))).toEqual(['emulator-state.json']);
  });

  it('a plan and an import started beside an apply wait too, and write back no state that misses the apply', async () => {
    const cwd = await workspace({ 'audiences.yaml': file('kept') });
    expect((await runCli(['plan', '--emulator'], { cwd })).code).toBe(0);
    const server = await startEmulator({ statePath: join(cwd, '.audiences', 'emulator-state.json') });
    const commands = [
      startCli(['plan', '--emulator'], cwd),
      startCli(['apply', '--emulator', '--auto-approve'], cwd),
      startCli(['import', '--emulator', '--ad-account', '1234'], cwd),
    ];
    try {
      await Promise.all(commands.map((command) => command.waiting));
    } finally {
      await server.close();
    }
    const results = await Promise.all(commands.map((command) => command.done));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    expect(results[1]?.stdout).toContain('Apply complete for ad account 1234: 10 done, 0 failed, 0 skipped.');
    expect(await storedNames(cwd)).toEqual(
      Array.from({ length: 10 }, (_, index) => `kept-${String(index).padStart(2, '0')}`),
    );
  });

  it('removes a write left by a killed command (its process gone), and keeps one of a living process', async () => {
    const dead = await exitedPid();
    const living = `emulator-state.json.${process.pid}.1.tmp`;
    const cwd = await workspace({
      'audiences.yaml': file('after-kill'),
      [`.audiences/emulator-state.json.${dead}.4.tmp`]: '{"version": 1, "acc',
      [`.audiences/${living}`]: '{"version": 1, "acc',
    });
    const plan = await runCli(['plan', '--emulator'], { cwd });
    expect(plan.code, plan.stderr).toBe(0);
    expect((await readdir(join(cwd, '.audiences'))).sort()).toEqual(['emulator-state.json', living]);
  });
});

describe('the embedded emulator on a disk that takes no more writes', () => {
  it('never reports a change it could not store as done or verified, and its state holds exactly what the apply reported done', async () => {
    const names = Array.from({ length: 100 }, (_, index) => `full-${String(index).padStart(3, '0')}`);
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n${names.map((name) => `  - { name: ${name}, type: DISPLAY }\n`).join('')}`,
    });
    const state = join(cwd, '.audiences', 'emulator-state.json');
    const kept = join(cwd, 'last-stored.json');
    const apply = startCli(['apply', '--emulator', '--auto-approve', '--concurrency', '1'], cwd);
    apply.waiting.catch(() => undefined); // it has no other command to wait for
    // Once a create is stored, writes start failing: the state file is moved aside (it is the last
    // state stored) and a folder that is not empty takes its place, so no write can be renamed
    // over it (root included). A write that lands meanwhile is moved aside too: it is newer.
    for (;;) {
      const text = await readFile(state, 'utf8').catch(() => '');
      if ((text.match(/"name": "full-/g) ?? []).length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (;;) {
      await rename(state, kept);
      const blocked = await mkdir(state).then(
        () => true,
        (error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? false : Promise.reject(error)),
      );
      if (blocked) break;
    }
    await mkdir(join(state, 'in-the-way'));
    const result = await apply.done;

    expect(result.code).toBe(1);
    const done = [...result.stderr.matchAll(/^ok {6}create audience "(full-\d+)" \(id (\d+)\)$/gm)].map(
      ([, name, id]) => [name, id],
    );
    const notDone = [...result.stderr.matchAll(/^(?:failed|UNKNOWN) +create audience "(full-\d+)"/gm)].map(
      ([, name]) => name,
    );
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(done.length + notDone.length).toBe(100);
    expect(result.stderr).not.toMatch(/^verified/m);
    expect(result.stderr).toContain('the emulator could not store its state in');
    expect(result.stdout).toMatch(new RegExp(`Apply incomplete for ad account 1234: ${done.length} done, `));
    const stored = JSON.parse(await readFile(kept, 'utf8')) as { audiences: Array<{ id: number; name: string }> };
    expect(stored.audiences.map((audience) => [audience.name, audience.id])).toEqual(done);

    // With room again, the next apply makes exactly the others, each with an id of its own.
    await rm(state, { recursive: true });
    await rename(kept, state);
    const again = await runCli(['apply', '--emulator', '--auto-approve'], { cwd });
    expect(again.stdout).toContain(`Plan: ${notDone.length} to create, 0 to update, 0 to delete, 0 to unlink.`);
    expect(again.code).toBe(0);
    const ids = (JSON.parse(await readFile(state, 'utf8')) as { audiences: Array<{ id: number }> }).audiences.map(
      (audience) => audience.id,
    );
    expect(new Set(ids).size).toBe(100);
    expect((await stat(state)).isFile()).toBe(true);
  });
});

/** The pid of a process that has exited. */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}
