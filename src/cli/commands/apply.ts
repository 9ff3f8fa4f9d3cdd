import { fileArgs, SERVICE_ENVIRONMENT, UsageError, type CommandDefinition } from '../command.js';
import { interruptible } from '../interrupts.js';
import { outputStyle } from '../output.js';
import type { Services } from '../../api/services.js';
import { SCOPE_OPTIONS, scopeOf } from '../scope-options.js';
import { loadServices, withServices } from '../services.js';

/**
 * `audiences apply [PLAN]`: applies a saved plan (refused when stale; saving it was the
 * approval) or plans the files and applies after confirmation. Exit 1 if anything failed.
 */
export const applyCommand: CommandDefinition = {
  name: 'apply [plan]',
  describe: 'Make the ad account match the files (or apply a saved plan)',
  examples: [
    ['$0 apply', 'plan audiences.yaml, show the plan, and apply it once approved'],
    [
      '$0 apply plan.json',
      'apply exactly a plan saved with `audiences plan --out plan.json` (refused if the account moved)',
    ],
    ['$0 apply -f a.yaml --auto-approve', 'plan and apply without asking (in a pipeline)'],
    ['$0 apply --kind image', 'plan and apply only the images (the audiences are left as they are)'],
  ],
  environment: SERVICE_ENVIRONMENT,
  builder: (argv) =>
    argv
      .positional('plan', { type: 'string', describe: 'A plan saved with `audiences plan --out`' })
      .option('file', {
        alias: 'f',
        type: 'string',
        array: true,
        requiresArg: true,
        describe: 'A desired-state file (repeat for several; default: audiences.yaml)',
      })
      .option('auto-approve', {
        type: 'boolean',
        default: false,
        describe: 'Apply without asking (required without a terminal)',
      })
      .option('allow-mass-delete', {
        type: 'boolean',
        default: false,
        describe:
          "Allow a plan that deletes more than the mass-delete share of the managed audiences (30%, or the file's massDelete)",
      })
      .options(SCOPE_OPTIONS),
  run: async (args, io) => {
    const savedPlan = typeof args['plan'] === 'string' ? args['plan'] : undefined;
    const files = fileArgs(args, 'audiences apply -f audiences.yaml');
    if (savedPlan && files.length > 0)
      throw new UsageError(
        'give either a saved plan or -f files, not both',
        'a saved plan already says what to change',
      );
    const scope = scopeOf(args, "audiences apply --target 'spring-*'");
    if (savedPlan && scope)
      throw new UsageError(
        'a saved plan cannot be scoped: --target, --kind and --exclude go with `audiences plan --out`',
        "the saved plan applies exactly what it holds: plan again with the scope (`audiences plan --target 'spring-*' --out plan.json`)",
      );
    // From here an interrupt is the apply's: before any change it stops the command, saying nothing was changed.
    let opened: Services | undefined;
    const interrupts = interruptible(io, () => opened?.stopStarting());
    try {
      const [style, { runApply }, { textApplyView }] = await Promise.all([
        outputStyle(args, io),
        import('../../operations/run-apply.js'),
        import('../apply-view.js'),
        loadServices(),
      ]);
      return await withServices(args, io, (services) => {
        opened = services;
        return runApply(
          {
            savedPlan,
            files,
            autoApprove: args['autoApprove'] === true,
            allowMassDelete: args['allowMassDelete'] === true,
            scope,
            requestsPerSecond: args.requestsPerSecond,
          },
          {
            view: textApplyView(io, style),
            interrupts,
            cwd: io.cwd,
            client: (adAccountId, requestsPerSecond) => services.audiences(adAccountId, requestsPerSecond),
            services,
            concurrency: args.concurrency,
          },
        );
      });
    } finally {
      interrupts.release();
    }
  },
};
