import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { withoutHelpCache } from './main.js';

/** A parser with one command, and how many times it has rendered its help. */
function parserCountingHelp() {
  const parser = yargs([])
    .command('go', 'a command', (argv) => argv.option('speed', { type: 'number', describe: 'how fast' }))
    .exitProcess(false);
  const usage = (
    parser as unknown as { getInternalMethods(): { getUsageInstance(): { help(...args: unknown[]): string } } }
  )
    .getInternalMethods()
    .getUsageInstance();
  const counted = { renders: 0 };
  const help = usage.help.bind(usage);
  usage.help = (...args) => {
    counted.renders += 1;
    return help(...args);
  };
  return { parser, counted };
}

describe('withoutHelpCache', () => {
  it("stops yargs from rendering a command's help after parsing it, and leaves --help alone", async () => {
    const plain = parserCountingHelp();
    await plain.parser.parseAsync(['go', '--speed', '2']);
    expect(plain.counted.renders).toBe(1);

    const quick = parserCountingHelp();
    withoutHelpCache(quick.parser);
    expect((await quick.parser.parseAsync(['go', '--speed', '2']))['speed']).toBe(2);
    expect(quick.counted.renders).toBe(0);
    let shown = '';
    await quick.parser.parseAsync(['go', '--help'], {}, (_error, _argv, output) => {
      shown = output;
    });
    expect(shown).toContain('how fast');
  });
});
