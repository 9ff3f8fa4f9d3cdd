import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { link, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runInProcess, workspace } from '../helpers/cli.js';
import { storedAudiences } from '../helpers/live-account.js';
import { git, run as runProcess } from '../helpers/stand-in.js';
import { temporaryDir } from '../helpers/temporary.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await emulatorRoute(emulator, 'POST', '/_emulator/reset');
  await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
});

const run = (cwd: string, ...args: string[]) => runInProcess(args, { cwd, env });

interface LoggedRequest {
  method: string;
  path: string;
  auth: string;
  adAccountId?: string | null;
  status: number | string;
  body?: Record<string, unknown>;
}

async function requests(): Promise<LoggedRequest[]> {
  return ((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: LoggedRequest[] }).requests;
}

async function imageRequests(): Promise<string[]> {
  return (await requests())
    .filter((request) => request.path.startsWith('/v2/inference/'))
    .map((request) => request.path.replace('/v2/inference/imagegen/', ''));
}

const HERO = `  - name: hero
    prompt: a spring picnic in a park, watercolor
    version: v2.0
    width: 512
    height: 384
    output: assets/hero.webp
`;

function config(images: string, head = ''): string {
  return `adAccountId: 1234\nprune: true\n${head}images:\n${images}audiences: []\n`;
}

async function png(width: number, height: number, colour: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

describe('audiences company', () => {
  it("prints the business registered under a number, for the file's ad account", async () => {
    const cwd = await workspace({ 'audiences.yaml': config('') });
    const found = await run(cwd, 'company', '120-81-47521');
    expect(found).toMatchObject({ code: 0, stderr: '' });
    expect(found.stdout).toContain('name:                Demo Commerce Co., Ltd.');
    expect(found.stdout).toContain('representative:      Kim Minji');
    const [lookup] = await requests();
    expect(lookup).toMatchObject({
      method: 'GET',
      path: '/openapi/v1/companies?bizNum=120-81-47521',
      auth: 'Bearer',
      adAccountId: '1234',
      status: 200,
    });
  });

  it('prints JSON with --json, for the --ad-account given', async () => {
    const cwd = await workspace({});
    const found = await run(cwd, 'company', '220-81-62458', '--ad-account', '1234', '--json');
    expect(JSON.parse(found.stdout)).toMatchObject({
      businessRegistrationNumber: '220-81-62458',
      name: 'Harbor Foods Inc.',
      address: { zipCode: '48060' },
    });
  });

  it('says so when no business has the number', async () => {
    const cwd = await workspace({ 'audiences.yaml': config('') });
    const missing = await run(cwd, 'company', '123-45-67891');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('error[COMPANY_NOT_FOUND]: no business is registered under 123-45-67891');
  });

  it('refuses a malformed number offline, before any request', async () => {
    const cwd = await workspace({ 'audiences.yaml': config('') });
    for (const [number, message] of [
      ['120-81-47522', 'has a wrong check digit'],
      ['12-081-47521', 'is not a business registration number'],
      ['000-00-00000', 'all zeros'],
    ]) {
      const refused = await run(cwd, 'company', number as string);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`error[BIZNUM_INVALID]: `);
      expect(refused.stderr).toContain(message);
    }
    expect(await requests()).toEqual([]);
  });
});

describe('business: as a precondition of plan and apply', () => {
  const audience = '  - name: seoul\n    type: DISPLAY\n    locations: [I]\n';

  it('shows the business in the plan header and applies', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nbusiness:\n  registrationNumber: 120-81-47521\n  name: Demo Commerce Co., Ltd.\naudiences:\n${audience}`,
    });
    const plan = await run(cwd, 'plan', '--format', 'markdown');
    expect(plan.stdout).toContain(
      'business: 120-81-47521 "Demo Commerce Co., Ltd." (representative Kim Minji, category Retail)',
    );
    expect((await requests()).filter((request) => request.path.startsWith('/openapi/v1/companies'))).toHaveLength(1);
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
  });

  it.each([
    ['a number no business has', '  registrationNumber: 123-45-67891\n', 'BUSINESS_NOT_FOUND'],
    [
      'an expected field that differs',
      '  registrationNumber: 120-81-47521\n  representationName: Lee Jiwoo\n',
      'BUSINESS_MISMATCH',
    ],
  ])('stops at %s before any change', async (_name, business, code) => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nbusiness:\n${business}audiences:\n${audience}`,
    });
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain(`error[${code}]`);
    expect((await requests()).filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('checks the number offline in validate', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nbusiness:\n  registrationNumber: 120-81-47522\naudiences: []\n`,
    });
    const validate = await run(cwd, 'validate');
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(
      'audiences.yaml:3:23: business.registrationNumber: 120-81-47522 has a wrong check digit',
    );
  });
});

describe('images: as declared resources', () => {
  it('generates each operation, in dependency order, with real files of the requested format and size', async () => {
    const cwd = await workspace({ 'audiences.yaml': '' });
    await writeFile(join(cwd, 'photo.png'), await png(256, 192, { r: 200, g: 120, b: 40 }));
    await writeFile(join(cwd, 'mask.png'), await png(256, 192, { r: 0, g: 0, b: 0 }));
    await writeFile(
      join(cwd, 'audiences.yaml'),
      config(`  - name: fixed
    prompt: a red kite in the sky
    image: photo.png
    mask: mask.png
    output: assets/fixed.png
  - name: variants
    image: { from: hero }
    version: v2.0
    width: 384
    height: 384
    samples: 2
    output: assets/variant.jpg
${HERO}`),
    );
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('3 done, 0 failed, 0 skipped');
    const order = await imageRequests();
    expect(order.indexOf('t2i')).toBeLessThan(order.indexOf('variations'));
    expect(order.sort()).toEqual(['inpainting', 't2i', 'variations']);

    const shapes = await Promise.all(
      ['assets/hero.webp', 'assets/variant-1.jpg', 'assets/variant-2.jpg', 'assets/fixed.png'].map(async (path) => {
        const { format, width, height } = await sharp(await readFile(join(cwd, path))).metadata();
        return [path, format, width, height];
      }),
    );
    expect(shapes).toEqual([
      ['assets/hero.webp', 'webp', 512, 384],
      ['assets/variant-1.jpg', 'jpeg', 384, 384],
      ['assets/variant-2.jpg', 'jpeg', 384, 384],
      ['assets/fixed.png', 'png', 256, 192],
    ]);
    const variation = (await requests()).find((request) => request.path.endsWith('/variations'));
    expect(variation?.auth).toBe('AppKey');
    expect(variation?.body?.['image']).toBe((await readFile(join(cwd, 'assets/hero.webp'))).toString('base64'));

    const lock = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as {
      images: Record<string, { seeds: number[]; modelVersion: string; outputs: unknown[] }>;
    };
    expect(Object.keys(lock.images)).toEqual(['fixed', 'hero', 'variants']);
    expect(lock.images['variants']).toMatchObject({
      modelVersion: 'v2.0',
      seeds: [expect.any(Number), expect.any(Number)],
    });
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);
  });

  it("previews locally: the plan and a saved plan's show give each image's size, seeds and files; apply --kind image says which seed wrote each file", async () => {
    const poster = `  - name: poster
    prompt: a kite festival poster
    version: v2.1
    width: 1280
    height: 768
    upscale: true
    scale: 4
    seed: [7]
    output: assets/poster.png
`;
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nimages:\n${HERO}${poster}audiences:\n  - { name: kites, type: DISPLAY }\n`,
    });
    const sizes = ['size: 512×384', 'size: 1280×768, enlarged ×4 (at most 2048 a side)'];
    const plan = await run(cwd, 'plan', '--out', 'plan.json');
    const shown = await run(cwd, 'show', 'plan.json');
    for (const output of [plan.stdout, shown.stdout]) {
      expect(output).toContain(
        `${sizes[0]}\n      seeds: chosen by the service, then locked\n      file: assets/hero.webp\n`,
      );
      expect(output).toContain(`${sizes[1]}\n      seeds: 7\n      file: assets/poster.png\n`);
    }

    const preview = await run(cwd, 'apply', '--kind', 'image', '--auto-approve');
    expect(preview.code, preview.stderr).toBe(0);
    const lock = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as {
      images: Record<string, { seeds: number[] }>;
    };
    const heroSeed = lock.images['hero']?.seeds[0];
    expect(heroSeed).toEqual(expect.any(Number));
    expect(preview.stderr).toContain(`ok      generate image "hero": wrote assets/hero.webp (seed ${heroSeed})\n`);
    expect(preview.stderr).toContain('ok      generate image "poster": wrote assets/poster.png (seed 7)\n');
    const { width, height } = await sharp(await readFile(join(cwd, 'assets/poster.png'))).metadata();
    expect([width, height]).toEqual([2048, 1229]);
    expect(await storedAudiences(emulator)).toEqual([]);
  });

  it('brings a lost or edited file back identical with the locked seeds', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const original = await readFile(join(cwd, 'assets/hero.webp'));
    const { images } = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as {
      images: { hero: { seeds: number[] } };
    };

    await rm(join(cwd, 'assets/hero.webp'));
    const plan = await run(cwd, 'plan', '--format', 'json');
    expect(JSON.parse(plan.stdout)).toMatchObject([
      {
        changes: [
          {
            action: 'generate',
            kind: 'image',
            name: 'hero',
            after: { seeds: images.hero.seeds },
            display: { reason: 'output-missing' },
          },
        ],
        summary: { generate: 1 },
      },
    ]);
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await readFile(join(cwd, 'assets/hero.webp'))).equals(original)).toBe(true);

    await writeFile(join(cwd, 'assets/hero.webp'), 'edited');
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await readFile(join(cwd, 'assets/hero.webp'))).equals(original)).toBe(true);
  });

  it('says so when the locked seeds do not bring a lost file back identical (a seed edited by hand in the lock)', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const lockPath = join(cwd, 'images.lock.json');
    const lock = JSON.parse(await readFile(lockPath, 'utf8')) as { images: { hero: { seeds: number[] } } };
    lock.images.hero.seeds = [(lock.images.hero.seeds[0] as number) === 123 ? 124 : 123];
    await writeFile(lockPath, JSON.stringify(lock));
    await rm(join(cwd, 'assets/hero.webp'));

    const applied = await run(cwd, 'apply', '--auto-approve');
    expect(applied.code).toBe(0);
    const note =
      "the locked seeds did not bring back the bytes the lock recorded for assets/hero.webp (the lock's seeds were edited, or the service's model changed): the lock now records the new file";
    expect(applied.stderr).toContain(
      `ok      generate image "hero": wrote assets/hero.webp (seed ${lock.images.hero.seeds[0]}); ${note}`,
    );
    expect(applied.stdout).toContain(`Done, with a note:\n  generate image "hero": ${note}`);
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('applies a saved plan, which holds no image bytes, and refuses it once a file changed', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO, 'business:\n  registrationNumber: 120-81-47521\n') });
    await run(cwd, 'plan', '--out', 'first.plan.json');
    const saved = await readFile(join(cwd, 'first.plan.json'), 'utf8');
    expect(JSON.parse(saved)).toMatchObject([
      { business: { registrationNumber: '120-81-47521', company: { name: 'Demo Commerce Co., Ltd.' } }, imageDir: '.' },
    ]);
    expect(saved).not.toContain(env.IMAGEGEN_API_KEY as string);
    expect(saved).not.toContain(env.ADS_ACCESS_TOKEN as string);
    expect((await run(cwd, 'apply', 'first.plan.json')).code).toBe(0);
    expect(await readFile(join(cwd, 'assets/hero.webp'))).toBeTruthy();

    await writeFile(join(cwd, 'audiences.yaml'), config(HERO.replace('watercolor', 'oil painting')));
    await run(cwd, 'plan', '--out', 'second.plan.json');
    const second = await readFile(join(cwd, 'second.plan.json'), 'utf8');
    expect(second).not.toMatch(/[A-Za-z0-9+/]{200,}/);
    await writeFile(join(cwd, 'assets/hero.webp'), 'edited');
    const stale = await run(cwd, 'apply', 'second.plan.json');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale');
    expect(stale.stderr).toContain('assets/hero.webp changed since the plan was made');
  });

  it('checks the image service settings before it changes anything', async () => {
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\nimages:\n${HERO}audiences:\n  - name: busan-travellers\n    type: DISPLAY\n    locations: [H]\n`,
    });
    for (const missing of ['IMAGEGEN_API_KEY', 'IMAGEGEN_API_URL']) {
      const settings = Object.fromEntries(Object.entries(env).filter(([name]) => name !== missing));
      const applied = await runInProcess(['apply', '--auto-approve'], { cwd, env: settings });
      expect(applied.code).toBe(1);
      expect(applied.stderr).toContain(`${missing} is not set`);
      expect(applied.stderr).not.toContain('ok ');
    }
    expect((await run(cwd, 'plan', '--out', 'saved.plan.json')).code).toBe(0);
    const withoutKey = Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'IMAGEGEN_API_KEY'));
    const fromSaved = await runInProcess(['apply', 'saved.plan.json'], { cwd, env: withoutKey });
    expect(fromSaved.code).toBe(1);
    expect(fromSaved.stderr).toContain('IMAGEGEN_API_KEY is not set');
    expect((await requests()).filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('does not write an image flagged unsafe, and reports it failed', async () => {
    const cwd = await workspace({
      'audiences.yaml': config(
        HERO.replace('watercolor', 'unsafe scene').replace('    output:', '    nsfw_checker: true\n    output:'),
      ),
    });
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'FAILED  generate image "hero": the service flagged assets/hero.webp as unsafe content',
    );
    await expect(readFile(join(cwd, 'assets/hero.webp'))).rejects.toThrow();
    await expect(readFile(join(cwd, 'images.lock.json'))).rejects.toThrow();
  });

  it('removes an image dropped from the file, with prune', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), 'adAccountId: 1234\nprune: true\naudiences: []\n');
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.stdout).toContain('- remove image "hero"');
    await expect(readFile(join(cwd, 'assets/hero.webp'))).rejects.toThrow();
    expect(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8'))).toEqual({ lockVersion: 1, images: {} });
  });

  it('removes an image without the image service: removing needs no generation', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), 'adAccountId: 1234\nprune: true\naudiences: []\n');
    const withoutImageService = Object.fromEntries(
      Object.entries(env).filter(([name]) => !name.startsWith('IMAGEGEN_')),
    );
    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env: withoutImageService });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('ok      remove image "hero"');
    await expect(readFile(join(cwd, 'assets/hero.webp'))).rejects.toThrow();
    expect(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8'))).toEqual({ lockVersion: 1, images: {} });
  });

  it('prunes images apart from audiences: with pruneImages alone, an edit of the images deletes no audience', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const created = await fetch(`${emulator.url}/openapi/v4/targetings`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${emulator.accessToken}`,
        adAccountId: '1234',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        adAccountId: 1234,
        name: 'kept-by-hand',
        type: 'DISPLAY',
        ageType: 'ALL',
        genderType: 'ALL',
        locationType: 'ALL',
      }),
    });
    expect(created.status).toBe(200);
    await writeFile(join(cwd, 'audiences.yaml'), 'adAccountId: 1234\npruneImages: true\naudiences: []\n');
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to unlink, 1 to remove.');
    expect(apply.stdout).not.toContain('delete audience');
    await expect(readFile(join(cwd, 'assets/hero.webp'))).rejects.toThrow();
    const listed = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, {
      headers: { authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234' },
    });
    expect(JSON.stringify(await listed.json())).toContain('kept-by-hand');
  });

  it('plans and applies images named like the properties every object has', async () => {
    const names = ['__proto__', 'toString', 'constructor'];
    const images = names
      .map((name) => HERO.replace('name: hero', `name: ${name}`).replace('assets/hero.webp', `assets/${name}.webp`))
      .join('');
    const cwd = await workspace({ 'audiences.yaml': config(images) });
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(Object.keys(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')).images).sort()).toEqual(
      [...names].sort(),
    );
    expect((await run(cwd, 'plan')).stdout).toContain('No changes');
    await writeFile(join(cwd, 'audiences.yaml'), 'adAccountId: 1234\nprune: true\naudiences: []\n');
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8'))).toEqual({ lockVersion: 1, images: {} });
  });

  it('checks inputs before any call: existence, real format and the inpainting size limit', async () => {
    const cwd = await workspace({ 'not-an-image.png': 'hello', 'audiences.yaml': '' });
    await writeFile(join(cwd, 'big.png'), await png(1100, 64, { r: 1, g: 2, b: 3 }));
    await writeFile(join(cwd, 'mask.png'), await png(1100, 64, { r: 0, g: 0, b: 0 }));
    await writeFile(
      join(cwd, 'audiences.yaml'),
      config(`  - name: a
    image: not-an-image.png
    version: v2.0
    width: 384
    height: 384
    output: a.webp
  - name: b
    image: missing.png
    version: v2.0
    width: 384
    height: 384
    output: b.webp
  - name: c
    prompt: a kite
    image: big.png
    mask: mask.png
    output: c.webp
`),
    );
    const plan = await run(cwd, 'plan');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      'error[IMAGE_INPUT]: image "a": image not-an-image.png is not an image the service reads (by its content)',
    );
    expect(plan.stdout).toContain('error[IMAGE_INPUT]: image "b": image missing.png does not exist');
    expect(plan.stdout).toContain('image: missing.png (missing)');
    expect(plan.stdout).toContain(
      'error[IMAGE_INPUT]: image "c": image big.png is 1100×64 pixels; inpainting takes at most 1024 a side',
    );
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(1);
    expect(await imageRequests()).toEqual([]);
  });

  it('refuses paths that lead out of the project: .. and absolute in validate, links when planning', async () => {
    const outside = await temporaryDir('audiences-outside-');
    const cwd = await workspace({ 'audiences.yaml': config(HERO.replace('assets/hero.webp', '../hero.webp')) });
    const validate = await run(cwd, 'validate');
    expect(validate.stderr).toContain(
      'audiences.yaml:9:13: images[0].output: "../hero.webp" leads out of the project folder (..)',
    );
    await writeFile(join(cwd, 'audiences.yaml'), config(HERO.replace('assets/hero.webp', '/tmp/hero.webp')));
    expect((await run(cwd, 'validate')).stderr).toContain('is an absolute path');

    await symlink(outside, join(cwd, 'assets'));
    await writeFile(join(cwd, 'audiences.yaml'), config(HERO));
    const plan = await run(cwd, 'apply', '--auto-approve');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      'error[IMAGE_PATH]: image "hero": cannot write assets/hero.webp: it leads out of the project folder through a link',
    );
    expect(await imageRequests()).toEqual([]);

    await rm(join(cwd, 'assets'));
    await mkdir(join(cwd, 'assets'));
    await symlink(join(outside, 'hero.webp'), join(cwd, 'assets', 'hero.webp'));
    expect((await run(cwd, 'plan')).stdout).toContain('error[IMAGE_PATH]');
  });
});

describe('images: a removal deletes only what the tool wrote', () => {
  const PRUNE_ONLY = 'adAccountId: 1234\npruneImages: true\naudiences: []\n';

  /** A project whose image "hero" was generated, then dropped from the file (with pruneImages). */
  async function generatedThenDropped(): Promise<string> {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), PRUNE_ONLY);
    return cwd;
  }

  async function editLock(
    cwd: string,
    edit: (images: Record<string, { seeds: number[]; outputs: Array<{ path: string; sha256: string }> }>) => void,
  ): Promise<void> {
    const lock = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8'));
    edit(lock.images);
    await writeFile(join(cwd, 'images.lock.json'), JSON.stringify(lock, null, 2));
  }

  const sha256Of = async (path: string): Promise<string> =>
    createHash('sha256')
      .update(await readFile(path))
      .digest('hex');

  it('leaves alone CODEOWNERS, audiences.yaml and .git/config that a hand-edited lock names, and says so in text, JSON and Markdown', async () => {
    const cwd = await generatedThenDropped();
    await writeFile(join(cwd, 'CODEOWNERS'), '* @team\n');
    await mkdir(join(cwd, '.git'));
    await writeFile(join(cwd, '.git/config'), '[core]\n\tbare = false\n');
    // CODEOWNERS and .git/config with the hash of their own bytes: a lock can claim any file.
    const claimed = {
      CODEOWNERS: await sha256Of(join(cwd, 'CODEOWNERS')),
      'audiences.yaml': 'b'.repeat(64),
      '.git/config': await sha256Of(join(cwd, '.git/config')),
    };
    await editLock(cwd, (images) => {
      for (const [path, sha256] of Object.entries(claimed)) {
        images['hero']?.outputs.push({ path, sha256 });
        images['hero']?.seeds.push(1);
      }
    });
    const before = await Promise.all(Object.keys(claimed).map((path) => readFile(join(cwd, path), 'utf8')));

    const text = await run(cwd, 'plan');
    expect(text.stdout).toContain('files deleted: assets/hero.webp\n');
    expect(text.stdout).toContain(
      'warning[IMAGE_LEFT_ALONE]: image "hero" is removed, but its file CODEOWNERS is left alone: it is not an image (by its content), and the tool writes only images',
    );
    expect(text.stdout).toContain(
      'warning[IMAGE_LEFT_ALONE]: image "hero" is removed, but its file audiences.yaml is left alone: its bytes are not the ones the lock records for it',
    );
    expect(text.stdout).toContain(
      'warning[IMAGE_LEFT_ALONE]: image "hero" is removed, but its file .git/config is left alone: it is not an image',
    );
    const [plan] = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout);
    expect(plan.changes).toEqual([
      expect.objectContaining({ action: 'remove', name: 'hero', deletes: ['assets/hero.webp'] }),
    ]);
    expect(plan.warnings.map((warning: { code: string }) => warning.code)).toEqual([
      'IMAGE_LEFT_ALONE',
      'IMAGE_LEFT_ALONE',
      'IMAGE_LEFT_ALONE',
    ]);
    const markdown = (await run(cwd, 'plan', '--format', 'markdown')).stdout;
    const folded = markdown.indexOf('<details>');
    expect(markdown.indexOf('**It deletes 1 file:**\n\n* image "hero": assets/hero.webp\n')).toBeGreaterThan(0);
    expect(markdown.indexOf('**It deletes 1 file:**')).toBeLessThan(folded);
    expect(markdown.indexOf('its file CODEOWNERS is left alone')).toBeLessThan(folded);

    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    await expect(readFile(join(cwd, 'assets/hero.webp'))).rejects.toThrow();
    expect(await Promise.all(Object.keys(claimed).map((path) => readFile(join(cwd, path), 'utf8')))).toEqual(before);
    expect(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8'))).toEqual({ lockVersion: 1, images: {} });
  });

  it('leaves alone an image file that is a link out of the project, and the file it leads to', async () => {
    const cwd = await generatedThenDropped();
    const outside = join(await temporaryDir('audiences-outside-'), 'hero.webp');
    await writeFile(outside, await readFile(join(cwd, 'assets/hero.webp')));
    await rm(join(cwd, 'assets/hero.webp'));
    await symlink(outside, join(cwd, 'assets/hero.webp'));

    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('files deleted: (none)');
    expect(apply.stdout).toContain(
      'warning[IMAGE_LEFT_ALONE]: image "hero" is removed, but its file assets/hero.webp is left alone: it leads out of the project folder through a link',
    );
    expect(await readFile(outside)).toBeTruthy();
    expect(await readlink(join(cwd, 'assets/hero.webp'))).toBe(outside);
  });

  it('refuses a lock that is a link out of the project without reading it, in every format', async () => {
    const cwd = await workspace({ 'audiences.yaml': PRUNE_ONLY });
    const secret = join(await temporaryDir('audiences-outside-'), 'secret.txt');
    await writeFile(secret, 'ADS_ACCESS_TOKEN=s3cr3t-value\n');
    await symlink(secret, join(cwd, 'images.lock.json'));
    for (const format of ['text', 'json', 'markdown']) {
      const plan = await run(cwd, 'plan', '--format', format);
      expect(plan.code).toBe(1);
      expect(plan.stdout + plan.stderr).toContain(
        'images.lock.json cannot be used: it leads out of the project folder through a link; it was not read',
      );
      expect(plan.stdout + plan.stderr).not.toContain('s3cr3t');
      expect(plan.stdout + plan.stderr).not.toContain('ADS_ACCESS_TOKEN');
    }
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(1);
    expect(await readFile(secret, 'utf8')).toBe('ADS_ACCESS_TOKEN=s3cr3t-value\n');
  });

  it.each([
    ['text that is not JSON', () => 'token=s3cr3t-value\n', 'it is not JSON'],
    [
      'a request of the wrong shape',
      (lock: string) => lock.replace('"inputs": {}', '"inputs": null'),
      'its entry "hero": request.inputs must be an object',
    ],
    [
      'an output that is not an object',
      (lock: string) => lock.replace(/"outputs": \[\s*\{[^}]*\}/, '"outputs": [null'),
      'its entry "hero": outputs[0] must be an object with path and sha256',
    ],
    [
      'an output path with ..',
      (lock: string) => lock.replace('"assets/hero.webp"', '"../hero.webp"'),
      'its entry "hero": outputs[0].path "../hero.webp" leads out of the project folder (..)',
    ],
    [
      'an absolute output path',
      (lock: string) => lock.replace('"assets/hero.webp"', '"/tmp/hero.webp"'),
      'its entry "hero": outputs[0].path "/tmp/hero.webp" is an absolute path',
    ],
    [
      'a seed that is not a number',
      (lock: string) => lock.replace(/"seeds": \[\s*\d+/, '"seeds": ["7"'),
      'its entry "hero": seeds[0] must be an integer from 0 to 4294967295',
    ],
    [
      'a hash that is not a SHA-256',
      (lock: string) => lock.replace(/"sha256": "[0-9a-f]+"/, '"sha256": "x"'),
      'its entry "hero": outputs[0].sha256 must be a SHA-256',
    ],
  ])('refuses a lock with %s, naming the lock and the entry, before any change', async (_case, spoil, problem) => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const lock = await readFile(join(cwd, 'images.lock.json'), 'utf8');
    const spoilt = spoil(lock);
    expect(spoilt).not.toBe(lock);
    await writeFile(join(cwd, 'images.lock.json'), spoilt);
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    for (const file of [config(HERO), PRUNE_ONLY]) {
      await writeFile(join(cwd, 'audiences.yaml'), file);
      const plan = await run(cwd, 'plan');
      expect(plan.code, plan.stdout + plan.stderr).toBe(1);
      expect(plan.stdout).toContain(`error[IMAGE_LOCK]: images.lock.json cannot be used: ${problem}`);
      expect(plan.stdout + plan.stderr).not.toContain('INTERNAL');
      expect(plan.stdout + plan.stderr).not.toContain('s3cr3t');
      expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(1);
    }
    expect(await readFile(join(cwd, 'assets/hero.webp'))).toBeTruthy();
    expect(await readFile(join(cwd, 'images.lock.json'), 'utf8')).toBe(spoilt);
    expect(await imageRequests()).toEqual([]);
  });

  it('refuses a lock that gives an entry twice (as a merge may), naming both places, in plan and apply', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const lock = await readFile(join(cwd, 'images.lock.json'), 'utf8');
    const hero = JSON.parse(lock).images.hero;
    // The other side of a merge: the same image with other seeds, kept above the entry JSON.parse would take.
    const merged = lock.replace('"images": {', `"images": {\n    "hero": ${JSON.stringify({ ...hero, seeds: [1] })},`);
    await writeFile(join(cwd, 'images.lock.json'), merged);
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    const problem =
      'error[IMAGE_LOCK]: images.lock.json cannot be used: its entry "hero" is given twice (line 5, column 5, and first at line 4, column 5)';
    const hint =
      'keep one of the two and delete the other (`audiences apply --kind image` then rewrites images.lock.json)';
    for (const args of [['plan'], ['apply', '--auto-approve']]) {
      const refused = await run(cwd, ...args);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(refused.stdout + refused.stderr).toContain(problem);
      expect(refused.stdout + refused.stderr).toContain(hint);
    }
    const json = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout);
    expect(json[0].errors).toEqual([expect.objectContaining({ code: 'IMAGE_LOCK', hint })]);
    expect(await readFile(join(cwd, 'images.lock.json'), 'utf8')).toBe(merged);
    expect(await imageRequests()).toEqual([]);
  });

  it('keeps a file whose bytes changed: left alone when planned, the saved plan stale, the removal skipped when it changed after planning', async () => {
    const cwd = await generatedThenDropped();
    const path = join(cwd, 'assets/hero.webp');

    expect((await run(cwd, 'plan', '--out', 'saved.plan.json')).code).toBe(0);
    await writeFile(path, 'edited after the plan was saved');
    const stale = await run(cwd, 'apply', 'saved.plan.json');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('assets/hero.webp changed since the plan was made');
    expect(await readFile(path, 'utf8')).toBe('edited after the plan was saved');

    const original = (await run(cwd, 'plan', '--format', 'json')).stdout;
    expect(JSON.parse(original)[0].changes[0].deletes).toEqual([]);
    expect(original).toContain(
      'its file assets/hero.webp is left alone: its bytes are not the ones the lock records for it',
    );

    // Back to the generated bytes, then changed while the plan waits for its confirmation: the approved plan is stale.
    await rm(path);
    await writeFile(join(cwd, 'audiences.yaml'), config(HERO));
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), PRUNE_ONLY);
    const confirmed = await runInProcess(['apply'], {
      cwd,
      env,
      tty: true,
      answers: [
        async () => {
          await writeFile(path, 'edited while the plan was read');
          return 'yes';
        },
      ],
    });
    expect(confirmed.stdout).toContain('files deleted: assets/hero.webp');
    expect(confirmed.code).toBe(1);
    expect(confirmed.stderr).toContain('error[PLAN_STALE]');
    expect(confirmed.stderr).toContain('assets/hero.webp changed since the plan was made');
    expect(await readFile(path, 'utf8')).toBe('edited while the plan was read');
    expect(Object.keys(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')).images)).toEqual(['hero']);

    // Back again, then changed after the plan, as `apply --auto-approve` shows it (no check): the removal is skipped.
    await rm(path);
    await writeFile(join(cwd, 'audiences.yaml'), config(HERO));
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(join(cwd, 'audiences.yaml'), PRUNE_ONLY);
    const raced = await runInProcess(['apply', '--auto-approve'], {
      cwd,
      env,
      shown: (text) => {
        if (text.includes('files deleted: assets/hero.webp')) writeFileSync(path, 'edited after the plan was made');
      },
    });
    expect(raced.code).toBe(1);
    expect(raced.stdout + raced.stderr).toContain(
      'assets/hero.webp changed since the plan was made; nothing was removed',
    );
    expect(await readFile(path, 'utf8')).toBe('edited after the plan was made');
    expect(Object.keys(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')).images)).toEqual(['hero']);
  });

  it('refuses at apply a file an edited saved plan deletes that is not an image, though its hash is the one the plan gives', async () => {
    const cwd = await generatedThenDropped();
    await writeFile(join(cwd, 'CODEOWNERS'), '* @team\n');
    expect((await run(cwd, 'plan', '--out', 'saved.plan.json')).code).toBe(0);
    // Anyone can hash a file of the repository: the edited plan claims CODEOWNERS with its own hash.
    const saved = JSON.parse(await readFile(join(cwd, 'saved.plan.json'), 'utf8'));
    const [remove] = saved[0].changes;
    remove.before.outputs.push({ path: 'CODEOWNERS', sha256: await sha256Of(join(cwd, 'CODEOWNERS')) });
    remove.before.seeds.push(1);
    remove.deletes.push('CODEOWNERS');
    await writeFile(join(cwd, 'saved.plan.json'), JSON.stringify(saved, null, 2));

    const apply = await run(cwd, 'apply', 'saved.plan.json');
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain(
      'CODEOWNERS is not an image (by its content), and the tool writes only images; nothing was removed',
    );
    expect(await readFile(join(cwd, 'CODEOWNERS'), 'utf8')).toBe('* @team\n');
    expect(await readFile(join(cwd, 'assets/hero.webp'))).toBeTruthy();
    expect(Object.keys(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')).images)).toEqual(['hero']);
  });

  it('keeps the file of a renamed image that writes the same path', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(
      join(cwd, 'audiences.yaml'),
      config(HERO.replace('name: hero', 'name: banner'), 'pruneImages: true\n'),
    );
    const apply = await run(cwd, 'apply', '--auto-approve');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain('its file assets/hero.webp is left alone: the declared image "banner" writes it');
    expect(Object.keys(JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')).images)).toEqual(['banner']);
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);
  });
});

describe('images: a moved output', () => {
  const MOVED = HERO.replace('output: assets/hero.webp', 'output: art/hero.webp');
  const withoutImageService = () =>
    Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('IMAGEGEN_')));
  const lockedPaths = async (cwd: string) =>
    Object.values(
      (
        JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as {
          images: Record<string, { outputs: Array<{ path: string }> }>;
        }
      ).images,
    ).flatMap((image) => image.outputs.map((output) => output.path));

  it('is moved, not generated: copied to its new path, the old file deleted under pruneImages, the lock following, and no image service asked', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const original = await readFile(join(cwd, 'assets/hero.webp'));
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    await writeFile(join(cwd, 'audiences.yaml'), config(MOVED));
    const plan = await run(cwd, 'plan');
    expect(plan.stdout).toContain(
      '  ~ move image "hero"\n      file: assets/hero.webp → art/hero.webp (copied; nothing is generated)\n      files deleted: assets/hero.webp\n',
    );
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to unlink, 1 to move.');
    expect(JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout)).toMatchObject([
      {
        changes: [
          {
            action: 'move',
            name: 'hero',
            after: { outputs: ['art/hero.webp'] },
            copies: [{ from: 'assets/hero.webp', to: 'art/hero.webp' }],
            deletes: ['assets/hero.webp'],
          },
        ],
        summary: { move: 1, generate: 0 },
      },
    ]);
    expect((await run(cwd, 'plan', '--format', 'markdown')).stdout).toContain(
      '**It deletes 1 file:**\n\n* image "hero": assets/hero.webp',
    );

    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env: withoutImageService() });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stderr).toContain('ok      move image "hero"');
    expect(await imageRequests()).toEqual([]);
    expect((await readFile(join(cwd, 'art/hero.webp'))).equals(original)).toBe(true);
    await expect(readFile(join(cwd, 'assets/hero.webp'))).rejects.toThrow(/ENOENT/);
    expect(await lockedPaths(cwd)).toEqual(['art/hero.webp']);
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);

    // Another spelling of the same path is the same file: nothing moves, nothing is deleted.
    await writeFile(
      join(cwd, 'audiences.yaml'),
      config(HERO.replace('output: assets/hero.webp', 'output: ./art//hero.webp')),
    );
    expect((await run(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);
    expect((await readFile(join(cwd, 'art/hero.webp'))).equals(original)).toBe(true);
  });

  it('keeps the old file without pruneImages, and one that is not as the tool wrote it; it regenerates only when no file holds the locked bytes', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const original = await readFile(join(cwd, 'assets/hero.webp'));

    await writeFile(join(cwd, 'audiences.yaml'), config(MOVED).replace('prune: true\n', ''));
    const kept = await run(cwd, 'apply', '--auto-approve');
    expect(kept.stdout).toContain(
      '      file: assets/hero.webp → art/hero.webp (copied; nothing is generated)\n      old files kept: assets/hero.webp\n',
    );
    expect((await readFile(join(cwd, 'assets/hero.webp'))).equals(original)).toBe(true);
    expect((await readFile(join(cwd, 'art/hero.webp'))).equals(original)).toBe(true);

    // Moved back, to a file that is the new one by another name (a hard link, as a disk that ignores case makes one):
    // it stays.
    await rm(join(cwd, 'assets/hero.webp'));
    await link(join(cwd, 'art/hero.webp'), join(cwd, 'assets/hero.webp'));
    await writeFile(join(cwd, 'audiences.yaml'), config(HERO));
    const linked = await run(cwd, 'apply', '--auto-approve');
    expect(linked.code, linked.stdout + linked.stderr).toBe(0);
    expect(linked.stdout).toContain('      file: art/hero.webp → assets/hero.webp (already there)\n');
    expect(linked.stdout).toContain(
      'warning[IMAGE_LEFT_ALONE]: image "hero" is moved, but its old file art/hero.webp is left alone: it is the file assets/hero.webp names, by another name on this disk',
    );
    expect((await readFile(join(cwd, 'assets/hero.webp'))).equals(original)).toBe(true);

    // An old file edited since: its bytes are not the locked ones, so the image comes back from the locked seeds, and
    // the edit stays.
    await rm(join(cwd, 'art/hero.webp'));
    await writeFile(join(cwd, 'assets/hero.webp'), 'edited');
    await writeFile(join(cwd, 'audiences.yaml'), config(MOVED));
    const plan = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout);
    expect(plan[0].changes).toMatchObject([{ action: 'generate', display: { reason: 'output-missing' } }]);
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await readFile(join(cwd, 'art/hero.webp'))).equals(original)).toBe(true);
    expect(await readFile(join(cwd, 'assets/hero.webp'), 'utf8')).toBe('edited');
  });
});

describe('images: a file the lock does not record where an image would be written', () => {
  const problem = (path: string) =>
    `error[IMAGE_FILE_IN_THE_WAY]: image "hero" would write over ${path}, a file the lock does not record as the tool's`;

  it('is not written over: the plan stops naming it (an entry lost in a merge, a file put there by hand), until it goes', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const original = await readFile(join(cwd, 'assets/hero.webp'));
    // The merge kept the file and lost its entry.
    await writeFile(join(cwd, 'images.lock.json'), JSON.stringify({ lockVersion: 1, images: {} }));
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    const plan = await run(cwd, 'plan');
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stdout).toContain(problem('assets/hero.webp'));
    expect(plan.stdout).toContain(
      'hint: move assets/hero.webp away, or delete it to let the tool write it; if the lock lost the entry of image "hero" in a merge, restore images.lock.json from version control',
    );
    const json = JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout);
    expect(json[0].errors).toMatchObject([{ code: 'IMAGE_FILE_IN_THE_WAY', name: 'hero' }]);
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(1);
    expect((await readFile(join(cwd, 'assets/hero.webp'))).equals(original)).toBe(true);
    expect(await imageRequests()).toEqual([]);

    // Deleted, the file is the tool's to write again.
    await rm(join(cwd, 'assets/hero.webp'));
    const again = await run(cwd, 'apply', '--auto-approve');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('reason: new');
  });

  it('is not written over by a moved image either', async () => {
    const cwd = await workspace({ 'audiences.yaml': config(HERO) });
    expect((await run(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await mkdir(join(cwd, 'art'));
    await writeFile(join(cwd, 'art/hero.webp'), await png(8, 8, { r: 0, g: 0, b: 255 }));
    await writeFile(
      join(cwd, 'audiences.yaml'),
      config(HERO.replace('output: assets/hero.webp', 'output: art/hero.webp')),
    );
    const plan = await run(cwd, 'apply', '--auto-approve');
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stdout).toContain(problem('art/hero.webp'));
    expect((await readFile(join(cwd, 'art/hero.webp'))).equals(await png(8, 8, { r: 0, g: 0, b: 255 }))).toBe(true);
  });
});

describe('images: two outputs naming one file', () => {
  it('is an error of validate, with the file, line and column and a hint, however the path is spelled; a difference of case only is a warning', async () => {
    const image = (name: string, output: string) =>
      HERO.replace('name: hero', `name: ${name}`).replace('output: assets/hero.webp', `output: ${output}`);
    const cwd = await workspace({
      'audiences.yaml': config(image('hero', 'x.png') + image('copy', './x.png') + image('climb', 'a/../x.png')),
    });
    const validate = await run(cwd, 'validate');
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(
      'audiences.yaml:15:13: images[1].output: ./x.png names the same file as x.png, which images[0] (line 9) writes',
    );
    expect(validate.stderr).toContain(
      'hint: give each image its own output file: two images writing one file would each overwrite the other, and every plan would generate them again',
    );
    expect(validate.stderr).toContain(
      'audiences.yaml:21:13: images[2].output: a/../x.png names the same file as x.png, which images[0] (line 9) writes',
    );
    const plan = await run(cwd, 'plan');
    expect(plan.code).toBe(1);
    expect(await imageRequests()).toEqual([]);

    await writeFile(join(cwd, 'audiences.yaml'), config(image('hero', 'x.png') + image('shout', 'X.png')));
    const caseOnly = await run(cwd, 'validate');
    expect(caseOnly.code).toBe(0);
    expect(caseOnly.stderr).toContain(
      'audiences.yaml:15:13: warning: images[1].output: X.png and x.png, written by images[0] (line 9), differ only in case: on a disk that ignores case (macOS, Windows) they are one file',
    );
  });
});

describe('images: a saved plan applied from another folder', () => {
  const TEAM = 'team/audiences.yaml';

  /** A project with its file in team/, planned from the project's folder and saved to `out` (relative to it). */
  async function planned(out: string): Promise<{ project: string; saved: string }> {
    const project = await workspace({ [TEAM]: config(HERO), 'plans/.keep': '' });
    const plan = await run(project, 'plan', '-f', TEAM, '--out', out);
    expect(plan.code, plan.stderr).toBe(0);
    return { project, saved: join(project, out) };
  }

  it('writes the images and the lock beside the file it was made from, from wherever it is applied', async () => {
    const { project, saved } = await planned('plans/hero.plan.json');
    const elsewhere = await workspace({});
    const apply = await run(elsewhere, 'apply', saved);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(await readFile(join(project, 'team/assets/hero.webp'))).toBeTruthy();
    expect(await lockedNames(join(project, 'team'))).toEqual(['hero']);
    await expect(readFile(join(elsewhere, 'team/images.lock.json'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(elsewhere, 'images.lock.json'))).rejects.toThrow(/ENOENT/);
    expect((await run(project, 'plan', '-f', TEAM, '--detailed-exitcode')).code).toBe(0);
  });

  it('moved with its folder or copied into a fresh checkout (as a pipeline applies it), writes beside the file there; refuses when no folder holds the file', async () => {
    const { project, saved } = await planned('hero.plan.json');
    // A fresh checkout elsewhere, the plan downloaded to yet another folder: found from the folder it is applied in.
    const checkout = await workspace({ [TEAM]: await readFile(join(project, TEAM), 'utf8') });
    const downloads = await workspace({ 'hero.plan.json': await readFile(saved, 'utf8') });
    await rm(join(project, TEAM));
    const apply = await run(checkout, 'apply', join(downloads, 'hero.plan.json'));
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(await lockedNames(join(checkout, 'team'))).toEqual(['hero']);
    await expect(readFile(join(project, 'team/images.lock.json'))).rejects.toThrow(/ENOENT/);

    const nowhere = await workspace({});
    const refused = await run(nowhere, 'apply', saved);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error[PLAN_FILES_NOT_FOUND]: the saved plan writes images and images.lock.json beside audiences.yaml, the file it was made from, which is not found (looked for ',
    );
    expect(refused.stderr).toContain(
      'hint: apply the plan from the folder it was made in, or keep it where `plan --out` saved it; nothing was changed',
    );
    await expect(readFile(join(nowhere, 'team/assets/hero.webp'))).rejects.toThrow(/ENOENT/);
  });

  async function lockedNames(dir: string): Promise<string[]> {
    return Object.keys(
      (JSON.parse(await readFile(join(dir, 'images.lock.json'), 'utf8')) as { images: Record<string, unknown> }).images,
    );
  }
});

describe('images: the commit back after an apply (ci/commit-back.mjs)', () => {
  const commitBack = fileURLToPath(new URL('../../ci/commit-back.mjs', import.meta.url));

  /** A bare origin and a clone of it to work in, and the environment commit-back pushes to origin with. */
  async function repository(): Promise<{ origin: string; work: string; commitBackEnv: Record<string, string> }> {
    const dir = await temporaryDir('audiences-commit-back-');
    const origin = join(dir, 'origin.git');
    const work = join(dir, 'work');
    await git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
    await git(dir, 'clone', '--quiet', origin, work);
    return {
      origin,
      work,
      commitBackEnv: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        AUDIENCES_PUSH_URL: origin,
        AUDIENCES_PUSH_BRANCH: 'main',
      },
    };
  }

  it('pushes only the files the tool wrote: never one a hand-edited lock names (a secret the job wrote, a file another step deleted)', async () => {
    const { origin, work, commitBackEnv } = await repository();
    await writeFile(join(work, 'audiences.yaml'), config(HERO));
    await writeFile(join(work, 'CODEOWNERS'), '* @team\n');
    expect((await run(work, 'apply', '--auto-approve')).code).toBe(0);
    // The merged pull request: a new prompt, and a lock that names two files the tool never wrote.
    const lock = JSON.parse(await readFile(join(work, 'images.lock.json'), 'utf8'));
    const codeowners = createHash('sha256')
      .update(await readFile(join(work, 'CODEOWNERS')))
      .digest('hex');
    lock.images.hero.outputs.push(
      { path: 'secret.env', sha256: 'c'.repeat(64) },
      { path: 'CODEOWNERS', sha256: codeowners },
    );
    lock.images.hero.seeds.push(1, 2);
    await writeFile(join(work, 'images.lock.json'), JSON.stringify(lock, null, 2));
    await writeFile(join(work, 'audiences.yaml'), config(HERO.replace('watercolor', 'oil painting')));
    await git(work, 'add', '-A');
    await git(work, 'commit', '--quiet', '-m', 'Merge pull request #7');
    await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');

    // The job: another step writes a secret and deletes a file, then the apply regenerates the image.
    await writeFile(join(work, 'secret.env'), 'ADS_ACCESS_TOKEN=s3cr3t-value\n');
    await rm(join(work, 'CODEOWNERS'));
    expect((await run(work, 'apply', '--auto-approve')).code).toBe(0);
    const back = await runProcess(process.execPath, [commitBack], { cwd: work, env: commitBackEnv });
    expect(back.code, back.stdout + back.stderr).toBe(0);
    const pushed = async () => (await git(origin, 'show', '--name-status', '--format=', 'main')).split('\n').sort();
    expect(await pushed()).toEqual(['M\tassets/hero.webp', 'M\timages.lock.json']);

    // An image removed: its file's deletion is the tool's, and pushed.
    await writeFile(join(work, 'audiences.yaml'), 'adAccountId: 1234\npruneImages: true\naudiences: []\n');
    await git(work, 'commit', '--quiet', '-m', 'Merge pull request #8', '--', 'audiences.yaml');
    await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    expect((await run(work, 'apply', '--auto-approve')).code).toBe(0);
    const again = await runProcess(process.execPath, [commitBack], { cwd: work, env: commitBackEnv });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await pushed()).toEqual(['D\tassets/hero.webp', 'M\timages.lock.json']);
  });

  it('never pushes a file a lock entry names with its hash that is not an image (a secret another step wrote)', async () => {
    const { origin, work, commitBackEnv } = await repository();
    await writeFile(join(work, 'audiences.yaml'), config(HERO, 'pruneImages: false\n'));
    expect((await run(work, 'apply', '--auto-approve')).code).toBe(0);
    // A merged lock keeps an image no longer declared (no pruneImages) whose file is the secret's path and hash.
    const secret = 'ADS_ACCESS_TOKEN=s3cr3t-value\n';
    const lock = JSON.parse(await readFile(join(work, 'images.lock.json'), 'utf8'));
    lock.images.legacy = {
      ...lock.images.hero,
      seeds: [1],
      outputs: [{ path: 'secret.env', sha256: createHash('sha256').update(secret).digest('hex') }],
    };
    await writeFile(join(work, 'images.lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
    await git(work, 'add', '-A');
    await git(work, 'commit', '--quiet', '-m', 'Merge pull request #9');
    await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    const before = await git(origin, 'rev-parse', 'main');

    // The job: another step writes the secret, with exactly the bytes the lock names; the apply changes nothing.
    await writeFile(join(work, 'secret.env'), secret);
    expect((await run(work, 'apply', '--auto-approve')).code).toBe(0);
    const back = await runProcess(process.execPath, [commitBack], { cwd: work, env: commitBackEnv });
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(await git(origin, 'rev-parse', 'main')).toBe(before);
    expect(await git(origin, 'ls-tree', '-r', '--name-only', 'main')).not.toContain('secret.env');
  });
});
