#!/usr/bin/env node
// Posts the plan comment to the merge request of a GitLab merge-request pipeline, through the
// API: the note that starts with the same first line (the marker) and was written by the
// token's user is updated, any other note is left alone, and a new one is made the first time.
//
//   node node_modules/audiences/ci/gitlab-note.mjs plan.md [--exit-code N] [--files "a.yaml b.yaml"]
//
// plan.md is what `audiences plan --format markdown` wrote; when it is empty (the command
// failed before writing it), a note that says so and links the job is posted instead.
// Needs AUDIENCES_GITLAB_TOKEN: a project access token with the api scope (Reporter role is
// enough to comment), as a masked variable that is NOT protected: merge-request pipelines of
// unprotected branches do not receive protected variables.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { restClient } from './lib/rest.mjs';
import { firstLine, parseFiles, planComment } from './lib/tool.mjs';

const env = process.env;
const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'exit-code': { type: 'string', default: '0' }, files: { type: 'string', default: '' } } });

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`error: ${/** @type {Error} */ (error).message}`);
  process.exitCode = 1;
}

async function main() {
  const file = positionals[0];
  if (!file) throw new Error('usage: gitlab-note.mjs PLAN_MARKDOWN [--exit-code N] [--files FILES]');
  const iid = env.CI_MERGE_REQUEST_IID;
  if (!iid) {
    console.log('Not a merge-request pipeline (CI_MERGE_REQUEST_IID is not set): nothing to post.');
    return 0;
  }
  const token = env.AUDIENCES_GITLAB_TOKEN;
  if (!token) {
    throw new Error(
      'AUDIENCES_GITLAB_TOKEN is not set: add a project access token with the api scope as a masked CI/CD variable, and leave it unprotected, ' +
        'since merge-request pipelines of unprotected branches do not receive protected variables.',
    );
  }
  const stdout = await readFile(file, 'utf8').catch(() => '');
  const body = planComment({ stdout, stderr: '', code: Number(values['exit-code']), files: parseFiles(values.files), commit: env.CI_COMMIT_SHA, logUrl: env.CI_JOB_URL });
  const gitlab = restClient({ baseUrl: env.CI_API_V4_URL ?? 'https://gitlab.com/api/v4', headers: { 'private-token': token, accept: 'application/json' }, service: 'the GitLab API' });
  const project = encodeURIComponent(env.CI_MERGE_REQUEST_PROJECT_ID || env.CI_PROJECT_ID || '');
  const me = await gitlab.request('GET', '/user');
  const notes = await gitlab.paginate(`/projects/${project}/merge_requests/${iid}/notes?per_page=100&sort=asc&order_by=created_at`);
  const marker = firstLine(body);
  const ours = notes.find((note) => note?.author?.id === me.id && !note.system && firstLine(note.body) === marker);
  const url = (id) => `${env.CI_MERGE_REQUEST_PROJECT_URL ?? env.CI_PROJECT_URL ?? ''}/-/merge_requests/${iid}#note_${id}`;
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
