#!/usr/bin/env node
// The GitHub Action's logic (action.yml runs it as `node ci/github-action.mjs COMMAND`):
//   plan   on a pull request: the plan as one comment (created, then updated; the error when
//          it fails), compared with the files at the pull request's base (`--base`: the
//          changes made outside the tool labelled, the base's mass-delete guard kept), and the
//          saved plan with a manifest of the files it planned, for upload;
//   apply  on a push: the saved plan of the merged pull request applied as it was reviewed
//          (apply-mode saved-plan), or the files planned again and applied (replan); then the
//          generated images and images.lock.json committed back to the branch;
//   drift  on a schedule: a plan that fails the job (and opens an issue) when the account no
//          longer matches the files.
// Inputs come as INPUT_* variables (action.yml maps them), the rest from the runner's GITHUB_*.
import { appendFileSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { changedPaths, checkPush, commitAndPush, git, imagePaths, PushDeniedError } from './lib/commit-back.mjs';
import {
  ACTIONS_BOT,
  downloadPlanArtifact,
  githubClient,
  mergedPullRequest,
  PREVIEW_SUBJECT,
  previewProblem,
  tokenLogin,
  upsertComment,
  upsertDriftIssue,
} from './lib/github.mjs';
import { ApiError } from './lib/rest.mjs';
import { MANIFEST_FILE, manifestProblem, PLAN_FILE, writeManifest } from './lib/saved-plan.mjs';
import { commentMarker, declaresImages, parseFiles, planComment, runTool } from './lib/tool.mjs';
import {
  changedImageFiles,
  previewOnBranch,
  PREVIEW_FILE,
  previewWanted,
  reviewedImages,
  writePreview,
} from './lib/preview.mjs';

/** A failure of the step, said in words that tell what to do. */
class StepError extends Error {}

const env = process.env;
const cwd = process.cwd();
const files = parseFiles(env.INPUT_FILES);
const repo = env.GITHUB_REPOSITORY ?? '';
const runUrl = `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${repo}/actions/runs/${env.GITHUB_RUN_ID ?? ''}`;
const temp = env.RUNNER_TEMP || cwd;
/** The author of the commits the Action pushes: GitHub's own Actions bot. */
const BOT_AUTHOR = { name: ACTIONS_BOT, email: '41898282+github-actions[bot]@users.noreply.github.com' };

const commands = { plan, apply, drift };
const command = process.argv[2] ?? env.INPUT_COMMAND ?? '';

try {
  if (!Object.hasOwn(commands, command))
    throw new StepError(`unknown command "${command}": the Action's command input is plan, apply or drift`);
  await commands[/** @type {'plan' | 'apply' | 'drift'} */ (command)]();
} catch (error) {
  fail(
    error instanceof StepError || error instanceof ApiError
      ? error.message
      : (/** @type {Error} */ (error).stack ?? String(error)),
  );
}

/** The plan of a pull request, as its comment and as the saved plan for the merge. */
async function plan() {
  const event = await readEvent();
  const pull = event.pull_request;
  const planDir = join(temp, 'audiences-plan');
  await rm(planDir, { recursive: true, force: true });
  await mkdir(planDir, { recursive: true });
  const planFile = join(planDir, PLAN_FILE);

  const base = pull?.base?.sha;
  if (base) await fetchCommit(base);
  // The preview first: the plan is then made of the branch as it holds the images, so the merge generates none.
  const preview =
    pull && (await previewWanted(env.INPUT_PREVIEW_IMAGES, files, cwd)) ? await previewImages(pull) : undefined;
  const commit = preview?.commit ?? pull?.head?.sha ?? env.GITHUB_SHA;
  const previewFile = preview && (await previewData(planDir, preview, { commit, base }));
  const args = [
    'plan',
    ...files,
    '--format',
    'markdown',
    '--detailed-exitcode',
    '--out',
    planFile,
    ...(commit ? ['--commit', commit] : []),
    ...(base ? ['--base', base] : []),
    ...(previewFile ? ['--preview', previewFile] : []),
    ...allowMassDelete(),
  ];
  const run = await runTool(args, { cwd });
  const body = planComment({ ...run, files, commit, logUrl: runUrl });
  await summary(body);
  output('exitcode', run.code);
  output('changes', run.code === 2);

  /** @type {string | undefined} */
  let commentProblem;
  if (pull) {
    try {
      const github = client();
      const result = await upsertComment(github, {
        repo,
        issue: pull.number,
        body,
        author: await tokenLogin(github, env.INPUT_COMMENT_AUTHOR),
      });
      output('comment-url', result.url ?? '');
      console.log(`The plan comment of #${pull.number}: ${result.action} (${result.url ?? result.id}).`);
    } catch (error) {
      commentProblem = apiProblem(error, 'comment on the pull request', 'pull-requests: write');
    }
  } else {
    console.log(`Not a pull request (${env.GITHUB_EVENT_NAME}): the plan is in the job summary only.`);
  }

  if (pull) {
    const request = /** @type {const} */ ({
      field: 'pullRequest',
      number: pull.number,
      named: `#${pull.number}`,
      headSha: commit ?? null,
      ...(preview?.commit ? { previewOf: pull.head?.sha } : {}),
    });
    const saved = (run.code === 0 || run.code === 2) && (await exists(planFile));
    if (!saved) await rm(planFile, { force: true });
    await writeManifest(
      planDir,
      request,
      { files, cwd },
      saved ? undefined : `exit code ${run.code}: the error is in the pull request's comment`,
    );
    output('plan-dir', planDir);
  }
  if (run.code !== 0 && run.code !== 2) {
    if (commentProblem) warn(commentProblem);
    throw new StepError(
      `The plan failed (exit code ${run.code}): the error is in the ${commentProblem ? "job's summary" : "pull request's comment"} and in the output above.`,
    );
  }
  if (commentProblem) throw new StepError(commentProblem);
}

/**
 * The image preview of a pull request: the images its files need generated in the checkout of
 * its last commit and, when any file changed, committed with images.lock.json and pushed to
 * its branch. Where that cannot be (a fork, a token that may not push, a refused push), the
 * files go to the artifact step's folder and the checkout is put back as it was, so that the
 * plan shows them still to generate, as the merge will.
 * @param {any} pull the event's pull request
 * @returns {Promise<{ requests: number, commit: string | null, notCommitted?: string, artifact?: string } | undefined>}
 */
async function previewImages(pull) {
  const head = String(pull.head?.sha ?? '');
  const at = (await git(['rev-parse', 'HEAD'], { cwd })).stdout.trim();
  if (at !== head || !pull.head?.ref) {
    warn(
      `No image preview: the checkout is ${at.slice(0, 12)}, not the pull request's last commit ${head.slice(0, 12)}, on which the images would be committed. ` +
        'Check it out with actions/checkout `ref: ${{ github.event.pull_request.head.sha }}` (see examples/github-actions/audiences-plan.yml), or set preview-images: false.',
    );
    return undefined;
  }
  const artifact = `audiences-previews-${pull.number}`;
  const keepDir = join(temp, 'audiences-previews');
  // A fork deleted since has no head repository: still a fork, whose branch's name may be one of this repository's.
  const fork = pull.head?.repo?.id === undefined || pull.head.repo.id !== pull.base?.repo?.id;
  const result = await previewOnBranch({
    files,
    cwd,
    at,
    keepDir,
    artifact,
    push: {
      fork: fork ? String(pull.head.repo?.full_name ?? 'deleted since') : undefined,
      remote: env.AUDIENCES_GIT_REMOTE || 'origin',
      noRemote: '',
      branch: String(pull.head.ref),
      message: `${PREVIEW_SUBJECT}\n\nGenerated by ${runUrl} for #${pull.number} at ${head}.`,
      author: BOT_AUTHOR,
    },
  });
  if (!result) warn('The image preview failed before generating anything: the plan shows what the merge generates.');
  else if (result.notCommitted) {
    output('preview-dir', keepDir);
    warn(
      `The preview images are not committed to the branch: ${result.why}. They are kept in the artifact ${artifact}; the merge generates them.`,
    );
  } else if (result.commit)
    console.log(`The image preview: committed and pushed to ${pull.head.ref} (${result.commit}).`);
  else console.log('The image preview generated nothing: the branch holds every image as its lock records it.');
  return (
    result && {
      requests: result.requests,
      commit: result.commit,
      ...(result.notCommitted ? { notCommitted: result.notCommitted, artifact } : {}),
    }
  );
}

/**
 * The comment's preview data: what the preview did, and the address of each image file the
 * change adds, changes or removes, at the commit that holds it (GitHub shows a file of the
 * repository at `blob/<commit>/<path>?raw=true`, in the comment and in Files changed).
 * @param {string} dir
 * @param {{ requests: number, commit: string | null, notCommitted?: string, artifact?: string }} preview
 * @param {{ commit: string | undefined, base: string | undefined }} at
 */
async function previewData(dir, preview, { commit, base }) {
  const prefix = (await git(['rev-parse', '--show-prefix'], { cwd })).stdout.trim();
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
  /** @type {Record<string, string>} */
  const urls = {};
  for (const file of await changedImageFiles({ files, cwd, base })) {
    const sha = file.side === 'head' ? commit : base;
    if (!sha) continue;
    const path = `${prefix}${file.path}`.split('/').map(encodeURIComponent).join('/');
    urls[file.sha256] = `${server}/${repo}/blob/${sha}/${path}?raw=true`;
  }
  return writePreview(join(dir, PREVIEW_FILE), { ...preview, urls });
}

/** The apply after a merge: the reviewed plan, or a new one; then the generated files committed back. */
async function apply() {
  const mode = env.INPUT_APPLY_MODE || 'saved-plan';
  if (mode !== 'saved-plan' && mode !== 'replan')
    throw new StepError(
      `apply-mode is "${mode}": use saved-plan (apply the plan reviewed in the pull request) or replan (plan again and apply)`,
    );
  const commitBack = (env.INPUT_COMMIT_BACK || 'true') !== 'false';
  const remote = env.AUDIENCES_GIT_REMOTE || 'origin';
  const branch = env.GITHUB_REF_NAME ?? '';

  /** @type {string[]} */
  let args;
  /** @type {boolean} */
  let writesImages;
  if (mode === 'saved-plan') {
    const { planFile, previewFile } = await reviewedPlan();
    args = ['apply', planFile];
    const shown = await runTool(
      ['show', planFile, '--format', 'markdown', ...(previewFile ? ['--preview', previewFile] : [])],
      { cwd },
    );
    if (shown.code === 0) await summary(`### The plan reviewed, applied now\n\n${shown.stdout}`);
    const planText = await readFile(planFile, 'utf8');
    writesImages = planTouchesImages(planText);
    const reviewed = reviewedImages(planText, previewFile && (await readFile(previewFile, 'utf8')), 'pull request');
    if (reviewed) {
      console.log(reviewed);
      await summary(reviewed);
    }
  } else {
    args = ['apply', '--auto-approve', ...files.flatMap((file) => ['-f', file]), ...allowMassDelete()];
    writesImages = await declaresImages(files, cwd);
  }

  if (commitBack && writesImages) {
    try {
      await checkPush({ cwd, remote, branch });
    } catch (error) {
      if (!(error instanceof PushDeniedError)) throw error;
      throw new StepError(
        `Nothing was applied: this apply may generate images, and the token cannot push them and images.lock.json to ${branch}, so their seeds would be lost. ` +
          'Give the job `permissions: contents: write` (and, for a protected branch, let GitHub Actions push to it), or set commit-back: false and keep the files yourself.\n' +
          error.message,
      );
    }
  }

  const run = await runTool(args, { cwd });
  output('exitcode', run.code);
  // What was generated is kept even when the apply failed halfway: the lock holds its seeds.
  const changed = await changedPaths(await imagePaths(files, cwd), cwd);
  /** @type {string | undefined} */
  let keepProblem;
  if (changed.length > 0 && commitBack) {
    try {
      const pushed = await commitAndPush({
        cwd,
        paths: changed,
        remote,
        branch,
        message: `audiences: generated images and images.lock.json\n\nApplied by ${runUrl} at ${env.GITHUB_SHA ?? 'HEAD'}.`,
        author: BOT_AUTHOR,
      });
      if (pushed) {
        output('commit', pushed.commit);
        console.log(`Committed and pushed ${changed.join(', ')} to ${branch} (${pushed.commit}).`);
      }
    } catch (error) {
      await keepGenerated(changed);
      keepProblem =
        error instanceof PushDeniedError
          ? `The generated images and images.lock.json could not be pushed to ${branch}: give the job \`permissions: contents: write\`. They are kept in this run's artifact audiences-generated-…; commit them by hand.\n${error.message}`
          : `The generated images and images.lock.json could not be committed back: ${/** @type {Error} */ (error).message}. They are kept in this run's artifact audiences-generated-….`;
    }
  } else if (changed.length > 0) {
    await keepGenerated(changed);
    warn(
      `commit-back is off: ${changed.join(', ')} changed and are not committed. They are kept in this run's artifact audiences-generated-…: commit them, or the next plan generates them again.`,
    );
  }

  if (run.code !== 0) {
    if (/\bPLAN_STALE\b/.test(run.stderr)) {
      throw new StepError(
        'The account changed since the plan was reviewed, so the saved plan was refused as stale and nothing was applied. ' +
          'To apply what the branch holds now, run this workflow by hand (Run workflow), which plans again and applies, or set apply-mode: replan.',
      );
    }
    throw new StepError(
      `The apply failed (exit code ${run.code}): what was done and what was not is in the output above; running it again finishes the job.`,
    );
  }
  if (keepProblem) throw new StepError(keepProblem);
}

/** The scheduled check: a plan with no changes, or the job fails (and the issue says why). */
async function drift() {
  const commit = env.GITHUB_SHA;
  const run = await runTool(
    ['plan', ...files, '--format', 'markdown', '--detailed-exitcode', ...(commit ? ['--commit', commit] : [])],
    { cwd },
  );
  const body = planComment({ ...run, files, commit, logUrl: runUrl });
  await summary(body);
  output('exitcode', run.code);
  output('drift', run.code === 2);
  const named = files.length === 0 ? 'audiences.yaml' : files.join(', ');

  if ((env.INPUT_DRIFT_ISSUE || 'false') === 'true') {
    const github = client();
    const marker = commentMarker(files).replace('<!-- audiences-plan ', '<!-- audiences-drift ');
    try {
      const result = await upsertDriftIssue(github, {
        repo,
        author: await tokenLogin(github, env.INPUT_COMMENT_AUTHOR),
        marker,
        title:
          run.code === 2
            ? `audiences: the ad account no longer matches ${named}`
            : `audiences: the drift check of ${named} fails`,
        body:
          run.code === 0
            ? undefined
            : `${marker}\nThe scheduled check of [this run](${runUrl}) at commit ${commit ?? 'HEAD'} found:\n\n${body}`,
        closing: `The account matches ${named} again: checked by [this run](${runUrl}) at commit ${commit ?? 'HEAD'}.`,
      });
      if (result.action !== 'none') console.log(`The drift issue: ${result.action} (${result.url}).`);
    } catch (error) {
      throw new StepError(apiProblem(error, 'open or update the drift issue', 'issues: write'));
    }
  }
  if (run.code === 2 && (env.INPUT_FAIL_ON_DRIFT || 'true') !== 'false') {
    throw new StepError(
      `The ad account no longer matches ${named}: the plan above shows what apply would change. Apply the files again (run the apply workflow by hand), or change them to match the account.`,
    );
  }
  if (run.code !== 0 && run.code !== 2)
    throw new StepError(`The drift check failed (exit code ${run.code}): the error is in the output above.`);
}

/**
 * Downloads the plan saved by the plan run of the pull request this push merged (its own run at
 * its last commit, never another artifact of the same name), checks that its manifest fits the
 * merge, and returns where it is.
 */
async function reviewedPlan() {
  const sha = env.GITHUB_SHA ?? '';
  const wayOut = 'Run this workflow by hand (Run workflow) to plan again and apply, or set apply-mode: replan.';
  const github = client();
  const pull = await mergedPullRequest(github, { repo, sha }).catch((error) => {
    throw new StepError(apiProblem(error, 'find the pull request merged by this push', 'pull-requests: read'));
  });
  if (!pull)
    throw new StepError(
      `Commit ${sha.slice(0, 12)} is not the merge of a pull request, so there is no reviewed plan to apply. ${wayOut}`,
    );
  const name = `${env.INPUT_ARTIFACT_NAME || 'audiences-plan'}-${pull.number}`;
  const download = await downloadPlanArtifact(github, { repo, name, pull }).catch((error) => {
    throw new StepError(apiProblem(error, `download the saved plan of #${pull.number}`, 'actions: read'));
  });
  if ('passedOver' in download) {
    if (download.passedOver.length === 0) {
      throw new StepError(
        `No saved plan of pull request #${pull.number} (no artifact ${name}): its plan job did not run or did not finish, or the artifact was deleted. ${wayOut}`,
      );
    }
    throw new StepError(
      `No saved plan of pull request #${pull.number} can be applied: no artifact ${name} was made by its own plan run ` +
        `(a pull_request run of ${repo} at its last commit ${String(pull.head?.sha).slice(0, 12)}, from its branch), so none holds the plan reviewed.\n` +
        `${download.passedOver.map((line) => `- ${line}`).join('\n')}\n${wayOut}`,
    );
  }
  const planBytes = download.files.get(PLAN_FILE);
  const manifestBytes = download.files.get(MANIFEST_FILE);
  const unproved = previewProblem(download.run, manifestBytes, pull);
  if (unproved)
    throw new StepError(
      `The saved plan of #${pull.number} (artifact ${download.artifact.id}) is not applied: ${unproved} ${wayOut}`,
    );
  const notSaved = `The artifact ${name} holds no ${PLAN_FILE} and ${MANIFEST_FILE}: it was not saved by this Action's plan. ${wayOut}`;
  if (!manifestBytes) throw new StepError(notSaved);
  const request = /** @type {const} */ ({
    field: 'pullRequest',
    number: pull.number,
    named: `#${pull.number}`,
    headSha: pull.head.sha,
  });
  // First: the manifest of a plan that failed holds no plan, and says why none applies.
  const problem = await manifestProblem(manifestBytes, request, { files, cwd });
  if (problem)
    throw new StepError(
      `The saved plan of #${pull.number} (artifact ${download.artifact.id}) is not applied: ${problem} ${wayOut}`,
    );
  if (!planBytes) throw new StepError(notSaved);
  const dir = join(temp, 'audiences-reviewed');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const planFile = join(dir, PLAN_FILE);
  await writeFile(planFile, planBytes);
  const previewBytes = download.files.get(PREVIEW_FILE);
  const previewFile = previewBytes ? join(dir, PREVIEW_FILE) : undefined;
  if (previewFile && previewBytes) await writeFile(previewFile, previewBytes);
  console.log(
    `Applying the plan reviewed in #${pull.number} (commit ${pull.head.sha}, artifact ${download.artifact.id} of run ${download.run.id}).`,
  );
  return { planFile, previewFile };
}

/** `--allow-mass-delete` when the allow-mass-delete input is true: for this run only. */
function allowMassDelete() {
  return (env.INPUT_ALLOW_MASS_DELETE || 'false') === 'true' ? ['--allow-mass-delete'] : [];
}

/**
 * Makes sure the checkout holds `sha` (the pull request's base, which `plan --base` reads the
 * files at): a shallow checkout (actions/checkout's default, fetch-depth: 1) does not, so it is
 * fetched alone, with the credentials the checkout kept. When that fails, the plan says so
 * (BASE_REF_NOT_FOUND): a plan without its base would lose the base's mass-delete guard.
 * @param {string} sha
 */
async function fetchCommit(sha) {
  if ((await git(['cat-file', '-e', `${sha}^{commit}`], { cwd })).code === 0) return;
  const shallow = (await git(['rev-parse', '--is-shallow-repository'], { cwd })).stdout.trim() === 'true';
  const fetched = await git(
    ['fetch', '--quiet', '--no-tags', ...(shallow ? ['--depth=1'] : []), env.AUDIENCES_GIT_REMOTE || 'origin', sha],
    { cwd },
  );
  if (fetched.code === 0) console.log(`Fetched the pull request's base ${sha}, which the checkout did not hold.`);
  else
    warn(
      `Could not fetch the pull request's base ${sha} (check out with fetch-depth: 0 to hold it): ${fetched.stderr.trim()}`,
    );
}

/** @param {string} text a saved plan: one plan or an array of them */
function planTouchesImages(text) {
  const data = JSON.parse(text);
  return (Array.isArray(data) ? data : [data]).some((plan) =>
    (plan.changes ?? []).some((/** @type {any} */ change) => change.kind === 'image'),
  );
}

/**
 * Copies the generated files into a folder the next step uploads, when they cannot be committed.
 * @param {string[]} paths
 */
async function keepGenerated(paths) {
  const dir = join(temp, 'audiences-generated');
  for (const path of paths) {
    if (!(await exists(resolve(cwd, path)))) continue;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await copyFile(resolve(cwd, path), join(dir, path));
  }
  output('generated-dir', dir);
}

function client() {
  const token = env.INPUT_GITHUB_TOKEN || env.GITHUB_TOKEN;
  if (!token)
    throw new StepError(
      'No GitHub token: the Action\'s github-token input is empty (its default is the job\'s GITHUB_TOKEN, "${{ github.token }}").',
    );
  return githubClient({ apiUrl: env.GITHUB_API_URL || 'https://api.github.com', token });
}

/**
 * @param {unknown} error
 * @param {string} what
 * @param {string} permission
 */
function apiProblem(error, what, permission) {
  const message = /** @type {Error} */ (error).message;
  if (error instanceof ApiError && (error.status === 403 || error.status === 404 || error.status === 401)) {
    return `The token cannot ${what}: give the job \`permissions: ${permission}\` (a pull request from a fork gets a read-only token and no secrets).\n${message}`;
  }
  return `Could not ${what}: ${message}`;
}

async function readEvent() {
  if (!env.GITHUB_EVENT_PATH) return {};
  return JSON.parse(await readFile(env.GITHUB_EVENT_PATH, 'utf8'));
}

/** @param {string} path */
async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * @param {string} name
 * @param {string | number | boolean} value
 */
function output(name, value) {
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, `${name}=${String(value).replace(/[\r\n]+/g, ' ')}\n`);
}

/** @param {string} markdown */
async function summary(markdown) {
  if (env.GITHUB_STEP_SUMMARY) await appendFile(env.GITHUB_STEP_SUMMARY, `${markdown.trimEnd()}\n`);
}

/** @param {string} message */
function warn(message) {
  console.log(`::warning::${escapeCommand(message)}`);
}

/** @param {string} message */
function fail(message) {
  console.log(`::error::${escapeCommand(message)}`);
  process.exitCode = 1;
}

/** @param {string} text */
function escapeCommand(text) {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
