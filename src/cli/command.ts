import type { Argv, ArgumentsCamelCase } from 'yargs';
import type { Io } from './io.js';

/** The environment variables the commands read, and what each is for. */
export const ENVIRONMENT = {
  ADS_API_URL: 'the audience API (https://, or http:// on loopback)',
  ADS_ACCESS_TOKEN: 'the credential of the audience and business APIs',
  ADS_COMPANY_URL: 'the business-information API, for a file with `business:` (default: ADS_API_URL)',
  IMAGEGEN_API_URL: 'the image-generation API, for a file with `images:`',
  IMAGEGEN_API_KEY: 'the credential of the image-generation API',
  IMAGEGEN_MODEL_FAMILY:
    "the image paths' model family (default: imagegen, as the spec writes it; the real service's: karlo)",
  IMAGEGEN_AUTH_SCHEME: "the scheme word sent before IMAGEGEN_API_KEY (default: AppKey; the real service's: KakaoAK)",
  ADS_COMPANY_PATH:
    "the business lookup's path (default: /openapi/v1/companies; the real service's: /openapi/v4/companies)",
  NO_COLOR: 'no colour (as --no-color)',
  FORCE_COLOR: 'colour even when not on a terminal (as --color); 0 turns it off',
} as const;
export type EnvironmentVariable = keyof typeof ENVIRONMENT;

/** The variables of a command that talks to the services (audiences, business, images). */
export const SERVICE_ENVIRONMENT: EnvironmentVariable[] = [
  'ADS_API_URL',
  'ADS_ACCESS_TOKEN',
  'ADS_COMPANY_URL',
  'ADS_COMPANY_PATH',
  'IMAGEGEN_API_URL',
  'IMAGEGEN_API_KEY',
  'IMAGEGEN_MODEL_FAMILY',
  'IMAGEGEN_AUTH_SCHEME',
  'NO_COLOR',
  'FORCE_COLOR',
];

export interface GlobalOptions {
  emulator: boolean;
  /** Requests in flight per ad account. */
  concurrency: number;
  /** Requests in flight in all (the option's default when absent). */
  maxConcurrency?: number | undefined;
  /** Spaces request starts to stay under a known quota; absent = no pacing. */
  requestsPerSecond?: number | undefined;
  /** --color or --no-color; undefined when neither was given (then the environment decides). */
  color: boolean | undefined;
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
  /** For its --help: a command line or two and what each does. */
  examples: Array<[command: string, description: string]>;
  /** For its --help: the environment variables it reads (names from ENVIRONMENT). */
  environment: EnvironmentVariable[];
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

/**
 * The desired-state files named with -f or, where a command takes them, as arguments (none: the default file); an empty
 * name is a mistake.
 */
export function fileArgs(args: Record<string, unknown>, example: string): string[] {
  const named = args['file'];
  const flagged = Array.isArray(named) ? named.map(String) : [];
  if (Array.isArray(named) && (flagged.length === 0 || flagged.some((file) => file.trim() === '')))
    throw new UsageError('-f needs a file name', example);
  const positional = Array.isArray(args['files']) ? args['files'].map(String) : [];
  if (positional.some((file) => file.trim() === '')) throw new UsageError('a file name is empty', example);
  return [...positional, ...flagged];
}

/** A file named by an option (`--out`, `-o`), or undefined when not given; an empty name is a mistake. */
export function fileOption(
  args: Record<string, unknown>,
  key: string,
  flag: string,
  example: string,
): string | undefined {
  const value = args[key];
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '') throw new UsageError(`${flag} needs a file name`, example);
  return value;
}
