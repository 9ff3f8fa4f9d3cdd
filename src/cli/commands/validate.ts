import { fileArgs, type CommandDefinition } from '../command.js';

/**
 * `audiences validate [-f FILE]…`: offline checks of the desired-state files. Problems go to
 * stderr as `FILE:LINE:COL: message` (and a hint line), a one-line verdict per file follows;
 * exit 0 when every file is valid, 1 otherwise.
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
    argv.positional('files', { type: 'string', array: true, describe: 'Desired-state files, as with -f' }).option('file', {
      alias: 'f',
      type: 'string',
      array: true,
      describe: 'A desired-state file (repeat for several; default: audiences.yaml)',
    }),
  run: async (args, io) => {
    const files = fileArgs(args, 'audiences validate -f audiences.yaml');
    const { validateFiles, formatIssues } = await import('../../operations/validate.js');
    const results = await validateFiles(files, { cwd: io.cwd });
    for (const result of results) {
      const lines = [...formatIssues(result.errors), ...formatIssues(result.warnings, 'warning')];
      if (lines.length > 0) io.stderr(lines.join('\n') + '\n');
      if (result.ok) {
        io.stdout(`${result.file}: ok (${result.audiences} ${result.audiences === 1 ? 'audience' : 'audiences'})\n`);
      } else {
        const count = result.errors.length;
        io.stderr(`${result.file}: invalid (${count} ${count === 1 ? 'problem' : 'problems'})\n`);
      }
    }
    return results.every((result) => result.ok) ? 0 : 1;
  },
};
