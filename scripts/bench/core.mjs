/**
 * The benchmark itself, separate from its command line so a test can run it small.
 * `runBench(options)` runs every scenario, writes the results (an array, one entry per run)
 * to `options.outFile` and returns them. See scripts/bench.mjs for what the figures mean.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countPhases, lowerBoundMs, timeline } from './bound.mjs';
import { measureCli, measureNode } from './child.mjs';
import { startBenchEmulator } from './emulator.mjs';
import { BENCH_ACCOUNT_ID, audiencesYaml, isChanged, isLinked, liveAnswers } from './fixtures.mjs';

const here = (name) => fileURLToPath(new URL(name, import.meta.url));

export const FULL_OPTIONS = Object.freeze({
  sizes: [100, 1000, 5000],
  latencyMs: 20,
  concurrency: 8,
  /** The naive client is sequential, (1 + N) · latency by construction: 100 s at N = 5000. */
  naiveSizes: [100, 1000, 5000],
  coldStart: { runs: 7, validateSizes: [100, 10_000] },
  offlineSize: 10_000,
});

/**
 * `--quick` (under a minute): N = 100 and 1000, the naive baseline at N = 100 only (at 1000 it
 * alone would take 20 s), 3 cold starts of `--help` and `validate` of 100; the same file.
 */
export const QUICK_OPTIONS = Object.freeze({
  ...FULL_OPTIONS,
  sizes: [100, 1000],
  naiveSizes: [100],
  coldStart: { runs: 3, validateSizes: [100] },
});

const countOf = (n, predicate) => Array.from({ length: n }, (_, index) => index).filter(predicate).length;

export async function runBench(options) {
  const { sizes, latencyMs, concurrency, outFile } = options;
  const log = options.log ?? (() => undefined);
  const results = [];
  const record = (entry) => {
    const full = { ...entry, latencyMs: entry.latencyMs ?? null, concurrency: entry.concurrency ?? null, loadAvg1m: round(loadavg()[0] ?? 0, 2) };
    results.push(full);
    log(full);
    return full;
  };
  const work = await mkdtemp(join(tmpdir(), 'audiences-bench-'));
  const emulator = await startBenchEmulator({ latencyMs });
  const env = {
    ADS_API_URL: emulator.url,
    ADS_ACCESS_TOKEN: emulator.accessToken,
    BENCH_AD_ACCOUNT_ID: String(BENCH_ACCOUNT_ID),
    BENCH_CONCURRENCY: String(concurrency),
  };
  try {
    const help = await measureCli(['--help']);
    const applyAvailable = /^\s+audiences apply\b/m.test(help.stdout);
    if (!applyAvailable) log({ note: '`audiences apply` is not a command of this build: the apply runs are skipped' });

    // At most `concurrency` requests of at least `latencyMs` each are in flight, so the log
    // (2,000 entries) takes 2000 · latency / concurrency ms to fill: poll at half that, since
    // serializing the log costs the emulator time that would otherwise show in the figures.
    const pollIntervalMs = Math.max(100, Math.min(2000, (1000 * Math.max(latencyMs, 1)) / concurrency));

    /** One measured run of the CLI (or of `script`) with its requests counted from the log. */
    const networkRun = async (name, n, args, check, { script, runConcurrency = concurrency } = {}) => {
      const { result: run, requests } = await emulator.log.watch(
        () => (script ? measureNode([script, ...args], { cwd: work, env }) : measureCli([...args, '--concurrency', String(concurrency)], { cwd: work, env })),
        { intervalMs: pollIntervalMs },
      );
      const byPhase = countPhases(requests);
      const bound = lowerBoundMs(byPhase, { concurrency: runConcurrency, latencyMs });
      const failed = requests.filter((request) => request.status === 'reset' || request.status >= 400).length;
      let problem = run.code === 0 ? undefined : `exit code ${run.code}: ${run.stderr.trim().split('\n').slice(0, 3).join(' / ')}`;
      if (!problem && failed > 0) problem = `${failed} requests failed`;
      if (!problem) problem = await check(run, byPhase);
      return record({
        name,
        n,
        requests: requests.length,
        byPhase,
        wallMs: round(run.wallMs),
        lowerBoundMs: bound,
        ratio: bound > 0 ? round(run.wallMs / bound, 2) : null,
        cpuMs: round(run.cpuMs),
        peakRssMb: round(run.peakRssMb, 1),
        latencyMs,
        concurrency: runConcurrency,
        timeline: roundAll(timeline(requests, run)),
        ok: problem === undefined,
        ...(problem === undefined ? {} : { problem }),
      });
    };

    for (const n of sizes) {
      const dir = join(work, String(n));
      await mkdir(dir, { recursive: true });
      const file = (name, variant) => writeFile(join(dir, name), audiencesYaml(n, variant)).then(() => join(dir, name));
      const same = await file('same.yaml', {});
      const changed = await file('changed.yaml', { changed: true });
      const adGroups = await file('ad-groups.yaml', { adGroups: true });
      const changedCount = countOf(n, isChanged);
      const linkedCount = countOf(n, isLinked);

      await emulator.reset();
      await emulator.setLatency(0);
      await emulator.seed(n);
      await emulator.setLatency(latencyMs);

      const plan = (name, path, expected) =>
        networkRun(name, n, ['plan', '-f', path, '--format', 'json'], (run, byPhase) => {
          const summary = parsePlan(run.stdout)?.[0]?.summary;
          if (!summary) return 'the output is not a plan';
          const changes = Object.values(summary).reduce((sum, value) => sum + value, 0);
          if (summary.update !== expected.updates || changes !== expected.updates) return `expected ${expected.updates} updates, the plan has ${JSON.stringify(summary)}`;
          if (byPhase.linkRead !== expected.linkReads) return `expected ${expected.linkReads} link reads, counted ${byPhase.linkRead}`;
          return undefined;
        });

      const noChange = await plan('plan-no-change', same, { updates: 0, linkReads: 0 });
      const floor = await networkRun('transport-floor', n, ['reads'], (run) => (JSON.parse(run.stdout).read === n ? undefined : `read ${run.stdout.trim()}, expected ${n}`), {
        script: here('floor.mjs'),
      });
      noChange.overFloor = round(noChange.wallMs / floor.wallMs, 2);
      await plan('plan-10pct-changed', changed, { updates: changedCount, linkReads: changedCount });
      await plan('plan-10pct-ad-groups', adGroups, { updates: 0, linkReads: linkedCount });
      if (options.naiveSizes.includes(n)) {
        const naive = await networkRun('naive-sequential-read', n, [], (run) => (JSON.parse(run.stdout).read === n ? undefined : `read ${run.stdout.trim()}, expected ${n}`), {
          script: here('naive.mjs'),
          runConcurrency: 1,
        });
        noChange.speedupVsNaive = round(naive.wallMs / noChange.wallMs, 2);
        naive.speedupOfPlan = noChange.speedupVsNaive;
      }
      if (applyAvailable) {
        await networkRun('apply-10pct-updates', n, ['apply', '-f', changed, '--auto-approve'], (_run, byPhase) =>
          byPhase.write === changedCount ? undefined : `expected ${changedCount} updates, counted ${byPhase.write} writes`,
        );
        await emulator.reset();
        const creates = await networkRun('apply-creates', n, ['apply', '-f', same, '--auto-approve'], async (_run, byPhase) => {
          if (byPhase.write !== n) return `expected ${n} creates, counted ${byPhase.write} writes`;
          const count = await emulator.countAudiences();
          return count === n ? undefined : `the account has ${count} audiences after the apply, expected ${n}`;
        });
        await emulator.reset();
        const createsFloor = await networkRun(
          'transport-floor-creates',
          n,
          ['creates', String(n)],
          (run) => (JSON.parse(run.stdout).created === n ? undefined : `listed ${run.stdout.trim()} after creating, expected ${n}`),
          { script: here('floor.mjs') },
        );
        creates.overFloor = round(creates.wallMs / createsFloor.wallMs, 2);
      }
    }

    if (options.coldStart) {
      const { runs, validateSizes } = options.coldStart;
      // The floor under every figure below: a node process that does nothing.
      record(await coldStart('cold-start-node', 0, ['-e', ''], runs, work, measureNode));
      record(await coldStart('cold-start-help', 0, ['--help'], runs, work));
      for (const n of validateSizes) {
        const path = join(work, `validate-${n}.yaml`);
        await writeFile(path, audiencesYaml(n));
        record(await coldStart('cold-start-validate', n, ['validate', '-f', path], runs, work));
      }
    }

    if (options.offlineSize > 0) record(await offlinePlan(options.offlineSize, work));
  } finally {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  }
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

/** A fresh process each time (after one to warm the file cache, when there are several); the medians of `runs`. */
async function coldStart(name, n, args, runs, cwd, measure = measureCli) {
  if (runs > 1) await measure(args, { cwd });
  const samples = [];
  for (let run = 0; run < runs; run += 1) {
    const result = await measure(args, { cwd });
    if (result.code !== 0)
      return {
        name,
        n,
        requests: 0,
        wallMs: null,
        lowerBoundMs: null,
        ratio: null,
        cpuMs: null,
        peakRssMb: null,
        ok: false,
        problem: `exit code ${result.code}: ${result.stderr.trim().slice(0, 300)}`,
      };
    samples.push(result);
  }
  return {
    name,
    n,
    requests: 0,
    wallMs: round(median(samples.map((sample) => sample.wallMs))),
    lowerBoundMs: null,
    ratio: null,
    cpuMs: round(median(samples.map((sample) => sample.cpuMs))),
    peakRssMb: round(median(samples.map((sample) => sample.peakRssMb)), 1),
    runs,
    wallSamplesMs: samples.map((sample) => round(sample.wallMs)),
    ok: true,
  };
}

/** Planning `count` audiences with no network, in a process of its own (plan-cpu.mjs). */
async function offlinePlan(count, work) {
  const dir = join(work, `offline-${count}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'live.json'), JSON.stringify(await liveAnswers(count)));
  await writeFile(join(dir, 'audiences.yaml'), audiencesYaml(count, { changed: true }));
  const run = await measureNode([here('plan-cpu.mjs'), dir]);
  const base = { name: 'plan-offline', n: count, requests: 0, lowerBoundMs: null, ratio: null };
  if (run.code !== 0) return { ...base, wallMs: null, cpuMs: null, peakRssMb: null, ok: false, problem: run.stderr.trim().slice(0, 300) };
  const figures = JSON.parse(run.stdout);
  const expected = countOf(count, isChanged);
  const ok = figures.summary.update === expected && figures.errors === 0;
  return {
    ...base,
    wallMs: round(run.wallMs),
    cpuMs: round(figures.cpuMs),
    peakRssMb: round(figures.peakRssMb, 1),
    canonicalizeCpuMs: round(figures.canonicalizeCpuMs),
    planCpuMs: round(figures.planCpuMs),
    configCpuMs: round(figures.configCpuMs),
    processCpuMs: round(run.cpuMs),
    rssAfterStepMb: { config: round(figures.rssAfterConfigMb), canonicalize: round(figures.rssAfterCanonicalizeMb), plan: round(figures.rssAfterPlanMb) },
    ok,
    ...(ok ? {} : { problem: `expected ${expected} updates and no errors, got ${JSON.stringify(figures.summary)}, ${figures.errors} errors` }),
  };
}

function parsePlan(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function round(value, digits = 0) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function roundAll(value) {
  if (typeof value === 'number') return round(value, 1);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, roundAll(inner)]));
  return value;
}
