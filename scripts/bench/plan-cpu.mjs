/**
 * Planning without the network, in a process of its own so that its peak memory is its own:
 * `node plan-cpu.mjs DIR` reads DIR/audiences.yaml (10% of it changed) and DIR/live.json
 * (the service's answers: `{list, reads}`) as the command would, then measures with this
 * process's CPU clock
 * - `configCpuMs`: the file's text into the desired state (YAML, schema, rules);
 * - `canonicalizeCpuMs`: the answers into the model (api/audience-wire.js);
 * - `planCpuMs`: the plan itself (identities, diff, order, fingerprint).
 * Prints one JSON line with those, `cpuMs` (canonicalise + plan), `peakRssMb` (and the resident
 * memory after each step, to see which holds it) and the plan's summary.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BENCH_ACCOUNT_ID } from './fixtures.mjs';

const dist = new URL('../../dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const [{ validateConfig }, { audienceFromWire, audienceSummaryFromWire }, { planAccount, neededReads }] =
  await Promise.all([load('config/index.js'), load('api/audience-wire.js'), load('plan/index.js')]);

const dir = process.argv[2] ?? '.';
const text = await readFile(join(dir, 'audiences.yaml'), 'utf8');
const live = JSON.parse(await readFile(join(dir, 'live.json'), 'utf8'));

const cpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

let mark = cpu();
const config = validateConfig(text, 'audiences.yaml');
if (!config.ok) throw new Error(`the generated file is invalid: ${JSON.stringify(config.issues.slice(0, 3))}`);
const configCpuMs = cpu() - mark;
const rssMb = () => process.memoryUsage().rss / 1024 / 1024;
const rssAfterConfigMb = rssMb();

mark = cpu();
const audiences = live.list.map(audienceSummaryFromWire);
const details = Object.fromEntries(live.reads.map((wire) => [String(wire.id), audienceFromWire(wire)]));
const canonicalizeCpuMs = cpu() - mark;
const rssAfterCanonicalizeMb = rssMb();

mark = cpu();
const desired = config.value;
// No bench audience that changes is linked: their ad-group reads would answer [].
const needed = neededReads(desired, audiences);
const linked = [...needed.linkIds, ...needed.detailIds.filter((id) => needed.needsLinks(id, details[String(id)]))];
const links = Object.fromEntries(linked.map((id) => [String(id), []]));
const plan = planAccount(
  desired,
  { adAccountId: BENCH_ACCOUNT_ID, audiences, details, links },
  { allowMassDelete: false },
);
const planCpuMs = cpu() - mark;

process.stdout.write(
  `${JSON.stringify({
    count: live.list.length,
    configCpuMs,
    canonicalizeCpuMs,
    planCpuMs,
    cpuMs: canonicalizeCpuMs + planCpuMs,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    rssAfterConfigMb,
    rssAfterCanonicalizeMb,
    rssAfterPlanMb: rssMb(),
    summary: plan.summary,
    errors: plan.errors.length,
  })}\n`,
);
