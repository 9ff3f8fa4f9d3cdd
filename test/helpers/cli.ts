import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AudienceClient } from '../../src/api/audiences.js';
import { textApplyView } from '../../src/cli/apply-view.js';
import { main } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';
import type { LoggedRequest } from '../../src/emulator/request-log.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server.js';
import { runApply } from '../../src/operations/run-apply.js';
import { plainStyle } from '../../src/render/index.js';
import { temporaryDir } from './temporary.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const bin = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));

/** The code caches of the command line (bin/audiences.js) the runs of a test file keep: theirs, not the user's. */
let cacheHome: Promise<string> | undefined;
function codeCacheHome(): Promise<string> {
  cacheHome ??= temporaryDir('audiences-code-cache-');
  return cacheHome;
}

/** Runs the built command (`bin/audiences.js`) as a child process. */
export async function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  const home = await codeCacheHome();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd: options.cwd,
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', XDG_CACHE_HOME: home, ...options.env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * Runs the CLI's `main` in this process with a scripted terminal (for prompts). An answer may
 * be a function, called when the prompt is read: it does what happens while the person reads.
 * `shown` is called with each text written to stdout, as it is written: what happens right as the command says it.
 */
export async function runInProcess(
  args: string[],
  options: {
    cwd: string;
    env: Record<string, string>;
    answers?: Array<string | (() => Promise<string>)>;
    tty?: boolean;
    shown?: (text: string) => void;
  },
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const answers = [...(options.answers ?? [])];
  const io: Io = {
    stdout: (text) => {
      stdout += text;
      options.shown?.(text);
    },
    stderr: (text) => void (stderr += text),
    isTTY: false,
    stdinIsTTY: options.tty ?? false,
    readLine: async () => {
      const answer = answers.shift();
      return typeof answer === 'function' ? answer() : (answer ?? null);
    },
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/**
 * Runs `apply --auto-approve` of the files in `cwd` in this process, through the given audience
 * client (a transport with the retry policy a test needs): what it printed, and its exit code.
 */
export async function applyThrough(cwd: string, client: AudienceClient): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runApply(
    { savedPlan: undefined, files: [], autoApprove: true, allowMassDelete: false },
    {
      view: textApplyView(
        {
          stdout: (text) => void (stdout += text),
          stderr: (text) => void (stderr += text),
          stdinIsTTY: false,
          readLine: async () => null,
        },
        plainStyle,
      ),
      cwd,
      client: () => client,
    },
  );
  return { code, stdout, stderr };
}

/** A fresh working directory holding the given files (removed after the test file: see temporary.ts). */
export async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await temporaryDir('audiences-test-');
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  return dir;
}

/** An emulator on a free loopback port, and the environment that points the CLI at it. */
export async function emulatorEnv(
  options: EmulatorOptions = {},
): Promise<{ emulator: RunningEmulator; env: Record<string, string> }> {
  const emulator = await startEmulator({ port: 0, ...options });
  const env = {
    ADS_API_URL: emulator.url,
    ADS_COMPANY_URL: emulator.url,
    IMAGEGEN_API_URL: emulator.url,
    ADS_ACCESS_TOKEN: emulator.accessToken,
    IMAGEGEN_API_KEY: emulator.appKey,
  };
  return { emulator, env };
}

/** Calls a test-only route of the emulator. */
export async function emulatorRoute(
  emulator: RunningEmulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

/** The requests the emulator logged after sequence number `after` (all of them by default), in order. */
export async function loggedRequests(emulator: RunningEmulator, after = 0): Promise<LoggedRequest[]> {
  const path = `/_emulator/requests?after=${after}`;
  return ((await emulatorRoute(emulator, 'GET', path)) as { requests: LoggedRequest[] }).requests;
}

/** The sequence number of the last request logged, so that what a command sends next can be told apart. */
export async function lastLoggedSeq(emulator: RunningEmulator): Promise<number> {
  return (await loggedRequests(emulator)).at(-1)?.seq ?? 0;
}
