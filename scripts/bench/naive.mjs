/**
 * The baseline: what someone would write without the tool — list the account's audiences,
 * then read each one, one at a time, with plain fetch (keep-alive, as Node's fetch does).
 * Run as its own process by the bench: `node naive.mjs` with ADS_API_URL, ADS_ACCESS_TOKEN
 * and BENCH_AD_ACCOUNT_ID in the environment. Prints how many audiences it read.
 */
const base = process.env.ADS_API_URL;
const headers = {
  authorization: `Bearer ${process.env.ADS_ACCESS_TOKEN}`,
  adAccountId: process.env.BENCH_AD_ACCOUNT_ID,
};

async function get(path) {
  const response = await fetch(`${base}${path}`, { headers });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
  return response.json();
}

const list = await get('/openapi/v4/targetings/audiences');
const audiences = [];
for (const { id } of list.content) audiences.push(await get(`/openapi/v4/targetings/${id}`));
process.stdout.write(`${JSON.stringify({ read: audiences.length })}\n`);
