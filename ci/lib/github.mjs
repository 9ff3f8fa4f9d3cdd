// The GitHub REST calls of the Action: the plan comment of a pull request, the pull request a
// push merged, its saved plan (an artifact), and the drift issue.
import { ApiError, restClient } from './rest.mjs';
import { firstLine } from './tool.mjs';
import { readZip } from './zip.mjs';

/** The login of the GITHUB_TOKEN's comments, which GET /user does not answer for that token. */
export const ACTIONS_BOT = 'github-actions[bot]';

/**
 * @param {{ apiUrl: string, token: string }} options
 */
export function githubClient({ apiUrl, token }) {
  return restClient({
    baseUrl: apiUrl,
    service: 'the GitHub API',
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'x-github-api-version': '2022-11-28',
      'user-agent': 'audiences-action',
    },
  });
}

/** @typedef {ReturnType<typeof githubClient>} GitHub */

/**
 * Who the token writes as: the login of GET /user, or, for an installation token such as
 * GITHUB_TOKEN (which that route refuses), github-actions[bot]. `override` names another
 * app's bot when a GitHub App's token is used.
 * @param {GitHub} github
 * @param {string | undefined} override
 */
export async function tokenLogin(github, override) {
  if (override) return override;
  try {
    const user = await github.request('GET', '/user');
    if (user && typeof user.login === 'string') return user.login;
  } catch (error) {
    if (!(error instanceof ApiError) || ![401, 403, 404].includes(error.status)) throw error;
  }
  return ACTIONS_BOT;
}

/**
 * Creates or updates the comment of an issue or pull request that starts with the same first
 * line (the marker) and was written by `author`; a comment of anyone else is never touched,
 * even with the same marker.
 * @param {GitHub} github
 * @param {{ repo: string, issue: number, body: string, author: string }} options
 * @returns {Promise<{ action: 'created' | 'updated' | 'unchanged', id: number, url: string }>}
 */
export async function upsertComment(github, { repo, issue, body, author }) {
  const marker = firstLine(body);
  const comments = await github.paginate(`/repos/${repo}/issues/${issue}/comments?per_page=100`);
  const ours = comments.find((comment) => comment?.user?.login === author && firstLine(comment.body) === marker);
  if (ours && ours.body === body) return { action: 'unchanged', id: ours.id, url: ours.html_url };
  if (ours) {
    const updated = await github.request('PATCH', `/repos/${repo}/issues/comments/${ours.id}`, { body });
    return { action: 'updated', id: updated.id, url: updated.html_url };
  }
  const created = await github.request('POST', `/repos/${repo}/issues/${issue}/comments`, { body });
  return { action: 'created', id: created.id, url: created.html_url };
}

/**
 * The pull request a push merged: the one whose merge commit is the pushed commit (merge,
 * squash and rebase merges alike).
 * @param {GitHub} github
 * @param {{ repo: string, sha: string }} options
 */
export async function mergedPullRequest(github, { repo, sha }) {
  const pulls = await github.request('GET', `/repos/${repo}/commits/${sha}/pulls?per_page=100`);
  return (Array.isArray(pulls) ? pulls : []).find((pull) => pull.merged_at && pull.merge_commit_sha === sha);
}

/**
 * The saved plan of a merged pull request, unzipped: the newest unexpired artifact of that name
 * made by the pull request's own run, a pull_request run of this repository at the pull
 * request's last commit, from its head branch. Any other artifact of the name (another commit's,
 * a push or workflow_dispatch run's, another branch's or a fork's) is never taken, however new:
 * any workflow run can upload an artifact under any name. When none is taken, `passedOver` says
 * why each was not.
 * @param {GitHub} github
 * A run at the parent of the last commit counts too when that commit is its image preview (the
 * job's token starts no run for the commit it pushes); its manifest must then say so (see
 * previewProblem).
 * @param {{ repo: string, name: string, pull: any }} options pull: as GET /repos/…/commits/{sha}/pulls answers it
 * @returns {Promise<{ files: Map<string, Buffer>, artifact: any, run: any } | { passedOver: string[] }>}
 */
export async function downloadPlanArtifact(github, { repo, name, pull }) {
  const previewed = await previewParent(github, repo, String(pull.head?.sha ?? ''));
  const artifacts = await github.paginate(
    `/repos/${repo}/actions/artifacts?name=${encodeURIComponent(name)}&per_page=100`,
    { items: (page) => page.artifacts ?? [], maxPages: 10 },
  );
  const named = artifacts
    .filter((artifact) => artifact.name === name)
    .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)) || b.id - a.id);
  const passedOver = [];
  for (const artifact of named) {
    const { run, problem } = await ownRun(github, repo, artifact, pull, previewed);
    if (problem) {
      passedOver.push(`artifact ${artifact.id}: ${problem}`);
      continue;
    }
    const zip = await github.download(`/repos/${repo}/actions/artifacts/${artifact.id}/zip`);
    return { files: readZip(zip), artifact, run };
  }
  return { passedOver };
}

/**
 * The run that made an artifact, or why it is not the pull request's own plan run. The
 * artifact's summary of its run is checked first; the run itself says which event started it.
 * The run's `pull_requests` is not asked: GitHub lists there only pull requests still open.
 * @param {GitHub} github
 * @param {string} repo
 * @param {any} artifact
 * @param {any} pull
 * @param {string | undefined} previewed the commit the last one previews images on, if it does
 * @returns {Promise<{ run?: any, problem?: string }>}
 */
async function ownRun(github, repo, artifact, pull, previewed) {
  const head = String(pull.head?.sha ?? '');
  const atCommit = (/** @type {unknown} */ sha) =>
    sha === head || (previewed !== undefined && sha === previewed)
      ? undefined
      : `made at commit ${String(sha).slice(0, 12)}, not at ${head.slice(0, 12)}, the last commit of #${pull.number}`;
  if (artifact.expired) return { problem: 'expired' };
  const made = artifact.workflow_run;
  if (!made?.id) return { problem: 'it names no workflow run' };
  const early = atCommit(made.head_sha);
  if (early) return { problem: early };
  const run = await github.request('GET', `/repos/${repo}/actions/runs/${made.id}`);
  if (run?.event !== 'pull_request')
    return { problem: `made by run ${made.id}, a ${JSON.stringify(run?.event)} run, not a pull_request run` };
  const late = atCommit(run.head_sha);
  if (late) return { problem: late };
  const baseRepo = pull.base?.repo?.id;
  const headRepo = pull.head?.repo?.id;
  if (baseRepo === undefined || run.repository?.id !== baseRepo)
    return { problem: `made by run ${made.id} of another repository than #${pull.number}'s` };
  if (headRepo === undefined)
    return {
      problem: `made by run ${made.id}, but the head repository of #${pull.number} is gone, so no run can be shown to be its own`,
    };
  if (run.head_repository?.id !== headRepo || run.head_branch !== pull.head?.ref) {
    const from = `${run.head_repository?.full_name ?? '?'}:${run.head_branch}`;
    const own = `${pull.head.repo.full_name ?? '?'}:${pull.head.ref}`;
    return {
      problem: `made by run ${made.id} of the branch ${JSON.stringify(from)}, not of #${pull.number}'s ${JSON.stringify(own)}`,
    };
  }
  return { run };
}

/** The subject of the commit an image preview pushes to a pull request's branch. */
export const PREVIEW_SUBJECT = 'audiences: preview images and images.lock.json';

/**
 * The parent of `sha` when `sha` is an image preview's commit (one parent, the preview's
 * subject), else undefined: the commit whose plan run pushed it. Its subject proves nothing;
 * the manifest of that run's artifact must name `sha` as the commit it pushed (previewProblem).
 * @param {GitHub} github
 * @param {string} repo
 * @param {string} sha
 */
async function previewParent(github, repo, sha) {
  try {
    const commit = await github.request('GET', `/repos/${repo}/commits/${sha}`);
    const parents = Array.isArray(commit?.parents) ? commit.parents : [];
    const subject = String(commit?.commit?.message ?? '').split('\n', 1)[0];
    return parents.length === 1 && subject === PREVIEW_SUBJECT ? String(parents[0].sha) : undefined;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/**
 * Why an artifact taken from a run at another commit than the pull request's last does not
 * hold its plan: its manifest must say that run pushed the last commit as its image preview.
 * @param {any} run the run that made the artifact
 * @param {Buffer | undefined} manifest
 * @param {any} pull
 */
export function previewProblem(run, manifest, pull) {
  if (run.head_sha === pull.head?.sha) return undefined;
  let data;
  try {
    data = JSON.parse(String(manifest));
  } catch {
    data = undefined;
  }
  if (data?.previewOf === run.head_sha && data?.headSha === pull.head?.sha) return undefined;
  return `it was made by run ${run.id} at commit ${String(run.head_sha).slice(0, 12)}, whose manifest does not say it pushed ${String(pull.head?.sha).slice(0, 12)}, the last commit of #${pull.number}, as its image preview.`;
}

/**
 * Opens, updates or closes the issue that reports drift, found by its first line (the marker)
 * among the open issues the token wrote.
 * @param {GitHub} github
 * @param {{ repo: string, author: string, marker: string, title: string, body: string | undefined, closing: string }} options
 *   body: the issue's text (starting with the marker), or undefined when there is no drift: the open issue is then
 *   closed with `closing`.
 * @returns {Promise<{ action: 'created' | 'updated' | 'unchanged' | 'closed' | 'none', url?: string }>}
 */
export async function upsertDriftIssue(github, { repo, author, marker, title, body, closing }) {
  const issues = await github.paginate(`/repos/${repo}/issues?state=open&per_page=100`, { maxPages: 20 });
  const open = issues.find(
    (issue) => !issue.pull_request && issue?.user?.login === author && firstLine(issue.body) === marker,
  );
  if (body === undefined) {
    if (!open) return { action: 'none' };
    await github.request('POST', `/repos/${repo}/issues/${open.number}/comments`, { body: closing });
    await github.request('PATCH', `/repos/${repo}/issues/${open.number}`, {
      state: 'closed',
      state_reason: 'completed',
    });
    return { action: 'closed', url: open.html_url };
  }
  if (open && open.body === body && open.title === title) return { action: 'unchanged', url: open.html_url };
  if (open) {
    await github.request('PATCH', `/repos/${repo}/issues/${open.number}`, { title, body });
    return { action: 'updated', url: open.html_url };
  }
  const created = await github.request('POST', `/repos/${repo}/issues`, { title, body });
  return { action: 'created', url: created.html_url };
}
