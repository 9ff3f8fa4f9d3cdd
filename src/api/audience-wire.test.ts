import { describe, expect, it } from 'vitest';
import { definition } from '../../test/helpers/builders.js';
import { adGroupLinkFromWire, audienceFromWire, audienceSummaryFromWire, audienceToWire } from './audience-wire.js';
import type { AudienceDetail } from './generated/wire.js';
import { parseAnswer, writeBody } from './long-json.js';
import { diffDefinition } from '../plan/index.js';

const base: AudienceDetail = {
  id: 7,
  name: 'a',
  audienceStatus: 'AVAILABLE',
  type: 'DISPLAY',
  createdDate: '2026-01-01T00:00:00',
  lastModifiedDate: '2026-01-02T00:00:00',
  ageType: 'ALL',
  genderType: 'ALL',
};

describe('audienceFromWire', () => {
  it("reads the spec examples' quirks: depth2locations and a misspelled description key", () => {
    const live = audienceFromWire({
      ...base,
      depth2locations: [{ value: 'B01', descripton: 'Gyeonggi Suwon-si', depth1Name: 'Gyeonggi' }],
      depth3Locations: [
        { value: 'I0401', description: null, descripton: 'Seoul Gangnam-gu Yeoksam-dong', depth3Name: 'Yeoksam-dong' },
      ],
    });
    expect(live.definition.depth2Locations).toEqual([
      { value: 'B01', description: 'Gyeonggi Suwon-si', depth1Name: 'Gyeonggi' },
    ]);
    expect(live.definition.depth3Locations).toEqual([
      { value: 'I0401', description: 'Seoul Gangnam-gu Yeoksam-dong', depth3Name: 'Yeoksam-dong' },
    ]);
    expect(live.definition.locationType).toBe('AREA');
  });

  it('keeps what the service adds to members, and an update sends it back for each member it keeps; a new or changed member goes as the file writes it', () => {
    const live = audienceFromWire({
      ...base,
      cohortTargetings: [
        { cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Viewers' },
        { cohortId: '6', inclusionType: 'INCLUDE', cohortName: 'Clickers' },
      ],
    });
    expect(live.definition.cohortTargetings).toEqual([
      { cohortId: 5, cohortName: 'Viewers', inclusionType: 'INCLUDE' },
      { cohortId: '6', cohortName: 'Clickers', inclusionType: 'INCLUDE' },
    ]);
    const desired = definition({
      cohortTargetings: [
        { cohortId: '5', inclusionType: 'INCLUDE' },
        { cohortId: 6, inclusionType: 'EXCLUDE' },
        { cohortId: 7, inclusionType: 'INCLUDE' },
      ],
    });
    expect(
      audienceToWire(1234, desired, { id: '7', before: live.definition, unmodelled: {} })['cohortTargetings'],
    ).toEqual([
      { cohortId: '5', cohortName: 'Viewers', inclusionType: 'INCLUDE' },
      { cohortId: 6, inclusionType: 'EXCLUDE' },
      { cohortId: 7, inclusionType: 'INCLUDE' },
    ]);
    expect(audienceToWire(1234, desired)['cohortTargetings']).toEqual(desired.cohortTargetings);
  });

  it('sends back a Long the service added to a tracker member as the number it was, and never a retention of the other form', () => {
    const text =
      '{"id":7,"name":"a","type":"DISPLAY","trackerTargetings":[{"id":9007199254740993,"trackId":"px","eventCode":"buy","trackerTargetingTerms":["ONE_MONTH"],"retentionDays":null,"trackRuleId":12345678901234567,"trackRuleName":"px buy","inclusionType":"INCLUDE"}],"ratio":0.12345678901234567890123}';
    const live = audienceFromWire(parseAnswer(text) as AudienceDetail);
    expect(live.unmodelled).toEqual({ ratio: '0.12345678901234567890123' });
    const kept = definition({
      name: 'a',
      trackerTargetings: [
        { trackId: 'px', eventCode: 'buy', trackerTargetingTerms: ['ONE_MONTH'], inclusionType: 'INCLUDE' },
      ],
    });
    const body = writeBody(
      audienceToWire(1234, kept, { id: live.id, before: live.definition, unmodelled: live.unmodelled }),
    );
    expect(body).toContain(
      '"trackerTargetings":[{"id":9007199254740993,"trackRuleId":12345678901234567,"trackRuleName":"px buy","eventCode":"buy","inclusionType":"INCLUDE","trackId":"px","trackerTargetingTerms":["ONE_MONTH"]}]',
    );
    expect(body).toContain('"ratio":0.12345678901234567890123');
    // The file's retention in the other form is another member: sent as the file writes it, nothing of the old one.
    const days = definition({
      name: 'a',
      trackerTargetings: [{ trackId: 'px', eventCode: 'buy', retentionDays: 30, inclusionType: 'INCLUDE' }],
    });
    expect(diffDefinition(days, live.definition).map((change) => change.field)).toEqual(['trackerTargetings']);
    expect(
      audienceToWire(1234, days, { id: live.id, before: live.definition, unmodelled: {} })['trackerTargetings'],
    ).toEqual(days.trackerTargetings);
  });

  it('keeps the fields it does not model as their JSON text, every digit of their numbers too, and an update sends them back as read', () => {
    const text =
      '{"id":7,"name":"a","type":"DISPLAY","lookalikeTargetings":[{"lookalikeId":8001,"inclusionType":"INCLUDE"}],"zzzTargetings":[{"zzzId":9007199254740993,"weight":1.50}],"note":null}';
    const live = audienceFromWire(parseAnswer(text) as AudienceDetail);
    expect(live.definition.lookalikeTargetings).toEqual([{ lookalikeId: 8001, inclusionType: 'INCLUDE' }]);
    expect(live.unmodelled).toEqual({ zzzTargetings: '[{"zzzId":9007199254740993,"weight":1.5}]', note: 'null' });
    const body = writeBody(
      audienceToWire(1234, live.definition, { id: live.id, before: live.definition, unmodelled: live.unmodelled }),
    );
    expect(body).toContain('"zzzTargetings":[{"zzzId":9007199254740993,"weight":1.5}]');
    expect(body).toContain('"note":null');
    expect(body).not.toContain('"zzzTargetings":[{"zzzId":"');
  });

  it('keeps a field named __proto__ or toString as a field, sent back as read, and leaves the record an ordinary object', () => {
    const text = '{"id":7,"name":"a","type":"DISPLAY","__proto__":{"polluted":true},"toString":"text"}';
    const live = audienceFromWire(parseAnswer(text) as AudienceDetail);
    expect(Object.getPrototypeOf(live.unmodelled)).toBe(Object.prototype);
    expect(Object.keys(live.unmodelled)).toEqual(['__proto__', 'toString']);
    expect(Object.getOwnPropertyDescriptor(live.unmodelled, '__proto__')?.value).toBe('{"polluted":true}');
    expect(writeBody(audienceToWire(1234, live.definition, { id: live.id, unmodelled: live.unmodelled }))).toContain(
      '"__proto__":{"polluted":true},"toString":"text"',
    );
  });

  it('reads fields it only shows in any type, and member ids as numbers or text, as answered', () => {
    const live = audienceFromWire({
      ...base,
      audienceStatus: 3,
      createdDate: null,
      lastModifiedDate: 20260102,
      populationScore: '1200',
      ageType: undefined,
      ages: ['20'],
      talkChannelTargetings: [{ profileId: 501, inclusionType: 'INCLUDE' }],
      cohortTargetings: [{ cohortId: '7001', inclusionType: 'EXCLUDE' }],
    });
    expect(live).toMatchObject({
      audienceStatus: '3',
      createdDate: '',
      lastModifiedDate: '20260102',
      populationScore: 1200,
    });
    expect(live.definition).toMatchObject({
      ageType: 'NOT_ALL',
      talkChannelTargetings: [{ profileId: 501 }],
      cohortTargetings: [{ cohortId: '7001' }],
    });
    expect(audienceFromWire({ ...base, populationScore: 'about 10k' }).populationScore).toBeNull();
  });
});

describe('fields the schemas leave open, narrowed by their values', () => {
  it('reads a depth-3 list under the lower-case key, as far as it is a list of regions', () => {
    // No schema names the key: an answer with it is an AudienceDetail with an extra field.
    const answer = { ...base, depth3locations: [{ value: 'I0101', descripton: 'Yeoksam-dong' }, 7, { value: 3 }] };
    const live = audienceFromWire(answer);
    expect(live.definition.depth3Locations).toEqual([{ value: 'I0101', description: 'Yeoksam-dong' }]);
  });

  it('keeps every field of a member as the JSON it is, display names of any type included', () => {
    const live = audienceFromWire({
      ...base,
      cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE', cohortName: { ko: '시청자' } }],
    });
    expect(live.definition.cohortTargetings).toEqual([
      { cohortId: 5, cohortName: { ko: '시청자' }, inclusionType: 'INCLUDE' },
    ]);
  });

  it('a list item with a type the tool does not know (kept as text: only shown), and an ad group without its campaign id', () => {
    expect(audienceSummaryFromWire({ id: 1, name: 'a', type: 7 }).type).toBe('7');
    expect(adGroupLinkFromWire({ adGroupId: 101, adGroupStatus: 'LIVE', campaignTypeGoal: null })).toEqual({
      adGroupId: '101',
      adGroupName: '',
      adGroupType: '',
      adGroupStatus: [],
      campaignId: '0',
      campaignName: '',
      campaignType: '',
      campaignGoal: '',
    });
  });
});

describe('audienceToWire', () => {
  it('sends the definition as the file writes it: a region with its names, a code alone, ids in their own type', () => {
    const body = audienceToWire(
      1234,
      definition({
        locations: [{ value: 'I', description: '서울특별시', depth1Name: '서울특별시' }, { value: 'K' }],
        talkChannelTargetings: [{ profileId: 501, inclusionType: 'INCLUDE' }],
        customerFileTargetings: [{ customerFileId: '5001', inclusionType: 'EXCLUDE' }],
      }),
    );
    expect(body).toEqual({
      adAccountId: 1234,
      name: 'audience',
      type: 'DISPLAY',
      ageType: 'ALL',
      genderType: 'ALL',
      locationType: 'AREA',
      locations: [{ value: 'I', description: '서울특별시', depth1Name: '서울특별시' }, { value: 'K' }],
      customerFileTargetings: [{ customerFileId: '5001', inclusionType: 'EXCLUDE' }],
      talkChannelTargetings: [{ profileId: 501, inclusionType: 'INCLUDE' }],
    });
  });
});
