/**
 * Runs one measured child process: wall time from spawn to exit as the parent sees it, and
 * the child's own CPU time and peak memory (see rusage-hook.mjs).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(ROOT, 'bin', 'audiences.js');
const HOOK = fileURLToPath(new URL('rusage-hook.mjs', import.meta.url));

/**
 * Runs `node <args>` in `cwd` with `env` added to this process's environment.
 * Resolves to { code, stdout, stderr, wallMs, cpuMs, peakRssMb, startedAt, endedAt }, the
 * last two in epoch milliseconds (to line the run up with the emulator's request log).
 */
export async function measureNode(args, { cwd = ROOT, env = {} } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'audiences-bench-rusage-'));
  const usageFile = join(dir, 'usage.json');
  try {
    const startedAt = Date.now();
    const start = performance.now();
    const child = spawn(process.execPath, ['--import', HOOK, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...env, BENCH_RUSAGE_FILE: usageFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    const code = await new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (exitCode, signal) => resolve(exitCode ?? `signal ${signal}`));
    });
    const wallMs = performance.now() - start;
    const endedAt = Date.now();
    const usage = JSON.parse(await readFile(usageFile, 'utf8'));
    return {
      code,
      stdout: Buffer.concat(stdout).toString('utf8'),
      stderr: Buffer.concat(stderr).toString('utf8'),
      wallMs,
      cpuMs: (usage.userUs + usage.systemUs) / 1000,
      peakRssMb: usage.maxRssKb / 1024,
      startedAt,
      endedAt,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the real command line, `bin/audiences.js <args>`. */
export function measureCli(args, options) {
  return measureNode([CLI, ...args], options);
}

/**
 * Runs several `node <args>` at once (each of `argsList`), as one run: wall time from the first spawn to the last exit,
 * CPU summed, peak memory the largest; `code` the first non-zero one, stdout and stderr each process's in turn.
 */
export async function measureNodes(argsList, options) {
  const startedAt = Date.now();
  const start = performance.now();
  const runs = await Promise.all(argsList.map((args) => measureNode(args, options)));
  const wallMs = performance.now() - start;
  return {
    code: runs.find((run) => run.code !== 0)?.code ?? 0,
    stdout: runs.map((run) => run.stdout).join(''),
    stderr: runs.map((run) => run.stderr).join(''),
    wallMs,
    cpuMs: runs.reduce((sum, run) => sum + run.cpuMs, 0),
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
    startedAt,
    endedAt: Date.now(),
  };
}
