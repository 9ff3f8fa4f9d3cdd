import { isAppError } from '../errors.js';
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
    if (error.source === 'internal') lines.push('  this is a bug in audiences; please report it with the output of --debug');
  } else {
    const message = error instanceof Error ? error.message : String(error);
    lines.push(`error[INTERNAL]: ${visible(message)}`);
    lines.push('  this is a bug in audiences; please report it with the output of --debug');
  }
  if (debug && thrown instanceof Error && thrown.stack) lines.push('', thrown.stack);
  return redact(lines.join('\n')) + '\n';
}
