import { fileArgs, fileOption, SERVICE_ENVIRONMENT, UsageError, type CommandDefinition } from '../command.js';
import type { Io } from '../io.js';
import { outputStyle } from '../output.js';
import { withErrorOutput } from '../report-error.js';
import type { CommentContext } from '../../render/comment.js';
import { PREVIEW_OPTION, previewOf } from '../preview-option.js';
import { SCOPE_OPTIONS, scopeOf } from '../scope-options.js';
import { loadServices, withServices } from '../services.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

/**
 * `audiences plan`: reads the live account, prints the plan, optionally saves it for a later
 * apply. Exit 1 when the plan has errors; with --detailed-exitcode, 2 when it has changes.
 */
export const planCommand: CommandDefinition = {
  name: 'plan [files..]',
  describe: 'Show what apply would change in the ad account',
  examples: [
    ['$0 plan', 'the plan of audiences.yaml'],
    ['$0 plan a.yaml b.yaml --out plan.json', 'the plan of two files, saved for `audiences apply plan.json`'],
    ['$0 plan --format markdown', 'the plan as a pull-request comment'],
    ["$0 plan --target 'spring-*' --out plan.json", 'a partial plan: only the audiences and images named spring-…'],
    [
      '$0 plan --format markdown --base origin/main',
      'the comment of a pull request into main: what reverts a change made outside the tool is marked so',
    ],
  ],
  environment: SERVICE_ENVIRONMENT,
  builder: (argv) =>
    argv
      .positional('files', { type: 'string', array: true, describe: 'Desired-state files, as with -f' })
      .option('file', {
        alias: 'f',
        type: 'string',
        array: true,
        requiresArg: true,
        describe: 'A desired-state file (repeat for several; default: audiences.yaml)',
      })
      .option('out', {
        type: 'string',
        requiresArg: true,
        describe: 'Save the plan to this file for `audiences apply PLAN`',
      })
      .option('format', {
        requiresArg: true,
        choices: ['text', 'json', 'markdown'] as const,
        default: 'text' as const,
        describe: 'Output format',
      })
      .option('detailed-exitcode', {
        type: 'boolean',
        default: false,
        describe: 'Exit 0 with no changes, 2 with changes, 1 on error',
      })
      .option('allow-mass-delete', {
        type: 'boolean',
        default: false,
        describe:
          "Allow a plan that deletes more than the mass-delete share of the managed audiences (30%, or the file's massDelete)",
      })
      .option('cache', {
        type: 'boolean',
        default: false,
        describe: 'Reuse single reads of unchanged audiences (kept under .audiences/cache/)',
      })
      .option('commit', {
        type: 'string',
        requiresArg: true,
        describe: 'The commit planned, named in the Markdown comment (a pipeline passes its own)',
      })
      .option('base', {
        type: 'string',
        requiresArg: true,
        describe:
          "A git ref (the pull request's base): the files at it are planned too; a change they would make too is marked as reverting a change made outside the tool, and their mass-delete guard still holds",
      })
      .option('preview', PREVIEW_OPTION)
      .options(SCOPE_OPTIONS),
  run: async (args, io) => {
    const files = fileArgs(args, 'audiences plan -f audiences.yaml');
    const format = args['format'] as PlanFormat;
    const context = { files, commit: typeof args['commit'] === 'string' ? args['commit'] : undefined };
    return withErrorOutput(format, context, io, () => plan(args, io, files, format, context));
  },
};

/** The plan command itself; a failure is also written in the output format by withErrorOutput. */
async function plan(
  args: Parameters<CommandDefinition['run']>[0],
  io: Io,
  files: string[],
  format: PlanFormat,
  context: CommentContext,
): Promise<number> {
  const out = fileOption(args, 'out', '--out', 'audiences plan --out plan.json');
  const preview = await previewOf(args, io, 'audiences plan --base main --format markdown --preview preview.json');
  const base = baseOption(args);
  const scope = scopeOf(args, "audiences plan --target 'spring-*' --kind audience");
  const [style, saved, { listEarly }] = await Promise.all([
    outputStyle(args, io),
    // The code of saved plans (their schema's validator among it) only for --out.
    out === undefined ? undefined : import('../../operations/saved-plan.js').then((code) => ({ ...code, out })),
    import('../../operations/early-list.js'),
    loadServices(),
  ]);
  if (saved) await saved.checkPlanTarget(saved.out, io.cwd);
  const planned = await withServices(args, io, async (services, connection) => {
    // The lists leave before the code of planning, checking the files and rendering is loaded: its loading, a good
    // part of a start, runs while they are answered.
    const reader = await listEarly(files, io.cwd, (adAccountId, requestsPerSecond) =>
      services.audiences(adAccountId, requestsPerSecond),
    );
    const [{ planFiles }, cache] = await Promise.all([
      import('../../operations/plan.js'),
      args['cache'] === true ? import('../../operations/detail-cache.js') : undefined,
    ]);
    return planFiles(
      files,
      {
        allowMassDelete: args['allowMassDelete'] === true,
        base,
        scope,
        requestsPerSecond: typeof args['requestsPerSecond'] === 'number' ? args['requestsPerSecond'] : undefined,
        listedEarly: true,
      },
      {
        cwd: io.cwd,
        reader,
        services,
        ...(cache ? { cache: { service: cache.cacheService(connection) } } : {}),
      },
    );
  });
  const { renderPlans } = await import('../../render/index.js');
  // The files and commit go with each plan, so that `show --format markdown` of the saved plan prints this comment.
  const origin = { files, commit: context.commit ?? null, ...(base === undefined ? {} : { base }) };
  const plans = planned.map((account) => ({ ...account.plan, origin }));
  io.stdout(renderPlans(plans, format, style, { ...context, ...(preview ? { preview } : {}) }));
  if (plans.some((plan) => plan.errors.length > 0)) return 1;
  if (saved) {
    await saved.savePlans(plans, saved.out, io.cwd);
    io.stderr(`Saved the plan to ${saved.out}; apply it with \`audiences apply ${saved.out}\`.\n`);
  }
  const changes = plans.some((plan) => plan.changes.length > 0);
  return args['detailedExitcode'] === true && changes ? 2 : 0;
}

/** The git ref of --base, when given: a blank one is a usage error, not "no base". */
function baseOption(args: Parameters<CommandDefinition['run']>[0]): string | undefined {
  const value = args['base'];
  if (typeof value !== 'string') return undefined;
  if (value.trim() === '')
    throw new UsageError('--base needs a git ref (a branch, tag or commit)', 'audiences plan --base origin/main');
  return value;
}
