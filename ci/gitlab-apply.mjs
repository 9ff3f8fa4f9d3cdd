#!/usr/bin/env node
// The apply job of a GitLab pipeline on the default branch: the plan reviewed in the merge
// request this push merged, applied as it was saved, as the GitHub Action does:
//
//   node node_modules/audiences/ci/gitlab-apply.mjs [--files "a.yaml b.yaml"] [--plan audiences.plan.json]
//
// The reviewed plan is found through the API, each step checked: the merge request merged into
// this branch whose merge, squash or fast-forward commit is the pipeline's commit; its newest
// merge-request pipeline in this project, which must have run at the request's last commit;
// that pipeline's plan job (AUDIENCES_PLAN_JOB, default audiences-plan), which must have
// succeeded; in its artifacts the saved plan (--plan: the path the plan job wrote with `--out`)
// and the manifest beside it (written by gitlab-note.mjs --plan), which must name that merge
// request and commit and the files as merged. The plan is put where the plan job wrote it and
// applied (`audiences apply PLAN`, refused as stale when the account changed since). A step
// that fails applies nothing and says why, with the way out: AUDIENCES_APPLY_MODE=replan (a
// pipeline run by hand with that variable, or a project variable to make it the rule) plans
// the files again and applies them (`audiences apply --auto-approve`; with
// AUDIENCES_ALLOW_MASS_DELETE=true, `--allow-mass-delete` too).
// Needs AUDIENCES_GITLAB_TOKEN (the plan note's token: api scope, Reporter role) to read the
// merge request, its pipelines and the job's artifacts.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, posix, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gitlabClient } from './lib/gitlab.mjs';
import { ApiError } from './lib/rest.mjs';
import { MANIFEST_FILE, manifestProblem, PLAN_FILE } from './lib/saved-plan.mjs';
import { PREVIEW_FILE, reviewedImages } from './lib/preview.mjs';
import { parseFiles, runTool } from './lib/tool.mjs';

const env = process.env;
const cwd = process.cwd();
const { values } = parseArgs({
  options: { files: { type: 'string', default: '' }, plan: { type: 'string', default: PLAN_FILE } },
});
const files = parseFiles(values.files);
const branch = env.CI_COMMIT_BRANCH || 'the branch';

/** A refusal before anything was applied: the message says why. */
class Refusal extends Error {}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof Refusal) console.error(`error: ${error.message} Nothing was applied.\n${wayOut()}`);
  else if (error instanceof ApiError) console.error(`error: ${apiProblem(error)} Nothing was applied.\n${wayOut()}`);
  else console.error(`error: ${/** @type {Error} */ (error).message}`);
  process.exitCode = 1;
}

function wayOut() {
  return `To plan again and apply what ${branch} holds, run a pipeline for ${branch} by hand (Build > Pipelines > Run pipeline) with the variable AUDIENCES_APPLY_MODE=replan.`;
}

/** @param {ApiError} error */
function apiProblem(error) {
  if (![401, 403].includes(error.status)) return `${error.message}.`;
  return `${error.message}: AUDIENCES_GITLAB_TOKEN must read the project's merge requests, pipelines and job artifacts (a project access token with the api scope, Reporter role).`;
}

async function main() {
  const mode = env.AUDIENCES_APPLY_MODE || 'saved-plan';
  if (mode === 'replan') {
    console.log('AUDIENCES_APPLY_MODE=replan: the files are planned again and applied.');
    // AUDIENCES_ALLOW_MASS_DELETE=true, set for this run: a plan deleting more than the guard allows.
    const allow = env.AUDIENCES_ALLOW_MASS_DELETE === 'true' ? ['--allow-mass-delete'] : [];
    return (
      await runTool(['apply', '--auto-approve', ...files.flatMap((file) => ['-f', file]), ...allow], {
        cwd,
        echo: true,
      })
    ).code;
  }
  if (mode !== 'saved-plan') {
    throw new Error(
      `AUDIENCES_APPLY_MODE is ${JSON.stringify(mode)}: use saved-plan (apply the plan reviewed in the merge request; the default) or replan (plan the files again and apply them).`,
    );
  }
  const { plan, preview } = await reviewedPlan();
  const reviewed = reviewedImages(await readFile(resolve(cwd, plan), 'utf8'), preview, 'merge request');
  if (reviewed) console.log(reviewed);
  const run = await runTool(['apply', plan], { cwd, echo: true });
  if (run.code !== 0 && /\bPLAN_STALE\b/.test(run.stderr)) {
    console.error(
      `error: The account changed since the plan was reviewed, so the saved plan was refused as stale and nothing was applied.\n${wayOut()}`,
    );
  }
  return run.code;
}

/**
 * Finds the plan saved by the plan job of the merge request this push merged, checks each step
 * and the manifest, and puts the plan where that job wrote it.
 */
async function reviewedPlan() {
  const sha = env.CI_COMMIT_SHA ?? '';
  const project = String(env.CI_PROJECT_ID ?? '');
  const at = `/projects/${encodeURIComponent(project)}`;
  const gitlab = gitlabClient(
    env,
    'the apply reads the merge request this push merged, and its saved plan, through the API',
  );

  const requests = await gitlab.paginate(`${at}/repository/commits/${sha}/merge_requests?per_page=100`);
  const merged = requests.find(
    (request) =>
      request.state === 'merged' &&
      request.target_branch === env.CI_COMMIT_BRANCH &&
      String(request.target_project_id ?? request.project_id) === project &&
      [request.merge_commit_sha, request.squash_commit_sha, request.sha].includes(sha),
  );
  if (!merged)
    throw new Refusal(
      `Commit ${short(sha)} is not the merge of a merge request into ${branch}, so there is no reviewed plan to apply.`,
    );
  const named = `!${merged.iid}`;

  // A merge-request pipeline runs at the request's own ref (…/head; …/merge or …/train in
  // merged-results pipelines); a branch pipeline listed with them never runs the plan job.
  const ownRef = new RegExp(`^refs/merge-requests/${Number(merged.iid)}/(head|merge|train)$`);
  const pipelines = await gitlab.paginate(`${at}/merge_requests/${merged.iid}/pipelines?per_page=100`);
  const pipeline = pipelines
    .filter(
      (candidate) =>
        ownRef.test(String(candidate.ref)) &&
        (candidate.project_id === undefined || String(candidate.project_id) === project),
    )
    .sort((a, b) => b.id - a.id)[0];
  if (!pipeline)
    throw new Refusal(
      `${named} has no merge-request pipeline in this project, so no plan was saved for it (the plan job runs in merge-request pipelines).`,
    );
  if (String(pipeline.ref).endsWith('/head') && pipeline.sha !== merged.sha) {
    throw new Refusal(
      `The newest pipeline of ${named}, #${pipeline.id}, ran at commit ${short(pipeline.sha)}, not at ${short(merged.sha)}, its last commit: no plan of the commit merged was made.`,
    );
  }

  const jobName = env.AUDIENCES_PLAN_JOB || 'audiences-plan';
  const jobs = await gitlab.paginate(`${at}/pipelines/${pipeline.id}/jobs?per_page=100`);
  const job = jobs.filter((candidate) => candidate.name === jobName).sort((a, b) => b.id - a.id)[0];
  if (!job)
    throw new Refusal(
      `Pipeline #${pipeline.id}, the newest of ${named}, has no job ${JSON.stringify(jobName)} (AUDIENCES_PLAN_JOB names the plan job), so it saved no plan.`,
    );
  if (job.status !== 'success') {
    throw new Refusal(
      `The job ${jobName} (#${job.id}) of pipeline #${pipeline.id}, the newest of ${named}, is ${JSON.stringify(job.status)}, not "success": no plan of it was reviewed (the note says what happened).`,
    );
  }

  const planPath = posix.normalize(values.plan.split('\\').join('/'));
  const manifestPath = posix.join(posix.dirname(planPath), MANIFEST_FILE);
  const download = (/** @type {string} */ path) =>
    gitlab
      .download(`${at}/jobs/${job.id}/artifacts/${path.split('/').map(encodeURIComponent).join('/')}`)
      .catch((error) => {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      });
  const [planBytes, manifestBytes] = [await download(planPath), await download(manifestPath)];
  const previewBytes = await download(posix.join(posix.dirname(planPath), PREVIEW_FILE));
  if (!planBytes || !manifestBytes) {
    throw new Refusal(
      `The artifacts of the job ${jobName} (#${job.id}) of ${named} hold no ${planBytes ? manifestPath : planPath}: ` +
        'they expired, or the job does not keep it (its artifacts: paths), or the manifest was not written (gitlab-note.mjs --plan).',
    );
  }
  const problem = await manifestProblem(
    manifestBytes,
    { field: 'mergeRequest', number: Number(merged.iid), named, headSha: merged.sha },
    { files, cwd },
  );
  if (problem) throw new Refusal(`The saved plan of ${named} (job #${job.id}) is not applied: ${problem}`);
  const planFile = resolve(cwd, planPath);
  await mkdir(dirname(planFile), { recursive: true });
  await writeFile(planFile, planBytes);
  console.log(
    `Applying the plan reviewed in ${named} (its last commit ${merged.sha}, pipeline #${pipeline.id}, job #${job.id}).`,
  );
  return { plan: planPath, preview: previewBytes?.toString('utf8') };
}

/** @param {unknown} sha */
function short(sha) {
  return String(sha).slice(0, 12);
}
