import { AppError } from '../errors.js';
import { visible, type DesiredState } from '../model/index.js';
import type { Path } from './positions.js';

/**
 * One problem of a file. `line` and `column` are 1-based and point at the offending key or
 * value; both are 0 for a problem of the whole file (it cannot be read, it is too large).
 * `pointer` is the JSON pointer of the offending value ('' for the whole document).
 */
export interface ConfigIssue {
  file: string;
  line: number;
  column: number;
  pointer: string;
  message: string;
  hint?: string;
}

export type ConfigResult =
  { ok: true; value: DesiredState; warnings: ConfigIssue[] } | { ok: false; issues: ConfigIssue[] };

/** A problem before it is given a position: where it is, and whether the key or the value is at fault. */
export interface Finding {
  path: Path;
  target: 'key' | 'value';
  message: string;
  hint?: string;
}

/** `FILE:LINE:COL: message` and, when there is one, `  hint: …` on the next line. */
export function formatIssue(issue: ConfigIssue, severity: 'error' | 'warning' = 'error'): string {
  // Messages quote the file's values: made visible, so that no value acts on the terminal.
  const where = visible(issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file);
  const text = `${where}: ${severity === 'warning' ? 'warning: ' : ''}${visible(issue.message)}`;
  return issue.hint === undefined ? text : `${text}\n  hint: ${visible(issue.hint)}`;
}

/** Past this many problems of one run, more lines help nobody: the rest are counted. */
export const SHOWN_ISSUES = 200;

/** Each issue formatted, at most SHOWN_ISSUES of them, then a line that counts the rest. */
export function formatIssues(issues: ConfigIssue[], severity: 'error' | 'warning' = 'error'): string[] {
  const lines = issues.slice(0, SHOWN_ISSUES).map((issue) => formatIssue(issue, severity));
  const more = issues.length - SHOWN_ISSUES;
  if (more > 0)
    lines.push(`… and ${more} more ${severity === 'error' ? 'problem' : 'warning'}${more === 1 ? '' : 's'}`);
  return lines;
}

/** Issues in reading order: by file as given, then line, then column. */
export function sortIssues(issues: ConfigIssue[]): ConfigIssue[] {
  const files = [...new Set(issues.map((issue) => issue.file))];
  return [...issues].sort(
    (a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.column - b.column,
  );
}

/** What the plan and apply commands throw for an invalid file: it carries every problem at once. */
export class ConfigError extends AppError {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    const files = [...new Set(issues.map((issue) => issue.file))];
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
    super({
      code: 'CONFIG_INVALID',
      summary: `${files.join(', ')} ${files.length === 1 ? 'is' : 'are'} not valid (${count})`,
      detail: formatIssues(sortIssues(issues)).join('\n'),
      hint: '`audiences validate` checks the files offline and shows the same problems',
      source: 'user',
    });
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
