import { quoted } from '../../model/index.js';
import type { AdGroupRef } from '../../plan/index.js';
import type { KindRenderer } from '../kind.js';

/** Ad-group links: an unlink shows the ad group it releases and why. */
export const adGroupLinkRenderer: KindRenderer<'adGroupLink'> = {
  actions: { unlink: { summary: 'to unlink', always: true, destroys: 'unlinks' } },
  noun: 'ad group',
  block: (change) => ({
    symbol: '-',
    title: `unlink ad group ${change.adGroupId} from audience ${quoted(change.name)} (id ${change.id})`,
    lines: [
      { kind: 'field', label: 'ad group', text: adGroupDetail(change.before) },
      {
        kind: 'field',
        label: 'reason',
        text: change.display.reason === 'audience-deleted' ? 'the audience is deleted' : 'not in the declared adGroups',
      },
    ],
  }),
  describe: (result, name) => `unlink ad group ${result.adGroupId} from audience ${name} (id ${result.id})`,
};

export function adGroupText(ref: AdGroupRef): string {
  return `ad group ${ref.adGroupId} ${adGroupDetail(ref)}`;
}

/** An ad group's name, status and campaign (its id is in the title when this stands alone). */
function adGroupDetail(ref: AdGroupRef): string {
  const status = ref.adGroupStatus.length > 0 ? ` [${ref.adGroupStatus.join(', ')}]` : '';
  return `${quoted(ref.adGroupName)}${status} in campaign ${ref.campaignId} ${quoted(ref.campaignName)}`;
}
