/**
 * The transport's floor: a run's requests made again through a bare undici pool, and nothing
 * else: no command line, no YAML, no checks of the answers beyond their status, no planning.
 * Like the command, it loads undici's pool by its own module, collects each answer through
 * `dispatch` and parses it, with `BENCH_CONCURRENCY` requests in flight. Its wall time, from
 * spawn to exit like every run, is about the least this machine and this emulator allow a
 * client for those requests; the distance of the tool's run from it is the tool's own cost.
 *
 *   node floor.mjs STAGES.json
 *
 * STAGES.json holds the run's requests as the emulator logged them, cut into stages
 * (`stagesOf` in bound.mjs): `[[{ method, path, adAccountId, body? }, …], …]`, each body as
 * the text to send. A stage starts when every answer of the one before has come, as in the
 * run (the reads wait for the list, the writes for the reads, the checking list for the
 * writes); within a stage the requests go in the run's order. Replaying the log rather than
 * rebuilding the requests makes them the same by construction: the same paths (the ids the run
 * read), the same bodies (what the command sent), the same lists at the same points; the bench
 * checks it by counting the floor's requests by phase too. Prints {"requests": n, "stages": n, "refused": n}: a
 * quota answer is not a failure but a request made again at its next turn (`refused` counts them).
 *
 * Run as its own process by the bench, with ADS_API_URL, ADS_ACCESS_TOKEN and
 * BENCH_CONCURRENCY in the environment. With BENCH_PACE and BENCH_RATE (R), each request starts in its turn at R a
 * second, as the command's does when it is given `--requests-per-second R` (the floors of the paced quota runs):
 * - `even`: the command's own policy (src/api/limiter.ts), starts spaced (1000 + 10 + 2) / R ms apart, each from the
 *   later of when the previous one was due and when it started (less 2 ms), so any R + 1 starts span a second and the
 *   10 ms the network may shift an arrival by;
 * - `window`: what the service's limit allows with the same 10 ms: at most R writes start in any 1010 ms, the first R
 *   at once (the bench's limit counts writes only, so the lists are not paced).
 */
import { readFileSync } from 'node:fs';
import Pool from 'undici/lib/dispatcher/pool.js';

const [stagesFile] = process.argv.slice(2);
if (!stagesFile) throw new Error('floor.mjs: expected the file of the stages to replay');
const stages = JSON.parse(readFileSync(stagesFile, 'utf8'));
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(process.env.ADS_API_URL, { connections: concurrency });
const authorization = `Bearer ${process.env.ADS_ACCESS_TOKEN}`;
const turn = pacer(process.env.BENCH_PACE, Number(process.env.BENCH_RATE));

/** Resolves when the next request may start; requests take their turns in the order they ask. */
function pacer(policy, rate) {
  if (policy === undefined || policy === '') return () => undefined;
  if (!(rate > 0) || (policy !== 'even' && policy !== 'window'))
    throw new Error(`floor.mjs: BENCH_PACE must be even or window with BENCH_RATE > 0, not ${policy} at ${rate}`);
  const tolerance = 10;
  const catchUp = 2;
  const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined);
  let previous = Promise.resolve();
  let lastDue = Number.NEGATIVE_INFINITY;
  let lastStart = Number.NEGATIVE_INFINITY;
  const starts = [];
  const next = async () => {
    const now = performance.now();
    if (policy === 'even') {
      const interval = (1000 + tolerance + catchUp) / rate;
      const due = Math.max(now, lastDue + interval, lastStart + interval - catchUp);
      await sleep(due - now);
      lastDue = due;
      lastStart = performance.now();
    } else {
      const oldest = starts.length >= rate ? starts[starts.length - Math.floor(rate)] : Number.NEGATIVE_INFINITY;
      await sleep(oldest + 1000 + tolerance - now);
      starts.push(performance.now());
    }
  };
  return (request) => {
    if (policy === 'window' && request.method === 'GET') return undefined;
    previous = previous.then(next);
    return previous;
  };
}

function call({ method, path, adAccountId, body }) {
  const headers = {
    authorization,
    ...(adAccountId === null ? {} : { adaccountid: adAccountId }),
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks = [];
    pool.dispatch(
      { method, path, headers, body },
      {
        onRequestStart: () => undefined,
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (status === 200) resolve(text === '' ? undefined : JSON.parse(text));
          else if (isQuotaAnswer(status, text)) resolve(REFUSED);
          else reject(new Error(`${method} ${path}: ${status} ${text}`));
        },
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}

/** A quota answer of the service (429, or 400 with code -10): the floor waits for its next turn and tries again. */
const REFUSED = Symbol('refused');
let refused = 0;
function isQuotaAnswer(status, text) {
  if (status === 429) return true;
  if (status !== 400) return false;
  try {
    return JSON.parse(text).code === -10;
  } catch {
    return false;
  }
}

/** The stage's requests, `concurrency` in flight at a time, in order. */
async function replay(stage) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, stage.length) }, async () => {
      while (next < stage.length) {
        const request = stage[next];
        next += 1;
        await turn(request);
        while ((await call(request)) === REFUSED) {
          refused += 1;
          await turn(request);
        }
      }
    }),
  );
}

let requests = 0;
for (const stage of stages) {
  await replay(stage);
  requests += stage.length;
}
await pool.close();
process.stdout.write(`${JSON.stringify({ requests, stages: stages.length, refused })}\n`);
