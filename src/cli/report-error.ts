import type { ConfigIssue } from '../config/issues.js';
import { isAppError } from '../errors.js';
import type { CommentContext, ErrorReport } from '../render/comment.js';
import type { Io } from './io.js';
// Not ./files.js: its imports (crypto) would load on every start, for an error path.
import { fileSystemError } from '../operations/file-errors.js';
import { visible } from '../model/index.js';
import { redact } from '../secrets.js';

/**
 * The one place errors become text: `error[CODE]: summary`, the detail, the hint. A stack
 * trace only with --debug. An error of the file system is the user's to fix (a path and why);
 * anything else that is not an AppError is a bug of ours and says so.
 */
export function renderError(thrown: unknown, debug: boolean): string {
  const lines: string[] = [];
  const error = isAppError(thrown) ? thrown : (fileSystemError(thrown) ?? thrown);
  if (isAppError(error)) {
    // The summary and detail may quote a service's message or a value of the file: made visible.
    lines.push(`error[${error.code}]: ${visible(error.summary)}`);
    if (error.detail) lines.push(...error.detail.split('\n').map((line) => `  ${visible(line)}`));
    if (error.hint) lines.push(`  hint: ${visible(error.hint)}`);
    if (error.source === 'internal')
      lines.push('  this is a bug in audiences; please report it with the output of --debug');
  } else {
    const message = error instanceof Error ? error.message : String(error);
    lines.push(`error[INTERNAL]: ${visible(message)}`);
    lines.push('  this is a bug in audiences; please report it with the output of --debug');
  }
  if (debug && thrown instanceof Error && thrown.stack) lines.push('', thrown.stack);
  return lines.join('\n') + '\n';
}

/**
 * A failed command as data, for `--format json` and `--format markdown`: the code, the summary,
 * the detail, the hint, and the problems of invalid files each at its place. Secrets masked.
 */
export function errorReport(thrown: unknown): ErrorReport {
  const error = isAppError(thrown) ? thrown : (fileSystemError(thrown) ?? thrown);
  if (!isAppError(error)) {
    return {
      code: 'INTERNAL',
      summary: redact(error instanceof Error ? error.message : String(error)),
      hint: 'this is a bug in audiences; please report it with the output of --debug',
    };
  }
  const issues = (error as { issues?: ConfigIssue[] }).issues;
  return {
    code: error.code,
    summary: redact(error.summary),
    ...(error.detail ? { detail: redact(error.detail) } : {}),
    ...(error.hint ? { hint: redact(error.hint) } : {}),
    ...(Array.isArray(issues)
      ? {
          problems: issues.map((issue) => ({
            file: issue.file,
            line: issue.line,
            column: issue.column,
            message: redact(issue.message),
            ...(issue.hint ? { hint: redact(issue.hint) } : {}),
          })),
        }
      : {}),
  };
}

/**
 * Runs a command whose output a pipeline reads: when it fails, the error also goes to stdout
 * in the requested format (a JSON object `{"error": …}`, or the pull-request comment saying
 * why), so the pipeline has something to post; then it fails as usual (stderr, exit 1).
 */
export async function withErrorOutput(
  format: 'text' | 'json' | 'markdown',
  context: CommentContext,
  io: Io,
  run: () => Promise<number>,
): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (format === 'json') io.stdout(`${JSON.stringify({ error: errorReport(error) }, null, 2)}\n`);
    if (format === 'markdown') {
      const { renderErrorComment } = await import('../render/comment.js');
      io.stdout(renderErrorComment(errorReport(error), context));
    }
    throw error;
  }
}
