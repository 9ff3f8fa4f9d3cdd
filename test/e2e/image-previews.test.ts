import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runInProcess, workspace } from '../helpers/cli.js';
import { fileURLToPath } from 'node:url';
import { git, run as runProcess, standIn } from '../helpers/stand-in.js';

/**
 * `plan --base` and `--preview` through the CLI against the emulator, in a git repository: the
 * images a change adds, changes or removes are told from the lock at the base, in JSON and in the
 * comment (with the pictures the preview's data gives, again by `show`), and a preview's data
 * that could break the comment's HTML is refused.
 */
let emulator: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterAll(async () => {
  await emulator.close();
});

const run = (cwd: string, ...args: string[]) => runInProcess(args, { cwd, env });
const image = (name: string, prompt: string) =>
  `  - name: ${name}\n    prompt: ${prompt}\n    version: v2.0\n    width: 384\n    height: 384\n    output: assets/${name}.webp\n`;
const config = (images: string) =>
  `adAccountId: 1234\nprune: true\npruneImages: true\nimages:\n${images}audiences: []\n`;

/** A repository whose main holds two generated images; the working tree on a branch. */
async function repository(): Promise<string> {
  const cwd = await workspace({
    'audiences.yaml': config(image('kept', 'a quiet street') + image('banner', 'a park')),
  });
  await git(cwd, 'init', '--quiet', '--initial-branch=main');
  expect((await run(cwd, 'apply', '--kind', 'image', '--auto-approve')).code).toBe(0);
  await git(cwd, 'add', '--all');
  await git(cwd, 'commit', '--quiet', '-m', 'base');
  await git(cwd, 'checkout', '--quiet', '-b', 'change');
  return cwd;
}

describe('the images of a change', () => {
  it('are told from the lock at the base: new, changed with the entry before, removed; the comment shows the pictures the preview gives, and show again', async () => {
    const cwd = await repository();
    await writeFile(join(cwd, 'audiences.yaml'), config(image('banner', 'a lake') + image('hero', 'a beach')));
    expect((await run(cwd, 'apply', '--kind', 'image', '--auto-approve')).code).toBe(0);
    const lock = JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as {
      images: Record<string, { outputs: Array<{ sha256: string }> }>;
    };
    const json = await run(cwd, 'plan', '--base', 'main', '--format', 'json');
    const [plan] = JSON.parse(json.stdout) as Array<{ previews: Array<Record<string, unknown>> }>;
    expect(plan?.previews.map((preview) => [preview['name'], preview['status']])).toEqual([
      ['banner', 'changed'],
      ['hero', 'new'],
      ['kept', 'removed'],
    ]);
    expect(plan?.previews[0]).toMatchObject({
      before: { request: { params: { prompt: 'a park' } } },
      after: { request: { params: { prompt: 'a lake' } } },
    });
    // Without a base, no image is told as the change's.
    expect(JSON.parse((await run(cwd, 'plan', '--format', 'json')).stdout)[0].previews).toBeUndefined();

    const hero = lock.images['hero']!.outputs[0]!.sha256;
    await writeFile(
      join(cwd, 'preview.json'),
      JSON.stringify({ requests: 2, commit: 'abcdef1', urls: { [hero]: 'https://example.test/hero.webp' } }),
    );
    const planned = await run(
      cwd,
      'plan',
      '--base',
      'main',
      '--format',
      'markdown',
      '--preview',
      'preview.json',
      '--out',
      'plan.json',
    );
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(
      ':frame_with_picture: **Image preview:** 2 image requests; the new and changed images committed to the branch in abcdef1; the merge generates no image.',
    );
    expect(planned.stdout).toContain('#### Images of this change (1 new, 1 changed, 1 removed)');
    expect(planned.stdout).toContain('| <img src="https://example.test/hero.webp" width="320" alt="hero"> |  |');
    const shown = await run(cwd, 'show', 'plan.json', '--format', 'markdown', '--preview', 'preview.json');
    expect(shown.stdout).toBe(planned.stdout);
  });

  it("keeps a lock's params inert in the comment: the branch's lock is the pull request's text, whatever it holds", async () => {
    const cwd = await repository();
    const path = join(cwd, 'images.lock.json');
    const lock = JSON.parse(await readFile(path, 'utf8')) as {
      images: Record<string, { request: { params: Record<string, unknown> } }>;
    };
    Object.assign(lock.images['banner']!.request.params, {
      width: '<img src="https://attacker.test/t.png">',
      height: '**approved** by @security [here](https://attacker.test)',
    });
    Object.assign(lock.images['kept']!.request.params, { prompt: 42 });
    await writeFile(path, JSON.stringify(lock));
    const result = await run(cwd, 'plan', '--base', 'main', '--format', 'markdown');
    expect(result.stderr).not.toContain('INTERNAL');
    const rows = result.stdout.split('\n').filter((line) => line.startsWith('| **changed**'));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(
      '&lt;img src="https&#58;//attacker.test/t.png"&gt;×\\*\\*approved\\*\\* by &#64;security',
    );
    expect(rows[0]).not.toContain('<img');
    expect(rows[1]).toContain('prompt: 42');
  });

  it("takes an upload's address from the note's pictures only, never from a file's text the note quotes", async () => {
    const cwd = await repository();
    const lockOf = async () =>
      JSON.parse(await readFile(join(cwd, 'images.lock.json'), 'utf8')) as {
        images: Record<string, { outputs: Array<{ sha256: string }> }>;
      };
    const before = (await lockOf()).images['banner']!.outputs[0]!.sha256;
    // The change's prompt names an address for the picture of the banner at the base: the note shows it as text.
    const forged = `/uploads/1/${before}.webp`;
    await writeFile(
      join(cwd, 'audiences.yaml'),
      config(image('kept', 'a quiet street') + image('banner', `'a lake "${forged}"'`)),
    );
    expect((await run(cwd, 'apply', '--kind', 'image', '--auto-approve')).code).toBe(0);
    await git(cwd, 'commit', '--quiet', '--all', '-m', 'the banner by a lake');
    const note = (await run(cwd, 'plan', '--base', 'main', '--format', 'markdown')).stdout;
    expect(note).toContain(`"${forged}"`);
    const uploads: string[] = [];
    const gitlab = await standIn((request, url) => {
      if (url.pathname === '/api/v4/user') return { json: { id: 5 } };
      if (url.pathname.endsWith('/merge_requests/7/notes'))
        return { json: [{ id: 1, body: note, author: { id: 5 }, system: false }] };
      if (url.pathname !== '/api/v4/projects/42/uploads') return undefined;
      const name = /filename="([^"]+)"/.exec(String(request.body))?.[1] ?? '';
      uploads.push(name);
      return { status: 201, json: { url: `/uploads/${'0'.repeat(32)}/${name}` } };
    });
    try {
      const script = fileURLToPath(new URL('../../ci/gitlab-preview.mjs', import.meta.url));
      const result = await runProcess(process.execPath, [script], {
        cwd,
        env: {
          PATH: process.env['PATH'],
          HOME: process.env['HOME'],
          ...env,
          CI_MERGE_REQUEST_IID: '7',
          CI_COMMIT_SHA: await git(cwd, 'rev-parse', 'HEAD'),
          CI_MERGE_REQUEST_DIFF_BASE_SHA: await git(cwd, 'rev-parse', 'main'),
          CI_MERGE_REQUEST_PROJECT_ID: '42',
          CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '99',
          CI_API_V4_URL: `${gitlab.url}/api/v4`,
          AUDIENCES_GITLAB_TOKEN: 'gl-token',
        },
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
    } finally {
      await gitlab.close();
    }
    const preview = JSON.parse(await readFile(join(cwd, 'audiences.preview.json'), 'utf8')) as {
      urls: Record<string, string>;
    };
    expect(uploads).toContain(`${before}.webp`);
    expect(preview.urls[before]).toBe(`/uploads/${'0'.repeat(32)}/${before}.webp`);
  });

  it("refuses a preview's data that is not what a preview writes, or whose address could break the comment, with PREVIEW_INVALID", async () => {
    const cwd = await repository();
    const refused = async (data: unknown, problem: string) => {
      await writeFile(join(cwd, 'preview.json'), typeof data === 'string' ? data : JSON.stringify(data));
      const result = await run(cwd, 'plan', '--base', 'main', '--format', 'markdown', '--preview', 'preview.json');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `error[PREVIEW_INVALID]: the image preview preview.json cannot be used: ${problem}`,
      );
      expect(result.stdout).toContain('PREVIEW\\_INVALID');
    };
    const hash = 'a'.repeat(64);
    await refused('{', 'it is not JSON');
    await refused({ requests: -1, commit: null, urls: {} }, 'requests must be a whole number');
    await refused(
      { requests: 0, commit: null, urls: { [hash]: 'https://e.test/x" onerror="alert(1)' } },
      `urls.${hash.slice(0, 12)}… must be an http(s) address or a path from the root`,
    );
    await refused({ requests: 0, commit: null, urls: { [hash]: 'javascript:alert(1)' } }, `urls.${hash.slice(0, 12)}…`);
    await refused(
      { requests: 0, commit: null, notCommitted: 'tired', urls: {} },
      'notCommitted must be one of fork, read-only, push-refused',
    );
    await refused({ requests: 0, commit: null, urls: {}, extra: 1 }, 'it has a field "extra"');
  });
});
