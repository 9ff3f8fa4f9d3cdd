/**
 * The transport's floor: the requests of a plan with no changes (the list, then a read of
 * each audience, `BENCH_CONCURRENCY` in flight) through a bare undici pool, and nothing
 * else: no command line, no file, no checks of the answers, no planning. Its wall time, from
 * spawn to exit like every run, is the least this machine and this emulator allow a client
 * for those requests; the distance of `plan-no-change` from it is the tool's own cost.
 * Run as its own process by the bench, with ADS_API_URL, ADS_ACCESS_TOKEN,
 * BENCH_AD_ACCOUNT_ID and BENCH_CONCURRENCY in the environment. Prints how many it read.
 */
import { Pool } from 'undici';

const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(process.env.ADS_API_URL, { connections: concurrency });
const headers = { authorization: `Bearer ${process.env.ADS_ACCESS_TOKEN}`, adaccountid: process.env.BENCH_AD_ACCOUNT_ID };

async function get(path) {
  const response = await pool.request({ method: 'GET', path, headers });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${path}: ${response.statusCode} ${text}`);
  return JSON.parse(text);
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
