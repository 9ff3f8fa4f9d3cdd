import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorEnv, emulatorRoute } from '../helpers/cli.js';
import { outside, storedAudiences } from '../helpers/live-account.js';
import { git, run, standIn, zip, type RecordedRequest, type StandIn } from '../helpers/stand-in.js';
import type { RunningEmulator } from '../../src/emulator/server.js';

/**
 * The GitHub Action's script (ci/github-action.mjs, what action.yml runs) against the emulator
 * and a loopback stand-in for the GitHub API: the plan comment of a pull request, the apply of
 * its saved plan after the merge with the generated files committed back, the refusals, and the
 * drift issue. The repository's own audiences.yaml is the file (audiences, a business, images).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'ci', 'github-action.mjs');
const REPO = 'team/ads';
const MARKER = '<!-- audiences-plan files=audiences.yaml -->';
const BOT = 'github-actions[bot]';
/** The repository's id, and a fork's, as GitHub's objects carry them. */
const REPO_ID = 100;
const FORK = { id: 200, full_name: 'outsider/ads' };

interface Comment {
  id: number;
  body: string;
  user: { login: string };
  html_url: string;
}

interface Issue {
  number: number;
  title: string;
  body: string;
  state: string;
  user: { login: string };
  html_url: string;
}

/** The GitHub API as the scripts use it, for one repository and pull request #7. */
function fakeGitHub() {
  let nextId = 1000;
  const comments: Comment[] = [
    { id: 1, body: 'Looks good to me', user: { login: 'reviewer' }, html_url: 'c/1' },
    // Another bot's comment with the very same first line: never ours to touch.
    { id: 2, body: `${MARKER}\nanother bot's plan`, user: { login: 'other-bot[bot]' }, html_url: 'c/2' },
    ...Array.from({ length: 5 }, (_, i) => ({
      id: 10 + i,
      body: `comment ${i}`,
      user: { login: 'reviewer' },
      html_url: `c/${10 + i}`,
    })),
  ];
  const issues: Issue[] = [
    {
      number: 3,
      title: 'unrelated',
      body: `${MARKER}\nnot a drift issue`,
      state: 'open',
      user: { login: 'someone' },
      html_url: 'i/3',
    },
  ];
  const artifacts: Array<{
    id: number;
    name: string;
    expired: boolean;
    created_at: string;
    workflow_run: Record<string, unknown>;
    zip: Buffer;
  }> = [];
  /** Workflow runs by id, as GET /repos/…/actions/runs/{id} answers them. */
  const runs = new Map<number, WorkflowRun>();
  const pulls = new Map<string, unknown[]>();
  /** Pages of two, whatever per_page says, so that the scripts must follow the Link header. */
  const page = (url: URL, items: unknown[]) => {
    const number = Number(url.searchParams.get('page') ?? '1');
    const next = new URL(url.toString());
    next.searchParams.set('page', String(number + 1));
    const headers: Record<string, string> =
      number * 2 < items.length ? { link: `<${server.url}${next.pathname}${next.search}>; rel="next"` } : {};
    return { json: items.slice((number - 1) * 2, number * 2), headers };
  };
  let server: StandIn;
  return {
    comments,
    issues,
    artifacts,
    pulls,
    /** An artifact uploaded by a run: the artifact's summary of its run is what GitHub lists. */
    upload(
      artifact: { id: number; name: string; created_at: string; zip: Buffer; expired?: boolean },
      run: WorkflowRun,
    ) {
      runs.set(run.id, run);
      const workflow_run = {
        id: run.id,
        repository_id: run.repository.id,
        head_repository_id: run.head_repository.id,
        head_branch: run.head_branch,
        head_sha: run.head_sha,
      };
      artifacts.push({ expired: false, ...artifact, workflow_run });
    },
    async start() {
      server = await standIn(async (request, url) => {
        if (
          request.headers.authorization !== 'Bearer gh-token' &&
          !url.pathname.startsWith('/blob/') &&
          !url.pathname.endsWith('.git/info/refs')
        )
          return { status: 401, json: { message: 'Bad credentials' } };
        const path = url.pathname;
        const body = request.body as Record<string, string>;
        if (path === '/user') return { status: 403, json: { message: 'Resource not accessible by integration' } };
        if (path === `/repos/${REPO}/issues/7/comments` && request.method === 'GET') return page(url, comments);
        if (path === `/repos/${REPO}/issues/7/comments` && request.method === 'POST') {
          const comment = { id: nextId++, body: body.body ?? '', user: { login: BOT }, html_url: `c/${nextId}` };
          comments.push(comment);
          return { status: 201, json: comment };
        }
        const commentMatch = /^\/repos\/team\/ads\/issues\/comments\/(\d+)$/.exec(path);
        if (commentMatch && request.method === 'PATCH') {
          const comment = comments.find((c) => c.id === Number(commentMatch[1]));
          if (!comment) return undefined;
          comment.body = body.body ?? '';
          return { json: comment };
        }
        if (path === `/repos/${REPO}/issues` && request.method === 'GET')
          return page(
            url,
            issues.filter((issue) => issue.state === 'open'),
          );
        if (path === `/repos/${REPO}/issues` && request.method === 'POST') {
          const issue = {
            number: nextId++,
            title: body.title ?? '',
            body: body.body ?? '',
            state: 'open',
            user: { login: BOT },
            html_url: `i/${nextId}`,
          };
          issues.push(issue);
          return { status: 201, json: issue };
        }
        const issueMatch = /^\/repos\/team\/ads\/issues\/(\d+)(\/comments)?$/.exec(path);
        if (issueMatch) {
          const issue = issues.find((i) => i.number === Number(issueMatch[1]));
          if (!issue) return undefined;
          if (issueMatch[2]) return { status: 201, json: { id: nextId++ } };
          Object.assign(issue, body);
          return { json: issue };
        }
        // A commit of the repository, as the remote (origin) holds it: its parents and message.
        const commitMatch = /^\/repos\/team\/ads\/commits\/([0-9a-f]{40})$/.exec(path);
        if (commitMatch) {
          const sha = commitMatch[1]!;
          const known = await git(origin, 'cat-file', '-e', `${sha}^{commit}`).then(
            () => true,
            () => false,
          );
          if (!known) return undefined;
          const parents = (await git(origin, 'rev-list', '--parents', '-n', '1', sha)).split(' ').slice(1);
          const message = await git(origin, 'log', '-1', '--format=%B', sha);
          return { json: { sha, parents: parents.map((parent) => ({ sha: parent })), commit: { message } } };
        }
        const pullsMatch = /^\/repos\/team\/ads\/commits\/([0-9a-f]+)\/pulls$/.exec(path);
        if (pullsMatch) return { json: pulls.get(pullsMatch[1] ?? '') ?? [] };
        const runMatch = /^\/repos\/team\/ads\/actions\/runs\/(\d+)$/.exec(path);
        if (runMatch) return runs.has(Number(runMatch[1])) ? { json: runs.get(Number(runMatch[1])) } : undefined;
        if (path === `/repos/${REPO}/actions/artifacts`) {
          const named = artifacts.filter((artifact) => artifact.name === url.searchParams.get('name'));
          return {
            json: { total_count: named.length, artifacts: named.map(({ zip: _zip, ...artifact }) => artifact) },
          };
        }
        const download = /^\/repos\/team\/ads\/actions\/artifacts\/(\d+)\/zip$/.exec(path);
        if (download) return { status: 302, headers: { location: `${blobs.url}/blob/${download[1]}` } };
        // The git remote of a token that may not push: GitHub refuses the push's first request.
        if (path.endsWith('.git/info/refs'))
          return { status: 403, bytes: Buffer.from('Permission to team/ads.git denied to github-actions[bot].\n') };
        return undefined;
      });
      // Artifact bytes come from another origin, as GitHub's do: the token must not follow.
      const blobs = await standIn((_request, url) => {
        const artifact = artifacts.find((a) => url.pathname === `/blob/${a.id}`);
        return artifact ? { bytes: artifact.zip, headers: { 'content-type': 'application/zip' } } : undefined;
      });
      return {
        url: server.url,
        requests: server.requests,
        blobRequests: blobs.requests,
        close: async () => {
          await server.close();
          await blobs.close();
        },
      };
    },
  };
}

interface WorkflowRun {
  id: number;
  event: string;
  head_sha: string;
  head_branch: string;
  repository: { id: number; full_name: string };
  head_repository: { id: number; full_name: string };
}

/**
 * The pull request's branch, and the run of its plan workflow at a commit (as GitHub starts it, unless told otherwise).
 */
const BRANCH = 'narrow-ages';
const planRun = (id: number, headSha: string, overrides: Partial<WorkflowRun> = {}): WorkflowRun => ({
  id,
  event: 'pull_request',
  head_sha: headSha,
  head_branch: BRANCH,
  repository: { id: REPO_ID, full_name: REPO },
  head_repository: { id: REPO_ID, full_name: REPO },
  ...overrides,
});

let emulator: RunningEmulator;
let serviceEnv: Record<string, string>;
let github: ReturnType<typeof fakeGitHub>;
let api: Awaited<ReturnType<ReturnType<typeof fakeGitHub>['start']>>;
let dir: string;
let work: string;
let origin: string;

beforeAll(async () => {
  ({ emulator, env: serviceEnv } = await emulatorEnv());
  github = fakeGitHub();
  api = await github.start();
  dir = await mkdtemp(join(tmpdir(), 'audiences-action-'));
  origin = join(dir, 'origin.git');
  work = join(dir, 'work');
  await git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  await git(dir, 'clone', '--quiet', origin, work);
  await writeFile(join(work, 'README.md'), 'the team repository\n');
  await git(work, 'add', '.');
  await git(work, 'commit', '--quiet', '-m', 'start');
  await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
  // The pull request: the repository's own sample file, with audiences, a business and images.
  await writeFile(join(work, 'audiences.yaml'), await readFile(join(root, 'audiences.yaml'), 'utf8'));
});

afterAll(async () => {
  await api?.close();
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface StepResult {
  code: number;
  log: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Runs the Action's step as action.yml does, in a job of the given event. */
async function step(
  command: string,
  options: {
    event?: unknown;
    inputs?: Record<string, string>;
    env?: Record<string, string>;
    sha?: string;
    cwd?: string;
  } = {},
): Promise<StepResult> {
  const cwd = options.cwd ?? work;
  const temp = await mkdtemp(join(dir, 'runner-'));
  const files = { event: join(temp, 'event.json'), output: join(temp, 'output'), summary: join(temp, 'summary.md') };
  await writeFile(files.event, JSON.stringify(options.event ?? {}));
  await writeFile(files.output, '');
  await writeFile(files.summary, '');
  const inputs = Object.fromEntries(
    Object.entries(options.inputs ?? {}).map(([name, value]) => [
      `INPUT_${name.toUpperCase().replace(/-/g, '_')}`,
      value,
    ]),
  );
  const result = await run(process.execPath, [script, command], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? temp,
      ...serviceEnv,
      GITHUB_ACTIONS: 'true',
      GITHUB_API_URL: api.url,
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_REPOSITORY: REPO,
      GITHUB_RUN_ID: '42',
      GITHUB_EVENT_NAME: options.event ? 'pull_request' : 'push',
      GITHUB_EVENT_PATH: files.event,
      GITHUB_OUTPUT: files.output,
      GITHUB_STEP_SUMMARY: files.summary,
      GITHUB_SHA: options.sha ?? (await git(cwd, 'rev-parse', 'HEAD')),
      GITHUB_REF_NAME: 'main',
      RUNNER_TEMP: temp,
      INPUT_GITHUB_TOKEN: 'gh-token',
      ...inputs,
      ...options.env,
    },
  });
  const outputs = Object.fromEntries(
    (await readFile(files.output, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return {
    code: result.code,
    log: result.stdout + result.stderr,
    outputs,
    summary: await readFile(files.summary, 'utf8'),
  };
}

const pullRequest = (head: string) => ({ pull_request: { number: 7, head: { sha: head } } });
const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const state = async () =>
  (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as { audiences: Array<{ name: string }> };
/** The saved plans of the pull request's commits, as the upload step would keep them. */
const planDirs: Record<string, string> = {};
/** The zip of a saved plan's folder, as the upload step makes it. */
const artifactZip = async (dir: string) =>
  zip({
    'audiences.plan.json': await readFile(join(dir, 'audiences.plan.json')),
    'audiences.plan.manifest.json': await readFile(join(dir, 'audiences.plan.manifest.json')),
  });
/** The commit that merged pull request #7, and its last commit. */
let merge: string;
const HEAD = 'b'.repeat(40);

describe('the GitHub Action', () => {
  it('plans a pull request into one comment: created, then updated, then replaced by the error; no other comment is touched', async () => {
    const others = github.comments.map((comment) => ({ ...comment }));

    const first = await step('plan', { event: pullRequest('a'.repeat(40)) });
    expect(first.code, first.log).toBe(0);
    expect(first.outputs).toMatchObject({ exitcode: '2', changes: 'true' });
    const created = writes(api.requests);
    expect(created.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST /repos/${REPO}/issues/7/comments`,
    ]);
    const ours = github.comments.at(-1)!;
    expect(ours.user.login).toBe(BOT);
    expect(ours.body.split('\n')[0]).toBe(MARKER);
    expect(ours.body).toContain('seoul-women-20s');
    expect(ours.body).toContain('a'.repeat(40));
    expect(first.summary).toBe(ours.body);
    planDirs.first = first.outputs['plan-dir']!;
    expect(await readdir(planDirs.first)).toEqual(['audiences.plan.json', 'audiences.plan.manifest.json']);

    // A second push to the pull request: the same comment is updated.
    const text = await readFile(join(work, 'audiences.yaml'), 'utf8');
    await writeFile(join(work, 'audiences.yaml'), text.replace('ages: [20, 25]', 'ages: [20, 25, 30]'));
    api.requests.length = 0;
    const second = await step('plan', { event: pullRequest('b'.repeat(40)) });
    expect(second.code, second.log).toBe(0);
    expect(writes(api.requests).map((request) => `${request.method} ${request.path}`)).toEqual([
      `PATCH /repos/${REPO}/issues/comments/${ours.id}`,
    ]);
    expect(github.comments.filter((comment) => comment.user.login === BOT)).toHaveLength(1);
    expect(ours.body).toContain('b'.repeat(40));
    // The comments were read page by page, following the Link header.
    expect(
      api.requests.filter((request) => request.path.startsWith(`/repos/${REPO}/issues/7/comments`)).length,
    ).toBeGreaterThan(3);
    planDirs.second = second.outputs['plan-dir']!;

    // A plan that fails (the service answers 401) still replaces the comment, with the error.
    api.requests.length = 0;
    const failed = await step('plan', {
      event: pullRequest('c'.repeat(40)),
      env: { ADS_ACCESS_TOKEN: 'expired-token' },
    });
    expect(failed.code).toBe(1);
    expect(failed.outputs).toMatchObject({ exitcode: '1' });
    // Its artifact holds no plan, only a manifest saying the plan failed: it replaces what an earlier run of the commit
    // saved.
    expect(await readdir(failed.outputs['plan-dir']!)).toEqual(['audiences.plan.manifest.json']);
    expect(
      JSON.parse(await readFile(join(failed.outputs['plan-dir']!, 'audiences.plan.manifest.json'), 'utf8')),
    ).toMatchObject({
      pullRequest: 7,
      headSha: 'c'.repeat(40),
      refused: "exit code 1: the error is in the pull request's comment",
    });
    expect(failed.log).toContain('::error::The plan failed');
    expect(writes(api.requests).map((request) => `${request.method} ${request.path}`)).toEqual([
      `PATCH /repos/${REPO}/issues/comments/${ours.id}`,
    ]);
    expect(ours.body.split('\n')[0]).toBe(MARKER);
    expect(ours.body).toMatch(/The plan failed/);
    expect(ours.body).toMatch(/UNAUTHORIZED/);
    expect(ours.body).not.toContain('expired-token');

    // The reviewer's comments and the other bot's comment with the same marker are as they were.
    expect(github.comments.filter((comment) => comment.id !== ours.id)).toEqual(others);
  });

  it("never applies an artifact of another run under the pull request's name, however new, and says why each was passed over", async () => {
    await git(work, 'add', 'audiences.yaml');
    await git(work, 'commit', '--quiet', '-m', 'Merge pull request #7');
    await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    merge = await git(work, 'rev-parse', 'HEAD');
    const repository = { id: REPO_ID, full_name: REPO };
    github.pulls.set(merge, [
      {
        number: 7,
        merged_at: '2026-01-01T00:00:00Z',
        merge_commit_sha: merge,
        head: { sha: HEAD, ref: BRANCH, repo: repository },
        base: { ref: 'main', repo: repository },
      },
    ]);
    // The bytes of the plan reviewed, with a manifest that fits the merge: what any run can upload under #7's name.
    const reviewed = await artifactZip(planDirs.second!);
    const name = 'audiences-plan-7';
    github.upload(
      { id: 501, name, created_at: '2026-01-01T00:00:01Z', zip: await artifactZip(planDirs.first!) },
      planRun(9501, 'a'.repeat(40)),
    );
    github.upload(
      { id: 600, name, created_at: '2026-01-01T00:00:10Z', zip: reviewed, expired: true },
      planRun(9600, HEAD),
    );
    github.upload(
      { id: 601, name, created_at: '2026-01-01T00:00:11Z', zip: reviewed },
      planRun(9601, HEAD, { event: 'workflow_dispatch' }),
    );
    github.upload(
      { id: 602, name, created_at: '2026-01-01T00:00:12Z', zip: reviewed },
      planRun(9602, HEAD, { head_repository: FORK }),
    );
    github.upload(
      { id: 603, name, created_at: '2026-01-01T00:00:13Z', zip: reviewed },
      planRun(9603, HEAD, { head_branch: 'copy-of-narrow-ages' }),
    );
    github.upload(
      { id: 604, name, created_at: '2026-01-01T00:00:14Z', zip: reviewed },
      planRun(9604, 'e'.repeat(40), { event: 'push' }),
    );
    api.requests.length = 0;

    const refused = await step('apply', { sha: merge });
    expect(refused.code).toBe(1);
    const lines = refused.log.split('%0A');
    expect(lines[0]).toMatch(
      /::error::No saved plan of pull request #7 can be applied: no artifact audiences-plan-7 was made by its own plan run \(a pull_request run of team\/ads at its last commit b{12}, from its branch\)/,
    );
    expect(lines.slice(1, -1)).toEqual([
      '- artifact 604: made at commit eeeeeeeeeeee, not at bbbbbbbbbbbb, the last commit of #7',
      '- artifact 603: made by run 9603 of the branch "team/ads:copy-of-narrow-ages", not of #7\'s "team/ads:narrow-ages"',
      '- artifact 602: made by run 9602 of the branch "outsider/ads:narrow-ages", not of #7\'s "team/ads:narrow-ages"',
      '- artifact 601: made by run 9601, a "workflow_dispatch" run, not a pull_request run',
      '- artifact 600: expired',
      '- artifact 501: made at commit aaaaaaaaaaaa, not at bbbbbbbbbbbb, the last commit of #7',
    ]);
    expect(lines.at(-1)).toMatch(/Run workflow.*replan/);
    expect(api.requests.filter((request) => request.path.endsWith('/zip'))).toEqual([]);
    expect((await state()).audiences).toEqual([]);
  });

  it('applies the saved plan of the merged pull request and commits the generated files back', async () => {
    // #7's own run at its last commit, older than the artifacts of other runs above.
    github.upload(
      {
        id: 502,
        name: 'audiences-plan-7',
        created_at: '2026-01-01T00:00:02Z',
        zip: await artifactZip(planDirs.second!),
      },
      planRun(9502, HEAD),
    );
    github.upload(
      { id: 503, name: 'audiences-plan-8', created_at: '2026-01-01T00:00:03Z', zip: Buffer.from('not this one') },
      planRun(9503, 'd'.repeat(40)),
    );
    api.requests.length = 0;

    const applied = await step('apply', { sha: merge });
    expect(applied.code, applied.log).toBe(0);
    expect(api.requests.map((request) => request.path)).toContain(`/repos/${REPO}/actions/artifacts/502/zip`);
    // The artifact's bytes were fetched without the token, from the other origin.
    expect(api.blobRequests.at(-1)?.path).toBe('/blob/502');
    expect(api.blobRequests.at(-1)?.headers.authorization).toBeUndefined();
    expect((await state()).audiences.map((audience) => audience.name)).toEqual(
      expect.arrayContaining(['seoul-women-20s', 'gangnam-shoppers', 'vip-retargeting', 'channel-vip-friends']),
    );

    // The lock and the images are on the branch, in a commit of the Action's bot.
    const pushed = await git(origin, 'show', '--name-only', '--format=%an', 'main');
    expect(pushed.split('\n')).toEqual(
      expect.arrayContaining([BOT, 'images.lock.json', 'assets/spring-banner.webp', 'assets/spring-square.png']),
    );
    expect(applied.outputs.commit).toBe(await git(origin, 'rev-parse', 'main'));
    expect(applied.log).not.toContain(serviceEnv.ADS_ACCESS_TOKEN);
  });

  it('refuses a saved plan the account has moved past as stale, and says what to do', async () => {
    const again = await step('apply', { sha: merge });
    expect(again.code).toBe(1);
    expect(again.log).toContain('PLAN_STALE');
    expect(again.log).toMatch(
      /::error::The account changed since the plan was reviewed.*refused as stale.*Run workflow/,
    );
  });

  it('refuses to apply, changing nothing, when the generated files could not be pushed back', async () => {
    await git(work, 'pull', '--quiet', 'origin', 'main');
    const text = await readFile(join(work, 'audiences.yaml'), 'utf8');
    await writeFile(
      join(work, 'audiences.yaml'),
      text
        .replace('name: spring-banner\n', 'name: spring-banner\n    negative_prompt: rain\n')
        .replace(
          '- name: seoul-women-20s',
          '- name: busan-runners\n    type: DISPLAY\n    locations: [B]\n\n  - name: seoul-women-20s',
        ),
    );
    await git(work, 'commit', '--quiet', '-am', 'a direct push');
    const before = (await state()).audiences.length;
    const refused = await step('apply', {
      inputs: { 'apply-mode': 'replan' },
      env: { AUDIENCES_GIT_REMOTE: `${api.url}/team/ads.git` },
    });
    expect(refused.code).toBe(1);
    expect(refused.log).toMatch(
      /::error::Nothing was applied: .*cannot push them and images.lock.json to main.*permissions: contents: write/,
    );
    expect((await state()).audiences.length).toBe(before);
    // Without a merged pull request there is no reviewed plan: the error says how to apply anyway.
    const direct = await step('apply');
    expect(direct.code).toBe(1);
    expect(direct.log).toMatch(/::error::Commit [0-9a-f]{12} is not the merge of a pull request.*Run workflow.*replan/);
  });

  it('checks for drift: the job fails and one issue reports it while it lasts, and is closed once the account matches', async () => {
    const drifted = await step('drift', { inputs: { 'drift-issue': 'true' } });
    expect(drifted.code).toBe(1);
    expect(drifted.outputs).toMatchObject({ exitcode: '2', drift: 'true' });
    expect(drifted.log).toContain('::error::The ad account no longer matches audiences.yaml');
    const issue = github.issues.find((candidate) => candidate.user.login === BOT)!;
    expect(issue.title).toBe('audiences: the ad account no longer matches audiences.yaml');
    expect(issue.body.split('\n')[0]).toBe('<!-- audiences-drift files=audiences.yaml -->');
    expect(issue.body).toContain('busan-runners');

    const applied = await step('apply', { inputs: { 'apply-mode': 'replan' } });
    expect(applied.code, applied.log).toBe(0);
    const matching = await step('drift', { inputs: { 'drift-issue': 'true' } });
    expect(matching.code, matching.log).toBe(0);
    expect(matching.outputs).toMatchObject({ exitcode: '0', drift: 'false' });
    expect(issue.state).toBe('closed');
    expect(github.issues.filter((candidate) => candidate.user.login === BOT)).toHaveLength(1);
    expect(github.issues.find((candidate) => candidate.number === 3)?.state).toBe('open');
  });

  it('plans a pull request against its base, fetched into a shallow checkout: a change made in the ad manager labelled, a loosened guard held, allow-mass-delete for one run', async () => {
    // The account matches main. In the ad manager: vip-retargeting deleted.
    const vip = (await storedAudiences(emulator)).find((audience) => audience.name === 'vip-retargeting');
    await outside.delete(emulator, vip!.id);
    await git(work, 'pull', '--quiet', 'origin', 'main');
    const base = await git(work, 'rev-parse', 'HEAD');
    // The pull request removes three of the five audiences, and loosens the guard in the same change.
    await git(work, 'checkout', '--quiet', '-b', 'prune-most');
    const file = join(work, 'audiences.yaml');
    const kept = ['gangnam-shoppers', 'vip-retargeting'];
    const [top = '', audiences = ''] = (await readFile(file, 'utf8')).split(/^audiences:\n/m);
    const entries = audiences
      .split(/(?=^ {2}- name: )/m)
      .filter((entry) => kept.some((name) => entry.startsWith(`  - name: ${name}\n`)));
    await writeFile(file, `${top}massDelete: { percent: 100, minimum: 0 }\naudiences:\n${entries.join('')}`);
    await git(work, 'commit', '--quiet', '-am', 'Keep two audiences');
    await git(work, 'push', '--quiet', 'origin', 'prune-most');
    const head = await git(work, 'rev-parse', 'HEAD');
    // The runner's checkout: actions/checkout's default, one commit deep, without the base.
    const shallow = join(dir, 'shallow');
    await git(dir, 'clone', '--quiet', '--depth=1', '--branch=prune-most', `file://${origin}`, shallow);
    const event = { pull_request: { number: 7, head: { sha: head }, base: { sha: base } } };
    const ours = () => github.comments.find((comment) => comment.user.login === BOT)!.body;

    const refused = await step('plan', { event, cwd: shallow });
    expect(refused.code).toBe(1);
    expect(refused.log).toContain(`Fetched the pull request's base ${base}`);
    expect(ours()).toContain(
      'error\\[MASS\\_DELETE\\]: the plan deletes 3 of the 4 managed audiences (75%), more than the 30% allowed',
    );
    expect(ours()).toContain('warning\\[MASS\\_DELETE\\_LOOSENED\\]: the file loosens the mass-delete guard');
    const [own = '', outsideTool = ''] = ours().split('#### Changed outside the tool\n');
    expect(outsideTool).toMatch(
      new RegExp(`^\\nThe files at ${base} would make this change too: it undoes a change made outside the tool`),
    );
    expect(outsideTool).toContain('| `+` | create audience "vip-retargeting" |');
    expect(own).toContain('| `-` | delete audience "seoul-women-20s"');
    expect(own).not.toContain('create audience "vip-retargeting"');

    const allowed = await step('plan', { event, cwd: shallow, inputs: { 'allow-mass-delete': 'true' } });
    expect(allowed.code, allowed.log).toBe(0);
    expect(allowed.outputs).toMatchObject({ exitcode: '2' });
    expect(ours()).not.toContain('error\\[MASS\\_DELETE\\]');
    expect(ours()).toContain('#### Changed outside the tool');

    // The label taken off: planned again, refused. The merge then applies nothing, although an
    // earlier run of the same commit saved the plan it allowed.
    const withdrawn = await step('plan', { event, cwd: shallow });
    expect(withdrawn.code).toBe(1);
    const repository = { id: REPO_ID, full_name: REPO };
    github.upload(
      {
        id: 701,
        name: 'audiences-plan-7',
        created_at: '2026-02-01T00:00:01Z',
        zip: await artifactZip(allowed.outputs['plan-dir']!),
      },
      planRun(9701, head, { head_branch: 'prune-most' }),
    );
    const refusedManifest = await readFile(join(withdrawn.outputs['plan-dir']!, 'audiences.plan.manifest.json'));
    github.upload(
      {
        id: 702,
        name: 'audiences-plan-7',
        created_at: '2026-02-01T00:00:02Z',
        zip: await zip({ 'audiences.plan.manifest.json': refusedManifest }),
      },
      planRun(9702, head, { head_branch: 'prune-most' }),
    );
    await git(work, 'checkout', '--quiet', 'main');
    await git(work, 'merge', '--quiet', '--no-ff', '-m', 'Merge pull request #7', 'prune-most');
    await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    const merged = await git(work, 'rev-parse', 'HEAD');
    github.pulls.set(merged, [
      {
        number: 7,
        merged_at: '2026-02-01T00:01:00Z',
        merge_commit_sha: merged,
        head: { sha: head, ref: 'prune-most', repo: repository },
        base: { ref: 'main', repo: repository },
      },
    ]);
    const before = (await state()).audiences.length;
    const applied = await step('apply', { sha: merged });
    expect(applied.code).toBe(1);
    expect(applied.log).toContain(
      "::error::The saved plan of #7 (artifact 702) is not applied: the newest plan of #7 failed (exit code 1: the error is in the pull request's comment)",
    );
    expect((await state()).audiences.length).toBe(before);

    // A base that cannot be fetched fails the plan, saying why: without it the base's guard would be lost.
    const lost = await step('plan', {
      event: { pull_request: { number: 7, head: { sha: head }, base: { sha: 'f'.repeat(40) } } },
      cwd: shallow,
    });
    expect(lost.code).toBe(1);
    expect(lost.log).toContain(`Could not fetch the pull request's base ${'f'.repeat(40)}`);
    expect(ours()).toContain('BASE\\_REF\\_NOT\\_FOUND');
  });
});

describe("the Action's image preview", () => {
  const repository = { id: REPO_ID, full_name: REPO };
  const imageRequests = async () =>
    ((await emulatorRoute(emulator, 'GET', '/_emulator/requests')) as { requests: Array<{ path: string }> }).requests
      .map((request) => request.path)
      .filter((path) => path.startsWith('/v2/inference/'));
  const ours = () => github.comments.find((comment) => comment.user.login === BOT)!.body;
  const imageRows = () =>
    ours()
      .split('\n')
      .filter((line) => line.startsWith('| **'));
  const pullEvent = (head: string, ref: string, headRepository: { id: number; full_name: string } = repository) => ({
    pull_request: {
      number: 7,
      head: { sha: head, ref, repo: headRepository },
      base: { sha: base, repo: repository },
    },
  });
  const SUMMER = [
    '  - name: summer-hero',
    '    prompt: a beach at noon, watercolor',
    '    version: v2.0',
    '    width: 384',
    '    height: 384',
    '    output: assets/summer-hero.webp',
    '',
  ].join('\n');
  let base: string;
  let head: string;
  let previewed: string;
  let planDir: string;

  it('generates the images a pull request adds or changes, commits them with the lock to its branch, and shows each in the comment beside the one before', async () => {
    await git(work, 'checkout', '--quiet', 'main');
    await git(work, 'pull', '--quiet', 'origin', 'main');
    base = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'checkout', '--quiet', '-b', 'new-images');
    const file = join(work, 'audiences.yaml');
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text
        .replace('a spring picnic in a park, watercolor', 'a spring picnic by a lake, watercolor')
        .replace(/^massDelete:/m, `${SUMMER}massDelete:`),
    );
    await git(work, 'commit', '--quiet', '-am', 'A summer image, and the banner by a lake');
    await git(work, 'push', '--quiet', 'origin', 'new-images');
    head = await git(work, 'rev-parse', 'HEAD');
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    const planned = await step('plan', { event: pullEvent(head, 'new-images') });
    expect(planned.code, planned.log).toBe(0);
    // One commit of the Action's bot on the pull request's last commit: the images made and the lock.
    previewed = await git(origin, 'rev-parse', 'new-images');
    expect(await git(origin, 'rev-parse', `${previewed}^`)).toBe(head);
    expect(
      (await git(origin, 'show', '--name-only', '--format=%an%n%s', previewed)).split('\n').filter(Boolean),
    ).toEqual([
      BOT,
      'audiences: preview images and images.lock.json',
      'assets/spring-banner.webp',
      'assets/spring-square.png',
      'assets/summer-hero.webp',
      'images.lock.json',
    ]);
    // The new image, the changed banner and its variation: one request each.
    expect(await imageRequests()).toHaveLength(3);

    expect(ours()).toContain(`Planned at commit ${previewed}.`);
    expect(ours()).toContain(
      `:frame_with_picture: **Image preview:** 3 image requests; the new and changed images committed to the branch in ${previewed}; the merge generates no image.`,
    );
    expect(ours()).toContain('#### Images of this change (1 new, 2 changed)');
    const [banner = '', square = '', summer = ''] = imageRows();
    const url = (commit: string, path: string) => `https://github.example/${REPO}/blob/${commit}/${path}?raw=true`;
    expect(banner).toMatch(
      /^\| \*\*changed\*\* spring-banner<br>prompt: a spring picnic by a lake, watercolor<br>512×384, seed \d+<br>assets\/spring-banner.webp \| /,
    );
    expect(banner).toContain(
      `| <img src="${url(previewed, 'assets/spring-banner.webp')}" width="320" alt="spring-banner"> | <img src="${url(base, 'assets/spring-banner.webp')}" width="320" alt="spring-banner"> |`,
    );
    expect(square).toContain(`<img src="${url(previewed, 'assets/spring-square.png')}"`);
    expect(summer).toMatch(
      /^\| \*\*new\*\* summer-hero<br>prompt: a beach at noon, watercolor<br>384×384, seed \d+<br>/,
    );
    expect(summer).toContain(
      `| <img src="${url(previewed, 'assets/summer-hero.webp')}" width="320" alt="summer-hero"> |  |`,
    );

    // The saved plan is of the preview's commit: it generates nothing, and its manifest says which run pushed it.
    planDir = planned.outputs['plan-dir']!;
    expect(await readFile(join(planDir, 'audiences.plan.json'), 'utf8')).not.toMatch(/"action": "generate"/);
    expect(JSON.parse(await readFile(join(planDir, 'audiences.plan.manifest.json'), 'utf8'))).toMatchObject({
      pullRequest: 7,
      headSha: previewed,
      previewOf: head,
    });
    // The saved plan and the preview's data show the very comment again.
    const shown = await run(
      process.execPath,
      [
        join(root, 'bin', 'audiences.js'),
        'show',
        join(planDir, 'audiences.plan.json'),
        '--format',
        'markdown',
        '--preview',
        join(planDir, 'audiences.preview.json'),
      ],
      { cwd: work },
    );
    expect(shown.stdout).toBe(ours());
  });

  it('generates nothing on a run whose images are all on the branch, and the comment still shows them', async () => {
    await git(work, 'pull', '--quiet', '--ff-only', 'origin', 'new-images');
    const rows = imageRows();
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    const again = await step('plan', { event: pullEvent(previewed, 'new-images') });
    expect(again.code, again.log).toBe(0);
    expect(await git(origin, 'rev-parse', 'new-images')).toBe(previewed);
    expect(await imageRequests()).toEqual([]);
    expect(ours()).toContain(
      ':frame_with_picture: **Image preview:** 0 image requests; the images on the branch are those its files and lock declare; the merge generates no image.',
    );
    expect(imageRows()).toEqual(rows);
  });

  it("applies on merge the plan of the preview's run, making no image request, and says so", async () => {
    await git(work, 'checkout', '--quiet', 'main');
    await git(work, 'merge', '--quiet', '--no-ff', '-m', 'Merge pull request #7', 'new-images');
    await git(work, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    const merged = await git(work, 'rev-parse', 'HEAD');
    github.pulls.set(merged, [
      {
        number: 7,
        merged_at: '2026-03-01T00:01:00Z',
        merge_commit_sha: merged,
        head: { sha: previewed, ref: 'new-images', repo: repository },
        base: { ref: 'main', repo: repository },
      },
    ]);
    // GitHub starts no run for the commit the job's token pushed: the plan reviewed is the artifact of the run at its parent.
    github.upload(
      {
        id: 801,
        name: 'audiences-plan-7',
        created_at: '2026-03-01T00:00:01Z',
        zip: zip({
          'audiences.plan.json': await readFile(join(planDir, 'audiences.plan.json')),
          'audiences.plan.manifest.json': await readFile(join(planDir, 'audiences.plan.manifest.json')),
          'audiences.preview.json': await readFile(join(planDir, 'audiences.preview.json')),
        }),
      },
      planRun(9801, head, { head_branch: 'new-images' }),
    );
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    const applied = await step('apply', { sha: merged });
    expect(applied.code, applied.log).toBe(0);
    expect(applied.log).toContain('Applying the plan reviewed in #7');
    expect(applied.log).toContain('0 images generated: all were reviewed in the pull request.');
    expect(applied.summary).toContain('#### Images of this change (1 new, 2 changed)');
    expect(await imageRequests()).toEqual([]);
    expect(await git(origin, 'rev-parse', 'main')).toBe(merged);
  });

  it('keeps the images in an artifact where it cannot push (a fork, a read-only token), says so, and leaves them to the merge', async () => {
    await git(work, 'checkout', '--quiet', '-b', 'from-fork');
    const file = join(work, 'audiences.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('a beach at noon, watercolor', 'a beach at dusk, watercolor'),
    );
    await git(work, 'commit', '--quiet', '-am', 'The summer image at dusk');
    const forkHead = await git(work, 'rev-parse', 'HEAD');
    base = await git(work, 'rev-parse', 'main');
    await emulatorRoute(emulator, 'DELETE', '/_emulator/requests');

    const forked = await step('plan', { event: pullEvent(forkHead, 'from-fork', FORK) });
    expect(forked.code, forked.log).toBe(0);
    expect(await imageRequests()).toHaveLength(1);
    // Nothing pushed, the checkout as it was; the images where the artifact step uploads them.
    expect(await git(origin, 'branch', '--list', 'from-fork')).toBe('');
    expect(await git(work, 'status', '--porcelain')).toBe('');
    expect(await git(work, 'rev-parse', 'HEAD')).toBe(forkHead);
    const kept = forked.outputs['preview-dir']!;
    expect((await readdir(kept)).sort()).toEqual(['assets', 'images.lock.json']);
    expect(await readdir(join(kept, 'assets'))).toEqual(['summer-hero.webp']);
    expect(forked.log).toContain(
      '::warning::The preview images are not committed to the branch: the request comes from the fork outsider/ads',
    );
    expect(ours()).toContain(
      ":warning: **The images were not committed to the branch:** the pull request comes from a fork, which this job cannot push to. The preview made 1 image request; what it generated is in the job's artifact audiences-previews-7, not shown here. The merge generates the images again",
    );
    expect(ours()).toContain('| `~` | generate image "summer-hero" |');

    // Not a fork, but a token that may not push: the same, said so.
    const readOnly = await step('plan', {
      event: pullEvent(forkHead, 'from-fork'),
      env: { AUDIENCES_GIT_REMOTE: `${api.url}/team/ads.git` },
    });
    expect(readOnly.code, readOnly.log).toBe(0);
    expect(await git(work, 'status', '--porcelain')).toBe('');
    expect(ours()).toContain(
      ":warning: **The images were not committed to the branch:** this job's token cannot push to the branch.",
    );

    // A fork deleted since: GitHub's pull request has no head repository then. Still a fork: nothing is pushed to the
    // branch of this repository that bears its branch's name.
    const gone = await step('plan', {
      event: {
        pull_request: {
          number: 7,
          head: { sha: forkHead, ref: 'from-fork', repo: null },
          base: { sha: base, repo: repository },
        },
      },
    });
    expect(gone.code, gone.log).toBe(0);
    expect(await git(origin, 'branch', '--list', 'from-fork')).toBe('');
    expect(ours()).toContain(
      ':warning: **The images were not committed to the branch:** the pull request comes from a fork, which this job cannot push to.',
    );
  });
});
