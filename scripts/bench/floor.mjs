/**
 * The transport's floor: the requests of a run made through a bare undici pool, and nothing
 * else: no command line, no file, no checks of the answers, no planning. Like the command, it
 * loads undici's pool by its own module and collects each answer through `dispatch`, with
 * `BENCH_CONCURRENCY` requests in flight. Its wall time, from spawn to exit like every run, is
 * about the least this machine and this emulator allow a client for those requests; the
 * distance of the tool's run from it is the tool's own cost. Two shapes:
 *
 *   node floor.mjs reads         the requests of `plan-no-change`: the list, then a read of
 *                                each audience; prints {"read": count}
 *   node floor.mjs creates N     the requests of `apply-creates`: the list, N creates (the
 *                                bench's audiences 0..N-1), the list that settles races with
 *                                another apply, the list that checks them; prints
 *                                {"created": audiences listed at the end}
 *
 * Run as its own process by the bench, with ADS_API_URL, ADS_ACCESS_TOKEN,
 * BENCH_AD_ACCOUNT_ID and BENCH_CONCURRENCY in the environment.
 */
import Pool from 'undici/lib/dispatcher/pool.js';
import { createBody } from './fixtures.mjs';

const BASE = '/openapi/v4/targetings';
const [shape, count] = process.argv.slice(2);
const creates = Number(count);
if (!(shape === 'reads' || (shape === 'creates' && Number.isInteger(creates) && creates > 0))) {
  throw new Error(`floor.mjs: expected \`reads\` or \`creates N\`, got ${process.argv.slice(2).join(' ') || 'nothing'}`);
}
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(process.env.ADS_API_URL, { connections: concurrency });
const headers = { authorization: `Bearer ${process.env.ADS_ACCESS_TOKEN}`, adaccountid: process.env.BENCH_AD_ACCOUNT_ID };

function call(method, path, body) {
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks = [];
    pool.dispatch(body === undefined ? { method, path, headers } : { method, path, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) }, {
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
        else reject(new Error(`${method} ${path}: ${status} ${text}`));
      },
      onResponseError: (_controller, error) => reject(error),
    });
  });
}

/** `work(0)` … `work(total - 1)`, `concurrency` at a time. */
async function inFlight(total, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next;
        next += 1;
        await work(index);
      }
    }),
  );
}

const list = async () => (await call('GET', `${BASE}/audiences`)).content;

let outcome;
if (shape === 'reads') {
  const ids = (await list()).map((audience) => audience.id);
  await inFlight(ids.length, (index) => call('GET', `${BASE}/${ids[index]}`));
  outcome = { read: ids.length };
} else {
  await list();
  await inFlight(creates, (index) => call('POST', BASE, createBody(index)));
  await list();
  outcome = { created: (await list()).length };
}
await pool.close();
process.stdout.write(`${JSON.stringify(outcome)}\n`);
