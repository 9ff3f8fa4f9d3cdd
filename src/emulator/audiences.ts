/**
 * The eight audience operations of the spec (audience-api.md) and every rule of the create and
 * update bodies, written from the spec and the wire decisions alone (no client code): each
 * broken rule is a 400 with its own detail code, reported one at a time in a fixed order.
 */
import { parse, stringify } from 'lossless-json';
import { detailCodes as codes, failure, invalid, shown } from './http-error.js';
import { adultAgeBands, ageBands, regions, ufoBusinessTypes, ufoInterests } from './catalog.js';
import type { Region } from './catalog.js';
import { compareIds, idOf, nextId, parseId, wireId, type Long } from './ids.js';
import type {
  Account,
  AudienceStatus,
  AudienceType,
  Campaign,
  EmulatorState,
  StoredAudience,
  Targetables,
} from './store.js';

export interface AudienceContext {
  state: EmulatorState;
  account: Account;
  now: Date;
  quirks: boolean;
  /** Absent = 'catalog': callers that build a context themselves (the benchmark's offline fixtures) predate it. */
  memberIds?: MemberIdSpelling;
  /** Absent = 'retentionDays', as memberIds. */
  trackerShape?: TrackerShape;
}

/**
 * How tracker members are taken and answered (wire decision §14): `retentionDays`, the shape the
 * spec's silence left the emulator to choose, or `terms`, the real service's member
 * `{id, trackId, trackerTargetingTerms, eventCode, trackRuleId, trackRuleName, inclusionType}`.
 */
export const trackerShapes = ['retentionDays', 'terms'] as const;
export type TrackerShape = (typeof trackerShapes)[number];

/** The terms a tracker member may hold in the `terms` shape: the emulator's choice, as the spec shows none. */
export const TRACKER_TERMS = [
  'ONE_DAY',
  'ONE_WEEK',
  'TWO_WEEKS',
  'ONE_MONTH',
  'TWO_MONTHS',
  'THREE_MONTHS',
  'SIX_MONTHS',
] as const;

/**
 * How answers spell the ids of targeting members (wire decision §2): `catalog` as the
 * catalogue item's own id (what a service that coerces to its own types answers), `number`
 * every id of digits only as a JSON number, `text` every id as a JSON string.
 */
export const memberIdSpellings = ['catalog', 'number', 'text'] as const;
export type MemberIdSpelling = (typeof memberIdSpellings)[number];

/** A new or updated audience answers STANDBY this long, then its final status. */
export const PROCESSING_MS = 5000;

const targetingKeys = [
  'customerFileTargetings',
  'trackerTargetings',
  'cohortTargetings',
  'talkChannelTargetings',
  'syncAppTargetings',
  'talkChannelGroupTargetings',
  'lookalikeTargetings',
] as const;
type TargetingKey = (typeof targetingKeys)[number];

const regionKeys = ['locations', 'depth2Locations', 'depth3Locations'] as const;
type RegionKey = (typeof regionKeys)[number];
const regionDepth: Record<RegionKey, 1 | 2 | 3> = { locations: 1, depth2Locations: 2, depth3Locations: 3 };
const regionFields = new Set(['value', 'description', 'depth1Name', 'depth2Name', 'depth3Name']);

const bodyFields = new Set<string>([
  'adAccountId',
  'name',
  'type',
  'ageType',
  'ages',
  'genderType',
  'genders',
  'ufoInterests',
  'ufoBusinessTypes',
  'locationType',
  ...regionKeys,
  ...targetingKeys,
]);
const requiredFields = ['adAccountId', 'name', 'type', 'ageType', 'genderType', 'locationType'] as const;
export const MAX_NAME_LENGTH = 255;

/** Rule 8 (the per-type table); talkChannelGroupTargetings is rule 7's own check. */
const allowedTypes: Record<Exclude<TargetingKey, 'talkChannelGroupTargetings'>, AudienceType[]> = {
  customerFileTargetings: ['DISPLAY'],
  trackerTargetings: ['DISPLAY'],
  cohortTargetings: ['DISPLAY', 'MESSAGE'],
  talkChannelTargetings: ['DISPLAY', 'MESSAGE'],
  syncAppTargetings: ['DISPLAY', 'MESSAGE'],
  lookalikeTargetings: ['DISPLAY', 'MESSAGE'],
};

/** `id`: a member id, an opaque scalar (a positive integer or a non-empty string, wire decision §2). */
type FieldKind = 'id' | 'string' | 'retentionDays' | 'terms' | 'inclusionType';
/** Request shape of each targeting member (wire decision §2); every field is required. */
const memberFields: Record<TargetingKey, Record<string, FieldKind>> = {
  customerFileTargetings: { customerFileId: 'id', inclusionType: 'inclusionType' },
  trackerTargetings: {
    trackId: 'id',
    eventCode: 'string',
    retentionDays: 'retentionDays',
    inclusionType: 'inclusionType',
  },
  cohortTargetings: { cohortId: 'id', inclusionType: 'inclusionType' },
  talkChannelTargetings: { profileId: 'id', inclusionType: 'inclusionType' },
  syncAppTargetings: { profileId: 'id', inclusionType: 'inclusionType' },
  talkChannelGroupTargetings: { groupId: 'id', inclusionType: 'inclusionType' },
  lookalikeTargetings: { lookalikeId: 'id', inclusionType: 'inclusionType' },
};
/** The tracker member's request shape in the real service's `terms` shape. */
const termsTrackerFields: Record<string, FieldKind> = {
  trackId: 'id',
  eventCode: 'string',
  trackerTargetingTerms: 'terms',
  inclusionType: 'inclusionType',
};
/**
 * What the service adds to a tracker member in the `terms` shape: taken back in a request (ignored), as the service's
 * own answer.
 */
const termsTrackerAdded = ['id', 'trackRuleId', 'trackRuleName'];

interface Item {
  adAccountId: number;
  name: string;
  size: number;
  broken?: boolean;
  eventCodes?: string[];
}

type MemberId = number | string;

/** Rule 9 for one kind of member: the member field naming the item, the item, and the display-name key of answers. */
interface TargetingKind {
  idField: string;
  nameKey: string;
  /** The account's item whose id reads as `idText`: ids match as text, so 5001 and "5001" are one item. */
  find: (t: Targetables, accountId: number, idText: string) => { item: Item; ownId: MemberId } | undefined;
}

function targetingKind<T extends Item>(
  idField: string,
  nameKey: string,
  items: (t: Targetables) => T[],
  ownId: (item: T) => MemberId,
): TargetingKind {
  return {
    idField,
    nameKey,
    find: (t, accountId, idText) => {
      const item = items(t).find(
        (candidate) => candidate.adAccountId === accountId && String(ownId(candidate)) === idText,
      );
      return item && { item, ownId: ownId(item) };
    },
  };
}

const targetingKinds: Record<TargetingKey, TargetingKind> = {
  customerFileTargetings: targetingKind(
    'customerFileId',
    'customerFileName',
    (t) => t.customerFiles,
    (item) => item.id,
  ),
  trackerTargetings: targetingKind(
    'trackId',
    'trackName',
    (t) => t.trackers,
    (item) => item.trackId,
  ),
  cohortTargetings: targetingKind(
    'cohortId',
    'cohortName',
    (t) => t.cohorts,
    (item) => item.id,
  ),
  talkChannelTargetings: targetingKind(
    'profileId',
    'profileName',
    (t) => t.talkChannels,
    (item) => item.profileId,
  ),
  syncAppTargetings: targetingKind(
    'profileId',
    'profileName',
    (t) => t.syncApps,
    (item) => item.profileId,
  ),
  talkChannelGroupTargetings: targetingKind(
    'groupId',
    'groupName',
    (t) => t.friendGroups,
    (item) => item.id,
  ),
  lookalikeTargetings: targetingKind(
    'lookalikeId',
    'lookalikeName',
    (t) => t.lookalikes ?? [],
    (item) => item.id,
  ),
};

type Definition = Omit<StoredAudience, 'id' | 'adAccountId' | 'createdAt' | 'lastModifiedAt' | 'statusOverride'> &
  Required<Pick<StoredAudience, 'extra'>>;
type Body = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Operations

/** Operation 1. */
export function listAudiences(ctx: AudienceContext): { content: unknown[] } {
  return { content: ownAudiences(ctx).map((audience) => listItem(ctx, audience)) };
}

/** Operation 2. */
export function readAudience(ctx: AudienceContext, id: Long): unknown {
  return detailed(ctx, findAudience(ctx, id), 'read');
}

/** Operation 3. */
export function createAudience(ctx: AudienceContext, body: unknown): unknown {
  const definition = parseDefinition(ctx, body, 'create');
  const at = ctx.now.getTime();
  const id = ctx.state.nextAudienceId;
  ctx.state.nextAudienceId = nextId(id);
  const audience: StoredAudience = {
    id,
    adAccountId: ctx.account.id,
    ...definition,
    createdAt: at,
    lastModifiedAt: at,
    statusOverride: null,
  };
  ctx.state.audiences.push(audience);
  return detailed(ctx, audience, 'write');
}

/** Operation 4. Rules 6 and 7 are checked against the campaigns of the ad groups that use the audience. */
export function updateAudience(ctx: AudienceContext, body: unknown): unknown {
  const definition = parseDefinition(ctx, body, 'update');
  const audience = findAudience(ctx, idOf((body as Body)['id']) as Long);
  checkCampaignRules(definition, linkedCampaigns(ctx.state, audience.id));
  Object.assign(audience, definition, { lastModifiedAt: ctx.now.getTime(), statusOverride: null });
  return detailed(ctx, audience, 'write');
}

/** Operation 5. */
export function deleteAudience(ctx: AudienceContext, id: Long): void {
  const audience = findAudience(ctx, id);
  const users = linkedAdGroupIds(ctx.state, audience.id);
  if (users.length > 0) {
    throw invalid(codes.inUse, `audience ${audience.id} is in use by ad groups ${users.join(', ')}; unlink them first`);
  }
  ctx.state.audiences = ctx.state.audiences.filter((candidate) => candidate !== audience);
}

/** Operation 6: 200 even when some fail; each failure names its id first. */
export function deleteAudiences(
  ctx: AudienceContext,
  audienceIds: string | null,
): { successCount: number; failCount: number; errorMessages: string[] } {
  if (audienceIds === null) throw invalid(codes.badQuery, "query parameter 'audienceIds' is required");
  const parts = audienceIds.split(',').map((part) => part.trim());
  if (parts.some((part) => parseId(part) === undefined)) {
    throw invalid(codes.badIdList, `'audienceIds' must be audience ids joined with commas, got '${audienceIds}'`);
  }
  const ids = [...new Set(parts)];
  const errorMessages: string[] = [];
  let successCount = 0;
  for (const id of ids) {
    const audience = ownAudiences(ctx).find((candidate) => candidate.id === id);
    const users = audience ? linkedAdGroupIds(ctx.state, id) : [];
    if (!audience) {
      errorMessages.push(`audience ${id}: not found`);
    } else if (users.length > 0) {
      errorMessages.push(`audience ${id}: in use by ad groups ${users.join(', ')}`);
    } else {
      ctx.state.audiences = ctx.state.audiences.filter((candidate) => candidate !== audience);
      successCount += 1;
    }
  }
  return { successCount, failCount: errorMessages.length, errorMessages };
}

/** Operation 7. */
export function listAudienceAdGroups(ctx: AudienceContext, id: Long): { content: unknown[] } {
  const audience = findAudience(ctx, id);
  const content = linkedAdGroupIds(ctx.state, audience.id).flatMap((adGroupId) => {
    const adGroup = ctx.state.adGroups.find((candidate) => candidate.id === adGroupId);
    const campaign = adGroup && ctx.state.campaigns.find((candidate) => candidate.id === adGroup.campaignId);
    if (!adGroup || !campaign) return [];
    return [
      {
        campaignId: wireId(campaign.id),
        campaignName: campaign.name,
        campaignTypeGoal: { campaignType: campaign.campaignType, goal: campaign.goal },
        adGroupId: wireId(adGroup.id),
        adGroupName: adGroup.name,
        adGroupStatus: [...adGroup.status],
        adGroupType: adGroup.type,
      },
    ];
  });
  return { content };
}

/** Operation 8. */
export function unlinkAdGroup(ctx: AudienceContext, id: Long, adGroupIdParam: string | null): void {
  if (adGroupIdParam === null) throw invalid(codes.badQuery, "query parameter 'adGroupId' is required");
  const adGroupId = parseId(adGroupIdParam);
  if (adGroupId === undefined)
    throw invalid(codes.badQuery, `'adGroupId' must be an ad group id, got '${adGroupIdParam}'`);
  const audience = findAudience(ctx, id);
  const before = ctx.state.links.length;
  ctx.state.links = ctx.state.links.filter(
    (link) => !(link.audienceId === audience.id && link.adGroupId === adGroupId),
  );
  if (ctx.state.links.length === before) {
    throw failure(404, codes.notLinked, `ad group ${adGroupId} does not use audience ${audience.id}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Test-only operations (/_emulator/…)

/**
 * The setting `vanishOnRead`: the audience (with its links) is deleted, as by someone between a
 * client's list and its read. False when the account has no such audience.
 */
export function vanishAudience(ctx: AudienceContext, id: Long): boolean {
  const audience = ownAudiences(ctx).find((candidate) => candidate.id === id);
  if (!audience) return false;
  ctx.state.audiences = ctx.state.audiences.filter((candidate) => candidate !== audience);
  ctx.state.links = ctx.state.links.filter((link) => link.audienceId !== id);
  return true;
}

/** POST /_emulator/links: what the real service does when an ad group is created with the audience. */
export function linkAdGroup(state: EmulatorState, body: unknown): { audienceId: Long; adGroupId: Long } {
  const record = expectObject(body);
  for (const key of Object.keys(record)) {
    if (!['adAccountId', 'audienceId', 'adGroupId'].includes(key))
      throw invalid(codes.unknownField, `unknown field '${key}'`);
  }
  const [adAccount, audienceId, adGroupId] = (['adAccountId', 'audienceId', 'adGroupId'] as const).map((key) => {
    const value = record[key];
    if (value === undefined || value === null) throw invalid(codes.required, `field '${key}' is required`);
    // A test route: an id in digits is taken too, as a test holds the ids it read.
    const id = idOf(value) ?? (typeof value === 'string' ? parseId(value) : undefined);
    if (id === undefined) throw invalid(codes.wrongType, `field '${key}' must be a positive integer`);
    return id;
  }) as [Long, Long, Long];
  const adAccountId = Number(adAccount);
  const audience = state.audiences.find(
    (candidate) => candidate.id === audienceId && candidate.adAccountId === adAccountId,
  );
  if (!audience)
    throw failure(404, codes.audienceNotFound, `audience ${audienceId} not found in ad account ${adAccountId}`);
  const adGroup = state.adGroups.find(
    (candidate) => candidate.id === adGroupId && candidate.adAccountId === adAccountId,
  );
  if (!adGroup)
    throw failure(404, codes.adGroupNotFound, `ad group ${adGroupId} not found in ad account ${adAccountId}`);
  const campaign = state.campaigns.find((candidate) => candidate.id === adGroup.campaignId);
  checkCampaignRules(audience, campaign ? [campaign] : []);
  if (!state.links.some((link) => link.audienceId === audienceId && link.adGroupId === adGroupId)) {
    state.links.push({ audienceId, adGroupId });
  }
  return { audienceId, adGroupId };
}

const statuses: readonly AudienceStatus[] = ['STANDBY', 'AVAILABLE', 'SEED_NOT_ENOUGH', 'ERROR'];

/** PUT /_emulator/audiences/<id>/status: pins the status (null unpins) until the next update. */
export function setAudienceStatus(
  state: EmulatorState,
  id: Long,
  body: unknown,
): { id: Long; audienceStatus: AudienceStatus | null } {
  const record = expectObject(body);
  const value = record['audienceStatus'];
  if (value !== null && !statuses.includes(value as AudienceStatus)) {
    throw invalid(codes.badEnum, `audienceStatus must be one of ${statuses.join(', ')} or null`);
  }
  const audience = state.audiences.find((candidate) => candidate.id === id);
  if (!audience) throw failure(404, codes.audienceNotFound, `audience ${id} not found`);
  audience.statusOverride = value as AudienceStatus | null;
  return { id, audienceStatus: audience.statusOverride };
}

/**
 * PUT /_emulator/audiences/<id>/fields: the service has these fields beyond the spec (and the
 * tool), and this audience holds them as given. From then on create and update bodies take
 * them, and an update that leaves one out loses it, as the real service would.
 */
export function setServiceFields(state: EmulatorState, id: Long, body: unknown): { id: Long; fields: string[] } {
  const record = expectObject(body);
  for (const key of Object.keys(record)) {
    if (key === 'id' || bodyFields.has(key))
      throw invalid(codes.wrongType, `'${key}' is a field of the spec, not one beyond it`);
  }
  const audience = state.audiences.find((candidate) => candidate.id === id);
  if (!audience) throw failure(404, codes.audienceNotFound, `audience ${id} not found`);
  state.serviceFields = [...new Set([...(state.serviceFields ?? []), ...Object.keys(record)])];
  audience.extra = {
    ...audience.extra,
    ...Object.fromEntries(Object.entries(record).map(([key, value]) => [key, stringify(value) ?? 'null'])),
  };
  return { id, fields: Object.keys(audience.extra) };
}

// ---------------------------------------------------------------------------------------------
// Derived values: status and population score, both pure functions of the stored audience

export function audienceStatus(state: EmulatorState, audience: StoredAudience, now: Date): AudienceStatus {
  if (audience.statusOverride) return audience.statusOverride;
  if (now.getTime() - audience.lastModifiedAt < PROCESSING_MS) return 'STANDBY';
  let status: AudienceStatus = 'AVAILABLE';
  for (const { member, item } of members(state, audience)) {
    if (!item || item.broken) return 'ERROR';
    if (member['inclusionType'] === 'INCLUDE' && item.size < 1000) status = 'SEED_NOT_ENOUGH';
  }
  return status;
}

export function populationScore(state: EmulatorState, audience: StoredAudience): number {
  let score = 20_000_000;
  if (audience.ageType === 'NOT_ALL') score *= audience.ages.length / ageBands.length;
  if (audience.genderType === 'NOT_ALL') score *= audience.genders.length / 2;
  if (audience.locationType === 'AREA') {
    const share =
      audience.locations.length / 17 + audience.depth2Locations.length / 170 + audience.depth3Locations.length / 1700;
    score *= Math.min(1, share);
  }
  if (audience.ufoInterests.length > 0) score *= Math.min(1, audience.ufoInterests.length / 10);
  if (audience.ufoBusinessTypes.length > 0) score *= Math.min(1, audience.ufoBusinessTypes.length / 10);
  const used = members(state, audience);
  const included = used.filter(({ member }) => member['inclusionType'] === 'INCLUDE');
  if (included.length > 0)
    score = Math.min(
      score,
      included.reduce((sum, { item }) => sum + (item?.size ?? 0), 0),
    );
  score *= 0.9 ** (used.length - included.length);
  return Math.round(score);
}

function members(
  state: EmulatorState,
  audience: StoredAudience,
): Array<{ member: Record<string, unknown>; item: Item | undefined }> {
  return targetingKeys.flatMap((key) =>
    storedMembers(audience, key).map((member) => ({ member, item: storedItem(state, audience, key, member) })),
  );
}

function storedMembers(audience: StoredAudience, key: TargetingKey): Array<Record<string, unknown>> {
  return (audience[key] ?? []) as unknown as Array<Record<string, unknown>>;
}

function storedItem(
  state: EmulatorState,
  audience: StoredAudience,
  key: TargetingKey,
  member: Record<string, unknown>,
): Item | undefined {
  const kind = targetingKinds[key];
  return kind.find(state.targetables, audience.adAccountId, String(member[kind.idField]))?.item;
}

/** A stored member id (the catalogue item's own id) as the memberIds setting spells it in answers. */
function spellMemberId(stored: MemberId, spelling: MemberIdSpelling): MemberId {
  const text = String(stored);
  switch (spelling) {
    case 'catalog':
      return stored;
    case 'text':
      return text;
    case 'number':
      return isDecimalInteger(text) ? Number(text) : text;
  }
}

/** Digits only, written as JSON would write the number (no leading zero) and exact as a JSON number. */
function isDecimalInteger(text: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(text) && Number.isSafeInteger(Number(text));
}

// ---------------------------------------------------------------------------------------------
// Responses (wire decision §6)

function listItem(ctx: AudienceContext, audience: StoredAudience): Record<string, unknown> {
  return {
    id: wireId(audience.id),
    name: audience.name,
    audienceStatus: audienceStatus(ctx.state, audience, ctx.now),
    type: audience.type,
    createdDate: formatDate(audience.createdAt),
    lastModifiedDate: formatDate(audience.lastModifiedAt),
  };
}

/** The single read ('read') or the create/update answer ('write'): they differ in region shapes and adAccountId. */
function detailed(ctx: AudienceContext, audience: StoredAudience, variant: 'read' | 'write'): Record<string, unknown> {
  const descriptionKey = ctx.quirks ? 'descripton' : 'description';
  const province = (region: Region) => ({
    value: region.value,
    description: region.description,
    depth1Name: region.depth1Name,
  });
  const shallow = (region: Region) => ({
    value: region.value,
    [descriptionKey]: region.description,
    depth1Name: region.depth1Name,
  });
  const depth2 = (region: Region) => ({ ...shallow(region), depth2Name: region.depth2Name });
  const depth3 = (region: Region) => ({ ...depth2(region), depth3Name: region.depth3Name });
  const regionsOf = (values: string[], shape: (region: Region) => Record<string, unknown>) =>
    values.flatMap((code) => {
      const region = regions.get(code);
      return region ? [shape(region)] : [];
    });
  const body: Record<string, unknown> = {
    ...listItem(ctx, audience),
    populationScore: populationScore(ctx.state, audience),
    ageType: audience.ageType,
    ages: [...audience.ages],
    genderType: audience.genderType,
    genders: [...audience.genders],
    locations: regionsOf(audience.locations, province),
    [ctx.quirks ? 'depth2locations' : 'depth2Locations']: regionsOf(
      audience.depth2Locations,
      variant === 'read' ? shallow : depth2,
    ),
    depth3Locations: regionsOf(audience.depth3Locations, variant === 'read' ? depth3 : shallow),
    ufoInterests: [...audience.ufoInterests],
    ufoBusinessTypes: [...audience.ufoBusinessTypes],
  };
  for (const key of targetingKeys) {
    const { idField, nameKey } = targetingKinds[key];
    body[key] = storedMembers(audience, key).map((member) => {
      const name = storedItem(ctx.state, audience, key, member)?.name ?? '';
      const rule =
        key === 'trackerTargetings' && 'trackerTargetingTerms' in member ? trackerRule(audience, member, name) : {};
      return {
        ...rule,
        ...member,
        [idField]: spellMemberId(member[idField] as MemberId, ctx.memberIds ?? 'catalog'),
        [nameKey]: name,
      };
    });
  }
  // The service's fields beyond the spec, as they were taken: every digit of their numbers kept.
  for (const [field, text] of Object.entries(audience.extra ?? {})) body[field] = parse(text);
  if (variant === 'write') body['adAccountId'] = audience.adAccountId;
  return body;
}

/**
 * What the real service adds to a tracker member: the member's own id and the rule it makes of
 * the pixel, event and terms. Derived from the member, so the same member answers the same
 * ids every time (the emulator's choice; the spec shows neither).
 */
function trackerRule(
  audience: StoredAudience,
  member: Record<string, unknown>,
  trackName: string,
): Record<string, unknown> {
  const terms = (member['trackerTargetingTerms'] as string[]).join('+');
  const rule = `${String(member['trackId'])}|${String(member['eventCode'])}|${terms}`;
  return {
    id: checksum(`${audience.id}|${rule}`),
    trackRuleId: checksum(rule),
    trackRuleName: `${trackName}: ${String(member['eventCode'])}, ${terms}`,
  };
}

/** FNV-1a of `text`, a positive number below 2^32: a stable id made of what it names. */
function checksum(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193) >>> 0;
  return hash === 0 ? 1 : hash;
}

/** yyyy-MM-dd'T'HH:mm:ss in UTC, no zone (wire decision §6). */
export function formatDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}

// ---------------------------------------------------------------------------------------------
// The create and update body

function parseDefinition(ctx: AudienceContext, body: unknown, mode: 'create' | 'update'): Definition {
  const record = expectObject(body);
  const serviceFields = new Set(ctx.state.serviceFields ?? []);
  const extra: Record<string, string> = {};
  for (const key of Object.keys(record)) {
    if (key === 'id') {
      if (mode === 'create' && record[key] !== null)
        throw invalid(codes.forbiddenField, "field 'id' must not be sent on create");
    } else if (serviceFields.has(key)) {
      // Kept as sent, null included: the service answers such a field as it holds it.
      extra[key] = stringify(record[key]) ?? 'null';
    } else if (!bodyFields.has(key)) {
      throw invalid(codes.unknownField, `unknown field '${key}'`);
    }
  }
  for (const key of mode === 'update' ? ['id', ...requiredFields] : requiredFields) {
    if (!sent(record, key)) throw invalid(codes.required, `field '${key}' is required`);
  }
  if (mode === 'update' && idOf(record['id']) === undefined)
    throw invalid(codes.wrongType, "field 'id' must be a positive integer (Long)");
  if (!isAccountId(record['adAccountId']))
    throw invalid(codes.wrongType, "field 'adAccountId' must be a positive integer (Long)");
  if (record['adAccountId'] !== ctx.account.id) {
    throw invalid(
      codes.accountMismatch,
      `field 'adAccountId' (${String(record['adAccountId'])}) does not match the adAccountId header (${ctx.account.id})`,
    );
  }
  const name = record['name'];
  if (typeof name !== 'string') throw invalid(codes.wrongType, "field 'name' must be a string");
  if (name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw invalid(codes.badName, `field 'name' must be 1 to ${MAX_NAME_LENGTH} characters and not blank`);
  }
  const control = firstControlCharacter(name);
  if (control) {
    throw invalid(
      codes.badName,
      `field 'name' must not contain control characters (${control.codePoint} at position ${control.position})`,
    );
  }
  const type = expectEnum(record, 'type', ['DISPLAY', 'MESSAGE']);
  const ageType = expectEnum(record, 'ageType', ['ALL', 'NOT_ALL']);
  const genderType = expectEnum(record, 'genderType', ['ALL', 'NOT_ALL']);
  const locationType = expectEnum(record, 'locationType', ['ALL', 'AREA']);

  const ages = parseChoices(record, 'ages', ageType, ageBands, 1);
  if (ctx.account.adultTargeting) {
    if (mode === 'update' && ageType !== 'NOT_ALL') {
      throw invalid(
        codes.rule3AgeType,
        'this ad account allows adult targeting: on update ageType may only be NOT_ALL (rule 3)',
      );
    }
    if (ageType === 'NOT_ALL' && !sameSet(ages, adultAgeBands)) {
      throw invalid(
        codes.rule3Bands,
        `this ad account allows adult targeting: ages must be exactly ${adultAgeBands.join(', ')} (rule 3)`,
      );
    }
  }
  const genders = parseChoices(record, 'genders', genderType, ['F', 'M'], 2);

  const regionLists = {} as Record<RegionKey, string[]>;
  for (const key of regionKeys) {
    if (locationType === 'ALL' && sent(record, key)) {
      throw invalid(codes.rule4, `field '${key}' must not be sent when locationType is ALL (rule 4)`);
    }
    regionLists[key] = parseRegions(record, key);
  }
  if (locationType === 'AREA' && regionKeys.every((key) => regionLists[key].length === 0)) {
    throw invalid(
      codes.rule5,
      'locationType AREA needs at least one of locations, depth2Locations, depth3Locations (rule 5)',
    );
  }

  const interests = parseCodes(record, 'ufoInterests', ufoInterests);
  const businessTypes = parseCodes(record, 'ufoBusinessTypes', ufoBusinessTypes);

  const targetings = {} as Record<TargetingKey, Array<Record<string, unknown>>>;
  for (const key of targetingKeys) targetings[key] = parseMembers(record, key, ctx.trackerShape ?? 'retentionDays');
  for (const [key, types] of Object.entries(allowedTypes)) {
    if (targetings[key as TargetingKey].length > 0 && !types.includes(type)) {
      throw invalid(codes.rule8, `${key} cannot be used with ${type} audiences (rule 8)`);
    }
  }
  if (targetings.talkChannelGroupTargetings.length > 0 && type !== 'MESSAGE') {
    throw invalid(codes.rule7Type, 'talkChannelGroupTargetings may only be used with MESSAGE audiences (rule 7)');
  }
  for (const key of targetingKeys) {
    targetings[key] = targetings[key].map((member, index) => targetedMember(ctx, key, index, member));
  }

  return {
    name,
    type,
    ageType,
    ages,
    genderType,
    genders,
    locationType,
    ...regionLists,
    ufoInterests: interests,
    ufoBusinessTypes: businessTypes,
    ...(targetings as unknown as Required<Pick<StoredAudience, TargetingKey>>),
    extra,
  };
}

/** Rules 1 and 2: the set is forbidden with ALL and required (non-empty) with NOT_ALL. */
function parseChoices(
  record: Body,
  key: 'ages' | 'genders',
  choice: 'ALL' | 'NOT_ALL',
  allowed: readonly string[],
  rule: 1 | 2,
): string[] {
  const forbidden = rule === 1 ? codes.rule1Forbidden : codes.rule2Forbidden;
  const required = rule === 1 ? codes.rule1Required : codes.rule2Required;
  const bad = rule === 1 ? codes.badAge : codes.badGender;
  const typeField = rule === 1 ? 'ageType' : 'genderType';
  if (choice === 'ALL') {
    if (sent(record, key))
      throw invalid(forbidden, `field '${key}' must not be sent when ${typeField} is ALL (rule ${rule})`);
    return [];
  }
  if (!sent(record, key))
    throw invalid(required, `field '${key}' is required when ${typeField} is NOT_ALL (rule ${rule})`);
  const values = expectArray(record[key], key);
  if (values.length === 0)
    throw invalid(required, `field '${key}' must not be empty when ${typeField} is NOT_ALL (rule ${rule})`);
  values.forEach((value, index) => {
    if (typeof value !== 'string' || !allowed.includes(value)) {
      throw invalid(
        bad,
        `${key}[${index}] must be one of the strings ${allowed.map((v) => `"${v}"`).join(', ')}, got ${shown(value)}`,
      );
    }
  });
  const unique = new Set(values as string[]);
  return allowed.filter((value) => unique.has(value));
}

function parseRegions(record: Body, key: RegionKey): string[] {
  if (!sent(record, key)) return [];
  const depth = regionDepth[key];
  const codesSeen = new Set<string>();
  expectArray(record[key], key).forEach((element, index) => {
    const path = `${key}[${index}]`;
    const region = expectObject(element, path);
    for (const [field, value] of Object.entries(region)) {
      if (!regionFields.has(field)) throw invalid(codes.unknownField, `unknown field '${path}.${field}'`);
      if (field !== 'value' && value !== null && typeof value !== 'string') {
        throw invalid(codes.wrongType, `field '${path}.${field}' must be a string`);
      }
    }
    const value = region['value'];
    if (value === undefined || value === null) throw invalid(codes.required, `field '${path}.value' is required`);
    if (typeof value !== 'string') throw invalid(codes.wrongType, `field '${path}.value' must be a string`);
    if (regions.get(value)?.depth !== depth) {
      throw invalid(codes.badRegion, `${path}: '${value}' is not a depth-${depth} region code`);
    }
    codesSeen.add(value);
  });
  return [...codesSeen];
}

function parseCodes(record: Body, key: string, allowed: readonly string[]): string[] {
  if (!sent(record, key)) return [];
  const values = expectArray(record[key], key);
  values.forEach((value, index) => {
    if (typeof value !== 'string' || !allowed.includes(value)) {
      throw invalid(codes.badUfoCode, `${key}[${index}]: ${shown(value)} is not a known code`);
    }
  });
  return [...new Set(values as string[])];
}

/**
 * The members as sent (fields in the table's order); duplicates, ids compared as text, merged.
 * What the service itself adds to a member in its answers (its display name; a tracker's own id
 * and rule in the `terms` shape) is taken back and ignored, as a service reading its own answers would.
 */
function parseMembers(record: Body, key: TargetingKey, trackerShape: TrackerShape): Array<Record<string, unknown>> {
  if (!sent(record, key)) return [];
  const terms = key === 'trackerTargetings' && trackerShape === 'terms';
  const fields = terms ? termsTrackerFields : memberFields[key];
  const added = [targetingKinds[key].nameKey, ...(terms ? termsTrackerAdded : [])];
  const seen = new Map<string, Record<string, unknown>>();
  expectArray(record[key], key).forEach((element, index) => {
    const path = `${key}[${index}]`;
    const member = expectObject(element, path);
    for (const field of Object.keys(member)) {
      if (!Object.hasOwn(fields, field) && !added.includes(field))
        throw invalid(codes.unknownField, `unknown field '${path}.${field}'`);
    }
    const ordered: Record<string, unknown> = {};
    const asText: Record<string, unknown> = {};
    for (const [field, kind] of Object.entries(fields)) {
      const value = member[field];
      if (value === undefined || value === null) throw invalid(codes.required, `field '${path}.${field}' is required`);
      if (!fieldOk(kind, value)) throw invalid(codes.badMember, `field '${path}.${field}' ${fieldRule(kind)}`);
      ordered[field] = value;
      asText[field] = kind === 'id' ? String(value) : value;
    }
    const identity = JSON.stringify(asText);
    if (!seen.has(identity)) seen.set(identity, ordered);
  });
  return [...seen.values()];
}

function fieldOk(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'id':
      return idOf(value) !== undefined || (typeof value === 'string' && value.length > 0);
    case 'string':
      return typeof value === 'string' && value.length > 0;
    case 'retentionDays':
      return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 180;
    case 'terms':
      return (
        Array.isArray(value) &&
        value.length > 0 &&
        new Set(value).size === value.length &&
        value.every((term) => (TRACKER_TERMS as readonly unknown[]).includes(term))
      );
    case 'inclusionType':
      return value === 'INCLUDE' || value === 'EXCLUDE';
  }
}

function fieldRule(kind: FieldKind): string {
  switch (kind) {
    case 'id':
      return 'must be a positive integer or a non-empty string';
    case 'string':
      return 'must be a non-empty string';
    case 'retentionDays':
      return 'must be an integer from 1 to 180';
    case 'terms':
      return `must list terms, each once, of ${TRACKER_TERMS.join(', ')}`;
    case 'inclusionType':
      return 'must be INCLUDE or EXCLUDE';
  }
}

/**
 * Rule 9, including the tracker's event code. Answers the member as stored: its id is the
 * item's own id, so what is stored (and answered) never depends on how the request spelled it.
 */
function targetedMember(
  ctx: AudienceContext,
  key: TargetingKey,
  index: number,
  member: Record<string, unknown>,
): Record<string, unknown> {
  const { idField, find } = targetingKinds[key];
  const found = find(ctx.state.targetables, ctx.account.id, String(member[idField]));
  const reference = Object.entries(member)
    .filter(([field]) => field !== 'inclusionType')
    .map(([field, value]) => `${field} ${shown(value)}`)
    .join(', ');
  if (!found)
    throw invalid(
      codes.rule9,
      `${key}[${index}]: ${reference} is not a targetable item of ad account ${ctx.account.id} (rule 9)`,
    );
  if (key === 'trackerTargetings' && !found.item.eventCodes?.includes(member['eventCode'] as string)) {
    throw invalid(
      codes.rule9,
      `${key}[${index}]: event code ${shown(member['eventCode'])} is not tracked by ${String(member['trackId'])} (rule 9)`,
    );
  }
  return { ...member, [idField]: found.ownId };
}

/** Rules 6 and 7 against the campaigns whose ad groups use (or are about to use) the audience. */
function checkCampaignRules(
  audience: Pick<StoredAudience, 'locations' | 'talkChannelGroupTargetings' | 'type'>,
  campaigns: Campaign[],
): void {
  const bizBoard = campaigns.find((campaign) => campaign.campaignType === 'TALK_BIZ_BOARD');
  if (bizBoard && audience.locations.includes('Z')) {
    throw invalid(
      codes.rule6,
      `locations must not contain Z (overseas): campaign ${bizBoard.id} is a TALK_BIZ_BOARD campaign (rule 6)`,
    );
  }
  if (audience.talkChannelGroupTargetings.length > 0) {
    if (audience.type !== 'MESSAGE') {
      throw invalid(codes.rule7Type, 'talkChannelGroupTargetings may only be used with MESSAGE audiences (rule 7)');
    }
    const other = campaigns.find(
      (campaign) => !(campaign.campaignType === 'TALK_CHANNEL' && campaign.goal === 'REACH'),
    );
    if (other) {
      throw invalid(
        codes.rule7Campaign,
        `talkChannelGroupTargetings needs messaging-channel reach campaigns (TALK_CHANNEL/REACH), but campaign ${other.id} is ${other.campaignType}/${other.goal} (rule 7)`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function ownAudiences(ctx: AudienceContext): StoredAudience[] {
  return ctx.state.audiences.filter((audience) => audience.adAccountId === ctx.account.id);
}

/** Another account's audience is "not found" too: its existence does not leak. */
function findAudience(ctx: AudienceContext, id: Long): StoredAudience {
  const audience = ctx.state.audiences.find(
    (candidate) => candidate.id === id && candidate.adAccountId === ctx.account.id,
  );
  if (!audience) throw failure(404, codes.audienceNotFound, `audience ${id} not found`);
  return audience;
}

function linkedAdGroupIds(state: EmulatorState, audienceId: Long): Long[] {
  return state.links
    .filter((link) => link.audienceId === audienceId)
    .map((link) => link.adGroupId)
    .sort(compareIds);
}

function linkedCampaigns(state: EmulatorState, audienceId: Long): Campaign[] {
  const campaignIds = new Set(
    linkedAdGroupIds(state, audienceId).map(
      (adGroupId) => state.adGroups.find((group) => group.id === adGroupId)?.campaignId,
    ),
  );
  return state.campaigns.filter((campaign) => campaignIds.has(campaign.id));
}

/** An ad account id (the header, a body's adAccountId): a positive integer within the safe range. */
export function parseAccountId(text: string): number | undefined {
  if (!/^[0-9]{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return isAccountId(value) ? value : undefined;
}

function isAccountId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A field counts as sent when present and not null (null is read as absent, as Jackson does). */
function sent(record: Body, key: string): boolean {
  return record[key] !== undefined && record[key] !== null;
}

function expectObject(value: unknown, path?: string): Body {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw path === undefined
      ? invalid(codes.bodyNotObject, 'the body must be a JSON object')
      : invalid(codes.wrongType, `'${path}' must be an object`);
  }
  return value as Body;
}

function expectArray(value: unknown, key: string): unknown[] {
  if (!Array.isArray(value)) throw invalid(codes.wrongType, `field '${key}' must be an array`);
  return value;
}

function expectEnum<T extends string>(record: Body, key: string, allowed: readonly T[]): T {
  const value = record[key];
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw invalid(codes.badEnum, `field '${key}' must be one of ${allowed.join(', ')}, got ${shown(value)}`);
  }
  return value as T;
}

/** The first control character (U+0000–U+001F, U+007F–U+009F) and its position in code points, from 0. */
function firstControlCharacter(text: string): { codePoint: string; position: number } | undefined {
  let position = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) {
      return { codePoint: `U+${code.toString(16).toUpperCase().padStart(4, '0')}`, position };
    }
    position += 1;
  }
  return undefined;
}

function sameSet(values: readonly string[], expected: readonly string[]): boolean {
  return values.length === expected.length && expected.every((value) => values.includes(value));
}
