/**
 * The transport's floor: the requests of a plan with no changes (the list, then a read of
 * each audience, `BENCH_CONCURRENCY` in flight) through a bare undici pool, and nothing
 * else: no command line, no file, no checks of the answers, no planning. Like the command,
 * it loads undici's pool by its own module and collects each answer through `dispatch`.
 * Its wall time, from spawn to exit like every run, is about the least this machine and
 * this emulator allow a client for those requests; the distance of `plan-no-change` from it
 * is the tool's own cost. Run as its own process by the bench, with ADS_API_URL,
 * ADS_ACCESS_TOKEN, BENCH_AD_ACCOUNT_ID and BENCH_CONCURRENCY in the environment. Prints how
 * many audiences it read.
 */
import Pool from 'undici/lib/dispatcher/pool.js';

const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(process.env.ADS_API_URL, { connections: concurrency });
const headers = { authorization: `Bearer ${process.env.ADS_ACCESS_TOKEN}`, adaccountid: process.env.BENCH_AD_ACCOUNT_ID };

function get(path) {
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks = [];
    pool.dispatch(
      { method: 'GET', path, headers },
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
          if (status === 200) resolve(JSON.parse(text));
          else reject(new Error(`GET ${path}: ${status} ${text}`));
        },
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}

const ids = (await get('/openapi/v4/targetings/audiences')).content.map((audience) => audience.id);
let next = 0;
let read = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < ids.length) {
      const id = ids[next++];
      await get(`/openapi/v4/targetings/${id}`);
      read += 1;
    }
  }),
);
await pool.close();
process.stdout.write(`${JSON.stringify({ read })}\n`);
