import type { CommandDefinition } from '../command.js';
import { outputStyle } from '../output.js';
import { withErrorOutput } from '../report-error.js';
import { PREVIEW_OPTION, previewOf } from '../preview-option.js';
import type { PlanFormat } from './plan.js';

/**
 * `audiences show PLAN`: renders a plan saved with `plan --out`, as text, JSON or the Markdown
 * comment, without reading the account (nothing is checked against it: `apply PLAN` does that).
 */
export const showCommand: CommandDefinition = {
  name: 'show <plan>',
  describe: 'Show a saved plan again, without reading the account',
  examples: [
    ['$0 show audiences.plan.json', 'the saved plan as text'],
    ['$0 show audiences.plan.json --format markdown', 'as the pull-request comment'],
  ],
  environment: ['NO_COLOR', 'FORCE_COLOR'],
  builder: (argv) =>
    argv
      .positional('plan', { type: 'string', describe: 'A plan saved with `audiences plan --out`' })
      .option('format', {
        requiresArg: true,
        choices: ['text', 'json', 'markdown'] as const,
        default: 'text' as const,
        describe: 'Output format',
      })
      .option('preview', PREVIEW_OPTION),
  run: async (args, io) => {
    const file = String(args['plan']);
    const format = args['format'] as PlanFormat;
    return withErrorOutput(format, { files: [file] }, io, async () => {
      const [style, { readSavedPlans, savedPlanContext }, { renderPlans }] = await Promise.all([
        outputStyle(args, io),
        import('../../operations/saved-plan.js'),
        import('../../render/index.js'),
      ]);
      const plans = await readSavedPlans(file, io.cwd, 'show');
      const preview = await previewOf(args, io, 'audiences show plan.json --format markdown --preview preview.json');
      io.stdout(
        renderPlans(plans, format, style, { ...savedPlanContext(plans, file), ...(preview ? { preview } : {}) }),
      );
      return 0;
    });
  },
};
