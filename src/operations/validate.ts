import {
  ConfigError,
  locateInFile,
  namedFiles,
  readDesiredStates,
  toPointer,
  type ConfigIssue,
  type Path,
  type Position,
} from '../config/index.js';
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
  const gaps = unnamedAccountFiles([...accounts.values()].flat(), deps.cwd);
  const at = await locator(
    [
      ...clashes.flatMap((clash) => [
        { file: clash.file, path: clash.path },
        { file: clash.other, path: clash.otherPath },
      ]),
      ...gaps,
    ],
    deps.cwd,
  );
  const errors = [
    ...clashes.map((clash): ConfigIssue => {
      const there = at(clash.other, clash.otherPath);
      const other = there.line > 0 ? `${clash.other}:${there.line}:${there.column}` : clash.other;
      return { ...issueAt(clash.file, clash.path, at), message: clash.message(other), hint: clash.hint };
    }),
    ...gaps.map((gap): ConfigIssue => ({ ...issueAt(gap.file, gap.path, at), message: gap.message, hint: gap.hint })),
  ];
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

type Locate = (file: string, path: Path) => Position;

/**
 * Where each of these paths is in its file: every file read and parsed once, however many problems it has (two
 * files of an account that share a thousand names have a thousand clashes).
 */
async function locator(wanted: Array<{ file: string; path: Path }>, cwd: string): Promise<Locate> {
  const byFile = new Map<string, Path[]>();
  for (const { file, path } of wanted) {
    const paths = byFile.get(file) ?? [];
    if (paths.length === 0) byFile.set(file, paths);
    paths.push(path);
  }
  const found = new Map<string, Map<Path, Position>>();
  await Promise.all(
    [...byFile].map(async ([file, paths]) => {
      const positions = await locateInFile(file, cwd, paths);
      found.set(file, new Map(paths.map((path, index) => [path, positions[index] ?? NOWHERE])));
    }),
  );
  return (file, path) => found.get(file)?.get(path) ?? NOWHERE;
}

const NOWHERE: Position = { line: 0, column: 0 };

/** A problem's place: its file, line and column, and the pointer of its path. */
function issueAt(file: string, path: Path, at: Locate): Pick<ConfigIssue, 'file' | 'line' | 'column' | 'pointer'> {
  const { line, column } = at(file, path);
  return { file, line, column, pointer: toPointer(path) };
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
