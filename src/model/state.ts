import type { AudienceDefinition, DefinitionField } from './audience.js';
import type { DesiredBusiness } from './business.js';
import type { Company } from './company.js';
import type { Long } from './long.js';
import type { DesiredImage, ImageState } from './images.js';
import type { Merged } from './kinds.js';

/**
 * One audience as the user declared it. Its definition is whole: a field the file leaves out
 * is its empty value, and every field takes part in the plan.
 */
export interface DesiredAudience {
  /** Our identity: the name, unique in the file. */
  key: string;
  /** The service's id, when the file pins it (a pinned id with a new name is a rename). */
  id?: Long;
  /** The names the audience had before (`renamedFrom`): the live audience of one of them is this one, renamed. */
  renamedFrom: string[];
  /** The whole definition, shorthands expanded (`ages: [20]` implies `ageType: NOT_ALL`), sent as written. */
  definition: AudienceDefinition;
  /**
   * The criteria the file says nothing of (so they are empty; region depths count as one): a plan that empties one says
   * so.
   */
  omitted: DefinitionField[];
  /** The exact set of ad groups allowed to use the audience, when declared. */
  adGroups?: Long[];
  /** No ad group is ever unlinked from it (`protect: true`; declared, it is never deleted). */
  protect: boolean;
}

export interface DesiredState {
  adAccountId: number;
  /** The other files of the same ad account, as the file names them (relative to its folder), when it names any. */
  accountFiles?: string[];
  /** Delete live audiences that are not declared (except `ignore` matches). */
  prune: boolean;
  /**
   * Remove locked images the file no longer declares (with their files). Apart from `prune`: an edit of the images
   * never deletes an audience.
   */
  pruneImages: boolean;
  /** The account's quota (`requestsPerSecond`): its requests to the audience service are spaced to it, when set. */
  requestsPerSecond?: number;
  /** The mass-delete guard of this account, as far as the file sets it (the rest: DEFAULT_MASS_DELETE). */
  massDelete?: { ratio?: number; minManaged?: number };
  /** Name globs never touched, even with prune. */
  ignore: string[];
  /** Name globs of live audiences never deleted or unlinked, declared or not (a plan that would is refused). */
  protect: string[];
  audiences: DesiredAudience[];
  /** The account's business, checked before any change, when the file declares one. */
  business?: DesiredBusiness;
  /** Generated images, when the file declares `images:`. */
  images?: DesiredImage[];
  /** Where the state came from, and a hash of its content for saved plans. */
  source: { files: string[]; hash: string };
}

/** An audience as the list operation returns it. */
export interface LiveAudienceSummary {
  id: Long;
  name: string;
  /** One of AUDIENCE_STATUSES, or whatever else the service answers (only shown and warned about). */
  audienceStatus: string;
  /** As the list answers it: the plan takes the type from the single read, whose schema checks it. */
  type: string;
  createdDate: string;
  lastModifiedDate: string;
}

/** An audience with its full definition, from the single read. */
export interface LiveAudience extends LiveAudienceSummary {
  populationScore: number | null;
  definition: AudienceDefinition;
  /**
   * The fields of the answer the tool does not model (one the spec does not list, one the
   * service adds later), as read: never compared, and sent back as read by every update, since
   * the service replaces the whole definition and would otherwise lose them.
   */
  unmodelled: UnmodelledFields;
}

/**
 * Fields of an answer the tool does not model, each as its JSON text exactly as answered (every digit of its numbers
 * kept).
 */
export type UnmodelledFields = Record<string, string>;

/** An ad group that uses an audience, with its campaign. */
export interface AdGroupLink {
  adGroupId: Long;
  adGroupName: string;
  adGroupType: string;
  adGroupStatus: string[];
  campaignId: Long;
  campaignName: string;
  campaignType: string;
  campaignGoal: string;
}

/**
 * What the tool read of the account: every audience of the list, the full definition of
 * those it read one by one, and the ad groups of those whose links it read; each kind's part
 * (LiveParts) beside the ad account.
 */
export type LiveState = { adAccountId: number } & Merged<LiveParts>;

/** Each kind's part of the live state, by kind (see KINDS): what it reads to plan. */
export interface LiveParts {
  business: {
    /** The business the lookup found for the declared number (null: none), when the file declares one. */
    business?: Company | null;
  };
  adGroupLink: {
    /** Ad groups using an audience, by audience id, for the audiences whose links were read. */
    links: Record<string, AdGroupLink[]>;
  };
  audience: LiveAudiences;
  image: {
    /** The local images and their lock, when the file declares images or a lock exists. */
    images?: ImageState;
  };
}

/** The audience kind's part of the live state. */
export interface LiveAudiences {
  audiences: LiveAudienceSummary[];
  /** Full reads, by audience id (as a string key: plain JSON). */
  details: Record<string, LiveAudience>;
  /**
   * Audiences whose full read had a field the plan needs in a shape it cannot use, by id:
   * what was wrong. They are planned as errors; the other audiences are planned as usual.
   */
  unreadable?: Record<string, string>;
  /**
   * Audiences the list named that were gone when read (the read or their ad groups answered the
   * service's 404, and a second list no longer had them): deleted meanwhile, so they are not in
   * `audiences`, and the plan says so.
   */
  gone?: LiveAudienceSummary[];
}

/** The business-board campaign type: it must not target the overseas province (rule 6). */
export const BUSINESS_BOARD_CAMPAIGN_TYPE = 'TALK_BIZ_BOARD';
/** Friend-group targeting needs a messaging-channel reach campaign (rule 7). */
export function isMessagingChannelReach(link: Pick<AdGroupLink, 'campaignType' | 'campaignGoal'>): boolean {
  return link.campaignType === 'TALK_CHANNEL' && link.campaignGoal === 'REACH';
}
