import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorEnv, emulatorRoute } from '../helpers/cli.js';
import { outside, storedAudiences } from '../helpers/live-account.js';
import { lockRegistry } from '../helpers/registry.js';
import { git, rsyncStandIn, run, standIn, type RecordedRequest, type StandIn } from '../helpers/stand-in.js';
import type { RunningEmulator } from '../../src/emulator/server.js';

/**
 * The route docs/pipelines.md gives to install the tool into the repository that holds
 * audiences.yaml (a packed tarball, committed under vendor/), its commands as docs/pipelines.md writes
 * them, then the GitLab CI example's jobs run in that repository by gitlab-ci-local (shell
 * executor; the schema check is pipeline-examples.test.ts's) against the emulator: the plan job
 * posts its note to a loopback stand-in for the GitLab API and keeps the saved plan with its
 * manifest, the apply job finds that plan through the API, applies it and pushes the generated
 * files back; the apply script's refusals run it alone. npm talks to a loopback stand-in for
 * the registry that serves this repository's locked dependencies from the npm cache, and
 * gitlab-ci-local copies files with a stand-in for rsync (test/helpers/rsync.mjs), so that the
 * test needs Node, npm and git alone.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const gitlabCiLocal = join(root, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js');
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
const tarball = `audiences-${version}.tgz`;

/**
 * The install route of docs/pipelines.md: the commands of the shell block under "Install into the
 * repository", step 1 (in a clone of this repository) and step 2 (in the team's repository).
 */
async function installRoute(): Promise<{ inClone: string[]; inTeam: string[] }> {
  const doc = await readFile(join(root, 'docs', 'pipelines.md'), 'utf8');
  const block = /```sh\n([^]*?)```/.exec(doc.slice(doc.indexOf('## Install into the repository')))?.[1] ?? '';
  const commands = (text: string) =>
    text
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line && !line.startsWith('#'));
  const [inClone = '', inTeam = ''] = block.split(/^# 2\..*$/m);
  return { inClone: commands(inClone), inTeam: commands(inTeam) };
}

let emulator: RunningEmulator;
let serviceEnv: Record<string, string>;
let registry: StandIn;
let gitlab: StandIn;
let storage: StandIn;
let npmEnv: NodeJS.ProcessEnv;
let dir: string;
let team: string;
let origin: string;

/**
 * GitLab as the scripts read and write it, for project 42: the notes of merge request 7, the
 * merge requests of each commit, their pipelines, the pipelines' jobs and the jobs' artifacts
 * (downloads redirected to another origin, as to object storage).
 */
const notes: Array<{ id: number; body: string; author: { id: number }; system: boolean }> = [
  { id: 1, body: '<!-- audiences-plan files=audiences.yaml -->\nsomeone else', author: { id: 99 }, system: false },
];
const commitRequests = new Map<string, unknown[]>();
interface Pipeline {
  id: number;
  project_id: number;
  sha: string;
  ref: string;
  status: string;
  source: string;
}
const requestPipelines = new Map<number, Pipeline[]>();
const pipelineJobs = new Map<number, Array<{ id: number; name: string; status: string }>>();
const jobArtifacts = new Map<number, Record<string, Buffer>>();
/** The files uploaded to project 42 (POST /projects/42/uploads), by name, as their multipart bodies name them. */
const uploads: string[] = [];

beforeAll(async () => {
  ({ emulator, env: serviceEnv } = await emulatorEnv());
  registry = await lockRegistry(join(root, 'package-lock.json'));
  gitlab = await standIn((request, url) => {
    if (request.headers['private-token'] !== 'gl-token') return { status: 401, json: { message: '401 Unauthorized' } };
    if (url.pathname === '/api/v4/user') return { json: { id: 5, username: 'project_42_bot' } };
    if (url.pathname === '/api/v4/projects/42/merge_requests/7/notes' && request.method === 'GET')
      return { json: notes };
    if (url.pathname === '/api/v4/projects/42/merge_requests/7/notes' && request.method === 'POST') {
      const note = {
        id: notes.length + 100,
        body: (request.body as { body: string }).body,
        author: { id: 5 },
        system: false,
      };
      notes.push(note);
      return { status: 201, json: note };
    }
    const note = notes.find(
      (candidate) => url.pathname === `/api/v4/projects/42/merge_requests/7/notes/${candidate.id}`,
    );
    if (note && request.method === 'PUT') {
      note.body = (request.body as { body: string }).body;
      return { json: note };
    }
    if (url.pathname === '/api/v4/projects/42/uploads' && request.method === 'POST') {
      const name = /filename="([^"]+)"/.exec(String(request.body))?.[1] ?? '';
      uploads.push(name);
      const path = `/uploads/${String(uploads.length).padStart(32, '0')}/${name}`;
      return {
        status: 201,
        json: { alt: name, url: path, full_path: `/team/ads${path}`, markdown: `![${name}](${path})` },
      };
    }
    const requests = /^\/api\/v4\/projects\/42\/repository\/commits\/([0-9a-f]{40})\/merge_requests$/.exec(
      url.pathname,
    );
    if (requests) return { json: commitRequests.get(requests[1]!) ?? [] };
    const pipelines = /^\/api\/v4\/projects\/42\/merge_requests\/(\d+)\/pipelines$/.exec(url.pathname);
    if (pipelines)
      return requestPipelines.has(Number(pipelines[1]))
        ? { json: requestPipelines.get(Number(pipelines[1])) }
        : undefined;
    const jobs = /^\/api\/v4\/projects\/42\/pipelines\/(\d+)\/jobs$/.exec(url.pathname);
    if (jobs) return pipelineJobs.has(Number(jobs[1])) ? { json: pipelineJobs.get(Number(jobs[1])) } : undefined;
    const artifact = /^\/api\/v4\/projects\/42\/jobs\/(\d+)\/artifacts\/(.+)$/.exec(url.pathname);
    if (artifact && jobArtifacts.get(Number(artifact[1]))?.[decodeURIComponent(artifact[2]!)])
      return { status: 302, headers: { location: `${storage.url}/artifacts/${artifact[1]}/${artifact[2]}` } };
    return undefined;
  });
  storage = await standIn((_request, url) => {
    const [, job, path] = /^\/artifacts\/(\d+)\/(.+)$/.exec(url.pathname) ?? [];
    const bytes = jobArtifacts.get(Number(job))?.[decodeURIComponent(path ?? '')];
    return bytes ? { bytes } : undefined;
  });
  dir = await mkdtemp(join(tmpdir(), 'audiences-team-'));
  team = join(dir, 'team');
  origin = join(dir, 'origin.git');
  await mkdir(team, { recursive: true });
  npmEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    npm_config_registry: `${registry.url}/`,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}, 60_000);

afterAll(async () => {
  await Promise.all([emulator?.close(), registry?.close(), gitlab?.close(), storage?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('installing the packed tool into a team repository, as docs/pipelines.md says', () => {
  it('runs the commands of docs/pipelines.md: the ref checked out in a clone, the tarball installed from vendor/, `.audiences/` left out of git', async () => {
    const route = await installRoute();
    // 1. In a clone of this repository (../audiences beside the team's), at the ref docs/pipelines.md names.
    expect(route.inClone).toEqual([expect.stringMatching(/^git checkout \S+$/), 'npm ci', 'npm pack']);
    await git(dir, 'clone', '--quiet', root, 'audiences');
    const checkout = await run('sh', ['-c', route.inClone[0]!], { cwd: join(dir, 'audiences') });
    expect(checkout.code, `${route.inClone[0]}: ${checkout.stderr}`).toBe(0);
    // `npm ci` and `npm pack` are this checkout's, built by the test setup (which `npm pack` would run again): the
    // commit under test stands for the ref.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', join(dir, 'audiences')], {
      cwd: root,
      env: { ...process.env, ...npmEnv },
    });
    expect(packed.code, packed.stderr).toBe(0);
    expect(packed.stdout.trim().split('\n').at(-1)).toBe(tarball);

    // 2. In the team's repository, which holds audiences.yaml.
    await git(team, 'init', '--quiet', '--initial-branch=main');
    await copyFile(join(root, 'audiences.yaml'), join(team, 'audiences.yaml'));
    expect(route.inTeam).toContain(`npm install --save-dev ./vendor/${tarball}`);
    for (const command of route.inTeam) {
      const result = await run('sh', ['-c', command], { cwd: team, env: npmEnv, timeoutMs: 120_000 });
      expect(result.code, `${command}: ${result.stderr}`).toBe(0);
    }
    const manifest = JSON.parse(await readFile(join(team, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies.audiences).toBe(`file:vendor/${tarball}`);
    expect((await git(team, 'diff', '--cached', '--name-only')).split('\n').sort()).toEqual([
      '.gitignore',
      'package-lock.json',
      'package.json',
      `vendor/${tarball}`,
    ]);

    // The tool's own folder (here the emulator's account) is never committed.
    const emulated = await run('npx', ['audiences', 'plan', '--emulator'], { cwd: team, env: npmEnv });
    expect(emulated.code, emulated.stderr).toBe(0);
    expect((await stat(join(team, '.audiences'))).isDirectory()).toBe(true);
    const untracked = (await git(team, 'status', '--porcelain', '--untracked-files=all'))
      .split('\n')
      .filter((line) => line.startsWith('??'));
    expect(untracked).toEqual(['?? audiences.yaml']);
  }, 180_000);
});

describe('the GitLab CI example, run by gitlab-ci-local', () => {
  let rsyncPath: string;
  const gcl = (variables: Record<string, string>, job: string) =>
    run(
      process.execPath,
      [
        gitlabCiLocal,
        '--force-shell-executor',
        '--no-color',
        '--no-json-schema-validation',
        '--ignore-predefined-vars',
        Object.keys(variables)
          .filter((name) => name.startsWith('CI_'))
          .join(','),
        ...Object.entries(variables).flatMap(([name, value]) => ['--variable', `${name}=${value}`]),
        job,
      ],
      { cwd: team, env: { ...npmEnv, PATH: rsyncPath }, timeoutMs: 120_000 },
    );

  /** The plan job in the pipeline of merge request 7, whose base is `base`, with its labels (comma-separated). */
  const planMergeRequest = (base: string, labels = '') =>
    gcl(
      {
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_MERGE_REQUEST_IID: '7',
        CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
        CI_MERGE_REQUEST_LABELS: labels,
        CI_PROJECT_ID: '42',
        CI_API_V4_URL: `${gitlab.url}/api/v4`,
        AUDIENCES_GITLAB_TOKEN: 'gl-token',
        ADS_API_URL: serviceEnv.ADS_API_URL!,
        ADS_ACCESS_TOKEN: serviceEnv.ADS_ACCESS_TOKEN!,
      },
      'audiences-plan',
    );

  beforeAll(async () => {
    rsyncPath = `${await rsyncStandIn(dir)}${delimiter}${npmEnv.PATH}`;
    // The team's repository on its default branch: the tool installed as docs/pipelines.md says (its
    // files staged), the example as its CI file; gitlab-ci-local's own folder left out.
    await appendFile(join(team, '.gitignore'), '.gitlab-ci-local/\n');
    await copyFile(join(root, 'examples', 'gitlab-ci.yml'), join(team, '.gitlab-ci.yml'));
    await git(team, 'add', '.gitignore', '.gitlab-ci.yml');
    await git(team, 'commit', '--quiet', '-m', 'CI');
    await git(team, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
    // GitLab takes push options (the commit back uses ci.skip); a bare repository must be told to.
    await git(origin, 'config', 'receive.advertisePushOptions', 'true');
    await git(team, 'remote', 'add', 'origin', origin);
    await git(team, 'push', '--quiet', 'origin', 'main');
    await git(team, 'remote', 'set-head', 'origin', 'main');
    // A merge request adds the audiences.
    await git(team, 'checkout', '--quiet', '-b', 'add-audiences');
    await git(team, 'add', 'audiences.yaml');
    await git(team, 'commit', '--quiet', '-m', 'Add the audiences');
  });

  it('plans a merge request and posts the plan as a note through the API', async () => {
    const result = await planMergeRequest(await git(team, 'rev-parse', 'main'));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/PASS\s+audiences-plan/);
    const posts = gitlab.requests.filter((request: RecordedRequest) => request.method !== 'GET');
    expect(posts.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /api/v4/projects/42/merge_requests/7/notes',
    ]);
    const body = (posts[0]?.body as { body: string }).body;
    expect(body.split('\n')[0]).toBe('<!-- audiences-plan files=audiences.yaml -->');
    expect(body).toContain('seoul-women-20s');
    expect(body).toContain(await git(team, 'rev-parse', 'HEAD'));
    expect(notes[0]?.body).toBe('<!-- audiences-plan files=audiences.yaml -->\nsomeone else');
    // The job's artifacts as gitlab-ci-local copied them out (through the rsync stand-in): plan.md, the saved plan
    // and its manifest. The pipeline #901 of !7 keeps the saved plan and its manifest.
    const artifacts = join(team, '.gitlab-ci-local', 'artifacts', 'audiences-plan');
    expect((await readdir(artifacts)).sort()).toEqual([
      'audiences.plan.json',
      'audiences.plan.manifest.json',
      'plan.md',
    ]);
    const saved = {
      'audiences.plan.json': await readFile(join(artifacts, 'audiences.plan.json')),
      'audiences.plan.manifest.json': await readFile(join(artifacts, 'audiences.plan.manifest.json')),
    };
    expect(saved['audiences.plan.json']).toEqual(await readFile(join(team, 'audiences.plan.json')));
    expect(JSON.parse(saved['audiences.plan.manifest.json'].toString())).toEqual({
      formatVersion: 1,
      mergeRequest: 7,
      headSha: await git(team, 'rev-parse', 'HEAD'),
      files: [{ path: 'audiences.yaml', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
    });
    jobArtifacts.set(9011, saved);

    // The next run updates that note; one whose plan wrote nothing says it failed, in the same note.
    const ours = notes.at(-1)!;
    const note = (file: string, code: string) =>
      run(
        process.execPath,
        [join(team, 'node_modules', 'audiences', 'ci', 'gitlab-note.mjs'), file, '--exit-code', code],
        {
          cwd: team,
          env: {
            PATH: process.env.PATH,
            CI_API_V4_URL: `${gitlab.url}/api/v4`,
            CI_PROJECT_ID: '42',
            CI_MERGE_REQUEST_IID: '7',
            CI_COMMIT_SHA: 'f'.repeat(40),
            CI_JOB_URL: 'https://gitlab.example/job/9',
            AUDIENCES_GITLAB_TOKEN: 'gl-token',
          },
        },
      );
    gitlab.requests.length = 0;
    await writeFile(join(team, 'next.md'), `${await readFile(join(team, 'plan.md'), 'utf8')}\nthe next push\n`);
    expect((await note('next.md', '2')).code).toBe(0);
    expect(ours.body).toContain('the next push');
    await writeFile(join(team, 'empty.md'), '');
    expect((await note('empty.md', '1')).code).toBe(0);
    expect(
      gitlab.requests
        .filter((request) => request.method !== 'GET')
        .map((request) => `${request.method} ${request.path}`),
    ).toEqual([
      `PUT /api/v4/projects/42/merge_requests/7/notes/${ours.id}`,
      `PUT /api/v4/projects/42/merge_requests/7/notes/${ours.id}`,
    ]);
    expect(notes).toHaveLength(2);
    expect(ours.body.split('\n')[0]).toBe('<!-- audiences-plan files=audiences.yaml -->');
    expect(ours.body).toMatch(/The plan failed\*\* \(exit code 1\)[^]*job\/9/);
    expect(notes[0]?.body).toBe('<!-- audiences-plan files=audiences.yaml -->\nsomeone else');
  }, 120_000);

  /** The apply job's script alone, in the team's checkout, as the pipeline of a push to main runs it. */
  const apply = (variables: Record<string, string> = {}) =>
    run(process.execPath, [join(team, 'node_modules', 'audiences', 'ci', 'gitlab-apply.mjs')], {
      cwd: team,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...serviceEnv,
        CI_API_V4_URL: `${gitlab.url}/api/v4`,
        CI_PROJECT_ID: '42',
        CI_COMMIT_BRANCH: 'main',
        AUDIENCES_GITLAB_TOKEN: 'gl-token',
        ...variables,
      },
    });
  const live = async () =>
    (
      (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as { audiences: Array<{ name: string }> }
    ).audiences.map((audience) => audience.name);
  const wayOut =
    'To plan again and apply what main holds, run a pipeline for main by hand (Build > Pipelines > Run pipeline) with the variable AUDIENCES_APPLY_MODE=replan.';
  let merge: string;

  it("refuses, changing nothing, a merge whose reviewed plan is not the merge request's own, and says how to plan again", async () => {
    await git(team, 'checkout', '--quiet', 'main');
    await git(team, 'merge', '--quiet', '--no-ff', '-m', "Merge branch 'add-audiences' into 'main'", 'add-audiences');
    merge = await git(team, 'rev-parse', 'HEAD');
    const head = await git(team, 'rev-parse', 'add-audiences');
    const refused = async (variables: Record<string, string>, reason: string) => {
      const result = await apply({ CI_COMMIT_SHA: merge, ...variables });
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stderr).toBe(`error: ${reason} Nothing was applied.\n${wayOut}\n`);
    };

    // GitLab knows no merge request merged by the commit.
    await refused(
      {},
      `Commit ${merge.slice(0, 12)} is not the merge of a merge request into main, so there is no reviewed plan to apply.`,
    );

    commitRequests.set(merge, [
      {
        iid: 8,
        project_id: 42,
        target_project_id: 42,
        state: 'opened',
        target_branch: 'main',
        sha: merge,
        merge_commit_sha: null,
        squash_commit_sha: null,
      },
      {
        iid: 7,
        project_id: 42,
        target_project_id: 42,
        state: 'merged',
        target_branch: 'main',
        sha: head,
        merge_commit_sha: merge,
        squash_commit_sha: null,
      },
    ]);
    const mergeRequestPipeline = (id: number, sha: string, status = 'success'): Pipeline => ({
      id,
      project_id: 42,
      sha,
      ref: 'refs/merge-requests/7/head',
      status,
      source: 'merge_request_event',
    });
    // Its newest merge-request pipeline ran at an earlier commit; a newer branch pipeline of its last commit never runs
    // the plan job.
    requestPipelines.set(7, [
      { id: 905, project_id: 42, sha: head, ref: 'add-audiences', status: 'success', source: 'push' },
      mergeRequestPipeline(900, 'c'.repeat(40)),
    ]);
    await refused(
      {},
      `The newest pipeline of !7, #900, ran at commit cccccccccccc, not at ${head.slice(0, 12)}, its last commit: no plan of the commit merged was made.`,
    );

    // Its last commit was planned (#901), then planned again, and that plan failed (#902): the note shows the failure.
    requestPipelines.get(7)!.push(mergeRequestPipeline(901, head), mergeRequestPipeline(902, head, 'failed'));
    pipelineJobs.set(901, [{ id: 9011, name: 'audiences-plan', status: 'success' }]);
    pipelineJobs.set(902, [{ id: 9021, name: 'audiences-plan', status: 'failed' }]);
    await refused(
      {},
      'The job audiences-plan (#9021) of pipeline #902, the newest of !7, is "failed", not "success": no plan of it was reviewed (the note says what happened).',
    );
    // A merged-results pipeline (its commit the merge GitLab made) whose manifest says it planned an earlier commit.
    const earlier = {
      ...JSON.parse(jobArtifacts.get(9011)!['audiences.plan.manifest.json']!.toString()),
      headSha: 'c'.repeat(40),
    };
    requestPipelines.get(7)!.push({ ...mergeRequestPipeline(903, 'd'.repeat(40)), ref: 'refs/merge-requests/7/merge' });
    pipelineJobs.set(903, [{ id: 9031, name: 'audiences-plan', status: 'success' }]);
    jobArtifacts.set(9031, {
      ...jobArtifacts.get(9011),
      'audiences.plan.manifest.json': Buffer.from(JSON.stringify(earlier)),
    });
    await refused(
      {},
      `The saved plan of !7 (job #9031) is not applied: its audiences.plan.manifest.json says it was made for merge request 7 at commit cccccccccccc, not for !7 at its last commit ${head.slice(0, 12)}.`,
    );
    requestPipelines.set(
      7,
      requestPipelines.get(7)!.filter((pipeline) => pipeline.id < 902),
    );

    // The files as merged are not the files planned (as when main changed them after the review).
    const file = join(team, 'audiences.yaml');
    const reviewed = await readFile(file, 'utf8');
    await writeFile(file, reviewed.replace('ages: [20, 25]', 'ages: [20, 25, 30]'));
    await refused(
      {},
      'The saved plan of !7 (job #9011) is not applied: audiences.yaml as merged differ from what the plan of !7 was made from (the target branch changed them after the review), so the reviewed plan is not what the branch holds.',
    );
    await writeFile(file, reviewed);

    expect(await live()).toEqual([]);
    // The artifacts were read from the other origin without the token.
    expect(storage.requests.map((request) => request.path)).toContain('/artifacts/9011/audiences.plan.manifest.json');
    expect(storage.requests.filter((request) => request.headers['private-token'] !== undefined)).toEqual([]);
  }, 60_000);

  it("applies the merge request's reviewed plan on the default branch and pushes the generated images and lock back", async () => {
    gitlab.requests.length = 0;
    const result = await gcl(
      {
        CI_PIPELINE_SOURCE: 'push',
        CI_API_V4_URL: `${gitlab.url}/api/v4`,
        CI_PROJECT_ID: '42',
        AUDIENCES_GITLAB_TOKEN: 'gl-token',
        AUDIENCES_PUSH_URL: origin,
        ...serviceEnv,
      },
      'audiences-apply',
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/PASS\s+audiences-apply/);
    const head = await git(team, 'rev-parse', 'add-audiences');
    expect(result.stdout).toContain(
      `Applying the plan reviewed in !7 (its last commit ${head}, pipeline #901, job #9011).`,
    );
    expect(gitlab.requests.map((request) => request.path)).toEqual(
      expect.arrayContaining([
        `/api/v4/projects/42/repository/commits/${merge}/merge_requests?per_page=100`,
        '/api/v4/projects/42/jobs/9011/artifacts/audiences.plan.json',
        '/api/v4/projects/42/jobs/9011/artifacts/audiences.plan.manifest.json',
      ]),
    );
    expect(await live()).toEqual(
      expect.arrayContaining(['seoul-women-20s', 'gangnam-shoppers', 'vip-retargeting', 'channel-vip-friends']),
    );
    const pushed = await git(origin, 'show', '--name-only', '--format=%s', 'main');
    expect(pushed.split('\n')).toEqual(
      expect.arrayContaining([
        'audiences: generated images and images.lock.json',
        'images.lock.json',
        'assets/spring-banner.webp',
        'assets/spring-square.png',
      ]),
    );
    expect(result.stdout).not.toContain(serviceEnv.IMAGEGEN_API_KEY);
    expect(result.stdout).not.toContain('gl-token');
  }, 120_000);

  it('refuses the reviewed plan once the account moved past it; AUDIENCES_APPLY_MODE=replan plans again and applies', async () => {
    await git(team, 'pull', '--quiet', '--ff-only', origin, 'main');
    const stale = await apply({ CI_COMMIT_SHA: merge });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('PLAN_STALE');
    expect(stale.stderr).toContain(
      `error: The account changed since the plan was reviewed, so the saved plan was refused as stale and nothing was applied.\n${wayOut}`,
    );

    // A push of main that merged no merge request: refused, then run by hand to plan again.
    const file = join(team, 'audiences.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text.replace(
        '- name: seoul-women-20s',
        '- name: busan-runners\n    type: DISPLAY\n    locations: [B]\n\n  - name: seoul-women-20s',
      ),
    );
    await git(team, 'commit', '--quiet', '-am', 'A direct push');
    const direct = await git(team, 'rev-parse', 'HEAD');
    expect((await apply({ CI_COMMIT_SHA: direct })).code).toBe(1);
    expect(await live()).not.toContain('busan-runners');
    const replanned = await apply({ CI_COMMIT_SHA: direct, AUDIENCES_APPLY_MODE: 'replan' });
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);
    expect(replanned.stdout).toContain('AUDIENCES_APPLY_MODE=replan: the files are planned again and applied.');
    expect(replanned.stdout).toContain('busan-runners');
    expect(await live()).toContain('busan-runners');
  }, 60_000);

  it('plans a merge request against its base: a change made in the ad manager labelled, the guard held, a label to allow a mass delete for one run', async () => {
    // In the ad manager: vip-retargeting deleted. The merge request: three of the four others removed.
    const vip = (await storedAudiences(emulator)).find((audience) => audience.name === 'vip-retargeting');
    await outside.delete(emulator, vip!.id);
    const base = await git(team, 'rev-parse', 'main');
    await git(team, 'checkout', '--quiet', '-b', 'prune-most');
    const file = join(team, 'audiences.yaml');
    const kept = ['seoul-women-20s', 'vip-retargeting'];
    const [top = '', audiences = ''] = (await readFile(file, 'utf8')).split(/^audiences:\n/m);
    const entries = audiences
      .split(/(?=^ {2}- name: )/m)
      .filter((entry) => kept.some((name) => entry.startsWith(`  - name: ${name}\n`)));
    // The guard applies to this small account too (minimum 0; the default is 10 audiences), and
    // the same change loosens its share to 100%: the base's 30% holds.
    const withGuard = (guard: string) => `${top}massDelete: ${guard}\naudiences:\n${entries.join('')}`;
    await writeFile(file, withGuard('{ percent: 100, minimum: 0 }'));
    await git(team, 'commit', '--quiet', '-am', 'Keep two audiences');
    const plan = (labels: string) => planMergeRequest(base, labels);
    const note = () => notes.at(-1)!.body;

    const refused = await plan('');
    expect(refused.code).not.toBe(0);
    expect(note()).toContain(
      'error\\[MASS\\_DELETE\\]: the plan deletes 3 of the 4 managed audiences (75%), more than the 30% allowed',
    );
    expect(note()).toContain(
      'warning\\[MASS\\_DELETE\\_LOOSENED\\]: the file loosens the mass-delete guard (massDelete percent 100, minimum 0',
    );
    const [own = '', outsideTool = ''] = note().split('#### Changed outside the tool\n');
    expect(outsideTool).toMatch(
      /^\nThe files at [0-9a-f]{40} would make this change too: it undoes a change made outside the tool/,
    );
    expect(outsideTool).toContain('| `+` | create audience "vip-retargeting" |');
    expect(own).toContain('| `-` | delete audience "gangnam-shoppers"');

    const labelled = await plan('reviewed,audiences-allow-mass-delete');
    expect(labelled.code, labelled.stdout + labelled.stderr).toBe(0);
    expect(note()).not.toContain('error\\[MASS\\_DELETE\\]');
    expect(note()).toContain('#### Changed outside the tool');

    // Applied by hand, planned again (the guard back at 30%): refused unless the run allows it.
    await writeFile(file, withGuard('{ minimum: 0 }'));
    await git(team, 'commit', '--quiet', '-am', 'The guard as it was');
    const head = await git(team, 'rev-parse', 'HEAD');
    const guarded = await apply({ CI_COMMIT_SHA: head, AUDIENCES_APPLY_MODE: 'replan' });
    expect(guarded.code).toBe(1);
    expect(guarded.stdout + guarded.stderr).toContain('MASS_DELETE');
    const allowed = await apply({
      CI_COMMIT_SHA: head,
      AUDIENCES_APPLY_MODE: 'replan',
      AUDIENCES_ALLOW_MASS_DELETE: 'true',
    });
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect((await live()).sort()).toEqual(kept);
  }, 120_000);

  it("previews a merge request's images: pushed to its branch with the lock, uploaded once each and shown in the note; nothing generated again; none on merge", async () => {
    const imageRequests = async () =>
      ((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: Array<{ path: string }> }).requests
        .map((request) => request.path)
        .filter((path) => path.startsWith('/v2/inference/'));
    const note = () => notes.at(-1)!.body;
    await git(team, 'checkout', '--quiet', 'main');
    const base = await git(team, 'rev-parse', 'main');
    await git(team, 'checkout', '--quiet', '-b', 'new-images');
    const file = join(team, 'audiences.yaml');
    const summer =
      '  - name: summer-hero\n    prompt: a beach at noon, watercolor\n    version: v2.0\n    width: 384\n    height: 384\n    output: assets/summer-hero.webp\n';
    await writeFile(
      file,
      (await readFile(file, 'utf8'))
        .replace('a spring picnic in a park, watercolor', 'a spring picnic by a lake, watercolor')
        .replace(/^(massDelete|audiences):/m, `${summer}$1:`),
    );
    await git(team, 'commit', '--quiet', '-am', 'A summer image, and the banner by a lake');
    await git(team, 'push', '--quiet', 'origin', 'new-images');
    const head = await git(team, 'rev-parse', 'HEAD');
    const preview = () =>
      gcl(
        {
          CI_PIPELINE_SOURCE: 'merge_request_event',
          CI_MERGE_REQUEST_IID: '7',
          CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
          CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'new-images',
          CI_MERGE_REQUEST_PROJECT_ID: '42',
          CI_PROJECT_ID: '42',
          CI_API_V4_URL: `${gitlab.url}/api/v4`,
          AUDIENCES_GITLAB_TOKEN: 'gl-token',
          AUDIENCES_PUSH_URL: origin,
          ...serviceEnv,
        },
        'audiences-plan',
      );
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    const first = await preview();
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const previewed = await git(origin, 'rev-parse', 'new-images');
    expect(await git(origin, 'rev-parse', `${previewed}^`)).toBe(head);
    expect((await git(origin, 'show', '--name-only', '--format=%s', previewed)).split('\n').filter(Boolean)).toEqual([
      'audiences: preview images and images.lock.json',
      'assets/spring-banner.webp',
      'assets/spring-square.png',
      'assets/summer-hero.webp',
      'images.lock.json',
    ]);
    expect(await imageRequests()).toHaveLength(3);
    // Each file shown, uploaded once: the three made, and the two they replace at the base.
    expect(uploads).toHaveLength(5);
    expect(uploads.every((name) => /^[0-9a-f]{64}\.(webp|png)$/.test(name))).toBe(true);
    expect(note()).toContain(`Planned at commit ${previewed}.`);
    expect(note()).toContain(
      ':frame_with_picture: **Image preview:** 3 image requests; the new and changed images committed to the branch in',
    );
    expect(note()).toContain('#### Images of this change (1 new, 2 changed)');
    const rows = note()
      .split('\n')
      .filter((line) => line.startsWith('| **'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      /^\| \*\*changed\*\* spring-banner<br>prompt: a spring picnic by a lake, watercolor<br>.*\| <img src="\/uploads\/\d{32}\/[0-9a-f]{64}\.webp" width="320" alt="spring-banner"> \| <img src="\/uploads\//,
    );
    expect(rows[2]).toMatch(
      /^\| \*\*new\*\* summer-hero<br>.*\| <img src="\/uploads\/\d{32}\/[0-9a-f]{64}\.webp" width="320" alt="summer-hero"> \| {2}\|$/,
    );

    // The pipeline of the pushed commit: nothing generated, nothing uploaded again, the same images.
    await git(team, 'fetch', '--quiet', origin, 'new-images');
    await git(team, 'reset', '--quiet', '--hard', 'FETCH_HEAD');
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    const second = await preview();
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(await git(origin, 'rev-parse', 'new-images')).toBe(previewed);
    expect(await imageRequests()).toEqual([]);
    expect(uploads).toHaveLength(5);
    expect(note()).toContain(':frame_with_picture: **Image preview:** 0 image requests;');
    expect(
      note()
        .split('\n')
        .filter((line) => line.startsWith('| **')),
    ).toEqual(rows);

    // The merge applies the plan of that pipeline: no image request, and it says so.
    const artifacts = join(team, '.gitlab-ci-local', 'artifacts', 'audiences-plan');
    const saved = Object.fromEntries(
      await Promise.all(
        ['audiences.plan.json', 'audiences.plan.manifest.json', 'audiences.preview.json'].map(
          async (name) => [name, await readFile(join(artifacts, name))] as const,
        ),
      ),
    );
    await git(team, 'checkout', '--quiet', 'main');
    await git(team, 'merge', '--quiet', '--no-ff', '-m', "Merge branch 'new-images' into 'main'", 'new-images');
    const merged = await git(team, 'rev-parse', 'HEAD');
    commitRequests.set(merged, [
      {
        iid: 7,
        project_id: 42,
        target_project_id: 42,
        state: 'merged',
        target_branch: 'main',
        sha: previewed,
        merge_commit_sha: merged,
        squash_commit_sha: null,
      },
    ]);
    requestPipelines.set(7, [
      {
        id: 960,
        project_id: 42,
        sha: previewed,
        ref: 'refs/merge-requests/7/head',
        status: 'success',
        source: 'merge_request_event',
      },
    ]);
    pipelineJobs.set(960, [{ id: 9601, name: 'audiences-plan', status: 'success' }]);
    jobArtifacts.set(9601, saved);
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');
    const applied = await apply({ CI_COMMIT_SHA: merged });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('0 images generated: all were reviewed in the merge request.');
    expect(await imageRequests()).toEqual([]);
  }, 240_000);

  it('keeps the images of a merge request from a fork in audiences-previews/, the checkout as it was, and says why', async () => {
    await git(team, 'checkout', '--quiet', '-b', 'from-fork');
    const file = join(team, 'audiences.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('a beach at noon', 'a beach at dusk'));
    await git(team, 'commit', '--quiet', '-am', 'The summer image at dusk');
    const head = await git(team, 'rev-parse', 'HEAD');
    const result = await run(process.execPath, [join(team, 'node_modules', 'audiences', 'ci', 'gitlab-preview.mjs')], {
      cwd: team,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...serviceEnv,
        CI_MERGE_REQUEST_IID: '7',
        CI_COMMIT_SHA: head,
        CI_MERGE_REQUEST_DIFF_BASE_SHA: await git(team, 'rev-parse', 'main'),
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'from-fork',
        CI_MERGE_REQUEST_PROJECT_ID: '42',
        CI_MERGE_REQUEST_SOURCE_PROJECT_ID: '99',
        CI_MERGE_REQUEST_SOURCE_PROJECT_PATH: 'outsider/ads',
        CI_API_V4_URL: `${gitlab.url}/api/v4`,
        AUDIENCES_GITLAB_TOKEN: 'gl-token',
        AUDIENCES_PUSH_URL: origin,
      },
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'The preview images are not committed to the branch: the request comes from the fork outsider/ads.',
    );
    // The checkout as it was: the lock and the images of the branch, untouched.
    expect(await git(team, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(await readdir(join(team, 'audiences-previews', 'assets'))).toEqual(['summer-hero.webp']);
    expect(JSON.parse(await readFile(join(team, 'audiences.preview.json'), 'utf8'))).toMatchObject({
      requests: 1,
      commit: null,
      notCommitted: 'fork',
      artifact: 'audiences-previews/',
    });
    expect(await git(origin, 'branch', '--list', 'from-fork')).toBe('');
  }, 60_000);
});
