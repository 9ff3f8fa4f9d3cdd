/**
 * `npm run bench [-- --quick] [--latency MS] [--concurrency N] [--sizes 100,1000] [--quota-creates N] [--repeat K]
 * [--no-latency-sizes 5000,10000] [--accounts N] [--only GROUP,…] [--out FILE]` (defaults: latency 20 ms, concurrency 8 — the command's
 * default —, N = 100, 1000, 5000, 500 creates per quota run, plans with no latency at 5000 and 10,000, 10 accounts,
 * each run of a few seconds measured 3 times (1 with --quick), bench/results.json)
 *
 * Runs the real command line (bin/audiences.js, so build first) against the emulator with a
 * fixed latency per request, for N managed audiences: plan with no changes, plan with 10%
 * changed, plan with ad groups declared on 10%, a naive sequential client as the baseline,
 * apply of 10% updates and apply of N creates; each plan and apply is followed by its transport
 * floor (its requests, in its stages, through a bare undici pool, nothing else: floor.mjs). For
 * each: requests (from the emulator's request log), wall time, the lower bound (the requests'
 * critical path at the concurrency and latency), their ratio, the wall time over the floor's,
 * CPU time and peak memory of the process. Then the quota runs: applies of 500 creates while
 * the emulator limits writes to R per second (R = 10 and 50, answered 429 or 400/-10 without
 * Retry-After), with and without `--requests-per-second R`; one told the rate has two floors, its accepted requests
 * paced as the command paces them and paced to the limit's window. Plans with no latency (each with its floor), where
 * the command's CPU per answer and its start set the pace. Runs over many accounts: one plan of ten files and one apply
 * of ten files under a limit per account, each over the floor of ten bare clients at once. Then the cold start of `--help` and
 * `validate` beside an empty node process, and planning 10,000 audiences offline. Writes
 * bench/results.json and prints a table and the targets. The plans and applies of up to 1000
 * audiences, each with its floor, and the quota runs at R = 50 are measured `--repeat` times,
 * and their targets held to the median: one run moves by more than the targets' margins on a
 * machine whose CPUs differ.
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { FULL_OPTIONS, QUICK_OPTIONS, runBench } from './bench/core.mjs';
import { label, renderTable, renderTargets } from './bench/table.mjs';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    latency: { type: 'string' },
    concurrency: { type: 'string' },
    sizes: { type: 'string' },
    'quota-creates': { type: 'string' },
    'no-latency-sizes': { type: 'string' },
    accounts: { type: 'string' },
    repeat: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
  },
});

/** The groups of runs `--only` picks from, each by the option of `options` that holds it and its value when left out. */
const GROUPS = {
  sizes: ['sizes', []],
  'no-latency': ['noLatencySizes', []],
  accounts: ['accounts', null],
  quota: ['quota', null],
  'cold-start': ['coldStart', null],
  offline: ['offlineSize', 0],
};
const only = values.only?.split(',').filter((group) => group !== '');
for (const group of only ?? []) {
  if (!(group in GROUPS)) throw new Error(`--only takes ${Object.keys(GROUPS).join(', ')}, not ${group}`);
}

const base = values.quick ? QUICK_OPTIONS : FULL_OPTIONS;
const positive = (text, what) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${what} must be a whole number, not ${text}`);
  return value;
};
const options = {
  ...base,
  latencyMs: values.latency === undefined ? base.latencyMs : positive(values.latency, '--latency'),
  concurrency: values.concurrency === undefined ? base.concurrency : positive(values.concurrency, '--concurrency'),
  sizes: values.sizes === undefined ? base.sizes : values.sizes.split(',').map((size) => positive(size, '--sizes')),
  // With sizes of one's own, the baseline runs at each of them.
  naiveSizes: values.sizes === undefined ? base.naiveSizes : values.sizes.split(',').map(Number),
  // 0: no quota runs.
  quota:
    values['quota-creates'] === undefined
      ? base.quota
      : positive(values['quota-creates'], '--quota-creates') > 0
        ? { ...base.quota, creates: Number(values['quota-creates']) }
        : null,
  // An empty list: no plans with no latency.
  noLatencySizes:
    values['no-latency-sizes'] === undefined
      ? base.noLatencySizes
      : values['no-latency-sizes']
          .split(',')
          .filter((size) => size !== '')
          .map((size) => positive(size, '--no-latency-sizes')),
  // 0: no runs over many accounts.
  accounts:
    values.accounts === undefined
      ? base.accounts
      : positive(values.accounts, '--accounts') > 0
        ? { ...(base.accounts ?? FULL_OPTIONS.accounts), count: Number(values.accounts) }
        : null,
  repeat: values.repeat === undefined ? base.repeat : Math.max(1, positive(values.repeat, '--repeat')),
  // Only the groups named: the others left out (--only no-latency: the plans with no latency alone).
  ...(only === undefined
    ? {}
    : Object.fromEntries(
        Object.entries(GROUPS)
          .filter(([group]) => !only.includes(group))
          .map(([, [option, none]]) => [option, none]),
      )),
  outFile: values.out ?? fileURLToPath(new URL('../bench/results.json', import.meta.url)),
  log: (entry) => {
    const at = `[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s]`;
    if (entry.note) console.error(`${at} note: ${entry.note}`);
    else
      console.error(
        `${at} ${label(entry)} n=${entry.n}: ${entry.wallMs ?? '-'} ms${entry.ok ? '' : ` — ${entry.problem}`}`,
      );
  },
};

const started = Date.now();
console.error(
  `bench: latency ${options.latencyMs} ms, concurrency ${options.concurrency}, N = ${options.sizes.join(', ') || 'none'}${values.quick ? ' (quick)' : ''}`,
);
const results = await runBench(options);
console.log(renderTable(results));
console.log('');
console.log(renderTargets(results));
console.error(`\nwrote ${options.outFile} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = results.every((entry) => entry.ok) ? 0 : 1;
