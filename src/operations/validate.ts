import { DEFAULT_CONFIG_FILE, readDesiredStates, type ConfigIssue } from '../config/index.js';
import type { DesiredState } from '../model/index.js';

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
 * `audiences validate`: checks each file offline (the default file when none is named) and
 * that no two files describe the same ad account, since one file describes one account.
 */
export async function validateFiles(files: string[], deps: { cwd: string }): Promise<FileValidation[]> {
  const named = files.length > 0 ? [...new Set(files)] : [DEFAULT_CONFIG_FILE];
  const results = await readDesiredStates(named, deps.cwd);
  const accounts = new Map<number, string>();
  return results.map(({ file, result }) => {
    if (!result.ok) return { file, ok: false, audiences: 0, errors: result.issues, warnings: [] };
    const other = accounts.get(result.value.adAccountId);
    accounts.set(result.value.adAccountId, other ?? file);
    const errors: ConfigIssue[] =
      other === undefined
        ? []
        : [
            {
              file,
              line: 0,
              column: 0,
              pointer: '/adAccountId',
              message: `ad account ${result.value.adAccountId} is also described by ${other}`,
              hint: 'one file describes one ad account: merge the two files',
            },
          ];
    return {
      file,
      ok: errors.length === 0,
      audiences: result.value.audiences.length,
      errors,
      warnings: result.warnings,
      desired: result.value,
    };
  });
}
