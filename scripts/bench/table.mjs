/** The bench's printed output: one table of every run, then each target and whether it was met. */

const COLUMNS = [
  ['run', (entry) => entry.name],
  ['N', (entry) => entry.n],
  ['requests', (entry) => entry.requests],
  ['wall ms', (entry) => entry.wallMs],
  ['bound ms', (entry) => entry.lowerBoundMs],
  ['ratio', (entry) => entry.ratio],
  ['CPU ms', (entry) => entry.cpuMs],
  ['peak MB', (entry) => entry.peakRssMb],
  ['to 1st req', (entry) => entry.timeline?.beforeFirstRequestMs],
  ['after last', (entry) => entry.timeline?.afterLastRequestMs],
  ['note', note],
];

function note(entry) {
  if (!entry.ok) return `FAILED: ${entry.problem}`;
  const notes = [];
  if (entry.speedupVsNaive !== undefined) notes.push(`${entry.speedupVsNaive}x faster than naive`);
  if (entry.overFloor !== undefined) notes.push(`${entry.overFloor}x the transport floor`);
  if (notes.length > 0) return notes.join(', ');
  if (entry.name.startsWith('transport-floor')) return 'bare undici pool, same requests';
  if (entry.name === 'plan-offline') return `config ${entry.configCpuMs} ms CPU (not included)`;
  if (entry.wallSamplesMs) return `median of ${entry.runs}`;
  return '';
}

export function renderTable(results) {
  const rows = results.map((entry) => COLUMNS.map(([, cell]) => text(cell(entry))));
  const header = COLUMNS.map(([title]) => title);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells) =>
    cells
      .map((cell, column) => (column === 0 || column === cells.length - 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function text(value) {
  return value === undefined || value === null ? '-' : String(value);
}

/** Each target of the issue against the figures of this run; a target with no figure is "not measured". */
export function renderTargets(results) {
  const lines = ['targets:'];
  const check = (label, met, detail) => lines.push(`  [${met === undefined ? 'not measured' : met ? 'met' : 'MISSED'}] ${label}${detail ? `: ${detail}` : ''}`);
  const find = (name, n) => results.find((entry) => entry.name === name && entry.n === n && entry.ok);

  // A floor's own ratio says how much of the bound this machine's transport already takes.
  const floorNote = (floorName, requests) => {
    const floor = find(floorName, 1000);
    return floor ? ` (a bare undici pool making ${requests}: ${floor.ratio})` : '';
  };
  const reads = floorNote('transport-floor', "the plan's requests");
  const creates = floorNote('transport-floor-creates', "the apply's requests");
  for (const [name, floor] of [
    ['plan-no-change', reads],
    ['plan-10pct-changed', reads],
    ['plan-10pct-ad-groups', reads],
    ['apply-10pct-updates', reads],
    ['apply-creates', creates],
  ]) {
    const entry = find(name, 1000);
    check(`wall / lower bound <= 1.2, ${name}, N = 1000`, entry ? entry.ratio <= 1.2 : undefined, entry ? `${entry.ratio}${floor}` : '');
  }
  for (const entry of results.filter((candidate) => candidate.name === 'plan-no-change' && candidate.ok)) {
    check(`no-change plan makes 1 list + N reads, N = ${entry.n}`, entry.requests === 1 + entry.n, `${entry.requests} requests`);
  }
  const offline = results.find((entry) => entry.name === 'plan-offline' && entry.ok);
  check(`planning ${offline?.n ?? 10_000} audiences offline < 1 s CPU`, offline ? offline.cpuMs < 1000 : undefined, offline ? `${offline.cpuMs} ms` : '');
  check(`planning ${offline?.n ?? 10_000} audiences offline < 250 MB peak`, offline ? offline.peakRssMb < 250 : undefined, offline ? `${offline.peakRssMb} MB` : '');
  const help = find('cold-start-help', 0);
  const emptyNode = find('cold-start-node', 0);
  const emptyNodeNote = emptyNode ? ` (an empty node process: ${emptyNode.wallMs} ms)` : '';
  check('`audiences --help` cold start < 150 ms (median)', help ? help.wallMs < 150 : undefined, help ? `${help.wallMs} ms${emptyNodeNote}` : '');
  const validate = find('cold-start-validate', 100);
  check('`validate` of 100 audiences cold start < 300 ms (median)', validate ? validate.wallMs < 300 : undefined, validate ? `${validate.wallMs} ms${emptyNodeNote}` : '');
  return lines.join('\n');
}
