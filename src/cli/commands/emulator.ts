import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { pathSettings } from '../../api/path-settings.js';
import { AppError } from '../../errors.js';
import type { RunningEmulator } from '../../emulator/server.js';
import { visible } from '../../model/index.js';
import type { Io } from '../io.js';
import { UsageError, type CommandDefinition } from '../command.js';
import type { MemberIdSpelling, TrackerShape } from '../../emulator/audiences.js';
import type { RateLimitScope } from '../../emulator/faults.js';
import type { ListShape } from '../../emulator/list-shapes.js';

/**
 * `audiences emulator`: serves the local emulator of the three services until SIGINT/SIGTERM
 * and prints the environment that points the tool at it. The credentials printed are the
 * emulator's own fixed fake ones, not secrets. It serves the paths and scheme its environment
 * names (IMAGEGEN_MODEL_FAMILY, IMAGEGEN_AUTH_SCHEME, ADS_COMPANY_PATH), as the tool sends them.
 */
export const emulatorCommand: CommandDefinition = {
  name: 'emulator',
  describe: 'Serve the local emulator of the audience, company and image-generation services',
  examples: [
    ['$0 emulator --port 8080', 'serve the emulator and print the environment to reach it'],
    [
      '$0 emulator --rate-limit 10 --no-quota-retry-after',
      'an account that allows 10 requests a second and answers 429 without Retry-After',
    ],
    ['$0 emulator --seed seed.yaml', "serve an account that holds seed.yaml's audiences and links"],
    ['$0 emulator --seed seed.yaml --seed-only', "seed --emulator's state (.audiences/emulator-state.json) and stop"],
  ],
  environment: ['IMAGEGEN_MODEL_FAMILY', 'IMAGEGEN_AUTH_SCHEME', 'ADS_COMPANY_PATH'],
  builder: (argv) =>
    argv
      .option('port', {
        requiresArg: true,
        type: 'number',
        default: 0,
        describe: 'Port on 127.0.0.1 (0 = any free port)',
      })
      .option('state', {
        requiresArg: true,
        type: 'string',
        describe: 'Persist the state in this file, locked while serving (default: in memory)',
      })
      .option('seed', {
        requiresArg: true,
        type: 'string',
        array: true,
        describe:
          'Before serving, create the audiences of this desired-state file in its account and link them to its adGroups, as in the ad manager (repeatable)',
      })
      .option('seed-only', {
        type: 'boolean',
        default: false,
        describe:
          "Seed and stop without serving: into the --state file, by default --emulator's (.audiences/emulator-state.json)",
      })
      .option('latency', {
        requiresArg: true,
        type: 'number',
        default: 0,
        describe: 'Added latency per request, in ms',
      })
      .option('jitter', {
        requiresArg: true,
        type: 'number',
        default: 0,
        describe: 'Random extra latency up to this many ms',
      })
      .option('fault-rate', {
        requiresArg: true,
        type: 'number',
        default: 0,
        describe: 'Share of requests answered with a fault (0 to 1)',
      })
      .option('fault-kinds', {
        requiresArg: true,
        type: 'string',
        default: '5xx,429,reset',
        describe: 'Faults to inject, comma-separated',
      })
      .option('fault-accounts', {
        requiresArg: true,
        type: 'string',
        describe: 'Fault only the requests of these ad accounts, comma-separated (default: every request)',
      })
      .option('fault-seed', { requiresArg: true, type: 'number', default: 1, describe: 'Seed of the fault sequence' })
      .option('rate-limit', {
        requiresArg: true,
        type: 'number',
        default: 0,
        describe: 'Requests per second per ad account (0 = unlimited)',
      })
      .option('rate-limit-scope', {
        requiresArg: true,
        choices: ['all', 'writes'] satisfies RateLimitScope[],
        default: 'all',
        describe: 'What the rate limit counts: all requests, or only writes',
      })
      .option('quota-status', {
        type: 'number',
        requiresArg: true,
        choices: [429, 400],
        default: 429,
        describe: 'Status of a rate-limited or injected-429 answer: 429 (code -813) or 400 (code -10)',
      })
      .option('quota-retry-after', {
        type: 'boolean',
        default: true,
        describe: 'Send Retry-After with those answers (--no-quota-retry-after: never)',
      })
      .option('member-ids', {
        requiresArg: true,
        choices: ['catalog', 'number', 'text'] as const,
        default: 'catalog' as const,
        describe:
          "How answers spell targeting member ids: as the item's own id, digit-only ids as numbers, or all as text",
      })
      .option('tracker-shape', {
        requiresArg: true,
        choices: ['retentionDays', 'terms'] satisfies TrackerShape[],
        default: 'retentionDays',
        describe:
          "How tracker members are taken and answered: with retentionDays, or with the real service's trackerTargetingTerms",
      })
      .option('list-shape', {
        requiresArg: true,
        choices: [
          'whole',
          'null-content',
          'missing-content',
          'paged',
          'paged-model',
          'paged-unfollowable',
          'duplicate-ids',
        ] satisfies ListShape[],
        default: 'whole',
        describe:
          "How the list of audiences and the lists of ad groups answer: whole as the spec shows, one page of several (Spring's Page or PagedModel), or not whole",
      })
      .option('page-size', {
        requiresArg: true,
        type: 'number',
        default: 20,
        describe: 'Items per page of a paged list, when the request asks for no size',
      })
      .option('quirks', { type: 'boolean', default: false, describe: "Answer with the spec examples' quirks" }),
  run: async (args, io) => {
    const kinds = String(args['faultKinds'])
      .split(',')
      .map((kind) => kind.trim())
      .filter(Boolean);
    const unknown = kinds.filter((kind) => kind !== '5xx' && kind !== '429' && kind !== 'reset');
    if (unknown.length > 0)
      throw new UsageError(
        `unknown fault kinds: ${unknown.join(', ')}`,
        'use 5xx, 429 and reset, e.g. --fault-kinds 5xx,429',
      );
    const faultAccounts = accountList(args['faultAccounts']);
    const problem = numberProblem(args);
    if (problem) throw new UsageError(problem, 'see `audiences emulator --help` for each option and its default');
    const seeds = seedFiles(args);
    const [{ startLocalEmulator, EMULATOR_STATE_FILE }, { pathSettings }] = await Promise.all([
      import('../../operations/connection.js'),
      import('../../api/path-settings.js'),
    ]);
    const paths = pathSettings(io.env);
    const state = typeof args['state'] === 'string' ? args['state'] : seeds.only ? EMULATOR_STATE_FILE : undefined;
    if (state !== undefined) await mkdir(dirname(resolve(io.cwd, state)), { recursive: true });
    const emulator = await startLocalEmulator({
      ...paths,
      port: Number(args['port']),
      statePath: state === undefined ? undefined : resolve(io.cwd, state),
      onStateWait: (waitMs) =>
        io.stderr(`Waiting for another process that uses ${state}, up to ${Math.round(waitMs / 1000)} s…\n`),
      latencyMs: Number(args['latency']),
      jitterMs: Number(args['jitter']),
      faultRate: Number(args['faultRate']),
      faultKinds: kinds as Array<'5xx' | '429' | 'reset'>,
      faultAccounts,
      faultSeed: Number(args['faultSeed']),
      rateLimitPerSecond: Number(args['rateLimit']),
      rateLimitScope: args['rateLimitScope'] as RateLimitScope,
      quotaStatus: args['quotaStatus'] === 400 ? 400 : 429,
      quotaRetryAfter: args['quotaRetryAfter'] !== false,
      memberIds: args['memberIds'] as MemberIdSpelling | undefined,
      trackerShape: args['trackerShape'] as TrackerShape | undefined,
      audienceListShape: args['listShape'] as ListShape,
      adGroupListShape: args['listShape'] as ListShape,
      pageSize: Number(args['pageSize']),
      quirks: args['quirks'] === true,
    }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      throw new AppError({
        code: 'PORT_IN_USE',
        summary: `port ${String(args['port'])} is already in use`,
        hint: 'choose another --port, or --port 0 for any free port',
        source: 'user',
        cause: error,
      });
    });
    if (seeds.files.length > 0) {
      try {
        await seed(seeds.files, emulator, paths, args, io);
      } catch (error) {
        await emulator.close();
        throw error;
      }
      if (seeds.only) {
        await emulator.close();
        io.stderr(
          `The state is in ${state}${state === EMULATOR_STATE_FILE ? ', which `--emulator` reads in this folder' : ''}.\n`,
        );
        return 0;
      }
    }
    io.stdout(
      [
        `Emulator listening on ${emulator.url} (Ctrl-C to stop)`,
        '',
        'Environment for the tool:',
        `export ADS_API_URL=${emulator.url}`,
        `export ADS_COMPANY_URL=${emulator.url}`,
        `export IMAGEGEN_API_URL=${emulator.url}`,
        `export ADS_ACCESS_TOKEN=${emulator.accessToken}`,
        `export IMAGEGEN_API_KEY=${emulator.appKey}`,
        `export IMAGEGEN_MODEL_FAMILY=${paths.modelFamily}`,
        `export IMAGEGEN_AUTH_SCHEME=${paths.imageAuthScheme}`,
        `export ADS_COMPANY_PATH=${paths.companyPath}`,
        '',
      ].join('\n'),
    );
    const signal = await new Promise<string>((resolve) => {
      const stop = (name: string) => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
        resolve(name);
      };
      const onInt = () => stop('SIGINT');
      const onTerm = () => stop('SIGTERM');
      process.once('SIGINT', onInt);
      process.once('SIGTERM', onTerm);
    });
    await emulator.close();
    io.stderr(`Emulator stopped (${signal}).\n`);
    return 0;
  },
};

/** The files of --seed, and whether to stop once they are seeded. */
function seedFiles(args: Record<string, unknown>): { files: string[]; only: boolean } {
  const files = Array.isArray(args['seed']) ? args['seed'].map(String) : [];
  if (files.some((file) => file.trim() === ''))
    throw new UsageError('--seed needs a file name', 'e.g. --seed seed.yaml, a desired-state file');
  const only = args['seedOnly'] === true;
  if (only && files.length === 0)
    throw new UsageError('--seed-only needs --seed FILE', 'e.g. audiences emulator --seed seed.yaml --seed-only');
  return { files, only };
}

/** Seeds the running emulator through its own API, and says what each file made. */
async function seed(
  files: string[],
  emulator: RunningEmulator,
  paths: ReturnType<typeof pathSettings>,
  args: Record<string, unknown>,
  io: Io,
): Promise<void> {
  const [{ seedEmulator }, { createServices }, { emulatorControl }] = await Promise.all([
    import('../../operations/seed-emulator.js'),
    import('../../api/services.js'),
    import('../../operations/emulator-control.js'),
  ]);
  const endpoints = {
    apiUrl: emulator.url,
    companyUrl: undefined,
    imageUrl: undefined,
    accessToken: emulator.accessToken,
    appKey: undefined,
    ...paths,
  };
  const services = createServices(endpoints, {
    concurrency: 8,
    verbose: args['verbose'] === true,
    log: (line) => io.stderr(`${line}\n`),
  });
  try {
    const accounts = await seedEmulator(files, io.cwd, {
      audiences: (id) => services.audiences(id),
      control: emulatorControl(emulator.url),
    });
    for (const account of accounts) {
      const links = account.audiences.reduce((sum, audience) => sum + audience.adGroupIds.length, 0);
      const made = account.audiences.map(
        (audience) =>
          `${visible(audience.name)} (id ${audience.id}${audience.adGroupIds.length > 0 ? `, ad groups ${audience.adGroupIds.join(', ')}` : ''})`,
      );
      io.stderr(
        `Seeded ad account ${account.adAccountId} from ${visible(account.file)}: ${plural(account.audiences.length, 'audience')}, ${plural(links, 'link')}${made.length > 0 ? `: ${made.join('; ')}` : ''}.\n`,
      );
      for (const note of account.notes) io.stderr(`note: ${note}\n`);
    }
  } finally {
    await services.close();
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `--fault-accounts`: ad account ids, comma-separated; none when it is not given. */
function accountList(value: unknown): number[] {
  if (typeof value !== 'string') return [];
  const ids = value.split(',').map((id) => id.trim());
  const wrong = ids.filter((id) => !/^[1-9][0-9]*$/.test(id) || !Number.isSafeInteger(Number(id)));
  if (wrong.length > 0)
    throw new UsageError(
      `--fault-accounts takes ad account ids, comma-separated, not ${wrong.map((id) => JSON.stringify(id)).join(', ')}`,
      'e.g. --fault-accounts 1234,5678',
    );
  return ids.map(Number);
}

/** The numeric options, checked before anything starts. */
function numberProblem(args: Record<string, unknown>): string | undefined {
  const port = Number(args['port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return '--port must be an integer from 0 to 65535';
  for (const name of ['latency', 'jitter', 'faultSeed', 'rateLimit']) {
    const value = Number(args[name]);
    if (!Number.isInteger(value) || value < 0)
      return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be a non-negative integer`;
  }
  const pageSize = Number(args['pageSize']);
  if (!Number.isInteger(pageSize) || pageSize < 1) return '--page-size must be a positive integer';
  const rate = Number(args['faultRate']);
  if (!(rate >= 0 && rate <= 1)) return '--fault-rate must be a number from 0 to 1';
  return undefined;
}
