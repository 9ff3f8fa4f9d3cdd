import type { Argv, ArgumentsCamelCase } from 'yargs';
import type { Io } from './io.js';

export interface GlobalOptions {
  emulator: boolean;
  concurrency: number;
  /** Spaces request starts to stay under a known quota; absent = no pacing. */
  requestsPerSecond?: number | undefined;
  color: boolean;
  verbose: boolean;
  debug: boolean;
}

/**
 * One command: its yargs options (pure) and a run function that calls an operation and
 * returns the exit code. Loaded eagerly, so it must import nothing heavy at top level.
 */
export interface CommandDefinition {
  name: string;
  describe: string;
  // yargs builders change the argument type; each command narrows it inside `run`.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  builder: (argv: Argv<GlobalOptions>) => Argv<any>;
  run: (args: ArgumentsCamelCase<GlobalOptions> & Record<string, unknown>, io: Io) => Promise<number>;
}

/** A mistake on the command line: `error[USAGE]` with a hint (by default, the help). */
export class UsageError extends Error {
  override name = 'UsageError';

  constructor(
    message: string,
    readonly hint = 'run `audiences --help` for the commands and options',
  ) {
    super(message);
  }
}

/** The desired-state files named with -f (none: the default file); an empty name is a mistake. */
export function fileArgs(args: Record<string, unknown>, example: string): string[] {
  const named = args['file'];
  const files = Array.isArray(named) ? named.map(String) : [];
  if (Array.isArray(named) && (files.length === 0 || files.some((file) => file.trim() === ''))) throw new UsageError('-f needs a file name', example);
  return files;
}

/** A file named by an option (`--out`, `-o`), or undefined when not given; an empty name is a mistake. */
export function fileOption(args: Record<string, unknown>, key: string, flag: string, example: string): string | undefined {
  const value = args[key];
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} needs a file name`, example);
  return value;
}
