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
 * checks it by counting the floor's requests by phase too. Prints {"requests": n, "stages": n}.
 *
 * Run as its own process by the bench, with ADS_API_URL, ADS_ACCESS_TOKEN and
 * BENCH_CONCURRENCY in the environment.
 */
import { readFileSync } from 'node:fs';
import Pool from 'undici/lib/dispatcher/pool.js';

const [stagesFile] = process.argv.slice(2);
if (!stagesFile) throw new Error('floor.mjs: expected the file of the stages to replay');
const stages = JSON.parse(readFileSync(stagesFile, 'utf8'));
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(process.env.ADS_API_URL, { connections: concurrency });
const authorization = `Bearer ${process.env.ADS_ACCESS_TOKEN}`;

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
          else reject(new Error(`${method} ${path}: ${status} ${text}`));
        },
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}

/** The stage's requests, `concurrency` in flight at a time, in order. */
async function replay(stage) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, stage.length) }, async () => {
      while (next < stage.length) {
        const request = stage[next];
        next += 1;
        await call(request);
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
process.stdout.write(`${JSON.stringify({ requests, stages: stages.length })}\n`);
