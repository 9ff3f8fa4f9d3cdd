// The plan a pull or merge request's plan job saves for the merge, and the manifest beside it:
// which request and commit it was made for, and the SHA-256 of each file planned. An apply
// takes a saved plan only when the manifest fits the merge it applies, so a plan of other files
// (the target branch changed them after the review) is never applied in their place.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashFiles } from './tool.mjs';

/** The files of the saved plan's artifact: the plan, and what it was made from. */
export const PLAN_FILE = 'audiences.plan.json';
export const MANIFEST_FILE = 'audiences.plan.manifest.json';

/**
 * @typedef {object} Request the pull or merge request a plan was made for
 * @property {'pullRequest' | 'mergeRequest'} field how the manifest names it
 * @property {number} number its number (GitLab's iid)
 * @property {string} named how messages name it: #7, !7
 * @property {string | null} headSha its last commit
 * @property {string} [previewOf] the commit the plan job ran at, when it pushed its image preview on it: headSha
 */

/**
 * Writes the manifest of a saved plan into its folder; with `refused`, the manifest of a plan
 * that failed, saved without a plan so that it replaces what an earlier run of the same commit
 * saved: the newest plan of a request is the one reviewed, even when it failed (a permission such
 * as a mass delete's, withdrawn since, must not let the earlier plan through).
 * @param {string} dir
 * @param {Request} request
 * @param {{ files: string[], cwd: string }} planned the files planned, relative to cwd
 * @param {string} [refused] why the plan failed
 */
export async function writeManifest(dir, request, { files, cwd }, refused) {
  const manifest = {
    formatVersion: 1,
    [request.field]: request.number,
    headSha: request.headSha,
    ...(request.previewOf === undefined ? {} : { previewOf: request.previewOf }),
    files: await hashFiles(files, cwd),
    ...(refused === undefined ? {} : { refused }),
  };
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Why a saved plan's manifest does not fit the merge, or undefined when it does: it names the
 * merged request and its last commit, and the files planned as they are merged.
 * @param {Buffer | string} text the manifest
 * @param {Request} request the request merged
 * @param {{ files: string[], cwd: string }} merged the files to plan, as the merge holds them
 * @returns {Promise<string | undefined>}
 */
export async function manifestProblem(text, request, { files, cwd }) {
  let manifest;
  try {
    manifest = JSON.parse(String(text));
  } catch {
    return `its ${MANIFEST_FILE} is not JSON: it was not written by this tool's plan job.`;
  }
  if (manifest?.formatVersion !== 1)
    return `its ${MANIFEST_FILE} is of format ${JSON.stringify(manifest?.formatVersion)}, which this apply does not read.`;
  if (manifest.refused !== undefined)
    return `the newest plan of ${request.named} failed (${String(manifest.refused)}), so no plan of it was reviewed as it is merged.`;
  if (manifest[request.field] !== request.number || manifest.headSha !== request.headSha) {
    const kind = request.field === 'pullRequest' ? 'pull request' : 'merge request';
    const made = `${kind} ${JSON.stringify(manifest[request.field])} at commit ${String(manifest.headSha).slice(0, 12)}`;
    return `its ${MANIFEST_FILE} says it was made for ${made}, not for ${request.named} at its last commit ${String(request.headSha).slice(0, 12)}.`;
  }
  const now = await hashFiles(files, cwd);
  const reviewed = /** @type {Array<{ path: string, sha256: string | null }>} */ (
    Array.isArray(manifest.files) ? manifest.files : []
  );
  const differs = now
    .filter((file) => reviewed.find((entry) => entry.path === file.path)?.sha256 !== file.sha256)
    .map((file) => file.path);
  if (differs.length === 0 && reviewed.length === now.length) return undefined;
  return (
    `${differs.join(', ') || 'the files planned'} as merged differ from what the plan of ${request.named} was made from ` +
    '(the target branch changed them after the review), so the reviewed plan is not what the branch holds.'
  );
}
