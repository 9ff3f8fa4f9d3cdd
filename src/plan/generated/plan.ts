// Generated from schemas/plan.schema.json by npm run generate. Do not edit.

import type * as Model from '../../model/index.js';

// schemas/plan.schema.json

export type Change = (AudienceCreate | AudienceUpdate | AudienceDelete | AdGroupUnlink | ImageGenerate | ImageMove | ImageRemove)

export type AudienceDefinition = Model.AudienceDefinition

/**
 * For people only, present only with `plan --base REF`: the files at the base would make this same change too, so it reverts a change made outside the tool (in the ad manager), not an edit of the change under review.
 */
export type Drift = true

/**
 * For people only, present only when the plan's ad account is declared in several files: the file that declares what the change makes (a delete that prune makes, and its unlinks, come from no one file and have none).
 */
export type File = string

/**
 * An id of the service (a Long), as its decimal digits: exact past 2^53, where a JSON number read by JavaScript is not.
 */
export type Long = Model.Long

/**
 * The fields of a live audience the file cannot hold (one the spec does not list, one the service adds later), each as its JSON text exactly as the service answered it: an update sends them back as read (the service replaces the whole definition), a delete shows them going.
 */
export type Kept = Model.UnmodelledFields

/**
 * The whole live definition deleted: what a reviewer sees go, and what restores it.
 */
export type AudienceDefinition1 = Model.AudienceDefinition

/**
 * An image set as images.lock.json records it.
 */
export type LockedImage = Model.LockedImage

/**
 * An image-generation request without bytes: the parameters in the API's names, and the inputs by path or source image with the SHA-256 of their content (null: generated first).
 */
export type ImageRequest = Model.ImageRequest

export type ImageGenerateReason = ("new" | "request-changed" | "input-regenerated" | "output-missing" | "output-altered")

export type ProblemCode = ("LINK_MISSING" | "AUDIENCE_STATUS" | "DUPLICATE_LIVE_NAME" | "NAME_SPELLING" | "PINNED_ID_DELETED" | "PINNED_ID_IGNORED" | "RENAME_AMBIGUOUS" | "RENAMED_FROM_UNUSED" | "LOOKS_LIKE_RENAME" | "PROTECTED" | "MASS_DELETE" | "MASS_DELETE_LOOSENED" | "BASE_NOT_PLANNED" | "TARGET_UNMATCHED" | "CAMPAIGN_RULE" | "OMITTED_FIELDS" | "LIVE_UNREADABLE" | "AUDIENCE_GONE" | "BUSINESS_NOT_FOUND" | "BUSINESS_MISMATCH" | "IMAGE_INPUT" | "IMAGE_PATH" | "IMAGE_LOCK" | "IMAGE_LEFT_ALONE" | "IMAGE_FILE_IN_THE_WAY")

export type Company = Model.Company

export type ServiceCheckWhat = ("districtCode" | "townCode" | "interestCode" | "businessTypeCode" | "memberId" | "eventCode")

export type ImagePreviewStatus = ("new" | "changed" | "removed")

export type ScopeKind = ("audience" | "adGroupLink" | "image")

/**
 * A plan made by `audiences plan` (`--format json`, `--out`): plain data that `audiences apply` executes.
 */
export interface Plan {
  /**
   * 2: ids are text (a Long with every digit). A plan of version 1 (ids as numbers) is still read.
   */
  formatVersion: 2
  adAccountId: number
  changes: Change[]
  warnings: PlanProblem[]
  /**
   * Problems that make the plan unsafe: a plan with errors is never saved or applied.
   */
  errors: PlanProblem[]
  summary: PlanSummary
  fingerprint: Fingerprint
  business?: PlanBusiness
  /**
   * Where the image paths of the plan start: the desired-state file's folder, relative to the folder the plan was made in.
   */
  imageDir?: string
  /**
   * How a saved plan finds `imageDir` again wherever it is applied: `file`, the desired-state file it was made from, in that folder; `fromPlan` (written by `plan --out`), the folder as seen from the saved plan's own folder. `apply` writes the images and the lock beside `file`, found from the saved plan's folder, else from the folder it is applied in.
   */
  imageHome?: {
    file: string
    fromPlan?: string
  }
  /**
   * For people only: the values the changes send that only the service can check, by audience and field (absent when none). A plan without errors does not promise them.
   */
  serviceChecks?: ServiceCheck[]
  /**
   * For people only, present only with `plan --base REF` when the image lock differs there: the images the change under review adds, changes or removes, as images.lock.json records them at the base (`before`) and in the checkout (`after`). The comment shows them as pictures (`--preview`); generating them again is a change of `changes`, never of this.
   */
  previews?: ImagePreview[]
  /**
   * Present only in a scoped plan (`--target`, `--kind`, `--exclude`): it holds only the changes within `scope`, and plans, deletes and guards nothing outside it. A plan without it covers the whole file and account.
   */
  partial?: true
  scope?: PlanScope
  /**
   * The account's `requestsPerSecond`, as its file sets it (absent when none does): `audiences apply` of this saved plan paces the account's requests to the audience service at it, unless given `--requests-per-second`.
   */
  requestsPerSecond?: number
  estimate?: PlanEstimate
  origin?: PlanOrigin
}

export interface AudienceCreate {
  action: "create"
  kind: "audience"
  name: string
  id: null
  before: null
  after: AudienceDefinition
  drift?: Drift
  file?: File
}

export interface AudienceUpdate {
  action: "update"
  kind: "audience"
  name: string
  id: Long
  before: AudienceDefinition
  after: AudienceDefinition
  kept: Kept
  drift?: Drift
  file?: File
  /**
   * For people only: the fields that change and the ad groups the change touches.
   */
  display: {
    fields: FieldChange[]
    impact: AdGroupRef[]
  }
}

export interface FieldChange {
  field: string
  before: Model.JsonValue
  after: Model.JsonValue
  added?: Model.JsonValue[]
  removed?: Model.JsonValue[]
}

export interface AdGroupRef {
  adGroupId: Long
  adGroupName: string
  adGroupStatus: string[]
  campaignId: Long
  campaignName: string
}

export interface AudienceDelete {
  action: "delete"
  kind: "audience"
  name: string
  id: Long
  before: AudienceDefinition1
  kept: Kept
  after: null
  drift?: Drift
  file?: File
  display: {
    impact: AdGroupRef[]
  }
}

export interface AdGroupUnlink {
  action: "unlink"
  kind: "adGroupLink"
  /**
   * The audience's name.
   */
  name: string
  /**
   * An id of the service (a Long), as its decimal digits: exact past 2^53, where a JSON number read by JavaScript is not.
   */
  id: Model.Long
  adGroupId: Long
  before: AdGroupRef
  after: null
  drift?: Drift
  file?: File
  display: {
    reason: ("audience-deleted" | "not-declared")
  }
}

export interface ImageGenerate {
  action: "generate"
  file?: File
  kind: "image"
  name: string
  id: null
  before: (null | LockedImage)
  after: {
    request: ImageRequest
    /**
     * The seeds to send: the locked ones (a lost file comes back identical) or the pinned ones; null lets the service choose.
     */
    seeds: (number[] | null)
    /**
     * @minItems 1
     */
    outputs: string[]
  }
  display: {
    reason: ImageGenerateReason
    fields: FieldChange[]
  }
}

/**
 * An image whose `output` moved, its request unchanged: its files go to the new paths (copied, or already there) and its lock entry follows; nothing is generated.
 */
export interface ImageMove {
  action: "move"
  file?: File
  kind: "image"
  name: string
  id: null
  before: LockedImage
  after: {
    /**
     * @minItems 1
     */
    outputs: string[]
  }
  /**
   * The files copied to their new path, each from the path the lock records at the same place in `before.outputs`, whose bytes were the locked ones when planned (checked again right before); a new path already holding them is not copied.
   */
  copies: {
    from: string
    to: string
  }[]
  /**
   * The old files it deletes once the new ones and the lock entry are written: with pruneImages, those a removal would delete (in the project, no link, the recorded bytes, not used by a declared image). The others stay, each said in an IMAGE_LEFT_ALONE warning.
   */
  deletes: string[]
}

export interface ImageRemove {
  action: "remove"
  file?: File
  kind: "image"
  name: string
  id: null
  before: LockedImage
  after: null
  /**
   * The files of `before.outputs` it deletes: those that lay in the project, were no link and held the recorded bytes when planned (checked again right before). The others are left alone, each said in an IMAGE_LEFT_ALONE warning.
   */
  deletes: string[]
}

export interface PlanProblem {
  code: ProblemCode
  message: string
  /**
   * The audience or image it concerns.
   */
  name?: string
  hint?: string
}

export interface PlanSummary {
  create: number
  update: number
  delete: number
  unlink: number
  generate: number
  remove: number
  /**
   * Images whose files move to the paths the file now names; present only when there are some.
   */
  move?: number
}

/**
 * What the plan was made from: a later apply refuses the plan when the live account changed since.
 */
export interface Fingerprint {
  desiredHash: string
  audiences: {
    id: Long
    lastModifiedDate: string
    adGroupIds: (Long[] | null)
  }[]
  accountAudienceIds: (Long[] | null)
  /**
   * The image lock's hash and each image file the plan read (sha256, null when absent): a saved plan is stale when any changed.
   */
  images?: {
    lockHash: (string | null)
    files: {
      path: string
      sha256: (string | null)
    }[]
  }
}

/**
 * The account's business as the lookup found it, when the file declares one (for people; a missing or different business is an error of the plan).
 */
export interface PlanBusiness {
  registrationNumber: string
  company: (null | Company)
}

export interface ServiceCheck {
  /**
   * The audience created or updated.
   */
  name: string
  field: string
  what: ServiceCheckWhat
  /**
   * As the plan shows them: a code as itself, a member id as `key=value`. A create's every value; an update's added ones.
   *
   * @minItems 1
   */
  values: string[]
}

export interface ImagePreview {
  name: string
  status: ImagePreviewStatus
  before: (null | LockedImage)
  after: (null | LockedImage)
}

/**
 * What a partial plan covers: the names it targets (none: every name), the kinds (none: every kind) and the names it excludes, as given on the command line.
 */
export interface PlanScope {
  targets: string[]
  kinds: ScopeKind[]
  excludes: string[]
}

/**
 * For people only: the requests `audiences apply` of this saved plan makes when the account did not change since and every request is answered at once (no retry, no lost answer, lists in one answer as the spec shows them), by what they do; with a known rate (`--requests-per-second`, else the file's `requestsPerSecond`), the least time they take. A plan saved by an earlier version has none.
 */
export interface PlanEstimate {
  requests: EstimatedRequests
  total: number
  /**
   * The rate the plan was made with (`--requests-per-second`, else the file's `requestsPerSecond`); absent without one.
   */
  requestsPerSecond?: number
  /**
   * With a rate: the least time the requests take, each service's requests spaced at the rate ((n - 1) / rate for the service with the most); the file's rate paces the audience API's requests alone.
   */
  leastSeconds?: number
}

export interface EstimatedRequests {
  /**
   * Reads that check the plan is not stale (a saved plan, or one approved at the prompt of `apply -f`): the list, each updated audience again, the ad groups of each audience whose links the plan read, the business lookup.
   */
  check: number
  /**
   * One per ad group unlinked.
   */
  unlink: number
  /**
   * One per audience created.
   */
  create: number
  /**
   * One per audience updated.
   */
  update: number
  /**
   * Batch deletes: one per 100 audiences deleted.
   */
  delete: number
  /**
   * One per image generated.
   */
  generate: number
  /**
   * One per file of a generated image answered as a URL (the service's default return_type).
   */
  download: number
  /**
   * Reads after the changes: the list that settles racing creates, the list that checks what was done, the ad groups of each audience unlinked and kept.
   */
  verify: number
}

/**
 * For people only: the files planned, as the command named them, and the commit given with --commit (null without one), so that `show --format markdown` prints the comment the plan printed.
 */
export interface PlanOrigin {
  files: string[]
  commit: (string | null)
  /**
   * The git ref given with --base, whose files the plan was compared with (absent without one).
   */
  base?: string
}
