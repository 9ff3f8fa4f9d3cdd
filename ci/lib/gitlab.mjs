// The GitLab API as the pipeline scripts call it: the project's token (AUDIENCES_GITLAB_TOKEN)
// at the instance's API root (CI_API_V4_URL), and the project the pipeline runs for.
import { restClient } from './rest.mjs';
import { firstLine } from './tool.mjs';

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {string} needed what the token is for, said when it is missing
 */
export function gitlabClient(env, needed) {
  const token = env.AUDIENCES_GITLAB_TOKEN;
  if (!token) {
    throw new Error(
      `AUDIENCES_GITLAB_TOKEN is not set: ${needed}. Add a project access token with the api scope (Reporter role) as a masked CI/CD variable, and leave it unprotected, ` +
        'since merge-request pipelines of unprotected branches do not receive protected variables.',
    );
  }
  return restClient({
    baseUrl: env.CI_API_V4_URL ?? 'https://gitlab.com/api/v4',
    headers: { 'private-token': token, accept: 'application/json' },
    service: 'the GitLab API',
  });
}

/** @typedef {ReturnType<typeof gitlabClient>} GitLab */

/**
 * The note of the merge request that starts with `marker` and was written by the token's user,
 * if there is one: ours to update; any other note is never touched.
 * @param {GitLab} gitlab
 * @param {{ project: string, iid: string, marker: string }} options project: its id, URL-encoded
 */
export async function ownNote(gitlab, { project, iid, marker }) {
  const me = await gitlab.request('GET', '/user');
  const notes = await gitlab.paginate(
    `/projects/${project}/merge_requests/${iid}/notes?per_page=100&sort=asc&order_by=created_at`,
  );
  return notes.find((note) => note?.author?.id === me.id && !note.system && firstLine(note.body) === marker);
}

/**
 * Where the scripts push generated files: AUDIENCES_PUSH_URL, or this project's URL with
 * AUDIENCES_PUSH_TOKEN (a project access token with write_repository).
 * @param {NodeJS.ProcessEnv} env
 */
export function pushUrl(env) {
  if (env.AUDIENCES_PUSH_URL) return env.AUDIENCES_PUSH_URL;
  const token = env.AUDIENCES_PUSH_TOKEN;
  if (!token) {
    throw new Error(
      'AUDIENCES_PUSH_TOKEN is not set: the generated images and images.lock.json must be pushed back, and the job token cannot push. ' +
        'Add a project access token with the write_repository scope, allowed to push to the branch, as a masked CI/CD variable.',
    );
  }
  const port = env.CI_SERVER_PORT && !['80', '443'].includes(env.CI_SERVER_PORT) ? `:${env.CI_SERVER_PORT}` : '';
  return `${env.CI_SERVER_PROTOCOL ?? 'https'}://oauth2:${encodeURIComponent(token)}@${env.CI_SERVER_HOST}${port}/${env.CI_PROJECT_PATH}.git`;
}
