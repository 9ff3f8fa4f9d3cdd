/**
 * The benchmark itself, separate from its command line so a test can run it small.
 * `runBench(options)` runs every scenario, writes the results (an array, one entry per run)
 * to `options.outFile` and returns them. See scripts/bench.mjs for what the figures mean.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countPhases, describeStages, lowerBoundMs, phaseOf, samePhases, stagesOf, timeline } from './bound.mjs';
import { measureCli, measureNode } from './child.mjs';
import { startBenchEmulator } from './emulator.mjs';
import { BENCH_ACCOUNT_ID, audienceName, audiencesYaml, isChanged, isLinked, liveAnswers } from './fixtures.mjs';

const here = (name) => fileURLToPath(new URL(name, import.meta.url));

export const FULL_OPTIONS = Object.freeze({
  sizes: [100, 1000, 5000],
  latencyMs: 20,
  concurrency: 8,
  /** The naive client is sequential, (1 + N) · latency by construction: 100 s at N = 5000. */
  naiveSizes: [100, 1000, 5000],
  /**
   * Applies of `creates` audiences to a fresh account whose writes the emulator limits to
   * `rateLimit` a second, answering the excess with `quotaStatus` and no Retry-After; `paced`:
   * with `--requests-per-second rateLimit` (else the command finds the rate by itself).
   */
  quota: {
    creates: 500,
    runs: [
      { rateLimit: 10, quotaStatus: 429, paced: false },
      { rateLimit: 10, quotaStatus: 429, paced: true },
      { rateLimit: 50, quotaStatus: 429, paced: false },
      { rateLimit: 50, quotaStatus: 429, paced: true },
      { rateLimit: 50, quotaStatus: 400, paced: false },
    ],
  },
  coldStart: { runs: 7, validateSizes: [100, 10_000] },
  offlineSize: 10_000,
  /**
   * How many times each run of a few seconds is measured (see REPEATED_UP_TO_N); the targets are held to the median.
   */
  repeat: 3,
});

/**
 * The runs measured `repeat` times: each plan and apply of up to this many audiences, with its
 * floor each time, and each quota run at REPEATED_FROM_RATE writes a second or more (about ten
 * seconds each). One run moves by more than these targets' margins on a machine whose two
 * CPUs differ (bench/NOTES.md); the larger runs, at N = 5000 and R = 10, are measured once.
 */
const REPEATED_UP_TO_N = 1000;
const REPEATED_FROM_RATE = 50;

/**
 * `--quick` (about a minute): N = 1000 with its floors (no naive baseline: at 1000 it alone
 * would take 20 s), one quota run at R = 50, 3 cold starts of `--help` and `validate` of 100.
 */
export const QUICK_OPTIONS = Object.freeze({
  ...FULL_OPTIONS,
  sizes: [1000],
  naiveSizes: [],
  quota: { creates: 500, runs: [{ rateLimit: 50, quotaStatus: 429, paced: false }] },
  coldStart: { runs: 3, validateSizes: [100] },
  repeat: 1,
});

/** `measure(repetition)` for each of `times` repetitions, one after another; resolves to the first one's result. */
async function measureRepeatedly(times, measure) {
  let first;
  for (let repetition = 0; repetition < times; repetition += 1) {
    const measured = await measure(repetition);
    first ??= measured;
  }
  return first;
}

const countOf = (n, predicate) => Array.from({ length: n }, (_, index) => index).filter(predicate).length;

export async function runBench(options) {
  const { sizes, latencyMs, concurrency, outFile } = options;
  const log = options.log ?? (() => undefined);
  const results = [];
  const record = (entry) => {
    const full = {
      ...entry,
      latencyMs: entry.latencyMs ?? null,
      concurrency: entry.concurrency ?? null,
      loadAvg1m: round(loadavg()[0] ?? 0, 2),
    };
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

    /**
     * One measured run of the CLI (or of `script`) with its requests counted from the log.
     * `figures(run, requests)` adds fields of the run's own; `check(run, byPhase, figures, requests)`
     * says what is wrong with it, if anything. A quota answer of the emulator's rate limit is a
     * failed request unless `quota` (where they are the point, counted as `refused`).
     */
    const networkRun = async (
      name,
      n,
      args,
      check,
      { script, runConcurrency = concurrency, fields = {}, figures, quota = false } = {},
    ) => {
      const { result: run, requests } = await emulator.log.watch(
        () =>
          script
            ? measureNode([script, ...args], { cwd: work, env })
            : measureCli([...args, '--concurrency', String(concurrency)], { cwd: work, env }),
        { intervalMs: pollIntervalMs },
      );
      const byPhase = countPhases(requests);
      const bound = lowerBoundMs(byPhase, { concurrency: runConcurrency, latencyMs });
      const failed = requests.filter(
        (request) =>
          (request.status === 'reset' || request.status >= 400) && !(quota && request.fault === 'rate-limit'),
      ).length;
      const own = figures ? figures(run, requests) : {};
      let problem =
        run.code === 0 ? undefined : `exit code ${run.code}: ${run.stderr.trim().split('\n').slice(0, 3).join(' / ')}`;
      if (!problem && failed > 0) problem = `${failed} requests failed`;
      if (!problem) problem = await check(run, byPhase, own, requests);
      const entry = record({
        name,
        ...fields,
        n,
        requests: requests.length,
        byPhase,
        stages: describeStages(stagesOf(requests)),
        wallMs: round(run.wallMs),
        lowerBoundMs: bound,
        ratio: bound > 0 ? round(run.wallMs / bound, 2) : null,
        ...own,
        cpuMs: round(run.cpuMs),
        peakRssMb: round(run.peakRssMb, 1),
        latencyMs,
        concurrency: runConcurrency,
        timeline: roundAll(timeline(requests, run)),
        ok: problem === undefined,
        ...(problem === undefined ? {} : { problem }),
      });
      return { entry, requests };
    };

    /**
     * The run's requests again, in its stages, through a bare pool (floor.mjs), against the
     * state the run started from (`prepare` restores it when the run changed it); the run gets
     * `overFloor`. A floor that made other requests than its run fails both.
     */
    const floorRun = async ({ entry: run, requests }, { prepare, check = () => undefined } = {}) => {
      if (!run.ok) {
        run.overFloor = null;
        return;
      }
      const stages = stagesOf(requests).map((stage) =>
        stage.map(({ method, path, adAccountId, body }) => ({
          method,
          path,
          adAccountId,
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        })),
      );
      const file = join(work, `floor-${run.name}-${run.n}.json`);
      await writeFile(file, JSON.stringify(stages));
      if (prepare) await prepare();
      const { entry: floor } = await networkRun(
        'transport-floor',
        run.n,
        [file],
        async (out, byPhase, _own, replayed) => {
          if (JSON.parse(out.stdout).requests !== requests.length)
            return `replayed ${out.stdout.trim()}, expected ${requests.length} requests`;
          if (!samePhases(byPhase, run.byPhase))
            return `made other requests than ${run.name}: ${JSON.stringify(byPhase)} against ${JSON.stringify(run.byPhase)}`;
          const floorStages = describeStages(stagesOf(replayed));
          if (floorStages.join() !== run.stages.join())
            return `went through other stages than ${run.name}: ${floorStages.join(', ')} against ${run.stages.join(', ')}`;
          return check();
        },
        { script: here('floor.mjs'), fields: { floorOf: run.name, repetition: run.repetition } },
      );
      await rm(file, { force: true });
      if (floor.ok) {
        run.overFloor = round(run.wallMs / floor.wallMs, 2);
      } else {
        run.overFloor = null;
        run.ok = false;
        run.problem = `its transport floor failed: ${floor.problem}`;
      }
    };
    const expectAudiences = async (n) => {
      const names = await emulator.audienceNames();
      return names.length === n ? undefined : `the account has ${names.length} audiences, expected ${n}`;
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

      const seedAccount = async () => {
        await emulator.reset();
        await emulator.setLatency(0);
        await emulator.seed(n);
        await emulator.setLatency(latencyMs);
      };
      await seedAccount();
      const repeated = (measure) => measureRepeatedly(n <= REPEATED_UP_TO_N ? (options.repeat ?? 1) : 1, measure);

      const plan = (name, path, expected, repetition) =>
        networkRun(
          name,
          n,
          ['plan', '-f', path, '--format', 'json'],
          (run, byPhase) => {
            const summary = parsePlan(run.stdout)?.[0]?.summary;
            if (!summary) return 'the output is not a plan';
            const changes = Object.values(summary).reduce((sum, value) => sum + value, 0);
            if (summary.update !== expected.updates || changes !== expected.updates)
              return `expected ${expected.updates} updates, the plan has ${JSON.stringify(summary)}`;
            if (byPhase.linkRead !== expected.linkReads)
              return `expected ${expected.linkReads} link reads, counted ${byPhase.linkRead}`;
            return undefined;
          },
          { fields: { repetition } },
        );

      // A plan changes nothing: its floor runs on the state it read.
      const noChange = await repeated(async (repetition) => {
        const run = await plan('plan-no-change', same, { updates: 0, linkReads: 0 }, repetition);
        await floorRun(run);
        return run;
      });
      await repeated(async (repetition) =>
        floorRun(
          await plan('plan-10pct-changed', changed, { updates: changedCount, linkReads: changedCount }, repetition),
        ),
      );
      await repeated(async (repetition) =>
        floorRun(await plan('plan-10pct-ad-groups', adGroups, { updates: 0, linkReads: linkedCount }, repetition)),
      );
      if (options.naiveSizes.includes(n)) {
        const { entry: naive } = await networkRun(
          'naive-sequential-read',
          n,
          [],
          (run) => (JSON.parse(run.stdout).read === n ? undefined : `read ${run.stdout.trim()}, expected ${n}`),
          {
            script: here('naive.mjs'),
            runConcurrency: 1,
          },
        );
        noChange.entry.speedupVsNaive = round(naive.wallMs / noChange.entry.wallMs, 2);
        naive.speedupOfPlan = noChange.entry.speedupVsNaive;
      }
      if (applyAvailable) {
        // The floor of the updates sends the same bodies to the audiences they updated: the
        // emulator does the same work for an update that changes nothing. Each repetition
        // after the first starts from the seeded account again.
        await repeated(async (repetition) => {
          if (repetition > 0) await seedAccount();
          await floorRun(
            await networkRun(
              'apply-10pct-updates',
              n,
              ['apply', '-f', changed, '--auto-approve'],
              (_run, byPhase) =>
                byPhase.write === changedCount
                  ? undefined
                  : `expected ${changedCount} updates, counted ${byPhase.write} writes`,
              { fields: { repetition } },
            ),
          );
        });
        await repeated(async (repetition) => {
          await emulator.reset();
          const creates = await networkRun(
            'apply-creates',
            n,
            ['apply', '-f', same, '--auto-approve'],
            (_run, byPhase) =>
              byPhase.write === n ? expectAudiences(n) : `expected ${n} creates, counted ${byPhase.write} writes`,
            { fields: { repetition } },
          );
          await floorRun(creates, { prepare: () => emulator.reset(), check: () => expectAudiences(n) });
        });
      }
    }

    if (applyAvailable && options.quota) {
      const { creates, runs } = options.quota;
      const path = join(work, `quota-${creates}.yaml`);
      await writeFile(path, audiencesYaml(creates));
      for (const settings of runs) {
        await measureRepeatedly(
          settings.rateLimit >= REPEATED_FROM_RATE ? (options.repeat ?? 1) : 1,
          async (repetition) => {
            await emulator.reset();
            await emulator.setFaults({
              rateLimitPerSecond: settings.rateLimit,
              rateLimitScope: 'writes',
              quotaStatus: settings.quotaStatus,
              quotaRetryAfter: false,
            });
            await quotaRun(networkRun, emulator, path, creates, settings, repetition);
          },
        );
      }
      await emulator.reset();
    }

    if (options.coldStart) {
      const { runs, validateSizes } = options.coldStart;
      // The floor under every figure below: a node process that does nothing.
      const emptyNode = record(await coldStart('cold-start-node', 0, ['-e', ''], runs, work, measureNode));
      const overNode = (entry) =>
        emptyNode.ok && entry.ok ? { ...entry, overNodeMs: round(entry.wallMs - emptyNode.wallMs) } : entry;
      record(overNode(await coldStart('cold-start-help', 0, ['--help'], runs, work)));
      for (const n of validateSizes) {
        const path = join(work, `validate-${n}.yaml`);
        await writeFile(path, audiencesYaml(n));
        record(overNode(await coldStart('cold-start-validate', n, ['validate', '-f', path], runs, work)));
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

const APPLY_SUMMARY = /^Apply (\w+) for ad account \d+: (\d+) done, (\d+) failed, (\d+) skipped\.$/m;

/**
 * An apply of `creates` audiences (the bench's 0..creates-1) to an empty account under the
 * emulator's rate limit on writes (set by the caller). `ratio` is the wall time over the time
 * the quota alone needs for the writes it accepted (`accepted / rateLimit` seconds, `quotaMs`);
 * `refused` counts the quota answers. The run is good when the apply says every create was
 * done and none failed, the service accepted exactly `creates` writes, and the account then has
 * each audience exactly once.
 */
function quotaRun(networkRun, emulator, path, creates, { rateLimit, quotaStatus, paced }, repetition) {
  const args = ['apply', '-f', path, '--auto-approve', ...(paced ? ['--requests-per-second', String(rateLimit)] : [])];
  const fields = {
    rateLimit,
    rateLimitScope: 'writes',
    quotaStatus,
    quotaRetryAfter: false,
    requestsPerSecond: paced ? rateLimit : null,
    repetition,
  };
  const figures = (run, requests) => {
    const writes = requests.filter((request) => phaseOf(request) === 'write');
    const accepted = writes.filter((request) => request.status === 200).length;
    const quotaMs = (1000 * accepted) / rateLimit;
    const summary = APPLY_SUMMARY.exec(run.stdout);
    return {
      quotaMs: round(quotaMs),
      // From the wall time as recorded (whole milliseconds), as the entry's readers recompute it.
      ratio: accepted > 0 ? round(round(run.wallMs) / quotaMs, 2) : null,
      accepted,
      refused: writes.filter((request) => request.fault === 'rate-limit').length,
      done: summary ? Number(summary[2]) : null,
      failed: summary ? Number(summary[3]) : null,
      skipped: summary ? Number(summary[4]) : null,
    };
  };
  const check = async (_run, _byPhase, own) => {
    if (own.done === null) return 'the apply printed no summary';
    if (own.failed !== 0 || own.skipped !== 0 || own.done !== creates)
      return `the apply says ${own.done} done, ${own.failed} failed, ${own.skipped} skipped; expected ${creates} done`;
    if (own.accepted !== creates) return `the service accepted ${own.accepted} writes, expected ${creates}`;
    const names = await emulator.audienceNames();
    const expected = Array.from({ length: creates }, (_, index) => audienceName(index));
    const sorted = [...names].sort();
    return sorted.length === creates && sorted.every((name, index) => name === expected[index])
      ? undefined
      : `the account has ${names.length} audiences (${new Set(names).size} names), expected each of the ${creates} once`;
  };
  return networkRun('apply-quota', creates, args, check, { fields, figures, quota: true });
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
  if (run.code !== 0)
    return { ...base, wallMs: null, cpuMs: null, peakRssMb: null, ok: false, problem: run.stderr.trim().slice(0, 300) };
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
    rssAfterStepMb: {
      config: round(figures.rssAfterConfigMb),
      canonicalize: round(figures.rssAfterCanonicalizeMb),
      plan: round(figures.rssAfterPlanMb),
    },
    ok,
    ...(ok
      ? {}
      : {
          problem: `expected ${expected} updates and no errors, got ${JSON.stringify(figures.summary)}, ${figures.errors} errors`,
        }),
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
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, roundAll(inner)]));
  return value;
}
