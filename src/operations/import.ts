import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isApiError } from '../api/api-error.js';
import { isNotFound, type AudienceClient } from '../api/audiences.js';
import { startInTurns } from '../api/in-turns.js';
import { AUDIENCES_SCHEMA_URL, renderDesiredFile, validateConfig, type ConfigIssue } from '../config/index.js';
import { AppError } from '../errors.js';
import { writeFileAtomically, writeTarget } from './files.js';
import { confirmGone } from './kinds/audience.js';
import { schemaReference } from './schema-reference.js';
import {
  compareLongs,
  nameMatcher,
  visible,
  type LiveAudience,
  type LiveAudienceSummary,
  type Long,
} from '../model/index.js';

export interface ImportRequest {
  adAccountId: number;
  /** Write here (refused if it exists, unless `force`); absent: return the text for stdout. */
  out: string | undefined;
  force: boolean;
  /** Only audiences whose name matches one of these globs. */
  names: string[];
}

export interface ImportResult {
  text: string;
  imported: number;
  /**
   * Audiences left out, and why: another audience has their name (a file's names are unique),
   * a file cannot hold their entry (a name with a control character, say), they were deleted
   * between the list and their read, or their read could not be used (an answer of another
   * shape, a 404 the account's list contradicts).
   */
  skipped: SkippedAudience[];
  /** Audiences imported whose answer holds fields a file cannot (see LiveAudience.unmodelled), and those fields. */
  unwritten: Array<{ audience: LiveAudienceSummary; fields: string[] }>;
}

export interface SkippedAudience {
  audience: LiveAudienceSummary;
  reason: string;
}

/**
 * Writes the live audiences of an account as a desired-state file that plans to no changes.
 * The text is checked with the same validation as any file before it is written.
 */
export async function importAccount(
  request: ImportRequest,
  client: AudienceClient,
  cwd: string,
): Promise<ImportResult> {
  const target = request.out === undefined ? undefined : resolve(cwd, request.out);
  const found =
    target === undefined
      ? 'absent'
      : await writeTarget(
          target,
          request.out ?? target,
          'choose another file with -o: import writes a new file, or replaces a file with --force',
        );
  if (found !== 'absent' && !request.force) {
    throw new AppError({
      code: 'FILE_EXISTS',
      source: 'user',
      summary: `${request.out} already exists`,
      hint: 'choose another file with -o, or pass --force to overwrite it',
    });
  }
  const matches = request.names.length > 0 ? nameMatcher(request.names) : () => true;
  const listed = (await client.list())
    .filter((summary) => matches(summary.name))
    .sort((a, b) => compareLongs(a.id, b.id));
  const { kept, skipped } = firstOfEachName(listed);
  // An answer in a shape the tool cannot use leaves out its audience, as in a plan, not the
  // import; so does an audience deleted between the list and its read, as a second list
  // confirms (see confirmGone): one the account still lists is unreadable, never called deleted.
  const notFound = new Set<Long>();
  const answers = await startInTurns(kept, async (summary) => {
    try {
      return await client.read(summary.id);
    } catch (error) {
      if (isNotFound(error)) {
        notFound.add(summary.id);
        return undefined;
      }
      if (!isApiError(error) || error.kind !== 'invalid-response') throw error;
      skipped.push({
        audience: summary,
        reason: `its answer cannot be read (${error.summary}); check that ADS_API_URL is the audience API itself`,
      });
      return undefined;
    }
  });
  if (notFound.size > 0) {
    const gone = new Set((await confirmGone(kept, notFound, client)).map((summary) => summary.id));
    for (const summary of kept.filter((candidate) => notFound.has(candidate.id))) {
      const reason = gone.has(summary.id)
        ? 'it was deleted while the account was read (listed, then not found when read)'
        : 'it cannot be read: the service answered 404 (not found) for it, yet the account still lists it';
      skipped.push({ audience: summary, reason });
    }
  }
  const read = answers
    .filter((audience): audience is LiveAudience => audience !== undefined)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const schemaRef = await schemaReference(target ? dirname(target) : cwd, fileURLToPath(AUDIENCES_SCHEMA_URL));
  const render = (audiences: LiveAudience[], left: SkippedAudience[]) => {
    const notes = left.map(({ audience, reason }) =>
      visible(`Not imported: ${JSON.stringify(audience.name)} (id ${audience.id}): ${reason}.`),
    );
    const text = renderDesiredFile({ adAccountId: request.adAccountId, audiences, schemaRef, notes });
    return { text, check: validateConfig(text, request.out ?? '(import)') };
  };
  // The service may hold what a file cannot (a name with a line break, say): such an audience
  // is left out with a note, like a repeated name, rather than failing the whole import.
  let audiences = read;
  let { text, check } = render(audiences, skipped);
  if (!check.ok) {
    const unfit = unfitEntries(check.issues);
    skipped.push(
      ...audiences.flatMap((audience, index) =>
        unfit.has(index)
          ? [
              {
                audience,
                reason: `a file cannot hold it (${unfit.get(index)}); rename it in the ad manager to manage it`,
              },
            ]
          : [],
      ),
    );
    audiences = audiences.filter((_, index) => !unfit.has(index));
    ({ text, check } = render(audiences, skipped));
  }
  if (!check.ok) {
    throw new AppError({
      code: 'IMPORT_INVALID',
      source: 'internal',
      summary: 'the imported file would not be valid',
      detail: check.issues.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`).join('\n'),
    });
  }
  if (target) await writeFileAtomically(target, text, request.out);
  const unwritten = audiences.flatMap((audience) =>
    Object.keys(audience.unmodelled).length === 0 ? [] : [{ audience, fields: Object.keys(audience.unmodelled) }],
  );
  return { text, imported: audiences.length, skipped, unwritten };
}

/** The audiences of a rendered file that have problems, by index: the first problem of each, without its place. */
function unfitEntries(issues: ConfigIssue[]): Map<number, string> {
  const unfit = new Map<number, string>();
  for (const issue of issues) {
    const index = /^\/audiences\/(\d+)(\/|$)/.exec(issue.pointer)?.[1];
    if (index !== undefined && !unfit.has(Number(index)))
      unfit.set(Number(index), issue.message.replace(/^audiences\[\d+\]\.?/, '').replace(/^: /, ''));
  }
  return unfit;
}

function firstOfEachName(summaries: LiveAudienceSummary[]): {
  kept: LiveAudienceSummary[];
  skipped: SkippedAudience[];
} {
  const seen = new Set<string>();
  const kept: LiveAudienceSummary[] = [];
  const skipped: SkippedAudience[] = [];
  for (const summary of summaries) {
    if (seen.has(summary.name))
      skipped.push({
        audience: summary,
        reason: 'another audience has its name; rename it in the ad manager to manage it',
      });
    else kept.push(summary);
    seen.add(summary.name);
  }
  return { kept, skipped };
}
