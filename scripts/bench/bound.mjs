/**
 * What a run's requests were and the least time they can take. Each request of the log is
 * sorted into a phase; phases depend on one another (the reads need the list, an update its
 * read, a delete its unlinks), requests within a phase are independent. With concurrency C
 * and latency L a phase of k requests takes at least ceil(k / C) · L, and a list, which
 * every later phase waits for, L each. The reads and the link reads are one stage: a plan
 * reads an audience's ad groups as soon as its read shows a change (or at once, when they
 * are declared), while other reads are still in flight, so together they take at least
 * ceil((reads + link reads) / C) · L.
 */

/** Phases in the order a plan and an apply go through them. */
export const PHASES = ['list', 'read', 'linkRead', 'unlink', 'write', 'delete', 'other'];

const BASE = '/openapi/v4/targetings';

export function phaseOf({ method, path }) {
  const [pathname] = path.split('?');
  if (method === 'GET' && pathname === `${BASE}/audiences`) return 'list';
  if (method === 'GET' && /^\/openapi\/v4\/targetings\/\d+$/.test(pathname)) return 'read';
  if (method === 'GET' && /^\/openapi\/v4\/targetings\/\d+\/adGroups$/.test(pathname)) return 'linkRead';
  if (method === 'PUT' && /^\/openapi\/v4\/targetings\/\d+\/unlink$/.test(pathname)) return 'unlink';
  if ((method === 'POST' || method === 'PUT') && pathname === BASE) return 'write';
  if (method === 'DELETE' && (pathname === BASE || /^\/openapi\/v4\/targetings\/\d+$/.test(pathname))) return 'delete';
  return 'other';
}

/** Requests per phase, every phase present (0 when none). */
export function countPhases(requests) {
  const counts = Object.fromEntries(PHASES.map((phase) => [phase, 0]));
  for (const request of requests) counts[phaseOf(request)] += 1;
  return counts;
}

/** The stages the bound charges, each a set of phases whose requests may be in flight together. */
const STAGES = [['read', 'linkRead'], ['unlink'], ['write'], ['delete'], ['other']];

/** The stage a phase's requests are in: the reads and the link reads share one, as in the bound. */
const stageOfPhase = (phase) => (phase === 'linkRead' ? 'read' : phase);

/**
 * A run's requests (in the log's order) cut into the stages it went through, for a floor to
 * make the same requests in the same stages: a stage ends where the next request is of
 * another stage, and each list is a stage of its own, as the bound charges it. The log has a
 * request when its answer was made, before its latency, so a request sent after an answer of
 * an earlier stage always comes after that stage's requests.
 */
export function stagesOf(requests) {
  const stages = [];
  let previous;
  for (const request of requests) {
    const stage = stageOfPhase(phaseOf(request));
    if (stage === 'list' || stage !== previous) stages.push([]);
    stages.at(-1).push(request);
    previous = stage;
  }
  return stages;
}

/**
 * The stages as text, e.g. `['list 1', 'read+linkRead 1100', 'write 100', 'list 1']`: the phases in each and how many
 * requests.
 */
export function describeStages(stages) {
  return stages.map((stage) => {
    const phases = new Set(stage.map(phaseOf));
    return `${PHASES.filter((phase) => phases.has(phase)).join('+')} ${stage.length}`;
  });
}

/** Whether two runs made as many requests of each phase. */
export function samePhases(a, b) {
  return PHASES.every((phase) => (a?.[phase] ?? 0) === (b?.[phase] ?? 0));
}

/** The critical path of the counted requests at `concurrency` in flight and `latencyMs` each. */
export function lowerBoundMs(counts, { concurrency, latencyMs }) {
  let total = (counts.list ?? 0) * latencyMs;
  for (const stage of STAGES) {
    const count = stage.reduce((sum, phase) => sum + (counts[phase] ?? 0), 0);
    total += Math.ceil(count / concurrency) * latencyMs;
  }
  return total;
}

/**
 * Where the wall time of a child went, from the log's timestamps (`at` is when the emulator
 * served the request, once it had read it, and the answer left `durationMs` after it arrived;
 * in memory, as here, the two differ by well under a millisecond): before the first request
 * (process start, module loading, reading and validating the file), while requests were in
 * flight, and after the last answer (planning, rendering, exit). Also, per phase, when it began and ended
 * relative to the spawn and how many of its requests were in flight on average, which shows
 * whether phases overlap, wait on the client, or run below the concurrency.
 */
export function timeline(requests, { startedAt, endedAt }) {
  if (requests.length === 0)
    return {
      beforeFirstRequestMs: endedAt - startedAt,
      requestsMs: 0,
      afterLastRequestMs: 0,
      meanInFlight: 0,
      meanRequestMs: 0,
      phases: {},
    };
  const spans = requests.map((request) => {
    const start = Date.parse(request.at);
    return { phase: phaseOf(request), start, end: start + request.durationMs };
  });
  const first = spans.reduce((least, span) => Math.min(least, span.start), Infinity);
  const last = spans.reduce((most, span) => Math.max(most, span.end), -Infinity);
  const phases = {};
  for (const span of spans) {
    const entry = (phases[span.phase] ??= { fromMs: Infinity, toMs: -Infinity, heldMs: 0 });
    entry.fromMs = Math.min(entry.fromMs, span.start - startedAt);
    entry.toMs = Math.max(entry.toMs, span.end - startedAt);
    entry.heldMs += span.end - span.start;
  }
  for (const entry of Object.values(phases)) {
    entry.meanInFlight = entry.toMs > entry.fromMs ? entry.heldMs / (entry.toMs - entry.fromMs) : 0;
    delete entry.heldMs;
  }
  const held = requests.reduce((sum, request) => sum + request.durationMs, 0);
  return {
    beforeFirstRequestMs: first - startedAt,
    requestsMs: last - first,
    afterLastRequestMs: endedAt - last,
    // Below the concurrency: the client left slots idle. A mean duration above the latency:
    // the emulator (or the machine) was slow to answer.
    meanInFlight: last > first ? held / (last - first) : 0,
    meanRequestMs: held / requests.length,
    phases,
  };
}
