import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { AppError } from '../errors.js';
import { isRecord } from '../config/rules.js';
import type { PreviewRun } from '../render/previews.js';

/** The notCommitted reasons a preview file may give, as the comment words them. */
const NOT_COMMITTED = ['fork', 'read-only', 'push-refused'] as const;

/**
 * What a pipeline's image preview did (`--preview FILE`), read and checked whole before the
 * comment shows any of it: its addresses go into the comment's HTML, so each must be an https
 * address or a path from the site's root with no character that ends an attribute or a cell.
 */
export async function readPreviewRun(file: string, cwd: string): Promise<PreviewRun> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw invalid(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw invalid(file, 'it is not JSON');
  }
  const problem = previewProblem(data);
  if (problem !== undefined) throw invalid(file, problem);
  const run = data as PreviewRun;
  return {
    requests: run.requests,
    commit: run.commit,
    ...(run.notCommitted === undefined ? {} : { notCommitted: run.notCommitted }),
    ...(run.artifact === undefined ? {} : { artifact: run.artifact }),
    urls: Object.fromEntries(Object.entries(run.urls)),
  };
}

/** What is wrong with a preview file's data, field by field; undefined when nothing is. */
export function previewProblem(data: unknown): string | undefined {
  if (!isRecord(data)) return 'it is not an object';
  const known = ['requests', 'commit', 'notCommitted', 'artifact', 'urls'];
  const unknown = Object.keys(data).find((key) => !known.includes(key));
  if (unknown !== undefined) return `it has a field ${JSON.stringify(unknown)} (known: ${known.join(', ')})`;
  const { requests, commit, notCommitted, artifact, urls } = data;
  if (!Number.isSafeInteger(requests) || (requests as number) < 0) return 'requests must be a whole number';
  if (commit !== null && (typeof commit !== 'string' || !/^[0-9a-f]{7,64}$/.test(commit)))
    return "commit must be a commit's hash or null";
  if (notCommitted !== undefined && !(NOT_COMMITTED as readonly unknown[]).includes(notCommitted))
    return `notCommitted must be one of ${NOT_COMMITTED.join(', ')}`;
  if (artifact !== undefined && (typeof artifact !== 'string' || /[\r\n]/.test(artifact)))
    return 'artifact must be text on one line';
  if (!isRecord(urls)) return 'urls must be an object of addresses by SHA-256';
  for (const [hash, url] of Object.entries(urls)) {
    if (!/^[0-9a-f]{64}$/.test(hash)) return `urls has a key ${JSON.stringify(hash)} that is not a SHA-256`;
    if (typeof url !== 'string' || !SAFE_URL.test(url))
      return `urls.${hash.slice(0, 12)}… must be an http(s) address or a path from the root, without spaces, quotes, <, > or |`;
  }
  return undefined;
}

/** An address that cannot end the attribute or the table cell it is written in, nor run script. */
const SAFE_URL = /^(?:https?:\/\/[^\s"'<>`|\\]+|\/(?!\/)[^\s"'<>`|\\]*)$/;

function invalid(file: string, problem: string): AppError {
  return new AppError({
    code: 'PREVIEW_INVALID',
    source: 'user',
    summary: `the image preview ${file} cannot be used: ${problem}`,
    hint: 'write it as docs/pipelines.md shows (a pipeline script writes it), or leave out --preview',
  });
}
