import type { AudienceDefinition, Company, ImageRequest, JsonValue, LockedImage } from '../model/index.js';

/**
 * The plan: plain JSON data (schemas/plan.schema.json). The applier reads `action`, `kind`,
 * `id`, `adGroupId` and `after`; everything under `display` is only for people.
 */
export interface Plan {
  formatVersion: 1;
  adAccountId: number;
  changes: Change[];
  warnings: PlanProblem[];
  /** Problems that make the plan unsafe to apply: a plan with errors is never applied or saved. */
  errors: PlanProblem[];
  summary: PlanSummary;
  fingerprint: Fingerprint;
  /** The account's business as the lookup found it, when the file declares one (for people: the plan's header). */
  business?: PlanBusiness;
  /** Where image paths start: the desired-state file's folder, relative to where the plan was made. Present when images are planned. */
  imageDir?: string;
}

export interface PlanBusiness {
  registrationNumber: string;
  /** Null when no business is registered under the number (the plan then has an error). */
  company: Company | null;
}

export type Change = AudienceCreate | AudienceUpdate | AudienceDelete | AdGroupUnlink | ImageGenerate | ImageRemove;
export type ChangeAction = Change['action'];

export interface AudienceCreate {
  action: 'create';
  kind: 'audience';
  name: string;
  id: null;
  before: null;
  after: AudienceDefinition;
}

export interface AudienceUpdate {
  action: 'update';
  kind: 'audience';
  name: string;
  id: number;
  /** The live definition, and the desired one: the whole definition the update sends, as the file writes it. */
  before: AudienceDefinition;
  after: AudienceDefinition;
  display: { fields: FieldChange[]; impact: AdGroupRef[] };
}

export interface AudienceDelete {
  action: 'delete';
  kind: 'audience';
  name: string;
  id: number;
  /** The whole live definition deleted: what a reviewer sees go, and what restores it. */
  before: AudienceDefinition;
  after: null;
  display: { impact: AdGroupRef[] };
}

export interface AdGroupUnlink {
  action: 'unlink';
  kind: 'adGroupLink';
  /** The audience's name and id; the ad group released from it. */
  name: string;
  id: number;
  adGroupId: number;
  before: AdGroupRef;
  after: null;
  display: { reason: 'audience-deleted' | 'not-declared' };
}

/** Why an image is generated: it is new, its request changed, an input is regenerated first, or a file is missing or altered. */
export type ImageGenerateReason = 'new' | 'request-changed' | 'input-regenerated' | 'output-missing' | 'output-altered';

/**
 * Generate one image set. `after` is everything the applier sends and writes, without
 * bytes: the request (inputs by path or source image, with their hashes; null where the
 * source is generated first), the seeds to send (the locked ones, so a lost file comes back
 * identical; null lets the service choose) and the files to write, relative to `imageDir`.
 */
export interface ImageGenerate {
  action: 'generate';
  kind: 'image';
  name: string;
  id: null;
  before: LockedImage | null;
  after: { request: ImageRequest; seeds: number[] | null; outputs: string[] };
  display: { reason: ImageGenerateReason; fields: FieldChange[] };
}

/** Remove an image set dropped from the file (with prune): its files and its lock entry. */
export interface ImageRemove {
  action: 'remove';
  kind: 'image';
  name: string;
  id: null;
  before: LockedImage;
  after: null;
}

/** One field of an update: its value before and after, and for sets the members added and removed. */
export interface FieldChange {
  field: string;
  before: JsonValue;
  after: JsonValue;
  added?: JsonValue[];
  removed?: JsonValue[];
}

/** An ad group that uses an audience, with its campaign: what a change touches. */
export interface AdGroupRef {
  adGroupId: number;
  adGroupName: string;
  adGroupStatus: string[];
  campaignId: number;
  campaignName: string;
}

export type ProblemCode =
  | 'LINK_MISSING'
  | 'AUDIENCE_STATUS'
  | 'DUPLICATE_LIVE_NAME'
  | 'PINNED_ID_NOT_FOUND'
  | 'PINNED_ID_IGNORED'
  | 'PROTECTED'
  | 'MASS_DELETE'
  | 'CAMPAIGN_RULE'
  | 'OMITTED_FIELDS'
  | 'LIVE_UNREADABLE'
  | 'BUSINESS_NOT_FOUND'
  | 'BUSINESS_MISMATCH'
  | 'IMAGE_INPUT'
  | 'IMAGE_PATH'
  | 'IMAGE_LOCK';

export interface PlanProblem {
  code: ProblemCode;
  message: string;
  /** The audience or image it concerns, when it concerns one. */
  name?: string;
  hint?: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  unlink: number;
  generate: number;
  remove: number;
}

/**
 * What the plan was made from, so that applying it later can refuse a stale picture: the
 * desired file's hash and, for every live audience the plan read or touches, its
 * modification date and links; with prune, every id of the account.
 */
export interface Fingerprint {
  desiredHash: string;
  audiences: Array<{ id: number; lastModifiedDate: string; adGroupIds: number[] | null }>;
  accountAudienceIds: number[] | null;
  /** With images: the lock file's hash and every image file the plan read, as it was (null: absent). */
  images?: { lockHash: string | null; files: Array<{ path: string; sha256: string | null }> };
}
