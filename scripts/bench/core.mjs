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
import { measureCli, measureNode, measureNodes } from './child.mjs';
import { startBenchEmulator } from './emulator.mjs';
import {
  BENCH_ACCOUNT_ID,
  accountIds,
  audienceName,
  audiencesYaml,
  isChanged,
  isLinked,
  liveAnswers,
} from './fixtures.mjs';

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
  /**
   * Plans with no changes at no latency (`plan-no-latency`, each with its floor), where the command's own CPU per answer
   * sets the pace; at the largest, the time to the first request is held to its floor's.
   */
  noLatencySizes: [5000, 10_000],
  /**
   * Runs over many accounts (added to the emulator, each its own file): one `plan` of `count` files of `audiences`
   * each, at the bench's latency (`plan-accounts`), and one `apply` of `creates` to each, under a limit of `rateLimit`
   * writes a second per account and with `--requests-per-second rateLimit` (`apply-accounts`; 0 creates: none).
   * Their floor is one bare client per account, all at once. null: none.
   */
  accounts: { count: 10, audiences: 500, creates: 100, rateLimit: 50 },
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
 * would take 20 s), one quota run at R = 50, one plan of 10 accounts, 3 cold starts of `--help` and `validate` of 100.
 */
export const QUICK_OPTIONS = Object.freeze({
  ...FULL_OPTIONS,
  sizes: [1000],
  naiveSizes: [],
  noLatencySizes: [],
  accounts: { ...FULL_OPTIONS.accounts, creates: 0 },
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

/** The items by `key`, in the order each key first came. */
function groupBy(items, key) {
  const groups = new Map();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
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
    // serializing the log costs the emulator time that would otherwise show in the figures. With no latency, the
    // requests come as fast as the client makes them: every 100 ms.
    // Over many accounts, each may have `concurrency` in flight.
    const pollIntervalMs = (runLatencyMs, inFlight = concurrency) =>
      Math.max(100, Math.min(2000, (1000 * Math.max(runLatencyMs, 1)) / inFlight));

    /**
     * One measured run of the CLI (or of `script`, or of `measure`: several processes) with its requests counted from
     * the log. `figures(run, requests)` adds fields of the run's own; `check(run, byPhase, figures, requests)` says
     * what is wrong with it, if anything. A quota answer of the emulator's rate limit is a failed request unless
     * `quota` (where they are the point, counted as `refused`). `runLatencyMs`: the emulator's latency during the run.
     */
    const networkRun = async (
      name,
      n,
      args,
      check,
      {
        script,
        measure,
        runConcurrency = concurrency,
        runLatencyMs = latencyMs,
        runEnv = {},
        fields = {},
        figures,
        quota = false,
        perAccount = false,
      } = {},
    ) => {
      const { result: run, requests } = await emulator.log.watch(
        () =>
          measure
            ? measure({ cwd: work, env: { ...env, ...runEnv } })
            : script
              ? measureNode([script, ...args], { cwd: work, env: { ...env, ...runEnv } })
              : measureCli([...args, '--concurrency', String(concurrency)], { cwd: work, env }),
        { intervalMs: pollIntervalMs(runLatencyMs, concurrency * (fields.accounts ?? 1)) },
      );
      const byPhase = countPhases(requests);
      // Over several accounts, each its own transport: the bound of the account with the longest path.
      const bound = Math.max(
        0,
        ...(perAccount ? [...groupBy(requests, (request) => request.adAccountId).values()] : [requests]).map((group) =>
          lowerBoundMs(countPhases(group), { concurrency: runConcurrency, latencyMs: runLatencyMs }),
        ),
      );
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
        // No bound without latency: only the client's and the emulator's own time.
        lowerBoundMs: bound > 0 ? bound : null,
        ratio: bound > 0 ? round(run.wallMs / bound, 2) : null,
        ...own,
        cpuMs: round(run.cpuMs),
        peakRssMb: round(run.peakRssMb, 1),
        latencyMs: runLatencyMs,
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
     * `overFloor` (or `field`) and `firstRequestOverFloorMs`, its time to the first request less the floor's. A floor
     * that made other requests than its run fails both.
     * - `replayed`: which of the run's requests the floor makes (a quota run's: the accepted ones);
     * - `pace`: `{ policy, rate }`, the floor's requests paced as floor.mjs says (BENCH_PACE);
     * - `perAccount`: one bare client per ad account of the run, all at once, each with its account's requests;
     * - `required`: whether a failed floor fails its run (a floor reported beside the one held to a target is not).
     */
    const floorRun = async (
      { entry: run, requests },
      {
        prepare,
        check = () => undefined,
        replayed = (request) => request,
        pace,
        perAccount = false,
        field = 'overFloor',
        required = true,
      } = {},
    ) => {
      if (!run.ok) {
        run[field] = null;
        return;
      }
      const made = requests.filter(replayed);
      const groups = perAccount ? [...groupBy(made, (request) => request.adAccountId).values()] : [made];
      const files = await Promise.all(
        groups.map(async (group, index) => {
          const stages = stagesOf(group).map((stage) =>
            stage.map(({ method, path, adAccountId, body }) => ({
              method,
              path,
              adAccountId,
              ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
            })),
          );
          const file = join(work, `floor-${run.name}-${run.n}-${index}.json`);
          await writeFile(file, JSON.stringify(stages));
          return file;
        }),
      );
      if (prepare) await prepare();
      const expected = countPhases(made);
      const { entry: floor } = await networkRun(
        'transport-floor',
        run.n,
        [],
        async (out, _byPhase, _own, all) => {
          const replies = out.stdout
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line));
          const count = replies.reduce((sum, reply) => sum + reply.requests, 0);
          if (count !== made.length) return `replayed ${out.stdout.trim()}, expected ${made.length} requests`;
          const accepted = all.filter((request) => request.fault !== 'rate-limit');
          const byPhase = countPhases(accepted);
          if (!samePhases(byPhase, expected))
            return `made other requests than ${run.name}: ${JSON.stringify(byPhase)} against ${JSON.stringify(expected)}`;
          const stagesOfEach = (list) =>
            (perAccount ? [...groupBy(list, (request) => request.adAccountId).values()] : [list])
              .map((group) => describeStages(stagesOf(group)).join())
              .sort()
              .join(' | ');
          if (stagesOfEach(accepted) !== stagesOfEach(made))
            return `went through other stages than ${run.name}: ${stagesOfEach(accepted)} against ${stagesOfEach(made)}`;
          return check();
        },
        {
          measure: (options) =>
            measureNodes(
              files.map((file) => [here('floor.mjs'), file]),
              options,
            ),
          runLatencyMs: run.latencyMs,
          runEnv: pace ? { BENCH_PACE: pace.policy, BENCH_RATE: String(pace.rate) } : {},
          fields: {
            floorOf: run.name,
            repetition: run.repetition,
            // A quota run's settings, to tell the floors of its runs apart (quotaRunKey in table.mjs).
            ...(run.rateLimit === undefined ? {} : { rateLimit: run.rateLimit, quotaStatus: run.quotaStatus }),
            ...(pace ? { pacing: pace.policy, requestsPerSecond: pace.rate } : {}),
            ...(perAccount ? { accounts: groups.length } : {}),
          },
          figures: (out) => ({
            refused: out.stdout
              .trim()
              .split('\n')
              .reduce((sum, line) => sum + (JSON.parse(line).refused ?? 0), 0),
          }),
          quota: true,
          perAccount,
        },
      );
      await Promise.all(files.map((file) => rm(file, { force: true })));
      if (floor.ok) {
        run[field] = round(run.wallMs / floor.wallMs, 2);
        if (field === 'overFloor')
          run.firstRequestOverFloorMs = round(run.timeline.beforeFirstRequestMs - floor.timeline.beforeFirstRequestMs);
      } else {
        run[field] = null;
        if (required) {
          run.ok = false;
          run.problem = `its transport floor failed: ${floor.problem}`;
        }
      }
    };
    const expectAudiences = async (n) => {
      const names = await emulator.audienceNames();
      return names.length === n ? undefined : `the account has ${names.length} audiences, expected ${n}`;
    };

    /**
     * The runs over `count` accounts (see FULL_OPTIONS.accounts), each its own file: a plan of `audiences` each with no
     * changes, then an apply of `creates` to each empty account under `rateLimit` writes a second per account. Each
     * with its floor of one bare client per account at once, the apply's paced as the command is told to be.
     */
    const accountRuns = async ({ count, audiences, creates, rateLimit }) => {
      const ids = accountIds(count);
      const dir = join(work, 'accounts');
      await mkdir(dir, { recursive: true });
      const files = async (size, name) =>
        Promise.all(
          ids.map(async (adAccountId) => {
            const path = join(dir, `${name}-${adAccountId}.yaml`);
            await writeFile(path, audiencesYaml(size, { adAccountId }));
            return path;
          }),
        );
      const fileArgs = (paths) => paths.flatMap((path) => ['-f', path]);
      const fields = (repetition) => ({ accounts: count, repetition });
      const repeat = options.repeat ?? 1;

      const planned = await files(audiences, 'plan');
      await emulator.reset();
      await emulator.addAccounts(ids);
      await emulator.setLatency(0);
      for (const adAccountId of ids) await emulator.seed(audiences, { adAccountId });
      await emulator.setLatency(latencyMs);
      await measureRepeatedly(repeat, async (repetition) =>
        floorRun(
          await networkRun(
            'plan-accounts',
            count * audiences,
            ['plan', ...fileArgs(planned), '--format', 'json'],
            (run, byPhase) => {
              const plans = parsePlan(run.stdout);
              if (!Array.isArray(plans) || plans.length !== count) return `expected ${count} plans`;
              const changed = plans.find((plan) => Object.values(plan.summary).some((value) => value !== 0));
              if (changed) return `expected no changes, a plan has ${JSON.stringify(changed.summary)}`;
              return byPhase.list === count && byPhase.read === count * audiences
                ? undefined
                : `expected ${count} lists and ${count * audiences} reads: ${JSON.stringify(byPhase)}`;
            },
            { fields: fields(repetition), perAccount: true },
          ),
          { perAccount: true },
        ),
      );

      if (!applyAvailable || creates === 0) return;
      const applied = await files(creates, 'apply');
      const limited = async () => {
        await emulator.reset();
        await emulator.addAccounts(ids);
        await emulator.setFaults({
          rateLimitPerSecond: rateLimit,
          rateLimitScope: 'writes',
          quotaStatus: 429,
          quotaRetryAfter: false,
        });
      };
      const eachAccountHas = async () => {
        for (const adAccountId of ids) {
          const names = await emulator.audienceNames(adAccountId);
          if (new Set(names).size !== creates || names.length !== creates)
            return `account ${adAccountId} has ${names.length} audiences, expected each of ${creates} once`;
        }
        return undefined;
      };
      await measureRepeatedly(repeat, async (repetition) => {
        await limited();
        const run = await networkRun(
          'apply-accounts',
          count * creates,
          ['apply', ...fileArgs(applied), '--auto-approve', '--requests-per-second', String(rateLimit)],
          async (_run, byPhase, own) => {
            if (own.summaries !== count || own.done !== count * creates || own.failed !== 0 || own.skipped !== 0)
              return `the applies say ${own.done} done, ${own.failed} failed, ${own.skipped} skipped in ${own.summaries} summaries; expected ${count * creates} done in ${count}`;
            if (own.accepted !== count * creates)
              return `the service accepted ${own.accepted} writes, expected ${count * creates}`;
            return eachAccountHas();
          },
          {
            fields: { ...fields(repetition), rateLimit, requestsPerSecond: rateLimit },
            figures: (out, requests) => ({ ...applySummaries(out.stdout), ...writesOf(requests) }),
            quota: true,
            perAccount: true,
          },
        );
        await floorRun(run, {
          prepare: limited,
          check: eachAccountHas,
          replayed: accepted,
          pace: { policy: 'even', rate: rateLimit },
          perAccount: true,
        });
      });
      await emulator.reset();
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

    // No latency: the command's own work per answer (and its start) against its floor's.
    for (const n of options.noLatencySizes ?? []) {
      const path = join(work, `no-latency-${n}.yaml`);
      await writeFile(path, audiencesYaml(n));
      await emulator.reset();
      await emulator.setLatency(0);
      await emulator.seed(n);
      await measureRepeatedly(options.repeat ?? 1, async (repetition) =>
        floorRun(
          await networkRun(
            'plan-no-latency',
            n,
            ['plan', '-f', path, '--format', 'json'],
            (run, byPhase) => {
              const summary = parsePlan(run.stdout)?.[0]?.summary;
              if (!summary) return 'the output is not a plan';
              if (Object.values(summary).some((count) => count !== 0))
                return `expected no changes, the plan has ${JSON.stringify(summary)}`;
              return byPhase.list === 1 && byPhase.read === n
                ? undefined
                : `expected 1 list and ${n} reads: ${JSON.stringify(byPhase)}`;
            },
            { runLatencyMs: 0, fields: { repetition } },
          ),
        ),
      );
      await emulator.setLatency(latencyMs);
    }

    if (options.accounts) await accountRuns(options.accounts);

    if (applyAvailable && options.quota) {
      const { creates, runs } = options.quota;
      const path = join(work, `quota-${creates}.yaml`);
      await writeFile(path, audiencesYaml(creates));
      for (const settings of runs) {
        await measureRepeatedly(
          settings.rateLimit >= REPEATED_FROM_RATE ? (options.repeat ?? 1) : 1,
          async (repetition) => {
            const limit = async () => {
              await emulator.reset();
              await emulator.setFaults({
                rateLimitPerSecond: settings.rateLimit,
                rateLimitScope: 'writes',
                quotaStatus: settings.quotaStatus,
                quotaRetryAfter: false,
              });
            };
            await quotaRun({ networkRun, floorRun }, emulator, path, creates, settings, repetition, limit);
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
        // The same without the code cache the runs before made (bin/audiences.js): a command's first run, as in a
        // fresh CI job. Shown, not held to a target.
        const uncached = (args, options) => measureCli(args, { ...options, env: { AUDIENCES_NO_COMPILE_CACHE: '1' } });
        record(
          overNode(await coldStart('cold-start-validate-uncached', n, ['validate', '-f', path], runs, work, uncached)),
        );
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

const APPLY_SUMMARY = /^Apply (\w+) for ad account \d+: (\d+) done, (\d+) failed, (\d+) skipped\.$/gm;

/** The apply summaries of an output (one per account), added up; null figures when there is none. */
function applySummaries(stdout) {
  const summaries = [...stdout.matchAll(APPLY_SUMMARY)];
  const total = (group) => (summaries.length === 0 ? null : summaries.reduce((sum, m) => sum + Number(m[group]), 0));
  return { summaries: summaries.length, done: total(2), failed: total(3), skipped: total(4) };
}

/** A request the service took: not a quota answer of its limit. */
const accepted = (request) => request.fault !== 'rate-limit';

/** The writes the service accepted and those it refused as over its limit. */
function writesOf(requests) {
  const writes = requests.filter((request) => phaseOf(request) === 'write');
  return {
    accepted: writes.filter((request) => request.status === 200).length,
    refused: writes.filter((request) => !accepted(request)).length,
  };
}

/**
 * An apply of `creates` audiences (the bench's 0..creates-1) to an empty account under the
 * emulator's rate limit on writes (set by `limit`). `ratio` is the wall time over the time
 * the quota alone needs for the writes it accepted (`accepted / rateLimit` seconds, `quotaMs`);
 * `refused` counts the quota answers. The run is good when the apply says every create was
 * done and none failed, the service accepted exactly `creates` writes, and the account then has
 * each audience exactly once. Told the rate (`paced`), it gets two floors: its accepted requests replayed at the
 * command's own even spacing (`overFloor`, the one held to a target) and as fast as the limit's window allows
 * (`overWindowFloor`, reported beside it: what even spacing costs).
 */
async function quotaRun({ networkRun, floorRun }, emulator, path, creates, settings, repetition, limit) {
  const { rateLimit, quotaStatus, paced } = settings;
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
    const writes = writesOf(requests);
    const quotaMs = (1000 * writes.accepted) / rateLimit;
    const summary = applySummaries(run.stdout);
    return {
      quotaMs: round(quotaMs),
      // From the wall time as recorded (whole milliseconds), as the entry's readers recompute it.
      ratio: writes.accepted > 0 ? round(round(run.wallMs) / quotaMs, 2) : null,
      ...writes,
      done: summary.done,
      failed: summary.failed,
      skipped: summary.skipped,
    };
  };
  const everyAudienceOnce = async () => {
    const names = await emulator.audienceNames();
    const expected = Array.from({ length: creates }, (_, index) => audienceName(index));
    const sorted = [...names].sort();
    return sorted.length === creates && sorted.every((name, index) => name === expected[index])
      ? undefined
      : `the account has ${names.length} audiences (${new Set(names).size} names), expected each of the ${creates} once`;
  };
  const check = async (_run, _byPhase, own) => {
    if (own.done === null) return 'the apply printed no summary';
    if (own.failed !== 0 || own.skipped !== 0 || own.done !== creates)
      return `the apply says ${own.done} done, ${own.failed} failed, ${own.skipped} skipped; expected ${creates} done`;
    if (own.accepted !== creates) return `the service accepted ${own.accepted} writes, expected ${creates}`;
    return everyAudienceOnce();
  };
  await limit();
  const run = await networkRun('apply-quota', creates, args, check, { fields, figures, quota: true });
  if (!paced) return;
  const floor = { prepare: limit, check: everyAudienceOnce, replayed: accepted };
  await floorRun(run, { ...floor, pace: { policy: 'even', rate: rateLimit } });
  await floorRun(run, {
    ...floor,
    pace: { policy: 'window', rate: rateLimit },
    field: 'overWindowFloor',
    required: false,
  });
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
