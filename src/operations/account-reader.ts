import type { AdGroupLink, LiveAudience, LiveAudienceSummary, Long } from '../model/index.js';

/** What planning reads of an ad account: the list, single reads and ad-group lists. */
export interface AccountReader {
  list(): Promise<LiveAudienceSummary[]>;
  read(id: Long): Promise<LiveAudience>;
  adGroups(id: Long): Promise<AdGroupLink[]>;
}
