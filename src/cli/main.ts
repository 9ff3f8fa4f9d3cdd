import yargs, { type Argv } from 'yargs';
import { DEFAULT_MAX_CONCURRENCY } from '../api/gate.js';
import { REQUESTS_PER_SECOND } from '../api/limiter.js';
import { visible } from '../model/index.js';
import { packageVersion } from '../version.js';
import { renderError } from './report-error.js';
import { maskingSecrets, type Io } from './io.js';
import { processIo } from './process-io.js';
import { ENVIRONMENT, UsageError, type CommandDefinition, type GlobalOptions } from './command.js';
import { applyCommand } from './commands/apply.js';
import { companyCommand } from './commands/company.js';
import { importCommand } from './commands/import.js';
import { planCommand } from './commands/plan.js';
import { emulatorCommand } from './commands/emulator.js';
import { showCommand } from './commands/show.js';
import { validateCommand } from './commands/validate.js';

/** Every command, each a small file; their handlers load the heavy modules lazily. */
const commands: CommandDefinition[] = [
  validateCommand,
  planCommand,
  showCommand,
  applyCommand,
  importCommand,
  companyCommand,
  emulatorCommand,
];

export async function main(argv: string[], outside: Io = processIo()): Promise<number> {
  const io = maskingSecrets(outside);
  let debug = argv.includes('--debug');
  const parser: Argv<GlobalOptions> = yargs(argv)
    .scriptName('audiences')
    .usage(
      '$0 <command> [options]\n\nAudiences as code: declare the audiences of an ad account in YAML, then plan and apply.',
    )
    .option('emulator', {
      type: 'boolean',
      default: false,
      describe: 'Run against the built-in emulator (state under .audiences/)',
    })
    .option('concurrency', {
      type: 'number',
      default: 8,
      requiresArg: true,
      describe: 'Requests in flight at once, per ad account',
    })
    .option('max-concurrency', {
      type: 'number',
      default: DEFAULT_MAX_CONCURRENCY,
      requiresArg: true,
      describe: 'Requests in flight at once in all, whatever the number of accounts',
    })
    .option('requests-per-second', {
      type: 'number',
      requiresArg: true,
      describe:
        "Most requests started per second, per ad account and service (to stay under a quota); wins over the file's requestsPerSecond",
    })
    .option('color', {
      type: 'boolean',
      describe:
        'Colour even when not on a terminal (--no-color: never; default: on a terminal, unless NO_COLOR or TERM=dumb)',
    })
    .option('verbose', { type: 'boolean', default: false, describe: 'Log each request to stderr' })
    .option('debug', { type: 'boolean', default: false, describe: 'Show stack traces' })
    .strict()
    .strictCommands()
    .demandCommand(1, 'Name a command; see --help.')
    .wrap(Math.min(100, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message, error) => {
      // yargs reports its own argument checks as YError; anything else is a command's error.
      if (!error || error.name === 'YError') throw new UsageError(message || error?.message || 'invalid arguments');
      throw error;
    })
    .version(packageVersion())
    .alias('version', 'v')
    .help()
    .alias('help', 'h');
  // Commands run after parsing, not as yargs handlers (see withoutHelpCache). The options of the
  // command parsed are kept for checkRepeatedOptions (yargs forgets them once it has parsed).
  let commandOptions: ParserOptions | undefined;
  for (const command of commands)
    parser.command(command.name, command.describe, (argv) => {
      const built = withHelp(command, command.builder(argv));
      commandOptions = parserOptions(built);
      return built;
    });
  withoutHelpCache(parser);
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
    checkRepeatedOptions(args, commandOptions ?? parserOptions(parser));
    checkRepeatedFlags(argv, commandOptions ?? parserOptions(parser));
    checkGlobalOptions(args);
    const command = commands.find((candidate) => candidate.name.split(' ')[0] === args._[0]);
    if (command === undefined) throw new UsageError(`unknown command ${String(args._[0])}`);
    return await command.run(args as Parameters<CommandDefinition['run']>[0], io);
  } catch (error) {
    if (error instanceof UsageError) {
      const usage = await inOurWords(error, argv, parser);
      // A usage message may quote what was typed (a repeated option's values): made visible, as every error is.
      io.stderr(`error[USAGE]: ${visible(usage.message)}\n  hint: ${visible(usage.hint)}\n`);
      return 1;
    }
    io.stderr(renderError(error, debug));
    return 1;
  }
}

/** The part of yargs' internals withoutHelpCache reaches (yargs' own modules call it so). */
interface YargsUsage {
  getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } | undefined };
}

/**
 * Once a command is parsed, yargs renders the command's whole help and keeps it, to show it
 * should the command's handler fail: half the time of parsing a command line, at every start.
 * Our commands print their own error and hint instead, so the rendering is turned off. yargs
 * names no option for it: this reaches its usage object, as its own modules do; a test checks
 * that the method is still there, so an upgrade that moves it is seen.
 */
export function withoutHelpCache(parser: Argv<unknown>): void {
  const usage = (parser as unknown as YargsUsage).getInternalMethods?.().getUsageInstance?.();
  if (usage?.cacheHelpMessage !== undefined) usage.cacheHelpMessage = () => undefined;
}

/** The options a parser knows so far, those that take a list, and the flags. */
interface ParserOptions {
  key: Record<string, unknown>;
  array: string[];
  boolean: string[];
}

/** The options of a parser (of the command parsed last): getOptions() is public in yargs but not typed. */
function parserOptions(parser: Argv<unknown>): ParserOptions {
  return (parser as unknown as { getOptions(): ParserOptions }).getOptions();
}

function knownOptions(parser: Argv<unknown>): string[] {
  return Object.keys(parserOptions(parser).key);
}

/**
 * An option of one value given twice (`--out a.json --out b.json`): yargs makes it a list,
 * which no command takes for its value, so one of them would be dropped in silence (no plan
 * saved, and exit 0). Refused instead, naming both.
 */
function checkRepeatedOptions(args: Record<string, unknown>, options: ParserOptions): void {
  const repeated = Object.keys(options.key).find(
    (key) => key.length > 1 && !/[A-Z]/.test(key) && !options.array.includes(key) && Array.isArray(args[key]),
  );
  if (repeated === undefined) return;
  const values = (args[repeated] as unknown[]).map(String).join(', ');
  throw new UsageError(`--${repeated} is given more than once (${values})`, `give --${repeated} once`);
}

/**
 * A flag given more than once (`--no-color --color`): yargs takes the last in silence, so one
 * of them, perhaps a pipeline's, would be dropped. Refused as a repeated option is, naming each
 * as typed, up to the `--` that ends the options.
 */
function checkRepeatedFlags(argv: string[], options: ParserOptions): void {
  const typed = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  for (const flag of options.boolean.filter((key) => key.length > 1 && !/[A-Z]/.test(key))) {
    const given = typed.filter((arg) => [`--${flag}`, `--no-${flag}`].includes(arg.split('=')[0] ?? arg));
    if (given.length < 2) continue;
    const forms = new Set(given).size > 1 ? `--${flag} or --no-${flag}` : `--${flag}`;
    throw new UsageError(`--${flag} is given more than once (${given.join(', ')})`, `give ${forms} once`);
  }
}

const GLOBAL_OPTIONS = [
  'emulator',
  'concurrency',
  'max-concurrency',
  'requests-per-second',
  'color',
  'verbose',
  'debug',
  'help',
  'version',
];

/** A command's --help: its own options first, then the global ones, examples, and the environment it reads. */
function withHelp(command: CommandDefinition, argv: Argv): Argv {
  const known = knownOptions(argv);
  const positionals = [...command.name.matchAll(/[<[](\w+)/g)].map((match) => match[1]);
  const own = known.filter(
    (key) => ![...GLOBAL_OPTIONS, ...positionals].includes(key) && !/[A-Z]/.test(key) && key.length > 1 && key !== '$0',
  );
  const grouped = argv.group(own, 'Options:').group(GLOBAL_OPTIONS, 'Global options:');
  const helped = command.examples.reduce((parser, [line, description]) => parser.example(line, description), grouped);
  if (command.environment.length === 0) return helped;
  const width = Math.max(...command.environment.map((name) => name.length));
  return helped.epilogue(
    ['Environment:', ...command.environment.map((name) => `  ${name.padEnd(width)}  ${ENVIRONMENT[name]}`)].join('\n'),
  );
}

function checkGlobalOptions(args: GlobalOptions): void {
  if (!Number.isInteger(args.concurrency) || args.concurrency < 1) {
    throw new UsageError(
      '--concurrency takes a whole number of at least 1',
      'e.g. --concurrency 8 (the default); fewer when the service often answers 429',
    );
  }
  const overall = args.maxConcurrency;
  if (overall !== undefined && !(Number.isInteger(overall) && overall >= 1)) {
    throw new UsageError(
      '--max-concurrency takes a whole number of at least 1',
      `e.g. --max-concurrency ${DEFAULT_MAX_CONCURRENCY} (the default): the requests in flight of all accounts together`,
    );
  }
  const rate = args.requestsPerSecond;
  if (rate !== undefined && !(rate >= REQUESTS_PER_SECOND.min && rate <= REQUESTS_PER_SECOND.max)) {
    throw new UsageError(
      `--requests-per-second takes a number from ${REQUESTS_PER_SECOND.min} to ${REQUESTS_PER_SECOND.max}${Number.isNaN(rate) ? '' : `, not ${rate}`}`,
      `e.g. --requests-per-second 10 (${REQUESTS_PER_SECOND.min}: a request every ${1 / REQUESTS_PER_SECOND.min} s), or leave it out for no pacing`,
    );
  }
}

/** A usage error of yargs in the words of the tool's own: what was typed, and the nearest thing that exists. */
async function inOurWords(error: UsageError, argv: string[], parser: Argv<GlobalOptions>): Promise<UsageError> {
  if (UNKNOWN_ARGUMENTS.test(error.message)) return unknownOptions(error, argv, knownOptions(parser));
  if (UNKNOWN_COMMAND.test(error.message)) return unknownCommand(error);
  if (INVALID_VALUES.test(error.message)) return (await invalidChoices(error)) ?? error;
  return error;
}

const UNKNOWN_ARGUMENTS = /^Unknown arguments?: /;
const UNKNOWN_COMMAND = /^Unknown commands?: /;
const INVALID_VALUES = /^Invalid values:\n/;

/**
 * yargs names an unknown option twice (`auto-aprove, autoAprove`) and suggests nothing: name
 * each once, as typed, with the nearest known option.
 */
async function unknownOptions(error: UsageError, argv: string[], known: string[]): Promise<UsageError> {
  const names = error.message.replace(UNKNOWN_ARGUMENTS, '').split(', ');
  const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const typed = names.filter((name) => !(/[A-Z]/.test(name) && names.includes(kebab(name))));
  const asTyped = (name: string) =>
    argv
      .map((arg) => arg.split('=')[0] ?? arg)
      .find((arg) => [`--${name}`, `--no-${name}`, `-${name}`].includes(arg)) ?? name;
  const shown = typed.map(asTyped);
  const { suggest } = await import('../config/suggest.js');
  const options = known.filter((name) => name.length > 1 && !/[A-Z]/.test(name));
  const nearest = typed
    .map((name, index) => {
      const match = suggest(name, options);
      return match === undefined ? undefined : `${shown[index]?.startsWith('--no-') ? '--no-' : '--'}${match}`;
    })
    .find((match) => match !== undefined);
  return new UsageError(
    `unknown ${shown.length === 1 ? 'argument' : 'arguments'} ${shown.join(', ')}`,
    nearest === undefined ? error.hint : `did you mean ${nearest}? (run \`audiences --help\` for the options)`,
  );
}

/** `audiences plna`: the command typed, and the one it most likely meant. */
async function unknownCommand(error: UsageError): Promise<UsageError> {
  const typed = error.message.replace(UNKNOWN_COMMAND, '');
  const { suggest } = await import('../config/suggest.js');
  const nearest = suggest(
    typed,
    commands.map((command) => command.name.split(' ')[0] ?? command.name),
  );
  return new UsageError(
    `unknown command ${typed}`,
    nearest === undefined
      ? 'run `audiences --help` for the commands'
      : `did you mean \`audiences ${nearest}\`? (run \`audiences --help\` for the commands)`,
  );
}

/**
 * yargs says a value outside an option's choices over several lines (`Invalid values:`, then
 * `Argument: format, Given: "yaml", Choices: "text", …` for each), which an error line would
 * show as one with its line breaks written out: said on one line instead, with the nearest choice.
 */
async function invalidChoices(error: UsageError): Promise<UsageError | undefined> {
  const { suggest } = await import('../config/suggest.js');
  const said: Array<{ message: string; hint: string }> = [];
  for (const line of error.message.split('\n').slice(1)) {
    const [, option, given = '', allowed = ''] = /^\s*Argument: (.+?), Given: (.*), Choices: (.*)$/.exec(line) ?? [];
    // yargs writes each value as JSON; anything else is a message of another form, left as it is.
    const values = jsonList(given);
    const choices = jsonList(allowed)?.map(String);
    if (option === undefined || values === undefined || choices === undefined || choices.length === 0) return undefined;
    const nearest = values.length === 1 && typeof values[0] === 'string' ? suggest(values[0], choices) : undefined;
    const list = choices.length > 1 ? `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}` : choices[0];
    // A number option given a word is NaN to yargs (null here): said without it.
    const not = values.every((value) => typeof value === 'string' || typeof value === 'number') ? `, not ${given}` : '';
    said.push({
      message: `--${option} takes ${list}${not}`,
      hint: nearest === undefined ? `e.g. --${option} ${choices[0]}` : `did you mean --${option} ${nearest}?`,
    });
  }
  if (said.length === 0) return undefined;
  return new UsageError(said.map((line) => line.message).join('; '), said.map((line) => line.hint).join('; '));
}

function jsonList(text: string): unknown[] | undefined {
  try {
    const list: unknown = JSON.parse(`[${text}]`);
    return Array.isArray(list) ? list : undefined;
  } catch {
    return undefined;
  }
}
