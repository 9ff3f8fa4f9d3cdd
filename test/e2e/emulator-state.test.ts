import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
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
  const state = JSON.parse(await readFile(join(cwd, '.audiences', 'emulator-state.json'), 'utf8')) as { audiences: Array<{ name: string }> };
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
      headers: { authorization: `Bearer ${server.accessToken}`, adAccountId: '1234', 'content-type': 'application/json' },
      body: JSON.stringify({ adAccountId: 1234, name: 'from-server', type: 'DISPLAY', ageType: 'ALL', genderType: 'ALL', locationType: 'ALL' }),
    });
    const applies = [startCli(['apply', '--emulator', '--auto-approve', '-f', 'a.yaml'], cwd), startCli(['apply', '--emulator', '--auto-approve', '-f', 'b.yaml'], cwd)];
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

    const expected = ['from-server', ...Array.from({ length: 10 }, (_, index) => [`team-a-${String(index).padStart(2, '0')}`, `team-b-${String(index).padStart(2, '0')}`]).flat()].sort();
    expect(await storedNames(cwd)).toEqual(expected);
    for (const name of ['a.yaml', 'b.yaml']) expect((await runCli(['plan', '--emulator', '--detailed-exitcode', '-f', name], { cwd })).code).toBe(0);
    expect(await readdir(join(cwd, '.audiences'))).toEqual(['emulator-state.json']);
  });

  it('a plan and an import started beside an apply wait too, and write back no state that misses the apply', async () => {
    const cwd = await workspace({ 'audiences.yaml': file('kept') });
    expect((await runCli(['plan', '--emulator'], { cwd })).code).toBe(0);
    const server = await startEmulator({ statePath: join(cwd, '.audiences', 'emulator-state.json') });
    const commands = [startCli(['plan', '--emulator'], cwd), startCli(['apply', '--emulator', '--auto-approve'], cwd), startCli(['import', '--emulator', '--ad-account', '1234'], cwd)];
    try {
      await Promise.all(commands.map((command) => command.waiting));
    } finally {
      await server.close();
    }
    const results = await Promise.all(commands.map((command) => command.done));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    expect(results[1]?.stdout).toContain('Apply complete for ad account 1234: 10 done, 0 failed, 0 skipped.');
    expect(await storedNames(cwd)).toEqual(Array.from({ length: 10 }, (_, index) => `kept-${String(index).padStart(2, '0')}`));
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

/** The pid of a process that has exited. */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}
