// The GitLab API as the pipeline scripts call it: the project's token (AUDIENCES_GITLAB_TOKEN)
// at the instance's API root (CI_API_V4_URL), and the project the pipeline runs for.
import { restClient } from './rest.mjs';

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
