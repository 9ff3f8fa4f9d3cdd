// Generated from schemas/audiences.schema.json by npm run generate. Do not edit.

// schemas/audiences.schema.json

/**
 * t2i (text to image), variations or inpainting.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "ImageOperation".
 */
export type ImageOperation = ("t2i" | "variations" | "inpainting")

/**
 * An input image (image: the source of variations and inpainting; mask: inpainting's region to redraw, in black; reference_image: inpainting's reference): a file path relative to this file, {file: path}, or {from: name} for the output of another declared image.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "ImageInput".
 */
export type ImageInput = (string | {
  file: string
} | {
  from: string
})

/**
 * An audience's name as the service takes it: 1 to 255 characters (as the service counts them: an emoji counts two), not blank, no control characters.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "AudienceName".
 */
export type AudienceName = string

/**
 * DISPLAY or MESSAGE.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "AudienceType".
 */
export type AudienceType = ("DISPLAY" | "MESSAGE")

/**
 * ALL (everyone) or NOT_ALL (the listed values). May be left out: it follows from whether the list is present.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "SelectionType".
 */
export type SelectionType = ("ALL" | "NOT_ALL")

/**
 * The start of a five-year age band, as a number or a string: 15 is 15 to 19, up to 65 for 65 to 69.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "AgeBand".
 */
export type AgeBand = (15 | "15" | 20 | "20" | 25 | "25" | 30 | "30" | 35 | "35" | 40 | "40" | 45 | "45" | 50 | "50" | 55 | "55" | 60 | "60" | 65 | "65")

/**
 * F (female) or M (male).
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Gender".
 */
export type Gender = ("F" | "M")

/**
 * ALL (everywhere) or AREA (the listed regions). May be left out: AREA when any region list is present.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "LocationType".
 */
export type LocationType = ("ALL" | "AREA")

/**
 * A province: its code, or the region object.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Province".
 */
export type Province = (ProvinceCode | {
  value: ProvinceCode
  /**
   * The region's name, sent as written; the service answers with its own names and only `value` is compared.
   */
  description?: string
  /**
   * Sent as written; the service answers with its own names, so it is never compared.
   */
  depth1Name?: string
})

/**
 * A Gangwon, B Gyeonggi, C South Gyeongsang, D North Gyeongsang, E Gwangju, F Daegu, G Daejeon, H Busan, I Seoul, J Ulsan, K Incheon, L South Jeolla, M North Jeolla, N Jeju, O South Chungcheong, P North Chungcheong, Q Sejong, U unknown, Z overseas.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "ProvinceCode".
 */
export type ProvinceCode = ("A" | "B" | "C" | "D" | "E" | "F" | "G" | "H" | "I" | "J" | "K" | "L" | "M" | "N" | "O" | "P" | "Q" | "U" | "Z")

/**
 * A city, county or district: its code, or the region object.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "District".
 */
export type District = (DistrictCode | {
  value: DistrictCode
  /**
   * The region's name, sent as written; the service answers with its own names and only `value` is compared.
   */
  description?: string
  /**
   * Sent as written; the service answers with its own names, so it is never compared.
   */
  depth1Name?: string
  /**
   * Sent as written; the service answers with its own names, so it is never compared.
   */
  depth2Name?: string
})

/**
 * A province letter and two digits, e.g. I01.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "DistrictCode".
 */
export type DistrictCode = string

/**
 * A town, township or neighbourhood: its code, or the region object.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Town".
 */
export type Town = (TownCode | {
  value: TownCode
  /**
   * The region's name, sent as written; the service answers with its own names and only `value` is compared.
   */
  description?: string
  /**
   * Sent as written; the service answers with its own names, so it is never compared.
   */
  depth1Name?: string
  /**
   * Sent as written; the service answers with its own names, so it is never compared.
   */
  depth2Name?: string
  /**
   * Sent as written; the service answers with its own names, so it is never compared.
   */
  depth3Name?: string
})

/**
 * A province letter and four digits, e.g. I0101.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "TownCode".
 */
export type TownCode = string

/**
 * INCLUDE or EXCLUDE the members.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "InclusionType".
 */
export type InclusionType = ("INCLUDE" | "EXCLUDE")

/**
 * An id of the service (a Long): a whole number, or its digits in quotes, which an id above 9007199254740991 needs to be read exactly.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Long".
 */
export type Long = (number | string)

/**
 * The desired state of one ad account: its audiences (in the API's own field names), and optionally its business and generated images. Validate with `audiences validate`.
 */
export interface AudiencesFile {
  /**
   * The ad account this file describes. Several files may describe one account: each names the others under `accountFiles`.
   */
  adAccountId: number
  /**
   * The other files that describe the same ad account, relative to this file's folder. They are planned and applied together, as one account; a run given only some of them is refused, so that no file is ever planned alone as the whole account (its prune would delete what the others declare).
   *
   * @minItems 1
   */
  accountFiles?: string[]
  /**
   * true: audiences of the account that this file does not declare are deleted (except `ignore` matches; one the `protect` globs name is never deleted: the plan is refused), and so are the locked images it no longer declares unless `pruneImages` says otherwise. false: they are left alone.
   */
  prune?: boolean
  /**
   * Whether the locked images this file no longer declares are removed (with their files); by default as `prune`. With `prune: false` and `pruneImages: true`, an edit of the images can never delete an audience.
   */
  pruneImages?: boolean
  /**
   * The account's quota, from 0.1 to 1000 requests a second: `plan` and `apply` space its requests to the audience service to it, and the plan's estimate says the least time at it; `--requests-per-second` wins over it.
   */
  requestsPerSecond?: number
  /**
   * The guard against deleting too much at once: a plan that deletes more than `percent` of the managed audiences is refused (unless --allow-mass-delete), once the account has `minimum` of them.
   */
  massDelete?: {
    /**
     * The share of the managed audiences a plan may delete, in percent.
     */
    percent?: number
    /**
     * The guard applies once the account has this many managed audiences (0: always).
     */
    minimum?: number
  }
  /**
   * Name globs of live audiences never touched, even with prune. Names are plain text: `*` matches any characters (`/` and `.` too), `?` one, `[abc]`, `[a-z]` and `[!abc]` one of a set, and `\` makes the next character literal; braces, parentheses and a leading `!` must be escaped.
   */
  ignore?: string[]
  /**
   * Name globs (as in `ignore`) of live audiences that no plan may delete or unlink from an ad group, whether the file declares them or not: a plan that would is refused (PROTECTED), naming the glob. Unlike an entry's `protect: true`, it stays when the entry is removed.
   */
  protect?: string[]
  business?: Business
  /**
   * Generated ad images kept under version control.
   */
  images?: Image[]
  /**
   * The audiences of the account. The name is the identity: unique in the file.
   */
  audiences: Audience[]
}

/**
 * The account's business, checked with the business-information lookup before any change.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Business".
 */
export interface Business {
  /**
   * The business registration number, NNN-NN-NNNNN.
   */
  registrationNumber: string
  /**
   * Expected business name.
   */
  name?: string
  /**
   * Expected representative's name.
   */
  representationName?: string
  /**
   * Expected business category.
   */
  businessCategory?: string
  /**
   * Expected business item.
   */
  businessItem?: string
}

/**
 * One generated image set: the image-generation request in the API's own parameter names, and where the files go. The operation is t2i (text to image), variations or inpainting; left out, it follows from the inputs (a mask: inpainting; an image: variations; neither: t2i). Which parameters each operation takes, and the bounds per version, are checked by `audiences validate`.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Image".
 */
export interface Image {
  /**
   * The image set's name: its identity, unique in the file; `from:` refers to it.
   */
  name: string
  operation?: ImageOperation
  /**
   * The file written, relative to this file and inside its folder (no `..`, not absolute). With several samples the files are numbered: banner.webp → banner-1.webp, banner-2.webp, …. Its extension (.webp, .png, .jpg/.jpeg) gives image_format when that is left out.
   */
  output: string
  /**
   * The model version: v2.1 (t2i and variations; 768 to 1280 pixels) or v2.0 (384 to 640 pixels; the only one for inpainting, and its default).
   */
  version?: ("v2.1" | "v2.0")
  /**
   * What to draw, in English (t2i and inpainting).
   */
  prompt?: string
  /**
   * What to leave out, in English (t2i and inpainting).
   */
  negative_prompt?: string
  image?: ImageInput
  mask?: ImageInput
  reference_image?: ImageInput
  /**
   * Pixels, a multiple of 8: v2.1 768 to 1280, v2.0 384 to 640 (t2i and variations).
   */
  width?: number
  /**
   * Pixels, a multiple of 8: v2.1 768 to 1280, v2.0 384 to 640 (t2i and variations).
   */
  height?: number
  /**
   * true enlarges the image by scale (at most 2048 pixels per side).
   */
  upscale?: boolean
  /**
   * The enlargement with upscale: 2 (default) or 4.
   */
  scale?: (2 | 4)
  /**
   * The file format; default: from the output's extension.
   */
  image_format?: ("webp" | "jpeg" | "png")
  /**
   * 1 to 100 (default 70).
   */
  image_quality?: number
  /**
   * How many images, 1 to 8 (default 1).
   */
  samples?: number
  /**
   * How the service returns the files (the tool reads both; default url).
   */
  return_type?: ("base64_string" | "url")
  /**
   * 10 to 100 (default 25; t2i and inpainting).
   */
  prior_num_inference_steps?: number
  /**
   * 1.0 to 20.0 (default 5.0; t2i and inpainting).
   */
  prior_guidance_scale?: number
  /**
   * 10 to 100 (default 50).
   */
  num_inference_steps?: number
  /**
   * 1.0 to 20.0 (default 5.0).
   */
  guidance_scale?: number
  /**
   * v2.1: decoder_ddpm_v_prediction; v2.0: decoder_ddim_v_prediction (default) or decoder_ddpm_v_prediction (t2i and variations).
   */
  scheduler?: ("decoder_ddpm_v_prediction" | "decoder_ddim_v_prediction")
  /**
   * One seed per sample (0 to 4294967295). Left out, the seeds the service picks are recorded in images.lock.json.
   *
   * @minItems 1
   * @maxItems 8
   */
  seed?: number[]
  /**
   * true: check for unsafe content; a flagged image is not written.
   */
  nsfw_checker?: boolean
  face_refiner?: FaceRefiner
}

/**
 * Face-shape adjustment (recommended with v2.0 for t2i and variations).
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "FaceRefiner".
 */
export interface FaceRefiner {
  /**
   * 0 to 1 (default 1).
   */
  bbox_size_threshold?: number
  /**
   * 0 to 1 (default 1); 0 turns it off.
   */
  bbox_filter_threshold?: number
  /**
   * 1 to 10 (default 2).
   */
  restoration_repeats?: number
  /**
   * 0 to 1 (default 0.5).
   */
  weight_sft?: number
}

/**
 * One audience, in the API's field names. It is the audience's whole definition: a field left out means its empty value (every age, gender and region; no criteria). ageType, genderType and locationType may be left out: they follow from whether ages, genders and region lists are given.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "Audience".
 */
export interface Audience {
  /**
   * The audience's name: its identity, unique in the file. 1 to 255 characters (as the service counts them: an emoji counts two), not blank, no control characters (as the service requires).
   */
  name: string
  /**
   * Pins the service's audience id: the audience with this id is this one, even under another name (a rename).
   */
  id?: (number | string)
  /**
   * The name (or names, for a rename of a rename) the audience had before: the live audience of that name is this one, renamed in place (same id, ad groups kept), not deleted and created anew. Once the rename is applied, it changes nothing and can go.
   */
  renamedFrom?: (AudienceName | AudienceName[])
  type: AudienceType
  ageType?: SelectionType
  /**
   * Age bands (the start of five years each: 15 is 15 to 19). Present: ageType NOT_ALL; absent: every age.
   *
   * @minItems 1
   */
  ages?: AgeBand[]
  genderType?: SelectionType
  /**
   * F (female), M (male). Present: genderType NOT_ALL; absent: every gender.
   *
   * @minItems 1
   */
  genders?: Gender[]
  locationType?: LocationType
  /**
   * Provinces: a code such as I (Seoul), or {value, description, depth1Name}, sent as written. A region list that is not empty: locationType AREA; an empty or absent one targets no region of its depth.
   */
  locations?: Province[]
  /**
   * Cities, counties and districts: a code such as I01, or {value, description, depth1Name, depth2Name}, sent as written.
   */
  depth2Locations?: District[]
  /**
   * Towns, townships and neighbourhoods: a code such as I0101, or {value, description, depth1Name, depth2Name, depth3Name}, sent as written.
   */
  depth3Locations?: Town[]
  /**
   * Interest codes from the account's targetable items.
   */
  ufoInterests?: string[]
  /**
   * Business-category codes from the account's targetable items.
   */
  ufoBusinessTypes?: string[]
  /**
   * Customer-file targeting (DISPLAY only).
   */
  customerFileTargetings?: CustomerFileTargeting[]
  /**
   * Pixel and SDK targeting (DISPLAY only).
   */
  trackerTargetings?: TrackerTargeting[]
  /**
   * Ad-response targeting.
   */
  cohortTargetings?: CohortTargeting[]
  /**
   * Messaging-channel friends targeting.
   */
  talkChannelTargetings?: TalkChannelTargeting[]
  /**
   * Login-user targeting.
   */
  syncAppTargetings?: SyncAppTargeting[]
  /**
   * Friend-group targeting (MESSAGE only, with a messaging-channel reach campaign).
   */
  talkChannelGroupTargetings?: TalkChannelGroupTargeting[]
  /**
   * Lookalike targeting, a field of the service the spec's table leaves out (either audience type; the service judges).
   */
  lookalikeTargetings?: LookalikeTargeting[]
  /**
   * The exact set of ad groups allowed to use this audience: others are unlinked.
   */
  adGroups?: Long[]
  /**
   * true: no ad group is unlinked from it (a declared audience is never deleted). It goes with the entry: an audience that must stay protected when its entry is removed is named in the top-level `protect` globs.
   */
  protect?: boolean
}

/**
 * A customer file: the whole member, as sent. Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "CustomerFileTargeting".
 */
export interface CustomerFileTargeting {
  /**
   * Opaque: a number or a text, as the service's list of targetable items shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  customerFileId: (number | string)
  inclusionType: InclusionType
}

/**
 * A pixel or SDK event: the whole member, as sent, with its retention as retentionDays or as the service's trackerTargetingTerms (one of them). Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "TrackerTargeting".
 */
export interface TrackerTargeting {
  /**
   * Opaque: a number or a text, as the service's list of targetable items shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  trackId: (number | string)
  eventCode: string
  /**
   * Days a visitor stays in the audience, 1 to 180 (or trackerTargetingTerms).
   */
  retentionDays?: number
  /**
   * How long a visitor stays in the audience, in the service's terms (e.g. [ONE_MONTH]; or retentionDays). The service checks the terms.
   *
   * @minItems 1
   */
  trackerTargetingTerms?: string[]
  inclusionType: InclusionType
}

/**
 * An ad-response cohort: the whole member, as sent. Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "CohortTargeting".
 */
export interface CohortTargeting {
  /**
   * Opaque: a number or a text, as the service's list of targetable items shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  cohortId: (number | string)
  inclusionType: InclusionType
}

/**
 * A messaging channel's friends: the whole member, as sent. Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "TalkChannelTargeting".
 */
export interface TalkChannelTargeting {
  /**
   * Opaque: a number or a text, as the service's list of targetable items shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  profileId: (number | string)
  inclusionType: InclusionType
}

/**
 * A login app's users: the whole member, as sent. Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "SyncAppTargeting".
 */
export interface SyncAppTargeting {
  /**
   * Opaque: a number or a text, as the service's list of targetable items shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  profileId: (number | string)
  inclusionType: InclusionType
}

/**
 * A friend group: the whole member, as sent. Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "TalkChannelGroupTargeting".
 */
export interface TalkChannelGroupTargeting {
  /**
   * Opaque: a number or a text, as the service's list of targetable items shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  groupId: (number | string)
  inclusionType: InclusionType
}

/**
 * A lookalike audience: the whole member, as sent. Every field is required: the service needs each of them.
 *
 * This interface was referenced by `AudiencesFile`'s JSON-Schema
 * via the `definition` "LookalikeTargeting".
 */
export interface LookalikeTargeting {
  /**
   * Opaque: a number or a text, as the service shows it. Compared as text (5001 and "5001" are the same), sent as written.
   */
  lookalikeId: (number | string)
  inclusionType: InclusionType
}
