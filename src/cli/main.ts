import yargs, { type Argv } from 'yargs';
import { packageVersion } from '../version.js';
import { renderError } from './report-error.js';
import type { Io } from './io.js';
import { processIo } from './process-io.js';
import type { CommandDefinition, GlobalOptions } from './command.js';
import { applyCommand } from './commands/apply.js';
import { companyCommand } from './commands/company.js';
import { importCommand } from './commands/import.js';
import { planCommand } from './commands/plan.js';
import { emulatorCommand } from './commands/emulator.js';
import { validateCommand } from './commands/validate.js';

/** Every command, each a small file; their handlers load the heavy modules lazily. */
const commands: CommandDefinition[] = [validateCommand, planCommand, applyCommand, importCommand, companyCommand, emulatorCommand];

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  let debug = argv.includes('--debug');
  const parser: Argv<GlobalOptions> = yargs(argv)
    .scriptName('audiences')
    .usage('$0 <command> [options]\n\nAudiences as code: declare the audiences of an ad account in YAML, then plan and apply.')
    .option('emulator', { type: 'boolean', default: false, describe: 'Run against the built-in emulator (state under .audiences/)' })
    .option('concurrency', { type: 'number', default: 8, describe: 'Requests in flight at once' })
    .option('requests-per-second', { type: 'number', describe: 'Most requests started per second, per service (to stay under a quota)' })
    .option('color', { type: 'boolean', default: true, describe: 'Colour on a terminal (--no-color or NO_COLOR turns it off)' })
    .option('verbose', { type: 'boolean', default: false, describe: 'Log each request to stderr' })
    .option('debug', { type: 'boolean', default: false, describe: 'Show stack traces' })
    .strict()
    .strictCommands()
    .demandCommand(1, 'Name a command; see --help.')
    .recommendCommands()
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message, error) => {
      // yargs reports its own argument checks as YError; anything else is a command's error.
      if (!error || error.name === 'YError') throw new UsageError(message || error?.message || 'invalid arguments');
      throw error;
    })
    .version(packageVersion())
    .help();
  // Commands run after parsing, not as yargs handlers: before it runs a handler, yargs renders
  // the whole help text to keep it, a cost every run would pay for nothing.
  for (const command of commands) parser.command(command.name, command.describe, command.builder);
  try {
    let helpText = '';
    const args = await parser.parseAsync(argv, {}, (_error, _parsed, output) => {
      helpText = output;
    });
    if (helpText) {
      io.stdout(helpText + '\n');
      return 0;
    }
    debug = args.debug;
    const command = commands.find((candidate) => candidate.name.split(' ')[0] === args._[0]);
    if (command === undefined) throw new UsageError(`unknown command ${String(args._[0])}`);
    return await command.run(args as Parameters<CommandDefinition['run']>[0], io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error[USAGE]: ${error.message}\n  hint: run \`audiences --help\` for the commands and options\n`);
      return 1;
    }
    io.stderr(renderError(error, debug));
    return 1;
  }
}

class UsageError extends Error {}
