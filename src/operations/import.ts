import { access } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AudienceClient } from '../api/audiences.js';
import { startInTurns } from '../api/in-turns.js';
import { AUDIENCES_SCHEMA_URL, renderDesiredFile, validateConfig } from '../config/index.js';
import { AppError } from '../errors.js';
import { writeFileAtomically } from './files.js';
import { nameMatcher, type LiveAudience, type LiveAudienceSummary } from '../model/index.js';

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
  /** Audiences left out because another audience has their name (a file's names are unique). */
  skipped: LiveAudienceSummary[];
}

/**
 * Writes the live audiences of an account as a desired-state file that plans to no changes.
 * The text is checked with the same validation as any file before it is written.
 */
export async function importAccount(request: ImportRequest, client: AudienceClient, cwd: string): Promise<ImportResult> {
  const target = request.out === undefined ? undefined : resolve(cwd, request.out);
  if (target && !request.force && (await exists(target))) {
    throw new AppError({ code: 'FILE_EXISTS', source: 'user', summary: `${request.out} already exists`, hint: 'choose another file with -o, or pass --force to overwrite it' });
  }
  const matches = request.names.length > 0 ? nameMatcher(request.names) : () => true;
  const listed = (await client.list()).filter((summary) => matches(summary.name)).sort((a, b) => a.id - b.id);
  const { kept, skipped } = firstOfEachName(listed);
  const audiences: LiveAudience[] = await startInTurns(kept, (summary) => client.read(summary.id));
  audiences.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const schemaFile = fileURLToPath(AUDIENCES_SCHEMA_URL);
  const notes = skipped.map((summary) => `Not imported: "${summary.name}" (id ${summary.id}) has the name of another audience; rename it in the ad manager to manage it.`);
  const text = renderDesiredFile({ adAccountId: request.adAccountId, audiences, schemaRef: relative(target ? dirname(target) : cwd, schemaFile), notes });
  const check = validateConfig(text, request.out ?? '(import)');
  if (!check.ok) {
    throw new AppError({ code: 'IMPORT_INVALID', source: 'internal', summary: 'the imported file would not be valid', detail: check.issues.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`).join('\n') });
  }
  if (target) await writeFileAtomically(target, text, request.out);
  return { text, imported: audiences.length, skipped };
}

function firstOfEachName(summaries: LiveAudienceSummary[]): { kept: LiveAudienceSummary[]; skipped: LiveAudienceSummary[] } {
  const seen = new Set<string>();
  const kept: LiveAudienceSummary[] = [];
  const skipped: LiveAudienceSummary[] = [];
  for (const summary of summaries) {
    (seen.has(summary.name) ? skipped : kept).push(summary);
    seen.add(summary.name);
  }
  return { kept, skipped };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
