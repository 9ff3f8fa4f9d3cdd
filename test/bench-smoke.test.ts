import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStages, lowerBoundMs, phaseOf, stagesOf } from '../scripts/bench/bound.mjs';
import { runBench, type BenchEntry } from '../scripts/bench/core.mjs';
import { renderMarkdown } from '../scripts/bench/markdown.mjs';
import { FLOORED_RUNS, label, renderTargets } from '../scripts/bench/table.mjs';

const N = 20;
/** Enough creates to go over the limit within its first second (at 1 ms a request), few enough to end in about 2 s. */
const QUOTA = { creates: 40, rateLimit: 20 };
const round2 = (value: number) => Math.round(value * 100) / 100;
/** Each plan and apply at N = 20 is measured this many times, each with its floor. */
const REPEAT = 2;
/** The runs over many accounts: this many, N audiences each, and QUOTA.creates / 2 created in each. */
const ACCOUNTS = 2;
const REQUIRED = ['wallMs', 'lowerBoundMs', 'ratio', 'cpuMs', 'peakRssMb'] as const;

describe('the lower bound of a run', () => {
  it('sorts requests into the phases of a plan and an apply', () => {
    expect(phaseOf({ method: 'GET', path: '/openapi/v4/targetings/audiences' })).toBe('list');
    expect(phaseOf({ method: 'GET', path: '/openapi/v4/targetings/100001' })).toBe('read');
    expect(phaseOf({ method: 'GET', path: '/openapi/v4/targetings/100001/adGroups' })).toBe('linkRead');
    expect(phaseOf({ method: 'PUT', path: '/openapi/v4/targetings/100001/unlink?adGroupId=101' })).toBe('unlink');
    expect(phaseOf({ method: 'POST', path: '/openapi/v4/targetings' })).toBe('write');
    expect(phaseOf({ method: 'PUT', path: '/openapi/v4/targetings' })).toBe('write');
    expect(phaseOf({ method: 'DELETE', path: '/openapi/v4/targetings?audienceIds=1,2' })).toBe('delete');
    expect(phaseOf({ method: 'GET', path: '/openapi/v1/companies?bizNum=120-81-47521' })).toBe('other');
  });

  it('charges each dependent stage ceil(requests / concurrency) latencies, and each list one', () => {
    // 1 list, 1000 reads, 100 link reads at 8 in flight and 20 ms: 20 + 138·20 (the link reads overlap the reads).
    expect(lowerBoundMs({ list: 1, read: 1000, linkRead: 100 }, { concurrency: 8, latencyMs: 20 })).toBe(20 + 2760);
    // 100 reads and 10 link reads fill 14 rounds of 8 together, not 13 + 2 one after the other.
    expect(lowerBoundMs({ list: 1, read: 100, linkRead: 10 }, { concurrency: 8, latencyMs: 20 })).toBe(20 + 14 * 20);
    // An apply that lists again after writing pays for the second list on the critical path too.
    expect(lowerBoundMs({ list: 2, read: 9, write: 8 }, { concurrency: 8, latencyMs: 10 })).toBe(20 + 20 + 10);
  });

  it('cuts a run into the stages a floor replays: each list alone, reads with link reads, then each other phase', () => {
    const get = (path: string) => ({ method: 'GET', path: `/openapi/v4/targetings${path}` });
    const write = { method: 'PUT', path: '/openapi/v4/targetings' };
    const log = [
      get('/audiences'),
      get('/1'),
      get('/2'),
      get('/1/adGroups'),
      get('/3'),
      write,
      write,
      get('/audiences'),
      get('/audiences'),
    ];
    const stages = stagesOf(log);
    expect(stages.map((stage) => stage.length)).toEqual([1, 4, 2, 1, 1]);
    expect(stages.flat()).toEqual(log);
    expect(describeStages(stages)).toEqual(['list 1', 'read+linkRead 4', 'write 2', 'list 1', 'list 1']);
  });
});

describe('the targets', () => {
  const run = (name: string, fields: Record<string, unknown>) => ({
    name,
    n: 1000,
    requests: 0,
    wallMs: 1000,
    lowerBoundMs: null,
    ratio: null,
    cpuMs: null,
    peakRssMb: null,
    ok: true,
    ...fields,
  });
  const verdict = (text: string, label: string) =>
    text
      .split('\n')
      .find((line) => line.includes(label))
      ?.match(/^ {2}\[([^\]]+)\]/)?.[1];

  it('hold each plan and apply to 1.1x its floor, a quota run to 1.15x creates / R (told the rate: 1.05x its floor paced alike) with no failed change, cold starts to an empty node + 40 / 150 ms', () => {
    // The wall times decide, not the figures rounded to two places: 1104 ms over a floor of 1000 is 1.1 shown, and
    // missed; a run exactly on its target (11,500 ms for 500 writes at 50/s) is met.
    const overFloor = [1100, 1104, 1050, 1200, 1000];
    const quota = (
      rateLimit: number,
      quotaStatus: number,
      requestsPerSecond: number | null,
      wallMs: number,
      failed: number,
      floors: { even: number; window: number } | undefined = undefined,
    ) => [
      run('apply-quota', {
        n: 500,
        rateLimit,
        quotaStatus,
        requestsPerSecond,
        wallMs,
        quotaMs: (1000 * 500) / rateLimit,
        ratio: Math.round((wallMs * rateLimit) / 5000) / 100,
        refused: 0,
        failed,
        ...(floors
          ? {
              overFloor: Math.round((wallMs / floors.even) * 100) / 100,
              overWindowFloor: Math.round((wallMs / floors.window) * 100) / 100,
            }
          : {}),
      }),
      ...(floors
        ? (['even', 'window'] as const).map((pacing) =>
            run('transport-floor', {
              n: 500,
              floorOf: 'apply-quota',
              rateLimit,
              quotaStatus,
              requestsPerSecond,
              pacing,
              wallMs: floors[pacing],
            }),
          )
        : []),
    ];
    const text = renderTargets([
      ...FLOORED_RUNS.flatMap((name, index) => [
        run(name, { wallMs: overFloor[index], overFloor: Math.round((overFloor[index] ?? 0) / 10) / 100 }),
        run('transport-floor', { floorOf: name, wallMs: 1000 }),
      ]),
      ...quota(50, 429, null, 11500, 0),
      // 1.005 over 500/R, 1.04 over its floor: met.
      ...quota(10, 429, 10, 50270, 0, { even: 48_337, window: 47_000 }),
      // 1.054 over 500/R, 1.06 over its floor: missed.
      ...quota(50, 429, 50, 10539, 0, { even: 9942, window: 9500 }),
      ...quota(50, 400, null, 11000, 1),
      run('cold-start-node', { n: 0, wallMs: 100 }),
      run('cold-start-help', { n: 0, wallMs: 141 }),
      run('cold-start-validate', { n: 100, wallMs: 250 }),
    ]);
    expect(FLOORED_RUNS.map((name) => verdict(text, `${name}, N = 1000`))).toEqual([
      'met',
      'MISSED',
      'met',
      'MISSED',
      'met',
    ]);
    expect(verdict(text, 'N = 5000')).toBe('not measured');
    expect(verdict(text, 'limited to 50/s (429, no Retry-After), no rate given: wall <= 1.15x')).toBe('met');
    expect(verdict(text, 'limited to 10/s (429, no Retry-After), --requests-per-second 10: wall <= 1.05x')).toBe('met');
    expect(text).toContain(
      '1.040 (50270 ms, the floor 48337 ms), 0 refused, 0 failed; 1.01x 500/R, 1.07x the floor paced to the window (47000 ms)',
    );
    expect(verdict(text, 'limited to 50/s (429, no Retry-After), --requests-per-second 50: wall <= 1.05x')).toBe(
      'MISSED',
    );
    expect(verdict(text, 'limited to 50/s (400, no Retry-After)')).toBe('MISSED');
    expect(verdict(text, '`audiences --help` cold start <= an empty node + 40 ms')).toBe('MISSED');
    expect(verdict(text, '`validate` of 100 audiences cold start <= an empty node + 150 ms')).toBe('met');
    // In the tables, a run that found its rate alone has no floor, though one told the same rate has.
    const quotaRows = renderMarkdown([
      ...quota(10, 429, null, 54_000, 0),
      ...quota(10, 429, 10, 50270, 0, { even: 48_337, window: 47_000 }),
    ])
      .split('\n')
      .filter((line) => line.startsWith('| 10 |'));
    expect(quotaRows).toEqual([
      '| 10 | 429 | no | 500 | 54000 | 50000 | 1.08 | — | — | — | — | 0 | 0 |',
      '| 10 | 429 | --requests-per-second 10 | 500 | 50270 | 50000 | 1.01 | 48337 | 1.04 | 47000 | 1.07 | 0 | 0 |',
    ]);
  });

  it("hold a plan with no latency to 1.25x its floor at N = 5000, the time to the first request at N = 10,000 to the floor's + 100 ms, and the runs over many accounts to 1.15x their floor with no failed change", () => {
    const withFloor = (name: string, fields: Record<string, unknown>, floorFields: Record<string, unknown>) => [
      run(name, fields),
      run('transport-floor', { floorOf: name, n: fields['n'], ...floorFields }),
    ];
    const first = (ms: number) => ({ beforeFirstRequestMs: ms });
    const text = renderTargets([
      // 1.24 and 1.30 over their floors: the higher of the two is the median, missed.
      ...withFloor(
        'plan-no-latency',
        { n: 5000, wallMs: 2480, overFloor: 1.24, repetition: 0 },
        { wallMs: 2000, repetition: 0 },
      ),
      ...withFloor(
        'plan-no-latency',
        { n: 5000, wallMs: 2600, overFloor: 1.3, repetition: 1 },
        { wallMs: 2000, repetition: 1 },
      ),
      // The first request 100 ms after the floor's: met.
      ...withFloor(
        'plan-no-latency',
        { n: 10_000, wallMs: 5000, overFloor: 1.2, timeline: first(190) },
        { wallMs: 4000, timeline: first(90) },
      ),
      ...withFloor(
        'plan-accounts',
        { n: 5000, accounts: 10, wallMs: 3400, overFloor: 1.13 },
        { accounts: 10, wallMs: 3000 },
      ),
      ...withFloor(
        'apply-accounts',
        {
          n: 1000,
          accounts: 10,
          wallMs: 3000,
          overFloor: 1.0,
          requestsPerSecond: 50,
          rateLimit: 50,
          refused: 0,
          failed: 1,
        },
        { accounts: 10, wallMs: 3000, requestsPerSecond: 50, rateLimit: 50, pacing: 'even' },
      ),
    ]);
    expect(verdict(text, 'no latency, N = 5000')).toBe('MISSED');
    expect(text).toContain('median of 2 1.300 (2600 ms, the floor 2000 ms); all 1.240, 1.300');
    expect(verdict(text, 'time to the first request, plan of 10000')).toBe('met');
    expect(text).toContain('+100 ms (190 against 90)');
    expect(verdict(text, 'plan, 10 accounts, 500 audiences each')).toBe('met');
    expect(verdict(text, 'apply, 10 accounts, 100 creates each at 50 writes/s')).toBe('MISSED');
  });

  it('hold a run measured several times to the median of its pairs, each run over the floor of its own repetition', () => {
    const repeated = (name: string, walls: number[], floors: number[]) =>
      walls.flatMap((wallMs, repetition) => [
        run(name, { wallMs, overFloor: Math.round((wallMs / (floors[repetition] ?? 1)) * 100) / 100, repetition }),
        run('transport-floor', { floorOf: name, wallMs: floors[repetition], repetition }),
      ]);
    // Each over its floor paced alike, of its own repetition: 1.056, 1.049, 1.048.
    const paced = (wallMs: number, repetition: number) => {
      const settings = { n: 500, rateLimit: 50, quotaStatus: 429, requestsPerSecond: 50, repetition };
      return [
        run('apply-quota', {
          ...settings,
          wallMs,
          quotaMs: 10_000,
          overFloor: Math.round((wallMs / 10_000) * 100) / 100,
          refused: 0,
          failed: 0,
        }),
        run('transport-floor', { ...settings, floorOf: 'apply-quota', pacing: 'even', wallMs: 10_000 }),
      ];
    };
    const text = renderTargets([
      // 1.05, 1.12, 1.08 (each over its own floor; over the first floor alone the median would be 1.12).
      ...repeated('plan-no-change', [1050, 1232, 1296], [1000, 1100, 1200]),
      // 1.12, 1.11, 1.05: the median misses.
      ...repeated('apply-creates', [1120, 1110, 1050], [1000, 1000, 1000]),
      // 1.12 and 1.08: of an even count, the higher of the middle two.
      ...repeated('plan-10pct-changed', [1120, 1080], [1000, 1000]),
      ...paced(10_560, 0),
      ...paced(10_490, 1),
      ...paced(10_480, 2),
    ]);
    expect(verdict(text, 'plan-no-change, N = 1000')).toBe('met');
    expect(text).toContain('median of 3 1.080 (1296 ms, the floor 1200 ms); all 1.050, 1.120, 1.080');
    expect(verdict(text, 'apply-creates, N = 1000')).toBe('MISSED');
    expect(verdict(text, 'plan-10pct-changed, N = 1000')).toBe('MISSED');
    expect(verdict(text, '--requests-per-second 50: wall <= 1.05x')).toBe('met');
    expect(text).toContain('median of 3 1.049 (10490 ms, the floor 10000 ms), 0 refused, 0 failed');
    // The tables of bench/NOTES.md show the run the target was held to.
    const rows = renderMarkdown([
      ...repeated('plan-no-change', [1050, 1232, 1296], [1000, 1100, 1200]),
      ...paced(10_560, 0),
      ...paced(10_490, 1),
      ...paced(10_480, 2),
    ])
      .split('\n')
      .filter((line) => line.startsWith('| plan, no changes') || line.startsWith('| 50 |'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('| 1296 | 1200 |');
    expect(rows[1]).toContain('| 10490 |');
  });
});

describe('npm run bench, on a tiny account', () => {
  let dir: string;
  let results: BenchEntry[];
  let written: unknown;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-smoke-'));
    const outFile = join(dir, 'results.json');
    results = await runBench({
      sizes: [N],
      latencyMs: 1,
      concurrency: 8,
      naiveSizes: [N],
      quota: {
        creates: QUOTA.creates,
        runs: [
          { rateLimit: QUOTA.rateLimit, quotaStatus: 429, paced: false },
          { rateLimit: QUOTA.rateLimit, quotaStatus: 400, paced: true },
        ],
      },
      noLatencySizes: [N],
      accounts: { count: ACCOUNTS, audiences: N, creates: QUOTA.creates / 2, rateLimit: QUOTA.rateLimit },
      coldStart: { runs: 1, validateSizes: [N] },
      offlineSize: 100,
      repeat: REPEAT,
      outFile,
    });
    written = JSON.parse(await readFile(outFile, 'utf8'));
  }, 180_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every run to results.json with the required fields', () => {
    expect(written).toEqual(results);
    expect(results.map((entry) => entry.name)).toEqual(
      expect.arrayContaining([
        'plan-no-change',
        'plan-10pct-changed',
        'plan-10pct-ad-groups',
        'transport-floor',
        'naive-sequential-read',
        'apply-10pct-updates',
        'apply-creates',
        'apply-quota',
        'plan-no-latency',
        'plan-accounts',
        'apply-accounts',
        'cold-start-node',
        'cold-start-help',
        'cold-start-validate',
        'cold-start-validate-uncached',
        'plan-offline',
      ]),
    );
    for (const entry of results) {
      expect(entry, entry.name).toMatchObject({
        name: expect.any(String),
        n: expect.any(Number),
        requests: expect.any(Number),
        ok: true,
      });
      for (const field of REQUIRED) {
        expect(field in entry, `${entry.name}.${field}`).toBe(true);
        expect(entry[field] === null || typeof entry[field] === 'number', `${entry.name}.${field}`).toBe(true);
      }
    }
  });

  it('counts a plan with no changes as exactly one list and one read per managed audience', () => {
    const plan = results.find((entry) => entry.name === 'plan-no-change');
    expect(plan?.requests).toBe(1 + N);
    expect(plan?.byPhase).toMatchObject({ list: 1, read: N, linkRead: 0, write: 0 });
  });

  it("follows each plan and apply with its transport floor: the same requests in the same stages, and its wall time over the floor's", () => {
    const floors = results.filter(
      (entry) => entry.name === 'transport-floor' && FLOORED_RUNS.includes(entry.floorOf as string),
    );
    // Each run measured REPEAT times, each time followed by its own floor.
    expect(floors.map((floor) => [floor.floorOf, floor.repetition])).toEqual(
      FLOORED_RUNS.flatMap((name) => Array.from({ length: REPEAT }, (_, repetition) => [name, repetition])),
    );
    for (const name of FLOORED_RUNS) {
      for (let repetition = 0; repetition < REPEAT; repetition += 1) {
        const run = results.find((entry) => entry.name === name && entry.repetition === repetition);
        const floor = floors.find((entry) => entry.floorOf === name && entry.repetition === repetition);
        expect(floor?.n, name).toBe(run?.n);
        expect(floor?.byPhase, name).toEqual(run?.byPhase);
        expect(floor?.stages, name).toEqual(run?.stages);
        expect(run?.overFloor, name).toBe(round2((run?.wallMs as number) / (floor?.wallMs as number)));
      }
    }
    expect(results.find((entry) => entry.name === 'apply-10pct-updates')?.stages).toEqual([
      'list 1',
      `read+linkRead ${N + N / 10}`,
      `write ${N / 10}`,
      'list 1',
    ]);
  });

  it('applies creates under a rate limit on writes, with and without the rate given, and relates the wall time to accepted writes / R', () => {
    const quota = results.filter((entry) => entry.name === 'apply-quota');
    expect(quota.map((entry) => [entry.rateLimit, entry.quotaStatus, entry.requestsPerSecond])).toEqual([
      [QUOTA.rateLimit, 429, null],
      [QUOTA.rateLimit, 400, QUOTA.rateLimit],
    ]);
    for (const entry of quota) {
      expect(entry, String(entry.quotaStatus)).toMatchObject({
        n: QUOTA.creates,
        rateLimitScope: 'writes',
        quotaRetryAfter: false,
        accepted: QUOTA.creates,
        done: QUOTA.creates,
        failed: 0,
        skipped: 0,
      });
      const accepted = entry.accepted as number;
      expect(accepted + (entry.refused as number)).toBe(entry.byPhase?.write);
      expect(entry.quotaMs).toBe(Math.round((1000 * accepted) / QUOTA.rateLimit));
      expect(entry.ratio).toBe(round2((entry.wallMs as number) / ((1000 * accepted) / QUOTA.rateLimit)));
    }
    // Told nothing, the command goes faster than the limit at first: the emulator did refuse.
    expect(quota[0]?.refused).toBeGreaterThan(0);
  });

  it("gives a quota run told the rate two floors of its accepted requests, paced as the command paces them and to the limit's window", () => {
    const paced = results.filter((entry) => entry.name === 'apply-quota' && entry.requestsPerSecond !== null);
    expect(paced).toHaveLength(1);
    for (const entry of paced) {
      const floors = results.filter(
        (candidate) =>
          candidate.floorOf === 'apply-quota' &&
          candidate.rateLimit === entry.rateLimit &&
          candidate.quotaStatus === entry.quotaStatus,
      );
      expect(floors.map((floor) => floor.pacing)).toEqual(['even', 'window']);
      for (const floor of floors) {
        expect(floor, floor.pacing as string).toMatchObject({ ok: true, requestsPerSecond: QUOTA.rateLimit });
        // The accepted requests again (a refusal of the floor's own is made again at its next turn, not counted).
        expect((floor.byPhase?.write as number) - (floor.refused as number)).toBe(QUOTA.creates);
        expect(floor.byPhase?.list).toBe(entry.byPhase?.list);
      }
      expect(entry.overFloor).toBe(round2((entry.wallMs as number) / (floors[0]?.wallMs as number)));
      expect(entry.overWindowFloor).toBe(round2((entry.wallMs as number) / (floors[1]?.wallMs as number)));
    }
    // Told nothing, the run has no floor: its target is creates / R.
    const found = results.find((entry) => entry.name === 'apply-quota' && entry.requestsPerSecond === null);
    expect(found?.overFloor).toBeUndefined();
  });

  it("plans with no latency against a floor, and gives every floored run its time to the first request over the floor's", () => {
    const runs = results.filter((entry) => entry.name === 'plan-no-latency');
    expect(runs).toHaveLength(REPEAT);
    for (const entry of runs) {
      expect(entry).toMatchObject({ latencyMs: 0, n: N, requests: 1 + N, ok: true });
      const floor = results.find(
        (candidate) => candidate.floorOf === 'plan-no-latency' && candidate.repetition === entry.repetition,
      );
      const timeline = (candidate: BenchEntry | undefined) =>
        (candidate?.timeline as { beforeFirstRequestMs: number }).beforeFirstRequestMs;
      expect(entry.overFloor).toBe(round2((entry.wallMs as number) / (floor?.wallMs as number)));
      expect(entry.firstRequestOverFloorMs).toBe(Math.round(timeline(entry) - timeline(floor)));
    }
  });

  it('plans and applies several accounts in one command, each over one bare client per account at once', () => {
    const plan = results.filter((entry) => entry.name === 'plan-accounts');
    const apply = results.filter((entry) => entry.name === 'apply-accounts');
    expect(plan).toHaveLength(REPEAT);
    expect(apply).toHaveLength(REPEAT);
    for (const entry of plan)
      expect(entry).toMatchObject({
        accounts: ACCOUNTS,
        n: ACCOUNTS * N,
        byPhase: { list: ACCOUNTS, read: ACCOUNTS * N },
      });
    for (const entry of apply)
      expect(entry).toMatchObject({
        accounts: ACCOUNTS,
        n: ACCOUNTS * (QUOTA.creates / 2),
        accepted: ACCOUNTS * (QUOTA.creates / 2),
        done: ACCOUNTS * (QUOTA.creates / 2),
        failed: 0,
        requestsPerSecond: QUOTA.rateLimit,
      });
    for (const entry of [...plan, ...apply]) {
      const floor = results.find(
        (candidate) => candidate.floorOf === entry.name && candidate.repetition === entry.repetition,
      );
      expect(floor, entry.name).toMatchObject({ accounts: ACCOUNTS, ok: true, byPhase: { list: entry.byPhase?.list } });
      expect(entry.overFloor, entry.name).toBe(round2((entry.wallMs as number) / (floor?.wallMs as number)));
    }
    expect(label(plan[0] as BenchEntry)).toBe(`plan, ${ACCOUNTS} accounts`);
  });

  it('prints the tables of bench/NOTES.md from the results: each plan and apply with its floor (the run of its repetitions the target is held to), each quota run', () => {
    const rows = renderMarkdown(results)
      .split('\n')
      .filter((line) => line.startsWith('| '));
    for (const name of FLOORED_RUNS) {
      const shown = results
        .filter((entry) => entry.name === name)
        .filter((entry) =>
          rows.some((line) =>
            line.includes(
              ` | ${entry.wallMs} | ${results.find((floor) => floor.floorOf === name && floor.repetition === entry.repetition)?.wallMs} | ${entry.overFloor} |`,
            ),
          ),
        );
      expect(shown.length, name).toBeGreaterThanOrEqual(1);
    }
    expect(rows.filter((line) => line.startsWith('| plan, no changes |'))).toHaveLength(1);
    expect(
      rows.filter((line) => line.includes(`| ${QUOTA.creates} |`) && line.startsWith(`| ${QUOTA.rateLimit} |`)),
    ).toHaveLength(2);
  });

  it('relates the cold starts to an empty node process of the same run', () => {
    const emptyNode = results.find((entry) => entry.name === 'cold-start-node')?.wallMs as number;
    for (const name of ['cold-start-help', 'cold-start-validate', 'cold-start-validate-uncached']) {
      const entry = results.find((candidate) => candidate.name === name);
      expect(entry?.overNodeMs, name).toBe(Math.round((entry?.wallMs as number) - emptyNode));
    }
  });

  it('reads ad groups only for the audiences that declare them or change', () => {
    const tenth = N / 10;
    expect(results.find((entry) => entry.name === 'plan-10pct-ad-groups')?.requests).toBe(1 + N + tenth);
    expect(results.find((entry) => entry.name === 'plan-10pct-changed')?.byPhase).toMatchObject({
      list: 1,
      read: N,
      linkRead: tenth,
    });
  });

  it('never reports a wall time below the lower bound of the requests it counted', () => {
    for (const entry of results.filter((candidate) => candidate.lowerBoundMs !== null)) {
      expect(entry.lowerBoundMs, entry.name).toBeGreaterThan(0);
      expect(entry.wallMs, entry.name).toBeGreaterThanOrEqual(entry.lowerBoundMs as number);
    }
  });
});
