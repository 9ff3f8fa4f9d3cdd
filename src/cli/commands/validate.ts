import { fileArgs, type CommandDefinition } from '../command.js';
import type { Io } from '../io.js';
import { withErrorOutput } from '../report-error.js';
import type { ConfigIssue } from '../../config/issues.js';
import type { FileValidation } from '../../operations/validate.js';
import { visible } from '../../model/index.js';

/**
 * `audiences validate [-f FILE]…`: offline checks of the desired-state files. Problems go to
 * stderr as `FILE:LINE:COL: message` (and a hint line), a one-line verdict per file follows;
 * with `--format json`, stdout holds the results as data instead. Exit 0 when every file is
 * valid, 1 otherwise.
 */
export const validateCommand: CommandDefinition = {
  name: 'validate [files..]',
  describe: 'Check audiences files offline: YAML, the schema and the rules of the spec',
  examples: [
    ['$0 validate', 'check audiences.yaml'],
    ['$0 validate accounts/*.yaml', 'check several files'],
  ],
  environment: [],
  builder: (argv) =>
    argv
      .positional('files', { type: 'string', array: true, describe: 'Desired-state files, as with -f' })
      .option('file', {
        alias: 'f',
        type: 'string',
        array: true,
        describe: 'A desired-state file (repeat for several; default: audiences.yaml)',
      })
      .option('format', {
        requiresArg: true,
        choices: ['text', 'json'] as const,
        default: 'text' as const,
        describe: 'Output format (json: every problem as data)',
      }),
  run: async (args, io) => {
    const files = fileArgs(args, 'audiences validate -f audiences.yaml');
    const format = args['format'] as 'text' | 'json';
    return withErrorOutput(format, { files }, io, async () => {
      const { validateFiles, formatIssues } = await import('../../operations/validate.js');
      const results = await validateFiles(files, { cwd: io.cwd });
      if (format === 'json') io.stdout(`${JSON.stringify(results.map(asData), null, 2)}\n`);
      else printText(results, formatIssues, io);
      return results.every((result) => result.ok) ? 0 : 1;
    });
  },
};

/** One file's result as JSON data: whether it is valid, its audiences, and every problem at its place. */
function asData(result: FileValidation) {
  const problem = (issue: ConfigIssue) => ({
    line: issue.line,
    column: issue.column,
    pointer: issue.pointer,
    message: issue.message,
    ...(issue.hint ? { hint: issue.hint } : {}),
  });
  return {
    file: result.file,
    valid: result.ok,
    audiences: result.audiences,
    errors: result.errors.map(problem),
    warnings: result.warnings.map(problem),
  };
}

/** The problems on stderr, capped, and a verdict per file (its name made visible, as in the problems' lines). */
function printText(
  results: FileValidation[],
  formatIssues: (issues: ConfigIssue[], severity?: 'warning') => string[],
  io: Io,
): void {
  for (const result of results) {
    const lines = [...formatIssues(result.errors), ...formatIssues(result.warnings, 'warning')];
    if (lines.length > 0) io.stderr(lines.join('\n') + '\n');
    if (result.ok) {
      io.stdout(
        `${visible(result.file)}: ok (${result.audiences} ${result.audiences === 1 ? 'audience' : 'audiences'})\n`,
      );
    } else {
      const count = result.errors.length;
      io.stderr(`${visible(result.file)}: invalid (${count} ${count === 1 ? 'problem' : 'problems'})\n`);
    }
  }
}
