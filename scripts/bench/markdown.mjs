/**
 * The tables of figures of bench/NOTES.md ("Figures") from a results file:
 *
 *   node scripts/bench/markdown.mjs [bench/results.json]
 *
 * prints them as Markdown, to replace those of bench/NOTES.md after a full `npm run bench`. A run
 * measured several times shows as its median (see table.mjs).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FLOORED_RUNS, floorOfRun, label, medianRun, quotaRunKey, repetitions } from './table.mjs';

const RUN_TITLES = {
  'plan-no-change': 'plan, no changes',
  'plan-10pct-changed': 'plan, 10% changed',
  'plan-10pct-ad-groups': 'plan, adGroups on 10%',
  'apply-10pct-updates': 'apply, N/10 updates',
  'apply-creates': 'apply, N creates',
  'plan-no-latency': 'plan, no changes, no latency',
};

/** The runs of the first table: those over a floor of their own, each a row. */
const TABLED_RUNS = [...FLOORED_RUNS, 'plan-no-latency', 'plan-accounts', 'apply-accounts'];

const cell = (value) => (value === undefined || value === null ? '—' : String(value));
const row = (cells) => `| ${cells.map(cell).join(' | ')} |`;
const table = (header, rows) => [row(header), `|${header.map(() => '---').join('|')}|`, ...rows.map(row)].join('\n');

/** Of the runs measured several times, the one the targets are held to (see table.mjs): one row each. */
function medians(entries, key, ratio) {
  return repetitions(entries, key).map((runs) => medianRun(runs, ratio));
}

export function renderMarkdown(results) {
  const floorOf = (entry, pacing = entry.requestsPerSecond ? 'even' : undefined) => floorOfRun(results, entry, pacing);
  const floored = medians(
    results.filter((entry) => TABLED_RUNS.includes(entry.name) && !entry.floorOf),
    (entry) => `${entry.name} ${entry.n}`,
    (entry) => entry.wallMs / (floorOf(entry)?.wallMs ?? 1),
  );
  const naive = (n) => results.find((entry) => entry.name === 'naive-sequential-read' && entry.n === n);
  const runs = table(
    ['run', 'N', 'requests', 'wall ms', 'floor ms', 'over floor', 'bound ms', 'CPU ms', 'peak MB'],
    floored.flatMap((entry) => {
      const rows = [
        [
          RUN_TITLES[entry.name] ?? label(entry),
          entry.n,
          entry.requests,
          entry.wallMs,
          floorOf(entry)?.wallMs,
          entry.ok ? entry.overFloor : 'failed',
          entry.lowerBoundMs,
          entry.cpuMs,
          entry.peakRssMb,
        ],
      ];
      const baseline = entry.name === 'plan-no-change' ? naive(entry.n) : undefined;
      if (baseline)
        rows.push([
          'naive sequential reads',
          baseline.n,
          baseline.requests,
          baseline.wallMs,
          '',
          '',
          baseline.lowerBoundMs,
          baseline.cpuMs,
          baseline.peakRssMb,
        ]);
      return rows;
    }),
  );
  const quota = table(
    [
      'R (writes/s)',
      'answer',
      'rate given',
      'creates',
      'wall ms',
      'creates / R, ms',
      'ratio',
      'floor ms',
      'over floor',
      'window floor ms',
      'over window floor',
      'refused',
      'failed',
    ],
    medians(
      results.filter((entry) => entry.name === 'apply-quota'),
      quotaRunKey,
      // Told the rate, a run is held to its floor paced alike; else to creates / R.
      (entry) => entry.wallMs / (entry.requestsPerSecond === null ? entry.quotaMs : (floorOf(entry)?.wallMs ?? 1)),
    ).map((entry) => [
      entry.rateLimit,
      entry.quotaStatus === 400 ? '400/-10' : String(entry.quotaStatus),
      entry.requestsPerSecond === null ? 'no' : `--requests-per-second ${entry.requestsPerSecond}`,
      entry.n,
      entry.wallMs,
      entry.quotaMs,
      entry.ok ? entry.ratio : 'failed',
      floorOf(entry)?.wallMs,
      entry.overFloor,
      floorOf(entry, 'window')?.wallMs,
      entry.overWindowFloor,
      entry.refused,
      entry.failed,
    ]),
  );
  const starts = table(
    ['cold start (median)', 'N', 'wall ms', 'over empty node, ms', 'CPU ms', 'peak MB'],
    results
      .filter((entry) => entry.name.startsWith('cold-start-') || entry.name === 'plan-offline')
      .map((entry) => [
        {
          'cold-start-node': 'empty `node -e ""`',
          'cold-start-help': '`--help`',
          'cold-start-validate': '`validate`',
          'cold-start-validate-uncached': '`validate`, its first run (no code cache)',
          'plan-offline': 'plan offline (CPU of planning)',
        }[entry.name],
        entry.n || '',
        entry.name === 'plan-offline' ? '' : entry.wallMs,
        entry.overNodeMs,
        entry.cpuMs,
        entry.peakRssMb,
      ]),
  );
  const loads = results.map((entry) => entry.loadAvg1m).filter((load) => typeof load === 'number');
  const load =
    loads.length > 0
      ? `load average (1 min) at the end of each run: ${Math.min(...loads)} to ${Math.max(...loads)}`
      : '';
  return [runs, quota, starts, load].join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2] ?? fileURLToPath(new URL('../../bench/results.json', import.meta.url));
  process.stdout.write(`${renderMarkdown(JSON.parse(await readFile(file, 'utf8')))}\n`);
}
