import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorCommand } from '../cli/commands/emulator.js';
import type { Io } from '../cli/io.js';
import { main } from '../cli/main.js';

/** `audiences emulator`: serves, prints the environment, stops cleanly on a signal. */
function captureIo(): Io & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    isTTY: false,
    stdinIsTTY: false,
    readLine: async () => null,
    env: {},
    cwd: process.cwd(),
  };
}

const defaults = {
  emulator: false,
  concurrency: 8,
  color: false,
  verbose: false,
  debug: false,
  _: ['emulator'],
  $0: 'audiences',
  port: 0,
  latency: 0,
  jitter: 0,
  faultRate: 0,
  faultKinds: '5xx,429,reset',
  faultSeed: 1,
  rateLimit: 0,
  quotaStatus: 429,
  quotaRetryAfter: true,
  memberIds: 'catalog',
  listShape: 'whole',
  pageSize: 20,
  quirks: false,
};

async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('timed out');
}

describe('audiences emulator', () => {
  it('prints the URL and the environment, serves until SIGTERM, then persists and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'emulator-command-'));
    const statePath = join(dir, 'state.json');
    try {
      const io = captureIo();
      const running = emulatorCommand.run({ ...defaults, state: statePath }, io);
      const url = await waitFor(() => /ADS_API_URL=(\S+)/.exec(io.out.join(''))?.[1]);
      const printed = io.out.join('');
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(printed).toContain(`ADS_COMPANY_URL=${url}`);
      expect(printed).toContain(`IMAGEGEN_API_URL=${url}`);
      expect(printed).toContain('ADS_ACCESS_TOKEN=emulator-access-token');
      expect(printed).toContain('IMAGEGEN_API_KEY=emulator-app-key');
      const response = await fetch(`${url}/openapi/v4/targetings/audiences`, {
        headers: { authorization: 'Bearer emulator-access-token', adAccountId: '1234' },
      });
      expect(await response.json()).toEqual({ content: [] });
      process.emit('SIGTERM', 'SIGTERM');
      expect(await running).toBe(0);
      await expect(fetch(`${url}/_emulator/state`)).rejects.toThrow();
      expect(JSON.parse(await readFile(statePath, 'utf8')).version).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves an account seeded from a file: its audiences listed, its links made (--seed)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'emulator-command-'));
    try {
      await writeFile(
        join(dir, 'seed.yaml'),
        'adAccountId: 5678\naudiences:\n  - name: seeded\n    type: DISPLAY\n    adGroups: [201]\n',
      );
      const io = { ...captureIo(), cwd: dir };
      const running = emulatorCommand.run({ ...defaults, seed: ['seed.yaml'], seedOnly: false }, io);
      const url = await waitFor(() => /ADS_API_URL=(\S+)/.exec(io.out.join(''))?.[1]);
      expect(io.err.join('')).toBe(
        'Seeded ad account 5678 from seed.yaml: 1 audience, 1 link: seeded (id 100001, ad groups 201).\n',
      );
      const headers = { authorization: 'Bearer emulator-access-token', adAccountId: '5678' };
      const listed = (await (await fetch(`${url}/openapi/v4/targetings/audiences`, { headers })).json()) as {
        content: Array<{ name: string }>;
      };
      expect(listed.content.map((audience) => audience.name)).toEqual(['seeded']);
      const adGroups = (await (await fetch(`${url}/openapi/v4/targetings/100001/adGroups`, { headers })).json()) as {
        content: Array<{ adGroupId: number }>;
      };
      expect(adGroups.content.map((adGroup) => adGroup.adGroupId)).toEqual([201]);
      process.emit('SIGTERM', 'SIGTERM');
      expect(await running).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('passes fault options through and refuses an unknown fault kind', async () => {
    const io = captureIo();
    const running = emulatorCommand.run({ ...defaults, faultRate: 1, faultKinds: '429' }, io);
    const url = await waitFor(() => /ADS_API_URL=(\S+)/.exec(io.out.join(''))?.[1]);
    const response = await fetch(`${url}/openapi/v4/targetings/audiences`, {
      headers: { authorization: 'Bearer emulator-access-token', adAccountId: '1234' },
    });
    expect(response.status).toBe(429);
    process.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(0);

    for (const [args, expected] of [
      [['--fault-kinds', '5xx,timeout'], 'error[USAGE]: unknown fault kinds: timeout\n  hint: use 5xx, 429 and reset'],
      [['--fault-rate', '1.5'], 'error[USAGE]: --fault-rate must be a number from 0 to 1\n  hint: '],
      [['--port', 'x'], 'error[USAGE]: --port must be an integer from 0 to 65535\n  hint: '],
    ] as const) {
      const bad = captureIo();
      expect(await main(['emulator', ...args], bad)).toBe(1);
      expect(bad.err.join('')).toContain(expected);
    }
  });
});

describe('audiences emulator: quota spelling and member ids', () => {
  it('takes --quota-status, --no-quota-retry-after and --member-ids from the command line', async () => {
    const io = captureIo();
    const args = [
      'emulator',
      '--fault-rate',
      '1',
      '--fault-kinds',
      '429',
      '--quota-status',
      '400',
      '--no-quota-retry-after',
      '--member-ids',
      'number',
    ];
    const running = main(args, io);
    const url = await waitFor(() => /ADS_API_URL=(\S+)/.exec(io.out.join(''))?.[1]);
    const settings = await (await fetch(`${url}/_emulator/faults`)).json();
    expect(settings).toMatchObject({ quotaStatus: 400, quotaRetryAfter: false, memberIds: 'number' });
    const response = await fetch(`${url}/openapi/v4/targetings/audiences`, {
      headers: { authorization: 'Bearer emulator-access-token', adAccountId: '1234' },
    });
    expect(response.status).toBe(400);
    expect(response.headers.has('retry-after')).toBe(false);
    expect(await response.json()).toMatchObject({ code: -10, msg: 'allowed request count exceeded' });
    process.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(0);
  });

  it('takes --list-shape and --page-size from the command line, for both lists', async () => {
    const io = captureIo();
    const running = main(['emulator', '--list-shape', 'paged', '--page-size', '3'], io);
    const url = await waitFor(() => /ADS_API_URL=(\S+)/.exec(io.out.join(''))?.[1]);
    expect(await (await fetch(`${url}/_emulator/faults`)).json()).toMatchObject({
      audienceListShape: 'paged',
      adGroupListShape: 'paged',
      pageSize: 3,
    });
    const response = await fetch(`${url}/openapi/v4/targetings/audiences`, {
      headers: { authorization: 'Bearer emulator-access-token', adAccountId: '1234' },
    });
    expect(await response.json()).toMatchObject({ content: [], size: 3, number: 0, last: true });
    process.emit('SIGINT', 'SIGINT');
    expect(await running).toBe(0);
  });

  it('refuses a quota status, a member-id spelling, a list shape or a page size it does not know', async () => {
    for (const [args, named] of [
      [['--quota-status', '401'], 'quota-status'],
      [['--member-ids', 'hex'], 'member-ids'],
      [['--list-shape', 'pages'], 'list-shape'],
      [['--page-size', '0'], 'page-size'],
    ] as const) {
      const bad = captureIo();
      expect(await main(['emulator', ...args], bad)).toBe(1);
      expect(bad.err.join('')).toMatch(/^error\[USAGE\]: /);
      expect(bad.err.join('')).toContain(named);
    }
  });
});

describe('audiences emulator on a busy port', () => {
  it('says the port is in use instead of failing as a bug', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(emulatorCommand.run({ ...defaults, port }, captureIo())).rejects.toMatchObject({
        code: 'PORT_IN_USE',
      });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
