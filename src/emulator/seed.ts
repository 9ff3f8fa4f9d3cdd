import type { Company, EmulatorState, Targetables } from './store.js';

/**
 * The state a fresh emulator starts from (and `/_emulator/reset` returns to). SPEC.md lists
 * it; tests and the demo rely on these ids, so change them only together with SPEC.md.
 *
 * - 1234 "Demo account": accessible, no audiences, ad groups 101–104 over the four campaign kinds.
 * - 5678 "Second account": accessible, for isolation tests (its own items and ad groups).
 * - 4321 "Adult account": accessible, adultTargeting (rule 3).
 * - 9999 "Locked account": exists but the emulator's token may not use it (403).
 */
export const DEMO_ACCOUNT_ID = 1234;
export const SECOND_ACCOUNT_ID = 5678;
export const ADULT_ACCOUNT_ID = 4321;
export const LOCKED_ACCOUNT_ID = 9999;
export const FIRST_AUDIENCE_ID = 100001n;

/**
 * `idBase` is added to every id the seed gives out (campaigns, ad groups, audiences), so that an
 * account whose ids are past 2^53 can be served (SPEC.md, Test-only routes: reset).
 */
export function seedState(idBase = 0n): EmulatorState {
  const id = (n: number): string => String(idBase + BigInt(n));
  return {
    version: 2,
    nextAudienceId: String(idBase + FIRST_AUDIENCE_ID),
    accounts: [
      { id: DEMO_ACCOUNT_ID, name: 'Demo account', accessible: true, adultTargeting: false },
      { id: SECOND_ACCOUNT_ID, name: 'Second account', accessible: true, adultTargeting: false },
      { id: ADULT_ACCOUNT_ID, name: 'Adult account', accessible: true, adultTargeting: true },
      { id: LOCKED_ACCOUNT_ID, name: 'Locked account', accessible: false, adultTargeting: false },
    ],
    campaigns: [
      { id: id(11), adAccountId: DEMO_ACCOUNT_ID, name: 'Spring display', campaignType: 'DISPLAY', goal: 'VISITING' },
      {
        id: id(12),
        adAccountId: DEMO_ACCOUNT_ID,
        name: 'Biz board launch',
        campaignType: 'TALK_BIZ_BOARD',
        goal: 'VISITING',
      },
      { id: id(13), adAccountId: DEMO_ACCOUNT_ID, name: 'Channel reach', campaignType: 'TALK_CHANNEL', goal: 'REACH' },
      {
        id: id(14),
        adAccountId: DEMO_ACCOUNT_ID,
        name: 'Display conversions',
        campaignType: 'DISPLAY',
        goal: 'CONVERSION',
      },
      { id: id(21), adAccountId: SECOND_ACCOUNT_ID, name: 'Second display', campaignType: 'DISPLAY', goal: 'REACH' },
      { id: id(31), adAccountId: ADULT_ACCOUNT_ID, name: 'Adult display', campaignType: 'DISPLAY', goal: 'VISITING' },
      { id: id(91), adAccountId: LOCKED_ACCOUNT_ID, name: 'Locked display', campaignType: 'DISPLAY', goal: 'VISITING' },
    ],
    adGroups: [
      {
        id: id(101),
        adAccountId: DEMO_ACCOUNT_ID,
        campaignId: id(11),
        name: 'Seoul commuters',
        status: ['LIVE'],
        type: 'DISPLAY',
      },
      {
        id: id(102),
        adAccountId: DEMO_ACCOUNT_ID,
        campaignId: id(11),
        name: 'Weekend shoppers',
        status: ['PAUSED'],
        type: 'DISPLAY',
      },
      {
        id: id(103),
        adAccountId: DEMO_ACCOUNT_ID,
        campaignId: id(12),
        name: 'Biz board main',
        status: ['LIVE'],
        type: 'DISPLAY',
      },
      {
        id: id(104),
        adAccountId: DEMO_ACCOUNT_ID,
        campaignId: id(13),
        name: 'Channel friends',
        status: ['LIVE'],
        type: 'DIRECT_MESSAGE',
      },
      {
        id: id(105),
        adAccountId: DEMO_ACCOUNT_ID,
        campaignId: id(14),
        name: 'Retargeting',
        status: ['OFF'],
        type: 'DISPLAY',
      },
      {
        id: id(201),
        adAccountId: SECOND_ACCOUNT_ID,
        campaignId: id(21),
        name: 'Second main',
        status: ['LIVE'],
        type: 'DISPLAY',
      },
      {
        id: id(301),
        adAccountId: ADULT_ACCOUNT_ID,
        campaignId: id(31),
        name: 'Adult main',
        status: ['LIVE'],
        type: 'DISPLAY',
      },
      {
        id: id(901),
        adAccountId: LOCKED_ACCOUNT_ID,
        campaignId: id(91),
        name: 'Locked main',
        status: ['LIVE'],
        type: 'DISPLAY',
      },
    ],
    targetables: mergeTargetables([
      targetablesFor(DEMO_ACCOUNT_ID, 0),
      targetablesFor(SECOND_ACCOUNT_ID, 1),
      targetablesFor(ADULT_ACCOUNT_ID, 2),
      targetablesFor(LOCKED_ACCOUNT_ID, 9),
    ]),
    companies: seedCompanies(),
    audiences: [],
    links: [],
  };
}

/**
 * The same catalogue for every account, with ids offset per account (offset 0 for the demo
 * account: customer files 5001–5003, cohorts 7001–7002, friend groups 9001–9002, …), so an
 * item of one account is not targetable from another (rule 9). One channel and one sync app
 * have profile ids of digits only (501, 502), offset like the numeric ids, so that answers
 * spelling every digit-only id as a number (memberIds "number") can be tried end to end.
 *
 * Items under 1,000 people (Pilot list, New landing pixel, Video completers, New friends this
 * week) make an audience SEED_NOT_ENOUGH when INCLUDEd; broken ones (Expired upload, Retired
 * app SDK) make it ERROR whenever used.
 */
function targetablesFor(adAccountId: number, offset: number): Targetables {
  const n = (base: number, index: number): number => base + offset * 100 + index;
  const suffix = offset === 0 ? '' : `-${offset}`;
  return {
    customerFiles: [
      { adAccountId, id: n(5000, 1), name: 'VIP customers', size: 120_000 },
      { adAccountId, id: n(5000, 2), name: 'Pilot list', size: 300 },
      { adAccountId, id: n(5000, 3), name: 'Expired upload', size: 50_000, broken: true },
    ],
    trackers: [
      {
        adAccountId,
        trackId: `trk-web${suffix}`,
        name: 'Website pixel',
        size: 800_000,
        eventCodes: ['visit', 'cart', 'purchase', 'signup'],
      },
      { adAccountId, trackId: `trk-new${suffix}`, name: 'New landing pixel', size: 400, eventCodes: ['visit'] },
      {
        adAccountId,
        trackId: `trk-old${suffix}`,
        name: 'Retired app SDK',
        size: 90_000,
        eventCodes: ['app_install', 'purchase'],
        broken: true,
      },
    ],
    cohorts: [
      { adAccountId, id: n(7000, 1), name: 'Ad clickers 30d', size: 250_000 },
      { adAccountId, id: n(7000, 2), name: 'Video completers', size: 700 },
    ],
    talkChannels: [
      { adAccountId, profileId: `_brand${suffix}`, name: 'Brand channel', size: 1_500_000 },
      { adAccountId, profileId: `_shop${suffix}`, name: 'Shop channel', size: 60_000 },
      { adAccountId, profileId: String(n(500, 1)), name: 'Numeric channel', size: 25_000 },
    ],
    syncApps: [
      { adAccountId, profileId: `app-main${suffix}`, name: 'Shopping app', size: 300_000 },
      { adAccountId, profileId: String(n(500, 2)), name: 'Numeric app', size: 80_000 },
    ],
    friendGroups: [
      { adAccountId, id: n(9000, 1), name: 'Channel VIP friends', size: 40_000 },
      { adAccountId, id: n(9000, 2), name: 'New friends this week', size: 150 },
    ],
    lookalikes: [
      { adAccountId, id: n(8000, 1), name: 'Like VIP customers', size: 900_000 },
      { adAccountId, id: n(8000, 2), name: 'Like the pilot list', size: 600 },
    ],
  };
}

function mergeTargetables(parts: Targetables[]): Targetables {
  return {
    customerFiles: parts.flatMap((part) => part.customerFiles),
    trackers: parts.flatMap((part) => part.trackers),
    cohorts: parts.flatMap((part) => part.cohorts),
    talkChannels: parts.flatMap((part) => part.talkChannels),
    syncApps: parts.flatMap((part) => part.syncApps),
    friendGroups: parts.flatMap((part) => part.friendGroups),
    lookalikes: parts.flatMap((part) => part.lookalikes ?? []),
  };
}

/** Registration numbers with valid check digits (wire decision §9). */
function seedCompanies(): Company[] {
  return [
    {
      id: 1,
      businessRegistrationNumber: '120-81-47521',
      name: 'Demo Commerce Co., Ltd.',
      representationName: 'Kim Minji',
      businessCategory: 'Retail',
      businessItem: 'Online shopping mall',
      address: { zipCode: '06236', baseAddress: '152 Teheran-ro, Gangnam-gu, Seoul', detailAddress: '12F' },
    },
    {
      id: 2,
      businessRegistrationNumber: '220-81-62458',
      name: 'Harbor Foods Inc.',
      representationName: 'Park Jisoo',
      businessCategory: 'Manufacturing',
      businessItem: 'Processed food',
      address: { zipCode: '48060', baseAddress: '30 Centum-ro, Haeundae-gu, Busan', detailAddress: 'Building B, 3F' },
    },
    {
      id: 3,
      businessRegistrationNumber: '104-86-09326',
      name: 'Island Travel Agency',
      representationName: 'Lee Seojun',
      businessCategory: 'Services',
      businessItem: 'Travel agency',
      address: { zipCode: '63122', baseAddress: '11 Jungang-ro, Jeju-si, Jeju', detailAddress: '' },
    },
  ];
}
