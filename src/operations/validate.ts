import { ConfigError, locateInFile, namedFiles, readDesiredStates, type ConfigIssue } from '../config/index.js';
import type { DesiredState } from '../model/index.js';
import { accountFileClashes, unnamedAccountFiles, type AccountFile } from './account-files.js';

export { formatIssues } from '../config/index.js';

/** The answer for one file: its problems, or how many audiences it declares. */
export interface FileValidation {
  file: string;
  ok: boolean;
  audiences: number;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
  /** The desired state, when the file is valid. */
  desired?: DesiredState;
}

/**
 * `audiences validate`: checks each file offline (the default file when none is named), then the files that declare
 * the same ad account together (see accountFileClashes): a problem between two files is the later file's, and names
 * the other with its line and column. Each account's files must all be given, and name each other (see
 * unnamedAccountFiles).
 */
export async function validateFiles(files: string[], deps: { cwd: string }): Promise<FileValidation[]> {
  const results = await readDesiredStates(namedFiles(files, deps.cwd), deps.cwd);
  const accounts = new Map<number, AccountFile[]>();
  for (const { file, result } of results) {
    if (!result.ok) continue;
    const account = accounts.get(result.value.adAccountId) ?? [];
    accounts.set(result.value.adAccountId, [...account, { file, desired: result.value }]);
  }
  const clashes = [...accounts.values()].flatMap((account) => (account.length > 1 ? accountFileClashes(account) : []));
  const errors = await Promise.all(
    clashes.map(async (clash): Promise<ConfigIssue> => {
      const [[at], [there]] = await Promise.all([
        locateInFile(clash.file, deps.cwd, [clash.path]),
        locateInFile(clash.other, deps.cwd, [clash.otherPath]),
      ]);
      const other = there && there.line > 0 ? `${clash.other}:${there.line}:${there.column}` : clash.other;
      return {
        file: clash.file,
        line: at?.line ?? 0,
        column: at?.column ?? 0,
        pointer: clash.path.map((segment) => `/${segment}`).join(''),
        message: clash.message(other),
        hint: clash.hint,
      };
    }),
  );
  const gaps = await Promise.all(
    unnamedAccountFiles([...accounts.values()].flat(), deps.cwd).map(async (gap): Promise<ConfigIssue> => {
      const [at] = await locateInFile(gap.file, deps.cwd, [gap.path]);
      return {
        file: gap.file,
        line: at?.line ?? 0,
        column: at?.column ?? 0,
        pointer: gap.path.map((segment) => `/${segment}`).join(''),
        message: gap.message,
        hint: gap.hint,
      };
    }),
  );
  errors.push(...gaps);
  return results.map(({ file, result }) => {
    if (!result.ok) return { file, ok: false, audiences: 0, errors: result.issues, warnings: [] };
    const own = errors.filter((error) => error.file === file);
    return {
      file,
      ok: own.length === 0,
      audiences: result.value.audiences.length,
      errors: own,
      warnings: result.warnings,
      desired: result.value,
    };
  });
}

/** The desired state of each file, or a ConfigError with every problem of every file at once. */
export async function readValidDesiredStates(
  files: string[],
  cwd: string,
): Promise<Array<{ file: string; desired: DesiredState }>> {
  const results = await validateFiles(files, { cwd });
  const issues: ConfigIssue[] = results.flatMap((result) => result.errors);
  if (issues.length > 0) throw new ConfigError(issues);
  return results.flatMap(({ file, desired }) => (desired ? [{ file, desired }] : []));
}
