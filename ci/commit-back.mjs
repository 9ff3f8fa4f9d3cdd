#!/usr/bin/env node
// Commits the images an apply generated and images.lock.json back to the branch, from a CI
// job (GitLab CI; the GitHub Action does the same itself):
//
//   node node_modules/audiences/ci/commit-back.mjs --check [FILES…]   before the apply: can the token push?
//   node node_modules/audiences/ci/commit-back.mjs [FILES…]           after it: commit and push what changed
//
// FILES are the desired-state files (default audiences.yaml); the paths committed are the lock
// beside each and the image files the apply wrote or removed, nothing else: a file a lock names
// that the tool did not write (the lock may be edited by hand) is never committed (see
// imagePaths in lib/commit-back.mjs). The push goes to the branch of the
// pipeline (CI_COMMIT_BRANCH) at AUDIENCES_PUSH_URL, or else at this project's URL with
// AUDIENCES_PUSH_TOKEN (a project access token with write_repository, allowed to push to the
// branch; it may stay protected, as the apply runs on the protected default branch), with the
// push option ci.skip so that the commit starts no pipeline.
import { parseArgs } from 'node:util';
import { changedPaths, checkPush, commitAndPush, imagePaths, PushDeniedError } from './lib/commit-back.mjs';
import { pushUrl } from './lib/gitlab.mjs';
import { declaresImages } from './lib/tool.mjs';

const env = process.env;
const cwd = process.cwd();
const { values, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { check: { type: 'boolean', default: false } },
});

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`error: ${/** @type {Error} */ (error).message}`);
  process.exitCode = 1;
}

async function main() {
  const branch = env.AUDIENCES_PUSH_BRANCH || env.CI_COMMIT_BRANCH;
  if (!branch)
    throw new Error(
      'no branch to push to: CI_COMMIT_BRANCH is not set (this runs in a branch pipeline, after the apply)',
    );
  if (!(await declaresImages(files, cwd))) {
    console.log('The files declare no images: nothing to commit back.');
    return 0;
  }
  const remote = pushUrl(env);
  if (values.check) {
    try {
      await checkPush({ cwd, remote, branch });
    } catch (error) {
      if (!(error instanceof PushDeniedError)) throw error;
      throw new Error(`${denied(branch)} Nothing was applied.\n${error.message}`);
    }
    console.log(`The token can push to ${branch}.`);
    return 0;
  }
  const changed = await changedPaths(await imagePaths(files, cwd), cwd);
  if (changed.length === 0) {
    console.log('No generated file changed: nothing to commit back.');
    return 0;
  }
  try {
    const pushed = await commitAndPush({
      cwd,
      paths: changed,
      remote,
      branch,
      message: `audiences: generated images and images.lock.json\n\nApplied by ${env.CI_PIPELINE_URL ?? 'a pipeline'} at ${env.CI_COMMIT_SHA ?? 'HEAD'}.`,
      pushOptions: env.GITLAB_CI ? ['ci.skip'] : [],
      author: {
        name: env.AUDIENCES_COMMIT_NAME || 'audiences',
        email: env.AUDIENCES_COMMIT_EMAIL || `audiences@${env.CI_SERVER_HOST ?? 'localhost'}`,
      },
    });
    console.log(`Committed and pushed ${changed.join(', ')} to ${branch}${pushed ? ` (${pushed.commit})` : ''}.`);
  } catch (error) {
    if (error instanceof PushDeniedError)
      throw new Error(`${denied(branch)} They are left in this job's workspace.\n${error.message}`);
    throw error;
  }
  return 0;
}

/** @param {string} branch */
function denied(branch) {
  return (
    `The token cannot push the generated images and images.lock.json to ${branch}, and without the lock their seeds are lost. ` +
    'Give AUDIENCES_PUSH_TOKEN the write_repository scope and a role allowed to push to the branch (Maintainer, or as the branch protection allows).'
  );
}
