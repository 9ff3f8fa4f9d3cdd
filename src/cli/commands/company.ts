import { fileOption, UsageError, type CommandDefinition } from '../command.js';
import { withServices } from '../services.js';

/**
 * `audiences company BIZNUM`: the business registered under a number. The number is checked
 * offline first; the ad account (which the service wants with each lookup) defaults to the
 * desired-state file's `adAccountId`.
 */
export const companyCommand: CommandDefinition = {
  name: 'company <bizNum>',
  describe: 'Look up the business registered under a registration number (XXX-XX-XXXXX)',
  examples: [['$0 company 120-81-47521 --ad-account 1234', 'the business registered under that number']],
  environment: ['ADS_COMPANY_URL', 'ADS_COMPANY_PATH', 'ADS_API_URL', 'ADS_ACCESS_TOKEN'],
  builder: (argv) =>
    argv
      .positional('bizNum', { type: 'string', describe: 'The business registration number, e.g. 120-81-47521' })
      .option('ad-account', {
        type: 'number',
        requiresArg: true,
        describe: "The ad account to look it up for (default: the file's adAccountId)",
      })
      .option('file', {
        alias: 'f',
        type: 'string',
        requiresArg: true,
        describe: 'The desired-state file that names the ad account (default: audiences.yaml)',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print the business as JSON' }),
  run: async (args, io) => {
    const bizNum = String(args['bizNum']);
    const explicit = args['adAccount'] === undefined ? undefined : Number(args['adAccount']);
    if (explicit !== undefined && (!Number.isSafeInteger(explicit) || explicit <= 0)) {
      throw new UsageError(
        '--ad-account takes one positive whole number',
        "e.g. --ad-account 1234, or leave it out to use the file's adAccountId",
      );
    }
    const [{ checkBizNum, lookupCompany, resolveAdAccount }, { renderCompany }] = await Promise.all([
      import('../../operations/company.js'),
      import('../../render/index.js'),
    ]);
    // Offline first: a mistyped number needs neither a service nor an ad account.
    checkBizNum(bizNum);
    const file = fileOption(args, 'file', '-f', 'audiences company 120-81-47521 -f audiences.yaml') ?? 'audiences.yaml';
    const adAccountId = await resolveAdAccount(explicit, file, io.cwd);
    const company = await withServices(args, io, (services) => lookupCompany(bizNum, services.business(adAccountId)));
    io.stdout(args['json'] === true ? `${JSON.stringify(company, null, 2)}\n` : renderCompany(company));
    return 0;
  },
};
