// Generated from schemas/api by npm run generate. Do not edit.

// schemas/api/audience-api.schema.json

/**
 * Bodies of the audience-management API (spec/audience-api.md and the wire decisions). Answers accept extra fields and the documented quirks; request bodies are strict.
 */
export type AudienceApiBody = (AudienceListResponse | AudienceDetail | AudienceCreateBody | AudienceUpdateBody | AudienceWriteResponse | BatchDeleteResult | AudienceAdGroupListResponse)

/**
 * A Long as answered (an id): a JSON number, read with every digit (past 2^53 it reaches the schema as its digits, see src/api/long-json.ts), or the digits as text.
 */
export type Long = (number | string)

/**
 * A field of a paged answer (Spring's Page: last, first, totalPages, totalElements, number, size, pageable {pageNumber, pageSize}; Spring's PagedModel: page {number, size, totalElements, totalPages}): read by the client, which refuses a page it cannot place, so any value passes here.
 */
export type PageField = unknown

export type AudienceType = ("DISPLAY" | "MESSAGE")

/**
 * ageType and genderType: ALL (everyone) or NOT_ALL (the listed values).
 */
export type SelectionType = ("ALL" | "NOT_ALL")

/**
 * Start of a five-year age band; the wire type is String.
 */
export type AgeBand = ("15" | "20" | "25" | "30" | "35" | "40" | "45" | "50" | "55" | "60" | "65")

export type Gender = ("F" | "M")

/**
 * Request only: ALL (everywhere) or AREA (the listed regions).
 */
export type LocationType = ("ALL" | "AREA")

export type InclusionType = ("INCLUDE" | "EXCLUDE")

/**
 * Pixel and SDK targeting member. As sent in a create or update body: its retention as retentionDays or as trackerTargetingTerms, whichever the file declares. An update sends back what the service added to a member it keeps (its id, trackRuleId, trackRuleName, trackName).
 */
export type TrackerTargetingInput = {
  [k: string]: unknown | undefined
}

/**
 * The list of audiences (operation 1): the spec shows `{content: [...]}`; a service may answer one page of several, as Spring's Page does (see PageFields). A list that is not whole is an error of the client (src/api/whole-list.ts), not of this schema: so `content` may be anything here.
 */
export interface AudienceListResponse {
  /**
   * The audiences; when it is missing, null or not a list, the answer is not a whole list.
   */
  content?: (AudienceListItem[] | null | boolean | number | string | {
  })
  last?: PageField
  first?: PageField
  totalPages?: PageField
  totalElements?: PageField
  number?: PageField
  size?: PageField
  page?: PageField
  pageable?: PageField
}

/**
 * An audience as listed (operation 1).
 */
export interface AudienceListItem {
  id: Long
  name: string
  /**
   * STANDBY, AVAILABLE, SEED_NOT_ENOUGH or ERROR; server-only, so any value is read.
   */
  audienceStatus?: unknown
  /**
   * DISPLAY or MESSAGE; the plan takes the type from the single read.
   */
  type?: unknown
  /**
   * yyyy-MM-ddTHH:mm:ss; only shown, so any value is read.
   */
  createdDate?: unknown
  /**
   * yyyy-MM-ddTHH:mm:ss; only compared for equality (saved plans, the read cache), so any value is read as text.
   */
  lastModifiedDate?: unknown
}

/**
 * An audience as answered by a single read (operation 2): no adAccountId; depth-2 regions in the Location shape, depth-3 in the Depth3Location shape. Sets may be null.
 */
export interface AudienceDetail {
  id: Long
  name: string
  /**
   * STANDBY, AVAILABLE, SEED_NOT_ENOUGH or ERROR; server-only, so any value is read.
   */
  audienceStatus?: unknown
  type: AudienceType
  /**
   * yyyy-MM-ddTHH:mm:ss; only shown, so any value is read.
   */
  createdDate?: unknown
  /**
   * yyyy-MM-ddTHH:mm:ss; only compared for equality (saved plans, the read cache), so any value is read as text.
   */
  lastModifiedDate?: unknown
  /**
   * Estimated size; only shown, so a value that is not a number is read as unknown.
   */
  populationScore?: unknown
  ageType?: SelectionType
  ages?: (AgeBand[] | null)
  genderType?: SelectionType
  genders?: (Gender[] | null)
  locations?: (Location[] | null)
  depth2Locations?: (Location[] | null)
  /**
   * Spelling used by the spec's examples; read when depth2Locations is absent.
   */
  depth2locations?: (Location[] | null)
  depth3Locations?: (Depth3Location[] | null)
  ufoInterests?: (string[] | null)
  ufoBusinessTypes?: (string[] | null)
  customerFileTargetings?: (CustomerFileTargeting[] | null)
  trackerTargetings?: (TrackerTargeting[] | null)
  cohortTargetings?: (CohortTargeting[] | null)
  talkChannelTargetings?: (TalkChannelTargeting[] | null)
  syncAppTargetings?: (SyncAppTargeting[] | null)
  talkChannelGroupTargetings?: (TalkChannelGroupTargeting[] | null)
  lookalikeTargetings?: (LookalikeTargeting[] | null)
}

/**
 * Province-level region as answered (also the shape of some depth-2/3 lists, see AudienceDetail).
 */
export interface Location {
  value: string
  /**
   * Shown only: a value that is not text is left out.
   */
  description?: unknown
  /**
   * Misspelling used by the spec's examples; any other key starting with "desc" is read too.
   */
  descripton?: unknown
  /**
   * Shown only.
   */
  depth1Name?: unknown
}

/**
 * Town/township/neighborhood-level region as answered by a single read.
 */
export interface Depth3Location {
  value: string
  /**
   * Shown only: a value that is not text is left out.
   */
  description?: unknown
  /**
   * Misspelling used by the spec's examples; any other key starting with "desc" is read too.
   */
  descripton?: unknown
  /**
   * Shown only.
   */
  depth1Name?: unknown
  /**
   * Shown only.
   */
  depth2Name?: unknown
  /**
   * Shown only.
   */
  depth3Name?: unknown
}

/**
 * Customer-file targeting member. As answered: only the id is required (a field the answer leaves out is not compared); adds the server-only display name customerFileName.
 */
export interface CustomerFileTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  customerFileId: (number | string)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  customerFileName?: unknown
}

/**
 * Pixel and SDK targeting member. As answered: only the id is required (a field the answer leaves out is not compared). Its retention is retentionDays or, as the real service answers, trackerTargetingTerms (e.g. ["ONE_MONTH"]); the service adds its own id, trackRuleId and trackRuleName and the display name trackName, never compared and sent back as read.
 */
export interface TrackerTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  trackId: (number | string)
  /**
   * Compared as text when answered.
   */
  eventCode?: (string | number | null)
  /**
   * Compared as text when answered.
   */
  retentionDays?: (string | number | null)
  /**
   * The retention as terms (e.g. ["ONE_MONTH"]), compared as a set.
   */
  trackerTargetingTerms?: (string[] | null)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  trackName?: unknown
}

/**
 * Ad-response targeting member. As answered: only the id is required (a field the answer leaves out is not compared); adds the server-only display name cohortName.
 */
export interface CohortTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  cohortId: (number | string)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  cohortName?: unknown
}

/**
 * Messaging-channel friends targeting member. As answered: only the id is required (a field the answer leaves out is not compared); adds the server-only display name profileName.
 */
export interface TalkChannelTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  profileId: (number | string)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  profileName?: unknown
}

/**
 * Login-user targeting member. As answered: only the id is required (a field the answer leaves out is not compared); adds the server-only display name profileName.
 */
export interface SyncAppTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  profileId: (number | string)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  profileName?: unknown
}

/**
 * Friend-group targeting member. As answered: only the id is required (a field the answer leaves out is not compared); adds the server-only display name groupName.
 */
export interface TalkChannelGroupTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  groupId: (number | string)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  groupName?: unknown
}

/**
 * Lookalike targeting member, a field of the service the spec's table leaves out. As answered: only the id is required (a field the answer leaves out is not compared); adds the server-only display name lookalikeName.
 */
export interface LookalikeTargeting {
  /**
   * Opaque: the spec does not show its type; a number or a text, compared as text.
   */
  lookalikeId: (number | string)
  /**
   * INCLUDE or EXCLUDE; compared as text (a list or an object is an answer the tool cannot use).
   */
  inclusionType?: (string | number | null)
  /**
   * Server-only display name, never compared.
   */
  lookalikeName?: unknown
}

/**
 * Body of create (operation 3).
 */
export interface AudienceCreateBody {
  adAccountId: number
  name: string
  type: AudienceType
  ageType: SelectionType
  /**
   * @minItems 1
   */
  ages?: AgeBand[]
  genderType: SelectionType
  /**
   * @minItems 1
   */
  genders?: Gender[]
  ufoInterests?: string[]
  ufoBusinessTypes?: string[]
  locationType: LocationType
  locations?: RegionInput[]
  depth2Locations?: RegionInput[]
  depth3Locations?: RegionInput[]
  customerFileTargetings?: CustomerFileTargetingInput[]
  trackerTargetings?: TrackerTargetingInput[]
  cohortTargetings?: CohortTargetingInput[]
  talkChannelTargetings?: TalkChannelTargetingInput[]
  syncAppTargetings?: SyncAppTargetingInput[]
  talkChannelGroupTargetings?: TalkChannelGroupTargetingInput[]
  lookalikeTargetings?: LookalikeTargetingInput[]
}

/**
 * A region in a create or update body (any depth): only value matters, the service answers with its own names.
 */
export interface RegionInput {
  value: string
  description?: string
  depth1Name?: string
  depth2Name?: string
  depth3Name?: string
}

/**
 * Customer-file targeting member. As sent in a create or update body. An update sends back what the service added to a member it keeps (its display name, say).
 */
export interface CustomerFileTargetingInput {
  /**
   * Opaque: sent as the file writes it, a number or a text.
   */
  customerFileId: (number | string)
  inclusionType: InclusionType
  /**
   * Added by the service: sent back as read for a member an update keeps.
   */
  customerFileName?: unknown
}

/**
 * Ad-response targeting member. As sent in a create or update body. An update sends back what the service added to a member it keeps (its display name, say).
 */
export interface CohortTargetingInput {
  /**
   * Opaque: sent as the file writes it, a number or a text.
   */
  cohortId: (number | string)
  inclusionType: InclusionType
  /**
   * Added by the service: sent back as read for a member an update keeps.
   */
  cohortName?: unknown
}

/**
 * Messaging-channel friends targeting member. As sent in a create or update body. An update sends back what the service added to a member it keeps (its display name, say).
 */
export interface TalkChannelTargetingInput {
  /**
   * Opaque: sent as the file writes it, a number or a text.
   */
  profileId: (number | string)
  inclusionType: InclusionType
  /**
   * Added by the service: sent back as read for a member an update keeps.
   */
  profileName?: unknown
}

/**
 * Login-user targeting member. As sent in a create or update body. An update sends back what the service added to a member it keeps (its display name, say).
 */
export interface SyncAppTargetingInput {
  /**
   * Opaque: sent as the file writes it, a number or a text.
   */
  profileId: (number | string)
  inclusionType: InclusionType
  /**
   * Added by the service: sent back as read for a member an update keeps.
   */
  profileName?: unknown
}

/**
 * Friend-group targeting member. As sent in a create or update body. An update sends back what the service added to a member it keeps (its display name, say).
 */
export interface TalkChannelGroupTargetingInput {
  /**
   * Opaque: sent as the file writes it, a number or a text.
   */
  groupId: (number | string)
  inclusionType: InclusionType
  /**
   * Added by the service: sent back as read for a member an update keeps.
   */
  groupName?: unknown
}

/**
 * Lookalike targeting member. As sent in a create or update body. An update sends back what the service added to a member it keeps (its display name, say).
 */
export interface LookalikeTargetingInput {
  /**
   * Opaque: sent as the file writes it, a number or a text.
   */
  lookalikeId: (number | string)
  inclusionType: InclusionType
  /**
   * Added by the service: sent back as read for a member an update keeps.
   */
  lookalikeName?: unknown
}

/**
 * Body of update (operation 4): the create fields plus id, and the fields of the audience the tool does not model, sent back as read (the service replaces the whole definition).
 */
export interface AudienceUpdateBody {
  id: number
  adAccountId: number
  name: string
  type: AudienceType
  ageType: SelectionType
  /**
   * @minItems 1
   */
  ages?: AgeBand[]
  genderType: SelectionType
  /**
   * @minItems 1
   */
  genders?: Gender[]
  ufoInterests?: string[]
  ufoBusinessTypes?: string[]
  locationType: LocationType
  locations?: RegionInput[]
  depth2Locations?: RegionInput[]
  depth3Locations?: RegionInput[]
  customerFileTargetings?: CustomerFileTargetingInput[]
  trackerTargetings?: TrackerTargetingInput[]
  cohortTargetings?: CohortTargetingInput[]
  talkChannelTargetings?: TalkChannelTargetingInput[]
  syncAppTargetings?: SyncAppTargetingInput[]
  talkChannelGroupTargetings?: TalkChannelGroupTargetingInput[]
  lookalikeTargetings?: LookalikeTargetingInput[]
}

/**
 * An audience as answered by create and update (operations 3 and 4): the single-read fields plus adAccountId; depth-2 regions typed Depth2Location, depth-3 typed Location.
 */
export interface AudienceWriteResponse {
  id: Long
  name: string
  /**
   * STANDBY, AVAILABLE, SEED_NOT_ENOUGH or ERROR; server-only, so any value is read.
   */
  audienceStatus?: unknown
  type: AudienceType
  /**
   * yyyy-MM-ddTHH:mm:ss; only shown, so any value is read.
   */
  createdDate?: unknown
  /**
   * yyyy-MM-ddTHH:mm:ss; only compared for equality (saved plans, the read cache), so any value is read as text.
   */
  lastModifiedDate?: unknown
  /**
   * Estimated size; only shown, so a value that is not a number is read as unknown.
   */
  populationScore?: unknown
  ageType?: SelectionType
  ages?: (AgeBand[] | null)
  genderType?: SelectionType
  genders?: (Gender[] | null)
  locations?: (Location[] | null)
  depth2Locations?: (Depth2Location[] | null)
  /**
   * Spelling used by the spec's examples; read when depth2Locations is absent.
   */
  depth2locations?: (Depth2Location[] | null)
  depth3Locations?: (Location[] | null)
  ufoInterests?: (string[] | null)
  ufoBusinessTypes?: (string[] | null)
  customerFileTargetings?: (CustomerFileTargeting[] | null)
  trackerTargetings?: (TrackerTargeting[] | null)
  cohortTargetings?: (CohortTargeting[] | null)
  talkChannelTargetings?: (TalkChannelTargeting[] | null)
  syncAppTargetings?: (SyncAppTargeting[] | null)
  talkChannelGroupTargetings?: (TalkChannelGroupTargeting[] | null)
  lookalikeTargetings?: (LookalikeTargeting[] | null)
  /**
   * Not used by the client.
   */
  adAccountId?: unknown
}

/**
 * City/county/district-level region as answered by create and update.
 */
export interface Depth2Location {
  value: string
  /**
   * Shown only: a value that is not text is left out.
   */
  description?: unknown
  /**
   * Misspelling used by the spec's examples; any other key starting with "desc" is read too.
   */
  descripton?: unknown
  /**
   * Shown only.
   */
  depth1Name?: unknown
  /**
   * Shown only.
   */
  depth2Name?: unknown
}

/**
 * Answer of the batch delete (operation 6): 200 even when some deletions fail; each message names the audience id first.
 */
export interface BatchDeleteResult {
  successCount: number
  failCount: number
  errorMessages?: (string[] | null)
}

/**
 * The ad groups that use an audience (operation 7), read under the rules of AudienceListResponse.
 */
export interface AudienceAdGroupListResponse {
  /**
   * The ad groups; when it is missing, null or not a list, the answer is not a whole list.
   */
  content?: (AudienceAdGroup[] | null | boolean | number | string | {
  })
  last?: PageField
  first?: PageField
  totalPages?: PageField
  totalElements?: PageField
  number?: PageField
  size?: PageField
  page?: PageField
  pageable?: PageField
}

/**
 * An ad group that uses an audience (operation 7).
 */
export interface AudienceAdGroup {
  campaignId?: Long
  /**
   * Shown only, so any value is read.
   */
  campaignName?: unknown
  campaignTypeGoal?: (CampaignTypeGoal | null)
  adGroupId: Long
  /**
   * Shown only, so any value is read.
   */
  adGroupName?: unknown
  /**
   * Status[]; shown only, so any value is read.
   */
  adGroupStatus?: unknown
  /**
   * DISPLAY or DIRECT_MESSAGE; shown only, so any value is read.
   */
  adGroupType?: unknown
}

export interface CampaignTypeGoal {
  campaignType?: string
  goal?: (string | null)
}

// schemas/api/business-api.schema.json

/**
 * Answer of the business-information lookup (spec/business-api.md): one registered business. Extra fields are accepted.
 */
export interface Company {
  /**
   * A Long: a JSON number, read with every digit (past 2^53 as its digits), or the digits as text.
   */
  id?: (number | string)
  /**
   * Written with separators, e.g. 120-81-47521.
   */
  businessRegistrationNumber: string
  name: string
  representationName?: (string | null)
  businessCategory?: (string | null)
  businessItem?: (string | null)
  address?: (Address | null)
}

/**
 * This interface was referenced by `Company`'s JSON-Schema
 * via the `definition` "Address".
 */
export interface Address {
  zipCode?: (string | null)
  baseAddress?: (string | null)
  detailAddress?: (string | null)
}

// schemas/api/error.schema.json

/**
 * Error body of all three services with a 4xx/5xx status. extras may be missing, null or empty; read tolerantly.
 */
export interface ErrorBody {
  /**
   * The service's error code (negative).
   */
  code?: number
  msg?: (string | null)
  extras?: (ErrorExtras | null)
}

export interface ErrorExtras {
  detailCode?: (number | null)
  detailMsg?: (string | null)
}

// schemas/api/imagegen-api.schema.json

/**
 * Bodies of the image-generation API (spec/imagegen-api.md). The answer accepts extra fields; request bodies are strict.
 */
export type ImagegenApiBody = (TextToImageRequest | VariationsRequest | InpaintingRequest | ImageGenerationResponse)

/**
 * v2.1 (recommended) or v2.0; inpainting accepts only v2.0.
 */
export type ModelVersion = ("v2.1" | "v2.0")

/**
 * English only, at most 2048 characters.
 */
export type Prompt = string

/**
 * Elements to exclude; English only, at most 2048 characters.
 */
export type NegativePrompt = string

/**
 * Pixels, a multiple of 8; v2.1: 768 to 1280, v2.0: 384 to 640 (checked per version).
 */
export type Dimension = number

export type ImageFormat = ("webp" | "jpeg" | "png")

/**
 * url (default; valid for 10 minutes) or base64_string.
 */
export type ReturnType = ("base64_string" | "url")

export type InferenceSteps = number

export type GuidanceScale = number

/**
 * v2.1: decoder_ddpm_v_prediction only; v2.0: either.
 */
export type Scheduler = ("decoder_ddpm_v_prediction" | "decoder_ddim_v_prediction")

/**
 * One seed per image (length equals samples); omitted means random seeds.
 */
export type Seeds = number[]

/**
 * Base64 text of an image file.
 */
export type Base64Image = string

/**
 * Base64 text of an image in which the region to edit is black (value 0).
 */
export type Mask = string

/**
 * Body of POST {image_url}/v2/inference/imagegen/t2i.
 */
export interface TextToImageRequest {
  version: ModelVersion
  prompt: Prompt
  negative_prompt?: NegativePrompt
  width: Dimension
  height: Dimension
  upscale?: boolean
  /**
   * Default 2; the enlarged image is at most 2048 pixels per side.
   */
  scale?: (2 | 4)
  image_format?: ImageFormat
  /**
   * Default 70.
   */
  image_quality?: number
  /**
   * Default 1.
   */
  samples?: number
  return_type?: ReturnType
  prior_num_inference_steps?: InferenceSteps
  prior_guidance_scale?: GuidanceScale
  num_inference_steps?: InferenceSteps
  guidance_scale?: GuidanceScale
  scheduler?: Scheduler
  seed?: Seeds
  nsfw_checker?: boolean
  face_refiner?: FaceRefiner
}

/**
 * Face-shape adjustment; for text to image and variations recommended only with v2.0.
 */
export interface FaceRefiner {
  /**
   * Default 1.
   */
  bbox_size_threshold?: number
  /**
   * Default 1; 0 turns the feature off.
   */
  bbox_filter_threshold?: number
  /**
   * Default 2.
   */
  restoration_repeats?: number
  /**
   * Default 0.5.
   */
  weight_sft?: number
}

/**
 * Body of POST {image_url}/v2/inference/imagegen/variations.
 */
export interface VariationsRequest {
  version: ModelVersion
  image: Base64Image
  width: Dimension
  height: Dimension
  upscale?: boolean
  /**
   * Default 2; the enlarged image is at most 2048 pixels per side.
   */
  scale?: (2 | 4)
  image_format?: ImageFormat
  /**
   * Default 70.
   */
  image_quality?: number
  /**
   * Default 1.
   */
  samples?: number
  return_type?: ReturnType
  num_inference_steps?: InferenceSteps
  guidance_scale?: GuidanceScale
  scheduler?: Scheduler
  seed?: Seeds
  nsfw_checker?: boolean
  face_refiner?: FaceRefiner
}

/**
 * Body of POST {image_url}/v2/inference/imagegen/inpainting (only model v2.0; no width, height or scheduler).
 */
export interface InpaintingRequest {
  /**
   * Only v2.0, the default.
   */
  version?: "v2.0"
  prompt: Prompt
  negative_prompt?: NegativePrompt
  image: Base64Image
  mask: Mask
  reference_image?: Base64Image
  upscale?: boolean
  /**
   * Default 2; the enlarged image is at most 2048 pixels per side.
   */
  scale?: (2 | 4)
  image_format?: ImageFormat
  /**
   * Default 70.
   */
  image_quality?: number
  /**
   * Default 1.
   */
  samples?: number
  return_type?: ReturnType
  prior_num_inference_steps?: InferenceSteps
  prior_guidance_scale?: GuidanceScale
  num_inference_steps?: InferenceSteps
  guidance_scale?: GuidanceScale
  seed?: Seeds
  nsfw_checker?: boolean
  face_refiner?: FaceRefiner
}

/**
 * Answer of all three image operations.
 */
export interface ImageGenerationResponse {
  id: string
  model_version: string
  images: GeneratedImage[]
}

export interface GeneratedImage {
  id: string
  /**
   * Sending it again reproduces the same content.
   */
  seed: number
  /**
   * Base64 of the file, or a URL valid for 10 minutes (per return_type).
   */
  image: string
  nsfw_content_detected?: (boolean | null)
  nsfw_score?: (number | null)
}

/** Every titled schema, by title. */
export interface WireTypes {
  AudienceApiBody: AudienceApiBody;
  Long: Long;
  AudienceType: AudienceType;
  SelectionType: SelectionType;
  LocationType: LocationType;
  AgeBand: AgeBand;
  Gender: Gender;
  InclusionType: InclusionType;
  Location: Location;
  Depth2Location: Depth2Location;
  Depth3Location: Depth3Location;
  RegionInput: RegionInput;
  CustomerFileTargeting: CustomerFileTargeting;
  CustomerFileTargetingInput: CustomerFileTargetingInput;
  TrackerTargeting: TrackerTargeting;
  TrackerTargetingInput: TrackerTargetingInput;
  CohortTargeting: CohortTargeting;
  CohortTargetingInput: CohortTargetingInput;
  TalkChannelTargeting: TalkChannelTargeting;
  TalkChannelTargetingInput: TalkChannelTargetingInput;
  SyncAppTargeting: SyncAppTargeting;
  SyncAppTargetingInput: SyncAppTargetingInput;
  TalkChannelGroupTargeting: TalkChannelGroupTargeting;
  TalkChannelGroupTargetingInput: TalkChannelGroupTargetingInput;
  LookalikeTargeting: LookalikeTargeting;
  LookalikeTargetingInput: LookalikeTargetingInput;
  AudienceListItem: AudienceListItem;
  AudienceListResponse: AudienceListResponse;
  PageField: PageField;
  AudienceDetail: AudienceDetail;
  AudienceWriteResponse: AudienceWriteResponse;
  AudienceCreateBody: AudienceCreateBody;
  AudienceUpdateBody: AudienceUpdateBody;
  BatchDeleteResult: BatchDeleteResult;
  CampaignTypeGoal: CampaignTypeGoal;
  AudienceAdGroup: AudienceAdGroup;
  AudienceAdGroupListResponse: AudienceAdGroupListResponse;
  Company: Company;
  Address: Address;
  ErrorBody: ErrorBody;
  ImagegenApiBody: ImagegenApiBody;
  ModelVersion: ModelVersion;
  Prompt: Prompt;
  NegativePrompt: NegativePrompt;
  Base64Image: Base64Image;
  Mask: Mask;
  Dimension: Dimension;
  ImageFormat: ImageFormat;
  ReturnType: ReturnType;
  Scheduler: Scheduler;
  Seeds: Seeds;
  InferenceSteps: InferenceSteps;
  GuidanceScale: GuidanceScale;
  FaceRefiner: FaceRefiner;
  TextToImageRequest: TextToImageRequest;
  VariationsRequest: VariationsRequest;
  InpaintingRequest: InpaintingRequest;
  GeneratedImage: GeneratedImage;
  ImageGenerationResponse: ImageGenerationResponse;
}
