#!/usr/bin/env node
// `npm run demo`: a short tour of the tool against the built-in emulator. It starts the
// emulator on a free loopback port, copies audiences.yaml into a scratch folder, and runs
// the real `audiences` command there: validate, plan, apply, plan again, then a drift made
// behind the tool's back and the plan that repairs it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'audiences.js');
const { startEmulator } = await import(join(root, 'dist', 'emulator', 'server.js'));

const bold = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${text}\u001b[22m` : text);

const emulator = await startEmulator({ port: 0 });
const work = await mkdtemp(join(tmpdir(), 'audiences-demo-'));
await copyFile(join(root, 'audiences.yaml'), join(work, 'audiences.yaml'));
const env = {
  ...process.env,
  ADS_API_URL: emulator.url,
  ADS_ACCESS_TOKEN: emulator.accessToken,
  IMAGEGEN_API_URL: emulator.url,
  IMAGEGEN_API_KEY: emulator.appKey,
};

function step(title, text) {
  console.log(`\n${bold(`▶ ${title}`)}`);
  if (text) console.log(text);
}

function run(...args) {
  console.log(`\n$ audiences ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: work, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** The emulator's own API, for what a person would do in the ad manager. */
async function service(method, path, body) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${emulator.accessToken}`,
      adAccountId: '1234',
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

async function audienceId(name) {
  const { content } = await service('GET', '/openapi/v4/targetings/audiences');
  return content.find((audience) => audience.name === name).id;
}

try {
  console.log(bold('audiences: a short tour'));
  console.log(`The emulator of the ad service runs at ${emulator.url}; its demo ad account 1234 starts empty.`);
  console.log(`The tour works in ${work}, on a copy of audiences.yaml.`);

  step(
    '1. Check the file offline',
    'YAML, the JSON Schema and the rules of the service, each problem as FILE:LINE:COL.',
  );
  await run('validate');

  step(
    '2. Plan',
    'The header shows the business the file declares, as the lookup found it. The account has none of the declared audiences yet: four creates; the two images are generated, the banner before its variation. The plan also warns that ad group 101, which the file allows to use "gangnam-shoppers", does not use it yet.',
  );
  await run('plan');

  step('3. Apply', 'In a pipeline, --auto-approve replaces the terminal prompt.');
  await run('apply', '--auto-approve');

  step(
    '4. Someone links ad group 101 in the ad manager',
    '(the API has no link operation; the emulator has a test route for it)',
  );
  await fetch(`${emulator.url}/_emulator/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ adAccountId: 1234, audienceId: await audienceId('gangnam-shoppers'), adGroupId: 101 }),
  });

  step('5. Plan again', 'The account matches the file: no changes, exit code 0 with --detailed-exitcode.');
  await run('plan', '--detailed-exitcode');

  step(
    '6. Drift',
    'Behind the tool\'s back, someone adds the 30-34 band to "seoul-women-20s" and creates "summer-sale" by hand, used by ad group 102.',
  );
  const seoul = await service('GET', `/openapi/v4/targetings/${await audienceId('seoul-women-20s')}`);
  await service('PUT', '/openapi/v4/targetings', {
    id: seoul.id,
    adAccountId: 1234,
    name: seoul.name,
    type: seoul.type,
    ageType: 'NOT_ALL',
    ages: [...seoul.ages, '30'],
    genderType: seoul.genderType,
    genders: seoul.genders,
    locationType: 'AREA',
    locations: seoul.locations.map(({ value }) => ({ value })),
    ufoInterests: seoul.ufoInterests,
  });
  const sale = await service('POST', '/openapi/v4/targetings', {
    adAccountId: 1234,
    name: 'summer-sale',
    type: 'DISPLAY',
    ageType: 'ALL',
    genderType: 'ALL',
    locationType: 'ALL',
  });
  await fetch(`${emulator.url}/_emulator/links`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ adAccountId: 1234, audienceId: sale.id, adGroupId: 102 }),
  });

  step(
    '7. The plan that repairs it',
    'The band goes again; with prune, "summer-sale" is deleted after ad group 102 is released. The Markdown form is what a pull request would show.',
  );
  await run('plan', '--out', 'repair.plan.json');
  await run('plan', '--format', 'markdown');

  step('8. Apply the saved plan', 'A saved plan is refused if the account changed since it was made.');
  await run('apply', 'repair.plan.json');
  await run('plan', '--detailed-exitcode');

  step(
    '9. A generated image is lost',
    'images.lock.json recorded the seeds the service chose, so the plan regenerates the file identically.',
  );
  const banner = join(work, 'assets', 'spring-banner.webp');
  const digest = async () =>
    createHash('sha256')
      .update(await readFile(banner))
      .digest('hex')
      .slice(0, 16);
  const before = await digest();
  await rm(banner);
  await run('apply', '--auto-approve');
  console.log(`sha256 of assets/spring-banner.webp: ${before} before, ${await digest()} after`);

  console.log(
    `\n${bold('That was the tour.')} Next: read README.md, edit audiences.yaml, and run \`npx audiences plan --emulator\`.`,
  );
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
