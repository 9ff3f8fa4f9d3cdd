import { fileOption, UsageError, type CommandDefinition } from '../command.js';
import { parseNameGlob, visible } from '../../model/index.js';
import { withServices } from '../services.js';

/** `audiences import`: the live audiences of an account as a desired-state file that plans to no changes. */
export const importCommand: CommandDefinition = {
  name: 'import',
  describe: 'Write the live audiences of an ad account as an audiences file',
  examples: [
    ['$0 import --ad-account 1234 --out audiences.yaml', 'start a file from what the account holds'],
    ["$0 import --ad-account 1234 --name 'seoul-*'", 'only the audiences whose name matches'],
  ],
  environment: ['ADS_API_URL', 'ADS_ACCESS_TOKEN'],
  builder: (argv) =>
    argv
      .option('ad-account', {
        type: 'number',
        demandOption: true,
        requiresArg: true,
        describe: 'The ad account to import',
      })
      .option('out', {
        alias: 'o',
        type: 'string',
        requiresArg: true,
        describe: 'Write to this file (default: standard output)',
      })
      .option('force', { type: 'boolean', default: false, describe: 'Overwrite the --out file if it exists' })
      .option('name', {
        type: 'string',
        array: true,
        requiresArg: true,
        describe: 'Only audiences whose name matches this glob (repeatable)',
      }),
  run: async (args, io) => {
    const adAccountId = Number(args['adAccount']);
    if (!Number.isSafeInteger(adAccountId) || adAccountId <= 0)
      throw new UsageError(
        '--ad-account takes one positive whole number',
        'e.g. --ad-account 1234, the id the ad manager shows',
      );
    const out = fileOption(args, 'out', '-o', 'audiences import --ad-account 1234 -o audiences.yaml');
    const names = Array.isArray(args['name']) ? args['name'].map(String) : [];
    for (const name of names) {
      const glob = parseNameGlob(name);
      if (!glob.ok)
        throw new UsageError(
          `--name ${JSON.stringify(name)} is not a name glob: ${glob.problem}`,
          glob.suggestion === name ? glob.hint : `${glob.hint} (${glob.suggestion})`,
        );
    }
    const { importAccount } = await import('../../operations/import.js');
    const result = await withServices(args, io, (services) =>
      importAccount(
        { adAccountId, out, force: args['force'] === true, names },
        services.audiences(adAccountId),
        io.cwd,
      ),
    );
    if (out)
      io.stderr(
        `Imported ${result.imported} audience${result.imported === 1 ? '' : 's'} of ad account ${adAccountId} into ${out}.\n`,
      );
    else io.stdout(result.text);
    for (const { audience, reason } of result.skipped) {
      io.stderr(
        `warning: ${visible(JSON.stringify(audience.name))} (id ${audience.id}) was not imported: ${visible(reason)}\n`,
      );
    }
    for (const { audience, fields } of result.unwritten) {
      io.stderr(
        `warning: ${visible(JSON.stringify(audience.name))} (id ${audience.id}) has fields a file cannot hold (${visible(fields.join(', '))}): imported without them, and every update keeps them as the service has them\n`,
      );
    }
    return 0;
  },
};
