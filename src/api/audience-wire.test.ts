import { describe, expect, it } from 'vitest';
import { audienceFromWire, audienceToWire } from './audience-wire.js';

const base = {
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
      depth3Locations: [{ value: 'I0401', description: null, descripton: 'Seoul Gangnam-gu Yeoksam-dong', depth3Name: 'Yeoksam-dong' }],
    });
    expect(live.definition.depth2Locations).toEqual([{ value: 'B01', description: 'Gyeonggi Suwon-si', depth1Name: 'Gyeonggi' }]);
    expect(live.definition.depth3Locations).toEqual([{ value: 'I0401', description: 'Seoul Gangnam-gu Yeoksam-dong', depth3Name: 'Yeoksam-dong' }]);
    expect(live.definition.locationType).toBe('AREA');
  });

  it('keeps the display names the service adds to members, and leaves them out of a request', () => {
    const live = audienceFromWire({ ...base, cohortTargetings: [{ cohortId: 5, inclusionType: 'INCLUDE', cohortName: 'Viewers' }] });
    expect(live.definition.cohortTargetings).toEqual([{ cohortId: 5, cohortName: 'Viewers', inclusionType: 'INCLUDE' }]);
    expect(audienceToWire(1234, live.definition, 7)['cohortTargetings']).toEqual([{ cohortId: 5, inclusionType: 'INCLUDE' }]);
  });
});
