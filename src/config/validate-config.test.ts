import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REQUESTS_PER_SECOND } from '../api/limiter.js';
import { ConfigError, formatIssue, formatIssues, LIMITS, validateConfig, type ConfigIssue } from './index.js';

/** Each problem as `LINE:COL: message`, the shape people read. */
function problems(text: string): string[] {
  const result = validateConfig(text, 'audiences.yaml');
  if (result.ok) return [];
  return result.issues.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`);
}

function issues(text: string): ConfigIssue[] {
  const result = validateConfig(text, 'audiences.yaml');
  return result.ok ? [] : result.issues;
}

function desired(text: string) {
  const result = validateConfig(text, 'audiences.yaml');
  if (!result.ok) throw new Error(result.issues.map((issue) => formatIssue(issue)).join('\n'));
  return result.value;
}

/** One audience under a valid header; the audience starts on line 3, its fields at column 5. */
function oneAudience(fields: string): string {
  return `adAccountId: 1234\naudiences:\n  - name: a\n${fields
    .trim()
    .split('\n')
    .map((line) => `    ${line.trim()}`)
    .join('\n')}\n`;
}

describe('validateConfig: a valid file', () => {
  it('returns the desired state with every shorthand expanded', () => {
    const state = desired(
      [
        'adAccountId: 1234',
        'prune: true',
        'ignore: ["legacy-*"]',
        'audiences:',
        '  - name: seoul-women-20s',
        '    type: DISPLAY',
        '    ages: [25, "20"]',
        '    genders: [F]',
        '    locations: [I, {value: B, description: Gyeonggi-do, depth1Name: Gyeonggi}]',
        '    adGroups: [102, 101]',
        '    protect: true',
        '    id: 77',
        '    renamedFrom: seoul-women',
      ].join('\n'),
    );
    expect(state.adAccountId).toBe(1234);
    expect(state.prune).toBe(true);
    expect(state.ignore).toEqual(['legacy-*']);
    expect(state.protect).toEqual([]);
    expect(state.audiences).toEqual([
      {
        key: 'seoul-women-20s',
        id: '77',
        definition: {
          name: 'seoul-women-20s',
          type: 'DISPLAY',
          ageType: 'NOT_ALL',
          ages: ['20', '25'],
          genderType: 'NOT_ALL',
          genders: ['F'],
          locationType: 'AREA',
          locations: [{ value: 'B', description: 'Gyeonggi-do', depth1Name: 'Gyeonggi' }, { value: 'I' }],
          depth2Locations: [],
          depth3Locations: [],
          ufoInterests: [],
          ufoBusinessTypes: [],
          customerFileTargetings: [],
          trackerTargetings: [],
          cohortTargetings: [],
          talkChannelTargetings: [],
          syncAppTargetings: [],
          talkChannelGroupTargetings: [],
          lookalikeTargetings: [],
        },
        omitted: [
          'ufoInterests',
          'ufoBusinessTypes',
          'customerFileTargetings',
          'trackerTargetings',
          'cohortTargetings',
          'talkChannelTargetings',
          'syncAppTargetings',
          'lookalikeTargetings',
        ],
        adGroups: ['101', '102'],
        protect: true,
        renamedFrom: ['seoul-women'],
      },
    ]);
  });

  it('reads an audience that gives only its name and type as its whole definition: everyone, no criteria', () => {
    const [audience] = desired(oneAudience('type: MESSAGE')).audiences;
    expect(audience?.definition).toEqual({
      name: 'a',
      type: 'MESSAGE',
      ageType: 'ALL',
      ages: [],
      genderType: 'ALL',
      genders: [],
      locationType: 'ALL',
      locations: [],
      depth2Locations: [],
      depth3Locations: [],
      ufoInterests: [],
      ufoBusinessTypes: [],
      customerFileTargetings: [],
      trackerTargetings: [],
      cohortTargetings: [],
      talkChannelTargetings: [],
      syncAppTargetings: [],
      talkChannelGroupTargetings: [],
      lookalikeTargetings: [],
    });
    expect(audience?.protect).toBe(false);
    expect(audience?.adGroups).toBeUndefined();
    expect(audience?.id).toBeUndefined();
  });

  it('keeps an explicit ALL, and with AREA the region lists the file gives, the others empty', () => {
    const [audience] = desired(
      oneAudience(
        'type: DISPLAY\nageType: ALL\ngenderType: ALL\nlocationType: AREA\ndepth2Locations: [I01]\ndepth3Locations: [{value: B0101}]',
      ),
    ).audiences;
    expect(audience?.definition).toMatchObject({
      ageType: 'ALL',
      ages: [],
      genderType: 'ALL',
      genders: [],
      locationType: 'AREA',
      locations: [],
    });
    expect(audience?.definition.depth2Locations).toEqual([{ value: 'I01' }]);
    expect(audience?.definition.depth3Locations).toEqual([{ value: 'B0101' }]);
  });

  it('names as left out every set the file does not give, unless its *Type says ALL; a region depth beside a given one is not left out', () => {
    expect(desired(oneAudience('type: DISPLAY\nages: [20]')).audiences[0]?.omitted).toEqual([
      'genders',
      'locations',
      'depth2Locations',
      'depth3Locations',
      'ufoInterests',
      'ufoBusinessTypes',
      'customerFileTargetings',
      'trackerTargetings',
      'cohortTargetings',
      'talkChannelTargetings',
      'syncAppTargetings',
      'lookalikeTargetings',
    ]);
    expect(
      desired(oneAudience('type: MESSAGE\ngenderType: ALL\nlocationType: ALL\nufoInterests: []')).audiences[0]?.omitted,
    ).toEqual([
      'ages',
      'ufoBusinessTypes',
      'cohortTargetings',
      'talkChannelTargetings',
      'syncAppTargetings',
      'talkChannelGroupTargetings',
      'lookalikeTargetings',
    ]);
    expect(
      desired(oneAudience('type: DISPLAY\ndepth2Locations: [H01]\nufoInterests: [TRAVEL]')).audiences[0]?.omitted,
    ).toEqual([
      'ages',
      'genders',
      'ufoBusinessTypes',
      'customerFileTargetings',
      'trackerTargetings',
      'cohortTargetings',
      'talkChannelTargetings',
      'syncAppTargetings',
      'lookalikeTargetings',
    ]);
  });

  it('narrows with an empty region list: AREA follows from the list that is not empty', () => {
    const [audience] = desired(oneAudience('type: DISPLAY\nlocations: []\ndepth2Locations: [H01]')).audiences;
    expect(audience?.definition).toMatchObject({
      locationType: 'AREA',
      locations: [],
      depth2Locations: [{ value: 'H01' }],
      depth3Locations: [],
    });
    expect(desired(oneAudience('type: DISPLAY\nlocations: []')).audiences[0]?.definition).toMatchObject({
      locationType: 'ALL',
      locations: [],
    });
    expect(
      issues(oneAudience('type: DISPLAY\nlocationType: AREA\nlocations: []')).map((issue) => issue.message),
    ).toEqual(['audiences[0].locationType: AREA needs locations, depth2Locations or depth3Locations']);
  });

  it('passes sets through canonicalised, members as written (an id a number or a text), and names the sets left out', () => {
    const [audience] = desired(
      oneAudience(`
        type: DISPLAY
        ufoInterests: [TRAVEL, FOOD, TRAVEL]
        cohortTargetings: [{cohortId: 9, inclusionType: EXCLUDE}, {cohortId: "2", inclusionType: INCLUDE}]
        trackerTargetings: [{trackId: 7, eventCode: buy, retentionDays: 30, inclusionType: INCLUDE}]
      `),
    ).audiences;
    expect(audience?.definition.ufoInterests).toEqual(['FOOD', 'TRAVEL']);
    expect(audience?.definition.cohortTargetings).toEqual([
      { cohortId: '2', inclusionType: 'INCLUDE' },
      { cohortId: 9, inclusionType: 'EXCLUDE' },
    ]);
    expect(audience?.definition.trackerTargetings).toEqual([
      { eventCode: 'buy', inclusionType: 'INCLUDE', retentionDays: 30, trackId: 7 },
    ]);
    expect(audience?.definition.ufoBusinessTypes).toEqual([]);
    expect(audience?.definition.customerFileTargetings).toEqual([]);
    // Friend groups are not for DISPLAY audiences: they are not left out, they cannot be given.
    expect(audience?.omitted).toEqual([
      'ages',
      'genders',
      'locations',
      'depth2Locations',
      'depth3Locations',
      'ufoBusinessTypes',
      'customerFileTargetings',
      'talkChannelTargetings',
      'syncAppTargetings',
      'lookalikeTargetings',
    ]);
  });

  it('defaults prune to false and ignore to [], and names the source with the hash of its text', () => {
    const text = 'adAccountId: 5\naudiences: []\n';
    const state = desired(text);
    expect(state).toMatchObject({ adAccountId: 5, prune: false, ignore: [], audiences: [] });
    expect(state.source).toEqual({ files: ['audiences.yaml'], hash: createHash('sha256').update(text).digest('hex') });
  });

  it('follows anchors and merge keys', () => {
    const state = desired(
      'adAccountId: 1\naudiences:\n  - &base {name: a, type: DISPLAY, genders: [M]}\n  - {<<: *base, name: b}\n',
    );
    expect(state.audiences.map((audience) => [audience.key, audience.definition.genders])).toEqual([
      ['a', ['M']],
      ['b', ['M']],
    ]);
  });

  it('accepts the business and images sections', () => {
    const state = desired(
      'adAccountId: 1\nbusiness: {registrationNumber: 120-81-47521, name: Acme}\nimages: [{name: x, output: x.webp, prompt: p, version: v2.0, width: 512, height: 512}]\naudiences: []\n',
    );
    expect(state.audiences).toEqual([]);
    expect(state.business).toEqual({ registrationNumber: '120-81-47521', expected: { name: 'Acme' } });
    expect(state.images?.map((image) => image.key)).toEqual(['x']);
  });

  it('warns about a value repeated in a set, pointing at the repeat', () => {
    const result = validateConfig(oneAudience('type: DISPLAY\nages: [20, 25, "20"]'), 'audiences.yaml');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`)).toEqual([
      '5:20: audiences[0].ages[2]: repeats ages[0]',
    ]);
  });
});

describe('validateConfig: the spec rules that need no server', () => {
  it('rule 1: ageType ALL with ages points at the ages key', () => {
    expect(problems(oneAudience('type: DISPLAY\nageType: ALL\nages: [20]'))).toEqual([
      '6:5: audiences[0].ages: not allowed when ageType is ALL',
    ]);
  });

  it('rule 1: ageType NOT_ALL without ages points at the value NOT_ALL', () => {
    expect(problems(oneAudience('type: DISPLAY\nageType: NOT_ALL'))).toEqual([
      '5:14: audiences[0].ageType: NOT_ALL needs ages',
    ]);
  });

  it('rule 2: genderType ALL with genders, and NOT_ALL without them', () => {
    expect(problems(oneAudience('type: DISPLAY\ngenderType: ALL\ngenders: [F]'))).toEqual([
      '6:5: audiences[0].genders: not allowed when genderType is ALL',
    ]);
    expect(problems(oneAudience('type: DISPLAY\ngenderType: NOT_ALL'))).toEqual([
      '5:17: audiences[0].genderType: NOT_ALL needs genders',
    ]);
  });

  it('rule 4: locationType ALL with any region list, one problem per list', () => {
    expect(problems(oneAudience('type: DISPLAY\nlocationType: ALL\nlocations: [I]\ndepth3Locations: [I0101]'))).toEqual(
      [
        '6:5: audiences[0].locations: not allowed when locationType is ALL',
        '7:5: audiences[0].depth3Locations: not allowed when locationType is ALL',
      ],
    );
  });

  it('rule 5: locationType AREA without a region list', () => {
    expect(problems(oneAudience('type: DISPLAY\nlocationType: AREA'))).toEqual([
      '5:19: audiences[0].locationType: AREA needs locations, depth2Locations or depth3Locations',
    ]);
  });

  it('rule 8: criteria outside the per-type table', () => {
    expect(
      problems(
        oneAudience(
          'type: MESSAGE\ncustomerFileTargetings: [{customerFileId: 1, inclusionType: INCLUDE}]\ntrackerTargetings: [{trackId: t, eventCode: e, retentionDays: 7, inclusionType: INCLUDE}]',
        ),
      ),
    ).toEqual([
      '5:5: audiences[0].customerFileTargetings: not allowed for a MESSAGE audience',
      '6:5: audiences[0].trackerTargetings: not allowed for a MESSAGE audience',
    ]);
    expect(
      problems(oneAudience('type: DISPLAY\ntalkChannelGroupTargetings: [{groupId: 1, inclusionType: INCLUDE}]')),
    ).toEqual(['5:5: audiences[0].talkChannelGroupTargetings: not allowed for a DISPLAY audience']);
  });

  it('rule 8 allows what the table allows for each type', () => {
    const member = 'inclusionType: INCLUDE';
    expect(
      problems(
        oneAudience(
          `type: MESSAGE\ntalkChannelGroupTargetings: [{groupId: 1, ${member}}]\ncohortTargetings: [{cohortId: 1, ${member}}]\nsyncAppTargetings: [{profileId: p, ${member}}]`,
        ),
      ),
    ).toEqual([]);
    expect(
      problems(
        oneAudience(
          `type: DISPLAY\ncustomerFileTargetings: [{customerFileId: 1, ${member}}]\ntalkChannelTargetings: [{profileId: p, ${member}}]`,
        ),
      ),
    ).toEqual([]);
  });

  it('leaves rule 3 (adult targeting) and rules 6 and 7 (campaigns) to the plan', () => {
    expect(
      problems(
        oneAudience(
          'type: MESSAGE\nages: [15]\nlocations: [Z]\ntalkChannelGroupTargetings: [{groupId: 1, inclusionType: INCLUDE}]',
        ),
      ),
    ).toEqual([]);
  });
});

describe('validateConfig: rules of the file', () => {
  it('refuses a name used twice, at the second, naming the line of the first', () => {
    expect(
      problems('adAccountId: 1\naudiences:\n  - name: a\n    type: DISPLAY\n  - name: a\n    type: MESSAGE\n'),
    ).toEqual(['5:11: audiences[1].name: "a" is already the name of audiences[0] (line 3)']);
  });

  it('refuses an id pinned twice', () => {
    expect(
      problems(
        'adAccountId: 1\naudiences:\n  - {name: a, type: DISPLAY, id: 7}\n  - {name: b, type: DISPLAY, id: 7}\n',
      ),
    ).toEqual(['4:34: audiences[1].id: 7 is already pinned by audiences[0] (line 3)']);
  });

  it('refuses a declared audience that an ignore pattern would hide', () => {
    expect(
      problems(
        'adAccountId: 1\nignore: ["legacy-*"]\naudiences:\n  - {name: legacy-x, type: DISPLAY}\n  - {name: new-x, type: DISPLAY}\n',
      ),
    ).toEqual([
      '4:12: audiences[0].name: "legacy-x" matches the ignore pattern "legacy-*", so it would never be changed',
    ]);
  });

  it('refuses a declared audience that an ignore pattern hides in another Unicode spelling (NFC or NFD)', () => {
    expect(
      problems('adAccountId: 1\nignore: ["caf\\u00e9-*"]\naudiences:\n  - {name: "cafe\\u0301-old", type: DISPLAY}\n'),
    ).toEqual([
      '4:12: audiences[0].name: "cafe\u0301-old" matches the ignore pattern "caf\u00e9-*", so it would never be changed',
    ]);
  });

  it('refuses an ignore pattern that other glob dialects read otherwise (braces, groups, a leading !), showing it escaped', () => {
    const found = issues('adAccountId: 1\nignore: ["{old,legacy}-*", "!keep", "ok-*", "[a", "x\\\\"]\naudiences: []\n');
    expect(found.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`)).toEqual([
      '2:10: ignore[0]: "{old,legacy}-*" is not a name glob: `{` is not glob syntax here (no braces, groups or extglobs)',
      '2:28: ignore[1]: "!keep" is not a name glob: a leading `!` (negation) is not supported: a glob says which names match',
      '2:45: ignore[3]: "[a" is not a name glob: a `[` is not closed by a `]`',
      '2:51: ignore[4]: "x\\\\" is not a name glob: it ends with a lone `\\`',
    ]);
    expect(found[0]?.hint).toBe(
      'write `\\` before a character to match it as it is; for alternatives, write one glob each ("\\\\{old,legacy\\\\}-*")',
    );
  });

  it('checks the protect globs as it checks ignore', () => {
    expect(problems('adAccountId: 1\nprotect: ["brand-*", "{a,b}"]\naudiences: []\n')).toEqual([
      '2:22: protect[1]: "{a,b}" is not a name glob: `{` is not glob syntax here (no braces, groups or extglobs)',
    ]);
  });

  it('refuses a renamedFrom that cannot say which audience was renamed: its own name, a declared or ignored name, one given twice', () => {
    const file = [
      'adAccountId: 1',
      'ignore: ["legacy-*"]',
      'audiences:',
      '  - {name: a, type: DISPLAY, renamedFrom: a}',
      '  - {name: b, type: DISPLAY, renamedFrom: [old, c]}',
      '  - {name: c, type: DISPLAY}',
      '  - {name: d, type: DISPLAY, renamedFrom: "old"}',
      '  - {name: e, type: DISPLAY, renamedFrom: "legacy-e"}',
      '  - {name: "caf\\u00e9", type: DISPLAY, renamedFrom: "cafe\\u0301"}',
      '  - {name: f, type: DISPLAY, renamedFrom: "C"}',
      '',
    ].join('\n');
    const found = issues(file);
    expect(found.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`)).toEqual([
      '4:43: audiences[0].renamedFrom: "a" is the audience\'s own name',
      '5:49: audiences[1].renamedFrom[1]: "c" is the name of audiences[2] (line 6): an entry cannot be renamed from a name the file declares',
      '7:43: audiences[3].renamedFrom: "old" is also given by audiences[1].renamedFrom[0] (line 5)',
      '8:43: audiences[4].renamedFrom: "legacy-e" matches the ignore pattern "legacy-*": an ignored audience is never touched, so it cannot be renamed',
      '9:53: audiences[5].renamedFrom: "cafe\u0301" is the audience\'s own name',
    ]);
    expect(found[1]?.hint).toBe(
      'if the rename is applied, remove `renamedFrom`; for a new audience that takes the old name, apply the rename first, then declare it',
    );
  });

  it('takes renamedFrom as one name or a list, each a name the service takes', () => {
    expect(desired(oneAudience('type: DISPLAY\nrenamedFrom: [x, y]')).audiences[0]?.renamedFrom).toEqual(['x', 'y']);
    expect(problems(oneAudience('type: DISPLAY\nrenamedFrom: []'))[0]).toMatch(/^5:18: audiences\[0\]\.renamedFrom/);
    expect(problems(oneAudience('type: DISPLAY\nrenamedFrom: "  "'))).toEqual([
      '5:18: audiences[0].renamedFrom: "  " must be 1 to 255 characters, not blank, without control characters (tabs, line breaks, escapes)',
    ]);
  });

  it('requires adAccountId and audiences, at the start of the map', () => {
    expect(problems('# comment\nprune: true\n')).toEqual([
      '2:1: missing required field adAccountId',
      '2:1: missing required field audiences',
    ]);
  });

  it('requires name and type of each audience, at the start of the audience', () => {
    expect(problems('adAccountId: 1\naudiences:\n  - ages: [20]\n')).toEqual([
      '3:5: audiences[0]: missing required field name',
      '3:5: audiences[0]: missing required field type',
    ]);
  });

  it('requires every field of a targeting member, since a member is sent whole, with a hint for each', () => {
    const found = issues(
      oneAudience('type: DISPLAY\ntrackerTargetings: [{trackId: t}]\ncohortTargetings: [{cohortId: 7}]'),
    );
    expect(found.map((issue) => `${issue.line}:${issue.column}: ${issue.message}`)).toEqual([
      '5:25: audiences[0].trackerTargetings[0]: missing required field eventCode',
      '5:25: audiences[0].trackerTargetings[0]: missing required field inclusionType',
      '5:25: audiences[0].trackerTargetings[0]: missing its retention: retentionDays or trackerTargetingTerms',
      '6:24: audiences[0].cohortTargetings[0]: missing required field inclusionType',
    ]);
    expect(found.map((issue) => issue.hint)).toEqual([
      'a member is sent whole: the tracker event, e.g. eventCode: purchase',
      'a member is sent whole: inclusionType: INCLUDE to target these people, EXCLUDE to leave them out',
      'e.g. trackerTargetingTerms: [ONE_MONTH], as the service answers, or retentionDays: 30',
      'a member is sent whole: inclusionType: INCLUDE to target these people, EXCLUDE to leave them out',
    ]);
  });

  it('takes a member id as a number or a text, and refuses anything else', () => {
    const ids =
      'customerFileTargetings: [{customerFileId: 5001, inclusionType: INCLUDE}, {customerFileId: "5002", inclusionType: INCLUDE}]';
    expect(
      problems(oneAudience(`type: DISPLAY\n${ids}\ntalkChannelTargetings: [{profileId: 501, inclusionType: EXCLUDE}]`)),
    ).toEqual([]);
    const found = issues(
      oneAudience(
        'type: DISPLAY\ncohortTargetings: [{cohortId: "", inclusionType: INCLUDE}, {cohortId: 0, inclusionType: INCLUDE}, {cohortId: [1], inclusionType: INCLUDE}]',
      ),
    );
    expect(found.map((issue) => issue.message)).toEqual([
      'audiences[0].cohortTargetings[0].cohortId: "" must be an id: a whole number from 1 or a text that is not empty',
      'audiences[0].cohortTargetings[1].cohortId: 0 must be an id: a whole number from 1 or a text that is not empty',
      'audiences[0].cohortTargetings[2].cohortId: a list must be an id: a whole number from 1 or a text that is not empty',
    ]);
    expect(found.every((issue) => issue.hint !== undefined)).toBe(true);
  });

  it('refuses, as the service does, a name that is blank, too long or holds a control character', () => {
    const named = (name: string) =>
      issues(`adAccountId: 1\naudiences:\n  - name: ${JSON.stringify(name)}\n    type: DISPLAY\n`);
    for (const name of ['   ', 'a\u001b[31mb', 'a\u0000b', 'line\nbreak', 'a\u009bb']) {
      expect(named(name).map((issue) => `${issue.line}:${issue.column}: ${issue.message}`)).toEqual([
        `3:11: audiences[0].name: ${JSON.stringify(name)} must be 1 to 255 characters, not blank, without control characters (tabs, line breaks, escapes)`,
      ]);
    }
    expect(named('x'.repeat(256)).map((issue) => issue.message)).toEqual([
      'audiences[0].name: is 256 characters long as the service counts them, more than the 255 allowed',
    ]);
    expect(named('x'.repeat(255))).toEqual([]);
    // The service counts UTF-16 code units: 128 emoji are 256 of them.
    expect(named('😀'.repeat(128)).map((issue) => issue.message)).toEqual([
      'audiences[0].name: is 256 characters long as the service counts them, more than the 255 allowed',
    ]);
    expect(named('😀'.repeat(127))).toEqual([]);
    expect(named('서울 여성 20대')).toEqual([]);
    expect(named('\u2028line separator')).toEqual([]);
    expect(named('')[0]?.hint).toContain('1 to 255 characters');
  });

  it('takes a tracker retention as retentionDays or as the service trackerTargetingTerms, one of them, and lookalikes as a set', () => {
    const state = desired(
      oneAudience(
        'type: DISPLAY\ntrackerTargetings: [{trackId: t, eventCode: e, trackerTargetingTerms: [ONE_MONTH, ONE_WEEK, ONE_MONTH], inclusionType: INCLUDE}]\nlookalikeTargetings: [{lookalikeId: 8001, inclusionType: EXCLUDE}]',
      ),
    );
    expect(state.audiences[0]?.definition.trackerTargetings).toEqual([
      { eventCode: 'e', inclusionType: 'INCLUDE', trackId: 't', trackerTargetingTerms: ['ONE_MONTH', 'ONE_WEEK'] },
    ]);
    expect(state.audiences[0]?.definition.lookalikeTargetings).toEqual([
      { inclusionType: 'EXCLUDE', lookalikeId: 8001 },
    ]);
    const both = issues(
      oneAudience(
        'type: DISPLAY\ntrackerTargetings: [{trackId: t, eventCode: e, retentionDays: 30, trackerTargetingTerms: [ONE_MONTH], inclusionType: INCLUDE}]',
      ),
    );
    expect(both.map((issue) => issue.message)).toEqual([
      'audiences[0].trackerTargetings[0].trackerTargetingTerms: a tracker member holds its retention one way, not both retentionDays and trackerTargetingTerms',
    ]);
    const lower = issues(
      oneAudience(
        'type: DISPLAY\ntrackerTargetings: [{trackId: t, eventCode: e, trackerTargetingTerms: [one_month], inclusionType: INCLUDE}]',
      ),
    );
    expect(lower.map((issue) => issue.message)).toEqual([
      'audiences[0].trackerTargetings[0].trackerTargetingTerms[0]: "one_month" must be a term in capitals, e.g. ONE_MONTH',
    ]);
  });

  it('bounds retentionDays and refuses an unknown inclusionType with a suggestion', () => {
    const found = issues(
      oneAudience(
        'type: DISPLAY\ntrackerTargetings: [{trackId: t, eventCode: e, retentionDays: 181, inclusionType: INCLUD}]',
      ),
    );
    expect(found.map((issue) => [issue.message, issue.hint])).toEqual([
      [
        'audiences[0].trackerTargetings[0].retentionDays: must be at most 180, got 181',
        'retentionDays: days a visitor stays in the audience, 1 to 180 (or trackerTargetingTerms)',
      ],
      ['audiences[0].trackerTargetings[0].inclusionType: unknown value "INCLUD"', 'did you mean INCLUDE?'],
    ]);
  });

  it('gives every problem of the schema a hint, from the field it is about when nothing more specific fits', () => {
    const found = issues(
      [
        'adAccountId: "x"',
        'prune: 1',
        'audiences:',
        '  - name: ""',
        '    type: DISPLAY',
        '    protect: "true"',
        '    adGroups: ["x", -1]',
        '  - just-a-string',
        'business: 120-81-47521',
        '',
      ].join('\n'),
    );
    expect(found).toHaveLength(8);
    expect(found.filter((issue) => issue.hint === undefined)).toEqual([]);
    expect(found.map((issue) => issue.hint)).toContain(
      'adAccountId: the ad account this file describes. Several files may describe one account: each names the others under `accountFiles`',
    );
    expect(found.map((issue) => issue.hint)).toContain(
      'adGroups: an id of the service (a Long): a whole number, or its digits in quotes, which an id above 9007199254740991 needs to be read exactly',
    );
  });

  it('refuses ids too large to be read exactly, rather than send another one', () => {
    const found = issues(
      'adAccountId: 9007199254740993\naudiences:\n  - {name: a, type: DISPLAY, id: 123456789012345678901, adGroups: [9007199254740992]}\n',
    );
    expect(found.map((issue) => issue.message)).toEqual([
      'adAccountId: is a number past 9007199254740991, which cannot be read exactly',
      'audiences[0].id: is a number past 9007199254740991, which cannot be read exactly',
      'audiences[0].adGroups[0]: is a number past 9007199254740991, which cannot be read exactly',
    ]);
    expect(found.map((issue) => issue.hint)).toEqual([
      'an id this large cannot be read exactly: check it against the ad manager',
      'write the id in quotes, e.g. "9007199254740993": an id past 9007199254740991 is read exactly as text, as `audiences import` writes it',
      'write the id in quotes, e.g. "9007199254740993": an id past 9007199254740991 is read exactly as text, as `audiences import` writes it',
    ]);
  });

  it('reads an id in quotes with every digit, past 2^53 too; 5001 and "5001" pin one audience', () => {
    const state = desired(
      'adAccountId: 1\naudiences:\n  - {name: a, type: DISPLAY, id: "9007199254740993", adGroups: ["9007199254740995", 101]}\n',
    );
    expect(state.audiences[0]).toMatchObject({ id: '9007199254740993', adGroups: ['101', '9007199254740995'] });
    const found = issues(
      'adAccountId: 1\naudiences:\n  - {name: a, type: DISPLAY, id: 5001}\n  - {name: b, type: DISPLAY, id: "5001"}\n  - {name: c, type: DISPLAY, id: "05001"}\n',
    );
    expect(found.map((issue) => issue.message)).toEqual([
      'audiences[1].id: 5001 is already pinned by audiences[0] (line 3)',
      'audiences[2].id: "05001" must be an id: a whole number from 1 (in quotes above 9007199254740991, to be read exactly)',
    ]);
  });

  it('checks the business registration number form', () => {
    const [issue] = issues('adAccountId: 1\nbusiness:\n  registrationNumber: 1208147521\naudiences: []\n');
    expect(issue).toMatchObject({
      line: 3,
      column: 23,
      message: 'business.registrationNumber: expected text, got 1208147521',
    });
    expect(issue?.hint).toBe('write it with its hyphens: 120-81-47521');
    const [malformed] = issues('adAccountId: 1\nbusiness:\n  registrationNumber: "12-345"\naudiences: []\n');
    expect(malformed?.message).toBe(
      'business.registrationNumber: "12-345" must be a business registration number NNN-NN-NNNNN, e.g. 120-81-47521',
    );
  });

  it('reports every problem of the file at once, in reading order, with JSON pointers', () => {
    const found = issues(
      'adAccountId: x\naudiences:\n  - {name: a, type: DISPLY}\n  - {name: a, type: DISPLAY, agess: [1]}\n',
    );
    expect(found.map((issue) => [issue.line, issue.column, issue.pointer])).toEqual([
      [1, 14, '/adAccountId'],
      [3, 21, '/audiences/0/type'],
      [4, 12, '/audiences/1/name'],
      [4, 30, '/audiences/1/agess'],
    ]);
  });
});

describe('validateConfig: shorthands and the values they take', () => {
  it('takes ages as numbers or strings, and explains a value that is not a band', () => {
    expect(desired(oneAudience('type: DISPLAY\nages: [20, "65", 15]')).audiences[0]?.definition.ages).toEqual([
      '15',
      '20',
      '65',
    ]);
    const [issue] = issues(oneAudience('type: DISPLAY\nages: [18]'));
    expect(issue).toMatchObject({ line: 5, column: 12, message: 'audiences[0].ages[0]: 18 is not an age band' });
    expect(issue?.hint).toContain('18 is in the band 15 (15 to 19)');
    expect(issues(oneAudience('type: DISPLAY\nages: [70]'))[0]?.hint).toContain('15 to 19 up to 65 to 69');
  });

  it('takes a province code for a location and suggests the code for a province name', () => {
    expect(desired(oneAudience('type: DISPLAY\nlocations: [I]')).audiences[0]?.definition.locations).toEqual([
      { value: 'I' },
    ]);
    const found = issues(oneAudience('type: DISPLAY\nlocations: [Seoul, i, I01, I0101, X]'));
    expect(found.map((issue) => [issue.column, issue.message, issue.hint])).toEqual([
      [17, 'audiences[0].locations[0]: "Seoul" is not a province code', 'did you mean I (Seoul)?'],
      [24, 'audiences[0].locations[1]: "i" is not a province code', 'did you mean I (Seoul)?'],
      [
        27,
        'audiences[0].locations[2]: "I01" is not a province code',
        'I01 has the form of a district code, which depth2Locations takes; whether that district exists only the service can tell, when the plan is applied',
      ],
      [
        32,
        'audiences[0].locations[3]: "I0101" is not a province code',
        'I0101 has the form of a town code, which depth3Locations takes; whether that town exists only the service can tell, when the plan is applied',
      ],
      [39, 'audiences[0].locations[4]: "X" is not a province code', expect.stringContaining('I Seoul')],
    ]);
  });

  it('takes district and town codes, and says where a code of another depth belongs', () => {
    const found = issues(oneAudience('type: DISPLAY\ndepth2Locations: [I, i01]\ndepth3Locations: [I01]'));
    expect(found.map((issue) => [issue.line, issue.column, issue.message, issue.hint])).toEqual([
      [
        5,
        23,
        'audiences[0].depth2Locations[0]: "I" must be a district code: a province letter and two digits, e.g. I01',
        'I is a province code: list it under locations',
      ],
      [
        5,
        26,
        'audiences[0].depth2Locations[1]: "i01" must be a district code: a province letter and two digits, e.g. I01',
        'did you mean I01?',
      ],
      [
        6,
        23,
        'audiences[0].depth3Locations[0]: "I01" must be a town code: a province letter and four digits, e.g. I0101',
        'I01 has the form of a district code, which depth2Locations takes; whether that district exists only the service can tell, when the plan is applied',
      ],
    ]);
  });

  it('checks the fields of a region object, and a region that is neither code nor map', () => {
    const found = issues(oneAudience('type: DISPLAY\nlocations: [{value: I, depth2Name: x}, {description: y}, 5]'));
    expect(found.map((issue) => [issue.column, issue.message])).toEqual([
      [28, 'audiences[0].locations[0].depth2Name: unknown field'],
      [44, 'audiences[0].locations[1]: missing required field value'],
      [62, 'audiences[0].locations[2]: expected a region code or a map with value:, got 5'],
    ]);
  });

  it('names the genders when one is mistyped', () => {
    const found = issues(oneAudience('type: DISPLAY\ngenders: [female, m, X]'));
    expect(found.map((issue) => issue.hint)).toEqual([
      'did you mean F?',
      'did you mean M?',
      'genders are F (female) and M (male)',
    ]);
  });

  it('refuses empty lists where an empty list would mean everyone', () => {
    const found = issues(oneAudience('type: DISPLAY\nages: []'));
    expect(found.map((issue) => [issue.line, issue.column, issue.message, issue.hint])).toEqual([
      [5, 11, 'audiences[0].ages: must not be empty', 'to target every age, leave out ages (and ageType)'],
    ]);
  });
});

describe('validateConfig: did you mean', () => {
  it('suggests the field for a mistyped or miscased one, at the key', () => {
    const found = issues(oneAudience('type: DISPLAY\nagess: [20]\ndepth2locations: [I01]\nlocationtype: AREA'));
    expect(found.map((issue) => [issue.line, issue.column, issue.message, issue.hint])).toEqual([
      [5, 5, 'audiences[0].agess: unknown field', 'did you mean ages?'],
      [6, 5, 'audiences[0].depth2locations: unknown field', 'did you mean depth2Locations?'],
      [7, 5, 'audiences[0].locationtype: unknown field', 'did you mean locationType?'],
    ]);
  });

  it('suggests the enum value for a mistyped one, at the value', () => {
    const [issue] = issues(oneAudience('type: DISPLY'));
    expect(issue).toMatchObject({
      line: 4,
      column: 11,
      message: 'audiences[0].type: unknown value "DISPLY"',
      hint: 'did you mean DISPLAY?',
    });
    expect(issues(oneAudience('type: display'))[0]?.hint).toBe('did you mean DISPLAY?');
  });

  it('lists the choices when nothing is close', () => {
    expect(issues(oneAudience('type: BANNER'))[0]?.hint).toBe('one of DISPLAY, MESSAGE');
    expect(issues('adAccountId: 1\naudiences: []\nzzz: 1\n')[0]?.hint).toBe(
      'the fields here are adAccountId, accountFiles, prune, pruneImages, requestsPerSecond, massDelete, ignore, protect, business, images, audiences',
    );
  });

  it('suggests a root field', () => {
    expect(
      issues('adAccountId: 1\naudience: []\n').map((issue) => [issue.line, issue.column, issue.message, issue.hint]),
    ).toEqual([
      [1, 1, 'missing required field audiences', 'list the audiences of the account (audiences: [] for none)'],
      [2, 1, 'audience: unknown field', 'did you mean audiences?'],
    ]);
  });
});

describe('validateConfig: wrong types', () => {
  it('explains quoted numbers, YAML 1.1 booleans, scalars for lists and empty values', () => {
    const found = issues('adAccountId: "12"\nprune: yes\nignore: legacy\naudiences:\n');
    expect(found.map((issue) => [issue.line, issue.column, issue.message, issue.hint])).toEqual([
      [1, 14, 'adAccountId: expected a whole number, got "12"', 'write the number without quotes'],
      [2, 8, 'prune: expected true or false, got "yes"', 'YAML 1.2 reads yes as text: write true or false'],
      [3, 9, 'ignore: expected a list, got "legacy"', 'write a list: [legacy], or one "- " item per line'],
      [4, 1, 'audiences: expected a list, got nothing', 'give a value, or leave the field out'],
    ]);
  });

  it('suggests quotes for a name YAML reads as a number', () => {
    expect(
      issues('adAccountId: 1\naudiences:\n  - {name: 2024, type: DISPLAY}\n').map((issue) => [
        issue.column,
        issue.message,
        issue.hint,
      ]),
    ).toEqual([[12, 'audiences[0].name: expected text, got 2024', 'YAML reads 2024 as a number: quote it, "2024"']]);
  });

  it('refuses a list where the file must be a map', () => {
    expect(problems('- adAccountId: 1\n')).toEqual([
      '1:1: the file must be a map (adAccountId:, audiences: …), not a list',
    ]);
  });

  it('says a file the tool writes is not a desired-state file, by keys a desired-state file cannot hold', () => {
    expect(issues('{"lockVersion": 1, "images": {}}')).toMatchObject([
      { line: 0, message: 'this is the image lock (written by the tool), not a desired-state file' },
    ]);
    expect(issues('[{"formatVersion": 2, "adAccountId": 1, "changes": []}]')).toMatchObject([
      { line: 0, message: expect.stringMatching(/^this is a saved plan/) },
    ]);
    // A desired-state file with a stray key is still one, its key unknown; so is a list of other things.
    expect(problems('adAccountId: 1\nlockVersion: 1\naudiences: []\n')).toEqual(['2:1: lockVersion: unknown field']);
    expect(problems('[{formatVersion: 2, changes: []}, {}]')).toEqual([
      '1:1: the file must be a map (adAccountId:, audiences: …), not a list',
    ]);
  });

  it('refuses a list where an audience must be a map', () => {
    expect(problems('adAccountId: 1\naudiences:\n  - [a, b]\n')).toEqual([
      '3:5: audiences[0]: expected a map, got a list',
    ]);
  });
});

describe('validateConfig: hostile and broken input', () => {
  it('an empty file, or one of comments only', () => {
    expect(problems('')).toEqual(['1:1: the file is empty']);
    expect(problems('# nothing\n\n')).toEqual(['1:1: the file is empty']);
  });

  it('duplicate keys, at the second', () => {
    expect(problems('adAccountId: 1\naudiences: []\nadAccountId: 2\n')).toEqual(['3:1: duplicate key "adAccountId"']);
  });

  it('a second document', () => {
    expect(problems('adAccountId: 1\naudiences: []\n---\nadAccountId: 2\n')).toEqual([
      '3:1: a second YAML document starts here (---)',
    ]);
  });

  it('YAML syntax errors, each with its position', () => {
    const found = issues('adAccountId: 1\naudiences:\n\t- name: a\n');
    expect(found.map((issue) => [issue.line, issue.column, issue.message, issue.hint])).toEqual([
      [3, 1, 'YAML: tabs are not allowed as indentation', 'indent with spaces'],
    ]);
  });

  it('a key that is a list is an unknown field, with no warning of its own on stderr', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      expect(problems('adAccountId: 1234\n? [a, b]\n: 1\naudiences: []\n')).toEqual(['1:1: [ a, b ]: unknown field']);
      // Node delivers warnings on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('YAML syntax errors, each with a hint that points at the likely cause', () => {
    const [unclosed] = issues('adAccountId: 1\naudiences:\n  - name: "unclosed\n    type: DISPLAY\n');
    expect(unclosed).toMatchObject({ line: 3, column: 11, message: 'YAML: the quote opened here is not closed' });
    expect(unclosed?.hint).toContain('close it on this line');
    const misaligned = issues('adAccountId: 1\naudiences:\n  - name: a\n     type: DISPLAY\n');
    expect(misaligned.length).toBeGreaterThan(0);
    for (const issue of misaligned) expect(issue.hint).toMatch(/indentation|column/);
  });

  it('an unclosed bracket is said where it opens, not blamed on the indentation of the line where yaml stopped', () => {
    const file = (ages: string) =>
      `adAccountId: 1\naudiences:\n  - name: a\n    type: DISPLAY\n    ages: ${ages}\n    genders: [F]\n`;
    expect(problems(file('[20, 25'))).toEqual(['5:11: YAML: the list opened with "[" is not closed with "]"']);
    expect(issues(file('{a: [20]'))).toEqual([
      expect.objectContaining({
        line: 5,
        column: 11,
        message: 'YAML: the map opened with "{" is not closed with "}"',
        hint: expect.stringMatching(/^end the map with "}"/),
      }),
    ]);
    // Closed, but on a line no deeper than its key: that is the indentation.
    expect(issues('adAccountId: 1\naudiences:\n  - name: a\n    type: DISPLAY\n    ages: [20,\n    25]\n')).toEqual([
      expect.objectContaining({
        line: 6,
        message:
          'YAML: this line goes on with the list opened with "[" on line 5, but is not indented deeper than its key',
        hint: 'indent each line of a list written across lines deeper than its key, or write it on one line',
      }),
    ]);
    // Thousands of unclosed brackets: one problem for them, no stack overflow.
    expect(problems(`adAccountId: 1\naudiences: ${'[a, '.repeat(5000)}\n`)).toEqual([
      expect.stringMatching(/^2:\d+: YAML: the list opened with "\[" is not closed with "]"$/),
      expect.stringMatching(/^2:\d+: the file nests too deeply to read$/),
    ]);
  });

  it('a key out of line is blamed on its indentation, not on a bracket or quote left open', () => {
    for (const text of [
      'adAccountId: 1\naudiences:\n  - name: a\n    type: DISPLAY\n   ages: [20]\n',
      'adAccountId: 1\naudiences:\n  - name: a\n    type DISPLAY\n',
      'adAccountId: 1\naudiences:\n  - name: a\n    type: DISPLAY\n - name: b\n   type: DISPLAY\n',
    ]) {
      const found = issues(text);
      expect(found.length).toBeGreaterThan(0);
      for (const issue of found) expect(issue.hint, issue.message).toMatch(/indentation/);
      for (const issue of found) expect(issue.hint, issue.message).not.toMatch(/not closed|opened earlier/);
    }
  });

  it('deep nesting: one clear problem, no stack overflow', () => {
    const found = issues(`adAccountId: 1\naudiences: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toBe('the file nests too deeply to read');
    expect(found[0]?.line).toBe(2);
  });

  it('a huge scalar: the problem with it, no stack overflow', () => {
    const length = LIMITS.bytes - 1024;
    expect(problems(`adAccountId: 1\naudiences:\n  - name: ${'x'.repeat(length)}\n    type: DISPLAY\n`)).toEqual([
      `3:11: audiences[0].name: is ${length} characters long as the service counts them, more than the 255 allowed`,
    ]);
  });

  it('nesting below what the parser refuses but past the limit', () => {
    const depth = LIMITS.depth + 5;
    expect(
      problems(
        `adAccountId: 1\naudiences: []\nimages: [{name: x, output: y, deep: ${'['.repeat(depth)}${']'.repeat(depth)}}]\n`,
      ),
    ).toEqual([`1:1: the file nests deeper than ${LIMITS.depth} levels`]);
  });

  it('an alias bomb, at the first alias', () => {
    let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    for (let level = 0; level < 9; level += 1) {
      const from = String.fromCharCode(97 + level);
      const to = String.fromCharCode(98 + level);
      text += `${to}: &${to} [${Array.from({ length: 9 }, () => `*${from}`).join(',')}]\n`;
    }
    const started = Date.now();
    expect(problems(text)).toEqual([`2:8: aliases expand to too much data (more than ${LIMITS.aliases} reuses)`]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an alias without its anchor', () => {
    expect(problems('adAccountId: 1\naudiences: *nope\n')).toEqual(['2:12: unknown anchor *nope']);
  });

  it('too many values, counting each alias expansion', () => {
    const block = Array.from({ length: 1000 }, () => 'x').join(',');
    const uses = Array.from({ length: Math.ceil(LIMITS.values / 1000) + 1 }, () => '*a').join(',');
    const text = `adAccountId: 1\naudiences: []\nx: &a [${block}]\ny: [${uses}]\n`;
    expect(problems(text)).toEqual([
      `1:1: the file holds too many values (more than ${LIMITS.values}, counting each alias expansion)`,
    ]);
  });

  it('too many values in a plain file: at the first line of the map, as in any other layout', () => {
    const text = `# a comment\n\nadAccountId: 1\naudiences: []\nx:\n${'  - 1\n'.repeat(LIMITS.values)}`;
    expect(issues(text)).toEqual([
      {
        file: 'audiences.yaml',
        line: 3,
        column: 1,
        pointer: '',
        message: `the file holds too many values (more than ${LIMITS.values}, counting each alias expansion)`,
        hint: expect.stringContaining('is this the right file?'),
      },
    ]);
    // A file yaml reads (aliases are not the plain layout) says it at the same place.
    const block = Array.from({ length: 1000 }, () => 'x').join(',');
    const uses = Array.from({ length: Math.ceil(LIMITS.values / 1000) + 1 }, () => '*a').join(',');
    const aliased = `# a comment\n\nadAccountId: 1\naudiences: []\nx: &a [${block}]\ny: [${uses}]\n`;
    expect(problems(aliased)).toEqual([
      `3:1: the file holds too many values (more than ${LIMITS.values}, counting each alias expansion)`,
    ]);
  });

  it('certainly too many values, written in a way yaml reads slowly: refused before it reads them', () => {
    const text = `adAccountId: 1\naudiences: []\nx: [${'1,'.repeat(LIMITS.values + 1)}1]\n`;
    expect(issues(text)).toEqual([
      {
        file: 'audiences.yaml',
        line: 0,
        column: 0,
        pointer: '',
        message: `the file holds too many values (more than ${LIMITS.values}, counting each alias expansion)`,
        hint: expect.stringContaining('is this the right file?'),
      },
    ]);
  });

  it('text past the size limit, before parsing it', () => {
    const [issue] = issues('#'.repeat(LIMITS.bytes + 1));
    expect(issue).toMatchObject({ line: 0, column: 0, message: 'the file is too large (8.0 MB; the limit is 8.0 MB)' });
  });

  it('reports every one of many problems', () => {
    const lines = Array.from({ length: 300 }, (_, index) => `  - {name: a${index}, type: DISPLAY, ages: [17]}`);
    expect(issues(`adAccountId: 1\naudiences:\n${lines.join('\n')}\n`)).toHaveLength(300);
  });
});

describe('formatting', () => {
  const issue: ConfigIssue = { file: 'a.yaml', line: 3, column: 7, pointer: '/x', message: 'x: bad', hint: 'fix it' };

  it('prints FILE:LINE:COL: message and the hint on its own line', () => {
    expect(formatIssue(issue)).toBe('a.yaml:3:7: x: bad\n  hint: fix it');
    expect(formatIssue({ ...issue, hint: undefined }, 'warning')).toBe('a.yaml:3:7: warning: x: bad');
    expect(formatIssue({ ...issue, line: 0, column: 0, hint: undefined })).toBe('a.yaml: x: bad');
  });

  it('counts what it does not show', () => {
    const many = Array.from({ length: 205 }, () => ({ ...issue, hint: undefined }));
    const lines = formatIssues(many);
    expect(lines).toHaveLength(201);
    expect(lines.at(-1)).toBe('… and 5 more problems');
  });

  it('ConfigError carries every issue, for the plan command to throw', () => {
    const error = new ConfigError([issue, { ...issue, line: 1, hint: undefined }]);
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      source: 'user',
      summary: 'a.yaml is not valid (2 problems)',
    });
    expect(error.issues).toHaveLength(2);
    expect(error.detail).toBe('a.yaml:1:7: x: bad\na.yaml:3:7: x: bad\n  hint: fix it');
  });
});

describe('validateConfig: what the file prunes, and its mass-delete guard', () => {
  const desiredOf = (head: string) => desired(`adAccountId: 1234\n${head}audiences: []\n`);

  it('prunes images as it prunes audiences unless pruneImages says otherwise', () => {
    expect(desiredOf('prune: true\n')).toMatchObject({ prune: true, pruneImages: true });
    expect(desiredOf('')).toMatchObject({ prune: false, pruneImages: false });
    expect(desiredOf('pruneImages: true\n')).toMatchObject({ prune: false, pruneImages: true });
    expect(desiredOf('prune: true\npruneImages: false\n')).toMatchObject({ prune: true, pruneImages: false });
  });

  it('takes the mass-delete guard as far as the file sets it', () => {
    expect(desiredOf('massDelete: { percent: 50, minimum: 0 }\n').massDelete).toEqual({ ratio: 0.5, minManaged: 0 });
    expect(desiredOf('massDelete: { minimum: 3 }\n').massDelete).toEqual({ minManaged: 3 });
    expect(desiredOf('').massDelete).toBeUndefined();
  });

  it("takes the account's requestsPerSecond within the bounds of --requests-per-second, and refuses any other", () => {
    expect(desiredOf('requestsPerSecond: 2.5\n').requestsPerSecond).toBe(2.5);
    expect(desiredOf('').requestsPerSecond).toBeUndefined();
    const { min, max } = REQUESTS_PER_SECOND;
    expect([desiredOf(`requestsPerSecond: ${min}\n`), desiredOf(`requestsPerSecond: ${max}\n`)]).toMatchObject([
      { requestsPerSecond: min },
      { requestsPerSecond: max },
    ]);
    const refused = (value: string) =>
      issues(`adAccountId: 1\nrequestsPerSecond: ${value}\naudiences: []\n`).map((issue) => [
        issue.line,
        issue.column,
        issue.message,
        issue.hint?.startsWith("requestsPerSecond: the account's quota, from 0.1 to 1000 requests a second"),
      ]);
    expect(refused('0')).toEqual([[2, 20, 'requestsPerSecond: must be at least 0.1, got 0', true]]);
    expect(refused(String(max + 1))).toEqual([[2, 20, 'requestsPerSecond: must be at most 1000, got 1001', true]]);
    expect(refused('fast')).toEqual([[2, 20, 'requestsPerSecond: expected a number, got "fast"', true]]);
  });
});
