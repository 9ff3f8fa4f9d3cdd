import { isRecord } from './rules.js';

/**
 * The files the tool writes beside a desired-state file, told by their top-level keys, which
 * a desired-state file cannot hold: given in its place, such a file is named as what it is,
 * not checked field by field against a schema it was never meant for.
 */
export type WrittenFile = 'image lock' | 'saved plan';

export function writtenFileKind(value: unknown): WrittenFile | undefined {
  if (isRecord(value) && 'lockVersion' in value && !('audiences' in value)) return 'image lock';
  const plans = Array.isArray(value) ? value : [value];
  if (
    plans.length > 0 &&
    plans.every((plan) => isRecord(plan) && 'formatVersion' in plan && 'changes' in plan && !('audiences' in plan))
  )
    return 'saved plan';
  return undefined;
}

/** What to say of a file the tool wrote, given where a desired-state file is expected. */
export function notADesiredState(kind: WrittenFile, file: string): { message: string; hint: string } {
  if (kind === 'image lock') {
    return {
      message: 'this is the image lock (written by the tool), not a desired-state file',
      hint: 'give the desired-state file instead (audiences.yaml by default, the YAML file beside the lock): plan and apply read the lock beside it',
    };
  }
  return {
    message: 'this is a saved plan (written by `audiences plan --out`), not a desired-state file',
    hint: `apply it with \`audiences apply ${file}\` (no -f), or read it with \`audiences show ${file}\`; validate and plan read the desired-state file, audiences.yaml by default`,
  };
}
