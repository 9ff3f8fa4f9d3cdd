import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lowerBoundMs, phaseOf } from '../scripts/bench/bound.mjs';
import { runBench, type BenchEntry } from '../scripts/bench/core.mjs';

const N = 20;
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
      coldStart: { runs: 1, validateSizes: [N] },
      offlineSize: 100,
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
        'transport-floor-creates',
        'naive-sequential-read',
        'apply-10pct-updates',
        'apply-creates',
        'cold-start-node',
        'cold-start-help',
        'cold-start-validate',
        'plan-offline',
      ]),
    );
    for (const entry of results) {
      expect(entry, entry.name).toMatchObject({ name: expect.any(String), n: expect.any(Number), requests: expect.any(Number), ok: true });
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

  it('measures the transport floor on the requests of the plan with no changes, and of the apply of creates', () => {
    for (const [runName, floorName] of [
      ['plan-no-change', 'transport-floor'],
      ['apply-creates', 'transport-floor-creates'],
    ]) {
      const run = results.find((entry) => entry.name === runName);
      const floor = results.find((entry) => entry.name === floorName);
      expect(floor?.byPhase, floorName).toEqual(run?.byPhase);
      expect(run?.overFloor, runName).toBe(Math.round(((run?.wallMs as number) / (floor?.wallMs as number)) * 100) / 100);
    }
  });

  it('reads ad groups only for the audiences that declare them or change', () => {
    const tenth = N / 10;
    expect(results.find((entry) => entry.name === 'plan-10pct-ad-groups')?.requests).toBe(1 + N + tenth);
    expect(results.find((entry) => entry.name === 'plan-10pct-changed')?.byPhase).toMatchObject({ list: 1, read: N, linkRead: tenth });
  });

  it('never reports a wall time below the lower bound of the requests it counted', () => {
    for (const entry of results.filter((candidate) => candidate.lowerBoundMs !== null)) {
      expect(entry.lowerBoundMs, entry.name).toBeGreaterThan(0);
      expect(entry.wallMs, entry.name).toBeGreaterThanOrEqual(entry.lowerBoundMs as number);
    }
  });
});
