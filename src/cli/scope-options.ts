import type { Options } from 'yargs';
import { parseNameGlob } from '../model/index.js';
import { SCOPE_KINDS } from '../plan/scope.js';
import type { PlanScope, ScopeKind } from '../plan/types.js';
import { UsageError } from './command.js';

/** `--target`, `--kind` and `--exclude`, as `plan` and `apply` take them (after their own options, in their help). */
export const SCOPE_OPTIONS = {
  target: {
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'Plan only the audiences and images whose name matches this glob, with what they need (repeatable)',
  },
  kind: {
    type: 'string',
    array: true,
    requiresArg: true,
    choices: SCOPE_KINDS,
    describe: 'Plan only the changes of this kind (repeatable); an unlink made for a delete goes with the audience',
  },
  exclude: {
    type: 'string',
    array: true,
    requiresArg: true,
    describe: 'Leave out the audiences and images whose name matches this glob (repeatable)',
  },
} as const satisfies Record<string, Options>;

/**
 * The scope the command line gives, when it gives one: a glob that is not one is a usage error naming the flag and the
 * glob, before anything is read.
 */
export function scopeOf(args: Record<string, unknown>, example: string): PlanScope | undefined {
  const globs = (flag: 'target' | 'exclude'): string[] => {
    const values = Array.isArray(args[flag]) ? args[flag].map(String) : [];
    for (const value of values) {
      if (value === '') throw new UsageError(`--${flag} needs a name glob`, example);
      const glob = parseNameGlob(value);
      if (!glob.ok)
        throw new UsageError(
          `--${flag} ${JSON.stringify(value)} is not a name glob: ${glob.problem}`,
          glob.suggestion === value ? glob.hint : `${glob.hint} (${glob.suggestion})`,
        );
    }
    return [...new Set(values)];
  };
  const targets = globs('target');
  const excludes = globs('exclude');
  const kinds = Array.isArray(args['kind']) ? [...new Set(args['kind'].map(String) as ScopeKind[])] : [];
  return targets.length + kinds.length + excludes.length === 0 ? undefined : { targets, kinds, excludes };
}
