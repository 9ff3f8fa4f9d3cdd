#!/usr/bin/env node
// Posts the plan comment to the merge request of a GitLab merge-request pipeline, through the
// API: the note that starts with the same first line (the marker) and was written by the
// token's user is updated, any other note is left alone, and a new one is made the first time.
//
//   node node_modules/audiences/ci/gitlab-note.mjs plan.md [--exit-code N] [--files "a.yaml b.yaml"] [--plan
//   audiences.plan.json]
//
// plan.md is what `audiences plan --format markdown` wrote; when it is empty (the command
// failed before writing it), a note that says so and links the job is posted instead.
// --plan names the saved plan (`--out`): when the plan did not fail, the manifest the apply
// job checks is written beside it (audiences.plan.manifest.json: the merge request, its last
// commit and each file's SHA-256), for the job's artifacts.
// Needs AUDIENCES_GITLAB_TOKEN: a project access token with the api scope (Reporter role is
// enough to comment), as a masked variable that is NOT protected: merge-request pipelines of
// unprotected branches do not receive protected variables.
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gitlabClient, ownNote } from './lib/gitlab.mjs';
import { writeManifest } from './lib/saved-plan.mjs';
import { firstLine, parseFiles, planComment } from './lib/tool.mjs';

const env = process.env;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'exit-code': { type: 'string', default: '0' },
    files: { type: 'string', default: '' },
    plan: { type: 'string' },
  },
});

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`error: ${/** @type {Error} */ (error).message}`);
  process.exitCode = 1;
}

async function main() {
  const file = positionals[0];
  if (!file)
    throw new Error('usage: gitlab-note.mjs PLAN_MARKDOWN [--exit-code N] [--files FILES] [--plan SAVED_PLAN]');
  const iid = env.CI_MERGE_REQUEST_IID;
  if (!iid) {
    console.log('Not a merge-request pipeline (CI_MERGE_REQUEST_IID is not set): nothing to post.');
    return 0;
  }
  const code = Number(values['exit-code']);
  const files = parseFiles(values.files);
  if (values.plan && (code === 0 || code === 2) && (await stat(values.plan).catch(() => undefined))?.isFile()) {
    // In a merged-results pipeline CI_COMMIT_SHA is the merge GitLab made; the request's own last commit is the source
    // branch's.
    const headSha = env.CI_MERGE_REQUEST_SOURCE_BRANCH_SHA || env.CI_COMMIT_SHA || null;
    await writeManifest(
      dirname(resolve(values.plan)),
      { field: 'mergeRequest', number: Number(iid), named: `!${iid}`, headSha },
      { files, cwd: process.cwd() },
    );
  }
  const gitlab = gitlabClient(env, 'it posts the plan note');
  const stdout = await readFile(file, 'utf8').catch(() => '');
  const body = planComment({ stdout, stderr: '', code, files, commit: env.CI_COMMIT_SHA, logUrl: env.CI_JOB_URL });
  const project = encodeURIComponent(env.CI_MERGE_REQUEST_PROJECT_ID || env.CI_PROJECT_ID || '');
  const ours = await ownNote(gitlab, { project, iid, marker: firstLine(body) });
  const url = (/** @type {number} */ id) =>
    `${env.CI_MERGE_REQUEST_PROJECT_URL ?? env.CI_PROJECT_URL ?? ''}/-/merge_requests/${iid}#note_${id}`;
  if (ours && ours.body === body) {
    console.log(`The plan note is up to date: ${url(ours.id)}`);
  } else if (ours) {
    await gitlab.request('PUT', `/projects/${project}/merge_requests/${iid}/notes/${ours.id}`, { body });
    console.log(`Updated the plan note: ${url(ours.id)}`);
  } else {
    const created = await gitlab.request('POST', `/projects/${project}/merge_requests/${iid}/notes`, { body });
    console.log(`Posted the plan note: ${url(created.id)}`);
  }
  return 0;
}
